"""The decision a human is making at the keyboard, read from the core.

Keys, buttons and clicks of the game screen work on a :class:`Choice` and never decide
what is legal: while orienting, the facings offered are those the legal ``Orient``
actions leave Assam in (``state.describe(action).facing_after``, R9); while placing, the
placements are the legal ones (R14-R16), one of them previewed::

    >>> from marrakech import State
    >>> choice = Choice(State.new(players=3))       # Assam on d4 faces North
    >>> sorted(choice.orientations), choice.face(2)  # never a half turn (R9)
    ([0, 1, 3], False)
    >>> choice.face(choice.facing_of(Orient(-1))), choice.facing, choice.decision()
    (True, 3, Orient(-1))

While orienting, :attr:`Choice.outlook` is what the die would do after the orientation
shown (:func:`marrakech.preview.preview_orientations`, R10-R13): where each roll lands,
what it would cost::

    >>> [(r.roll.steps, r.landing, r.due) for r in choice.outlook.rolls]  # facing West
    [(1, 23, 0), (2, 22, 0), (3, 21, 0), (4, 28, 0)]

A hint's advice is selected as the keys would select it (:meth:`Choice.select`)::

    >>> choice.select(Orient(+1)), choice.facing, choice.decision()
    (True, 1, Orient(+1))
"""

from __future__ import annotations

from functools import cached_property
from typing import cast

from marrakech.actions import Action, Orient, Place
from marrakech.bots.analysis import Hint
from marrakech.geometry import parse_square
from marrakech.preview import OrientPreview, preview_orientations
from marrakech.state import State


class Choice:
    """What the human to move may do in ``state``, and what they have chosen so far.

    ``orientations`` maps each facing Assam may take to the action that gives it (empty
    unless orienting), ``facing`` is the one shown (at first his own); ``placements``
    are the legal placements (empty unless placing), ``index`` the one previewed.
    """

    def __init__(self, state: State) -> None:
        self.state = state
        legal = state.legal_actions()
        self.orientations: dict[int, Orient] = {
            cast(int, state.describe(action).facing_after): action
            for action in legal
            if isinstance(action, Orient)
        }
        self.placements: list[Place] = [action for action in legal if isinstance(action, Place)]
        self.facing = state.assam_facing if self.orientations else None
        self.index = 0
        self.typed = ""  # a square's letter typed, waiting for its number
        self.first: int | None = None  # the first square of a placement typed
        self.attempt: tuple[int, ...] = ()  # the square(s) of the last thing typed
        self.hint: Hint | None = None  # the advice shown for this position, if asked

    @property
    def orienting(self) -> bool:
        return bool(self.orientations)

    @property
    def placing(self) -> bool:
        return bool(self.placements)

    @cached_property
    def outlooks(self) -> dict[int, OrientPreview]:
        """While orienting, for each facing offered: what each roll would do after it."""
        if not self.orientations:
            return {}
        return {preview.facing: preview for preview in preview_orientations(self.state)}

    @property
    def outlook(self) -> OrientPreview | None:
        """What each roll would do after the orientation shown (None unless orienting)."""
        return self.outlooks.get(self.facing) if self.facing is not None else None

    @property
    def preview(self) -> Place | None:
        """The placement previewed, if placing."""
        if not self.placements:
            return None
        return self.placements[self.index % len(self.placements)]

    def facing_of(self, action: Orient) -> int | None:
        """The facing the orientation ``action`` gives, or None if it is not legal now."""
        return next((f for f, legal in self.orientations.items() if legal == action), None)

    def face(self, facing: int | None) -> bool:
        """Show Assam facing ``facing``; False (and nothing changes) if no legal
        orientation gives it."""
        if facing not in self.orientations:
            return False
        self.facing = facing
        return True

    def cycle(self, delta: int) -> None:
        """Preview the next (``+1``) or previous (``-1``) legal placement."""
        self.index = (self.index + delta) % len(self.placements)

    def point(self, square: int) -> bool:
        """Preview a legal placement covering ``square``: the next one covering it if the
        previewed one does. False (and nothing changes) if none covers it."""
        covering = [i for i, action in enumerate(self.placements) if square in action.squares]
        if not covering:
            return False
        current = self.index % len(self.placements)
        if current in covering:
            self.index = covering[(covering.index(current) + 1) % len(covering)]
        else:
            self.index = covering[0]
        return True

    def legal_on(self, square: int) -> list[str]:
        """The legal placements covering ``square``, as tokens."""
        return [str(action) for action in self.placements if square in action.squares]

    def type_char(self, char: str) -> str:
        """A character typed while placing: squares are typed as a letter and a number
        (``b3``), two of them for a placement (``b3-c3``, the ``-`` optional). Says what it
        did: ``letter`` (waiting for the number), ``first`` (a legal placement covering
        that square is shown), ``chosen`` (the placement of both squares is shown), or
        why nothing changed: ``uncovered`` (no legal placement covers the square),
        ``not_adjacent`` (two squares that are not side by side, R14), ``not_legal`` (the
        core does not offer that placement), ``number_first``, ``ignored``."""
        if char in "abcdefg":
            self.typed = char
            return "letter"
        if char not in "1234567":
            return "ignored"
        if not self.typed:
            return "number_first"
        square = parse_square(self.typed + char)
        self.typed = ""
        first, self.first = self.first, None
        self.attempt = (square,) if first is None or first == square else (first, square)
        if first is None or first == square:
            if not self.point(square):
                return "uncovered"
            self.first = square
            return "first"
        try:
            wanted = Place(first, square)
        except ValueError:
            return "not_adjacent"
        if wanted not in self.placements:
            return "not_legal"
        self.index = self.placements.index(wanted)
        return "chosen"

    def select(self, action: Action) -> bool:
        """Select the legal decision ``action`` as keys would: the facing its
        orientation gives, or its placement previewed (what was typed is dropped).
        False (and nothing changes) if it is not a decision offered now."""
        if isinstance(action, Orient):
            return self.face(self.facing_of(action))
        if isinstance(action, Place) and action in self.placements:
            self.index = self.placements.index(action)
            self.typed, self.first = "", None
            return True
        return False

    def decision(self) -> Action:
        """The action chosen: the orientation giving the facing shown, or the placement
        previewed."""
        if self.facing is not None:
            return self.orientations[self.facing]
        preview = self.preview
        if preview is None:
            raise ValueError(f"nothing to decide in the {self.state.phase.name} phase")
        return preview


__all__ = ["Choice"]
