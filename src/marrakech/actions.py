"""Actions: small immutable values with a short token and a fixed integer id.

=========  ==================  ===============  =========================================
kind       example             token            id
=========  ==================  ===============  =========================================
Orient     ``Orient(-1)``      ``L`` ``S`` ``R``  0, 1, 2 (left, straight, right)
Place      ``Place(c3, c4)``   ``c3-c4``        3 + slot index (84 slots), so 3..86
Roll       ``Roll(3)``         ``r3``           87..90 (chance)
Draw       ``Draw(YELLOW)``    ``+Y``           91..94 (chance, 2 players)
Resign     ``Resign(2)``       ``resign:2``     95..98 (any seat still in, R22)
=========  ==================  ===============  =========================================

A resignation is not one of the game's moves: it is outside :data:`ACTION_IDS` (the ids
of the rulebook's decisions and chance outcomes, which learning code indexes), and never
among ``legal_actions()``; an interface offers it to any seat still in the game.

Ids 0..86 are the decisions a learning agent chooses from (:data:`DECISION_IDS`)::

    >>> parse_action("c3-c4").id, str(Orient(+1)), parse_action("r2")
    (61, 'R', Roll(2))
"""

from __future__ import annotations

from marrakech.errors import NotationError
from marrakech.geometry import SLOTS, Slot, parse_square, slot_between, square_name
from marrakech.rules import COLOUR_LETTERS, COLOUR_NAMES

ORIENT_TOKENS = ("L", "S", "R")
ORIENT_NAMES = ("left", "straight", "right")
PLACE_BASE = 3
ROLL_BASE = PLACE_BASE + len(SLOTS)  # 87
DRAW_BASE = ROLL_BASE + 4  # 91
DECISION_IDS = ROLL_BASE  # 87 decision ids: 3 orientations + 84 carpet slots
ACTION_IDS = DRAW_BASE + 4  # 95 ids of the rulebook's actions
RESIGN_BASE = ACTION_IDS  # 95..98: a seat leaves the game (R22)


class Action:
    """Base of the four action kinds. Actions are equal when their ids are equal."""

    __slots__ = ("id",)
    id: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and other.id == self.id

    def __hash__(self) -> int:
        return self.id

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def token(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.token()

    @property
    def is_chance(self) -> bool:
        return ROLL_BASE <= self.id < RESIGN_BASE


class Orient(Action):
    """Turn Assam before rolling (R9): ``-1`` a quarter left, ``0`` keep, ``+1`` right."""

    __slots__ = ("turn",)
    turn: int

    def __init__(self, turn: int) -> None:
        if turn not in (-1, 0, 1):
            raise ValueError(f"Orient takes -1, 0 or +1 (never a half turn, R9), found {turn}")
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "id", turn + 1)

    def token(self) -> str:
        return ORIENT_TOKENS[self.turn + 1]

    def __repr__(self) -> str:
        return f"Orient({self.turn:+d})" if self.turn else "Orient(0)"

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (Orient, (self.turn,))


class Place(Action):
    """Place a carpet on two adjacent squares (R14); stored lower-left square first."""

    __slots__ = ("slot",)
    slot: Slot

    def __init__(self, a: int, b: int) -> None:
        object.__setattr__(self, "slot", slot_between(a, b))
        object.__setattr__(self, "id", PLACE_BASE + self.slot.number)

    @property
    def squares(self) -> tuple[int, int]:
        return self.slot.low, self.slot.high

    def token(self) -> str:
        return f"{square_name(self.slot.low)}-{square_name(self.slot.high)}"

    def __repr__(self) -> str:
        return f"Place({self.token()})"

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        return (Place, self.squares)


class Roll(Action):
    """The die shows ``steps`` (1..4) babouches (chance, R3)."""

    __slots__ = ("steps",)
    steps: int

    def __init__(self, steps: int) -> None:
        if steps not in (1, 2, 3, 4):
            raise ValueError(f"the die shows 1 to 4 babouches (R3), found {steps}")
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "id", ROLL_BASE + steps - 1)

    def token(self) -> str:
        return f"r{self.steps}"

    def __repr__(self) -> str:
        return f"Roll({self.steps})"

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (Roll, (self.steps,))


class Draw(Action):
    """A carpet of ``colour`` comes to the top of a 2-player pile (chance, R7)."""

    __slots__ = ("colour",)
    colour: int

    def __init__(self, colour: int) -> None:
        if colour not in (0, 1, 2, 3):
            raise ValueError(f"colours are 0..3, found {colour}")
        object.__setattr__(self, "colour", colour)
        object.__setattr__(self, "id", DRAW_BASE + colour)

    def token(self) -> str:
        return "+" + COLOUR_LETTERS[self.colour]

    def __repr__(self) -> str:
        return f"Draw({COLOUR_NAMES[self.colour]})"

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (Draw, (self.colour,))


class Resign(Action):
    """``seat`` leaves the game (R22): out like a seat that cannot pay, its dirhams lost."""

    __slots__ = ("seat",)
    seat: int

    def __init__(self, seat: int) -> None:
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"seats are 0..3, found {seat}")
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "id", RESIGN_BASE + seat)

    def token(self) -> str:
        return f"resign:{self.seat}"

    def __repr__(self) -> str:
        return f"Resign({self.seat})"

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (Resign, (self.seat,))


ORIENTS: tuple[Orient, Orient, Orient] = (Orient(-1), Orient(0), Orient(1))
PLACES: tuple[Place, ...] = tuple(Place(s.low, s.high) for s in SLOTS)
ROLLS: tuple[Roll, ...] = tuple(Roll(steps) for steps in range(1, 5))
DRAWS: tuple[Draw, ...] = tuple(Draw(colour) for colour in range(4))
#: ACTIONS[id] -> the action with that id (one shared instance each).
ACTIONS: tuple[Action, ...] = (*ORIENTS, *PLACES, *ROLLS, *DRAWS)
RESIGNS: tuple[Resign, ...] = tuple(Resign(seat) for seat in range(4))
_BY_TOKEN: dict[str, Action] = {a.token(): a for a in (*ACTIONS, *RESIGNS)}


def action_from_id(action_id: int) -> Action:
    """The action with this integer id (0..94)."""
    if not 0 <= action_id < ACTION_IDS:
        raise NotationError(f"expected an action id 0..{ACTION_IDS - 1}, found {action_id}")
    return ACTIONS[action_id]


def parse_action(text: str) -> Action:
    """Parse an action token: ``L S R``, ``r1``..``r4``, ``c3-c4`` (either order), ``+Y``.

    Words ``left``, ``straight``, ``right`` and placements without the dash (``c3c4``) are
    accepted too; ``str(action)`` always gives the canonical token.
    """
    if not isinstance(text, str):
        raise NotationError(f"expected an action token (a string), found {type(text).__name__}")
    cleaned = text.strip()
    found = _BY_TOKEN.get(cleaned)
    if found is not None:
        return found
    lowered = cleaned.lower()
    if lowered in ORIENT_NAMES:
        return ORIENTS[ORIENT_NAMES.index(lowered)]
    squares = lowered.replace("-", "")
    if len(squares) == 4 and squares[0].isalpha() and squares[2].isalpha():
        try:
            return PLACES[slot_between(parse_square(squares[:2]), parse_square(squares[2:])).number]
        except (NotationError, ValueError):
            pass
    raise NotationError(
        "expected an action token: L, S or R (orient), r1..r4 (roll), two adjacent squares "
        f"such as c3-c4 (place), +R, +B, +Y, +P (draw) or resign:0..3; found {text!r}"
    )
