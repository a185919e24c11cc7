"""Play Marrakech in the terminal: a Textual app (``marrakech play``, the ``tui`` extra).

The app renders core states and sends core actions; every rule stays in the core
(``legal_actions``, ``describe``, ``scores``, ``ranks``, :mod:`marrakech.preview`). The
pieces:

- :mod:`marrakech.tui.session`: a game being played (seats, history, chance outcomes
  kept across undo, records), free of Textual so it is easy to test;
  :mod:`marrakech.tui.choice`: the decision a human is making (legal facings and
  placements, squares typed, what each roll would do), free of Textual too;
- :mod:`marrakech.tui.board`: the board widget (rim arcs and loops, carpets, Assam);
- :mod:`marrakech.tui.app`: the app, which moves between the main screens
  (:mod:`~marrakech.tui.setup_screen`, :mod:`~marrakech.tui.game_screen`,
  :mod:`~marrakech.tui.replay_screen`, sharing :mod:`~marrakech.tui.screen_base`; they never
  import the app) and opens the dialogs (:mod:`~marrakech.tui.dialogs`: help, end, the
  question before leaving a game, files with their picker);
  :mod:`marrakech.tui.widgets`: seat panels, log, status line, prompt, outlook;
- :mod:`marrakech.tui.strings`: the interface's words in English and French;
  :mod:`marrakech.tui.timing`: the animation speeds; :mod:`marrakech.tui.cli`:
  ``marrakech play``, checked before the screen opens.
"""

from __future__ import annotations

__all__ = ["MarrakechApp", "SeatSpec", "Session"]


def __getattr__(name: str) -> object:
    # Import lazily so ``marrakech.tui.session`` works without loading Textual.
    if name == "MarrakechApp":
        from marrakech.tui.app import MarrakechApp

        return MarrakechApp
    if name in ("Session", "SeatSpec"):
        from marrakech.tui import session

        return getattr(session, name)
    raise AttributeError(f"module 'marrakech.tui' has no attribute {name!r}")
