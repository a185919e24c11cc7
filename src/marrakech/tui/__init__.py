"""Play Marrakech in the terminal: a Textual app (``marrakech play``, the ``tui`` extra).

The app renders core states and sends core actions; every rule stays in the core
(``legal_actions``, ``describe``, ``scores``, ``ranks``). The pieces:

- :mod:`marrakech.tui.session`: a game being played (seats, history, undo, records),
  free of Textual so it is easy to test;
- :mod:`marrakech.tui.board`: the board widget (rim arcs and loops, carpets, Assam);
- :mod:`marrakech.tui.screens` and :mod:`marrakech.tui.app`: setup, game, replay, help,
  end, save and load screens;
- :mod:`marrakech.tui.strings`: the interface's words in English and French.
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
