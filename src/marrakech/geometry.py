"""The board: squares, facings, Assam's steps along the border arcs, placement slots.

Everything here is a table computed once at import (R1, R2, R14, R15, R18), so the rules
in :mod:`marrakech.state` are lookups.

Squares are integers ``0..48``: ``square = rank * 7 + file`` with file ``a..g`` = ``0..6``
and rank ``1..7`` = ``0..6``, so ``a1`` is 0, ``d4`` is 24 and ``g7`` is 48::

    >>> square_name(24), parse_square("g7")
    ('d4', 48)

Facings are ``N, E, S, W = 0, 1, 2, 3`` (clockwise), so a quarter turn right adds one.
"""

from __future__ import annotations

from typing import NamedTuple

from marrakech.errors import NotationError

SIZE = 7
SQUARES = SIZE * SIZE
FILES = "abcdefg"
RANKS = "1234567"

N, E, S, W = 0, 1, 2, 3
FACING_LETTERS = "NESW"
FACING_NAMES = ("North", "East", "South", "West")
#: Square offset of one step in each facing.
DELTA = (SIZE, 1, -SIZE, -1)

CENTRE = 3 * SIZE + 3  # d4, where Assam starts (R8)


#: SQUARE_NAMES[square] -> its name, ``'a1'`` .. ``'g7'``.
SQUARE_NAMES: tuple[str, ...] = tuple(FILES[sq % SIZE] + RANKS[sq // SIZE] for sq in range(SQUARES))


def square_name(square: int) -> str:
    """``square_name(0) == 'a1'``."""
    return SQUARE_NAMES[square]


def parse_square(text: str) -> int:
    """Parse a square name such as ``'d4'`` (case-insensitive)."""
    if len(text) != 2 or text[0].lower() not in FILES or text[1] not in RANKS:
        raise NotationError(f"expected a square from a1 to g7, found {text!r}")
    return RANKS.index(text[1]) * SIZE + FILES.index(text[0].lower())


def file_of(square: int) -> int:
    return square % SIZE


def rank_of(square: int) -> int:
    return square // SIZE


def neighbour(square: int, facing: int) -> int | None:
    """The square one step away in ``facing``, or None off the board (no arcs)."""
    file, rank = square % SIZE, square // SIZE
    if facing == N:
        return square + SIZE if rank < SIZE - 1 else None
    if facing == S:
        return square - SIZE if rank > 0 else None
    if facing == E:
        return square + 1 if file < SIZE - 1 else None
    return square - 1 if file > 0 else None


#: NEIGHBOURS[square] -> the on-board orthogonal neighbours, in facing order N, E, S, W.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for f in range(4) if (n := neighbour(sq, f)) is not None) for sq in range(SQUARES)
)


def direction(a: int, b: int) -> int:
    """The facing that leads from ``a`` to its orthogonal neighbour ``b``."""
    for facing in range(4):
        if neighbour(a, facing) == b:
            return facing
    raise ValueError(f"{square_name(a)} and {square_name(b)} are not orthogonal neighbours")


class Step(NamedTuple):
    """One step of Assam: where he stands after it and which way he faces.

    ``arc`` is True when the step followed a border arc (R2), including a corner loop,
    where ``square`` is the square he left.
    """

    square: int
    facing: int
    arc: bool


def _arc_exit(square: int, facing: int) -> Step:
    """Where a step off the board leads (R2): the partner square, facing back in."""
    file, rank = square % SIZE, square // SIZE
    if facing == N:  # top edge: a7-b7, c7-d7, e7-f7; loop at g7
        if file == SIZE - 1:
            return Step(square, W, True)
        return Step(rank * SIZE + (file ^ 1), S, True)
    if facing == E:  # right edge: g6-g5, g4-g3, g2-g1; loop at g7
        if rank == SIZE - 1:
            return Step(square, S, True)
        return Step((rank ^ 1) * SIZE + file, W, True)
    if facing == S:  # bottom edge: b1-c1, d1-e1, f1-g1; loop at a1
        if file == 0:
            return Step(square, E, True)
        return Step(rank * SIZE + ((file - 1) ^ 1) + 1, N, True)
    # left edge: a7-a6, a5-a4, a3-a2; loop at a1
    if rank == 0:
        return Step(square, N, True)
    return Step((((rank - 1) ^ 1) + 1) * SIZE + file, E, True)


def _step(square: int, facing: int) -> Step:
    nxt = neighbour(square, facing)
    if nxt is None:
        return _arc_exit(square, facing)
    return Step(nxt, facing, False)


#: STEP[square * 4 + facing] -> the Step taken from there.
STEP: tuple[Step, ...] = tuple(_step(p // 4, p % 4) for p in range(SQUARES * 4))

#: PATHS[(square * 4 + facing) * 5 + steps] -> the Steps of a move of ``steps`` (1..4).
PATHS: tuple[tuple[Step, ...], ...]


def _paths() -> tuple[tuple[Step, ...], ...]:
    table: list[tuple[Step, ...]] = []
    for position in range(SQUARES * 4):
        for steps in range(5):
            square, facing = divmod(position, 4)
            path: list[Step] = []
            for _ in range(steps):
                step = STEP[square * 4 + facing]
                path.append(step)
                square, facing = step.square, step.facing
            table.append(tuple(path))
    return tuple(table)


PATHS = _paths()


class RimArc(NamedTuple):
    """One piece of the board's rim (R2): an arc joining two edge squares, or a loop.

    ``squares`` are the two squares the arc joins, lower-left first; a corner loop joins
    a square to itself. ``edges`` are the facings that leave the board along it: one for
    an arc, the two of its corner for a loop.
    """

    squares: tuple[int, int]
    edges: tuple[int, ...]

    @property
    def loop(self) -> bool:
        return self.squares[0] == self.squares[1]


def _rim() -> tuple[RimArc, ...]:
    # Read the arcs off the steps themselves, so the drawings cannot disagree with R2.
    arcs: dict[tuple[int, int], list[int]] = {}
    for facing in range(4):
        for square in range(SQUARES):
            step = STEP[square * 4 + facing]
            if step.arc:
                pair = (min(square, step.square), max(square, step.square))
                edges = arcs.setdefault(pair, [])
                if facing not in edges:
                    edges.append(facing)
    return tuple(RimArc(pair, tuple(edges)) for pair, edges in arcs.items())


#: The rim, derived from the steps (R2): 12 arcs (three per edge) and the two corner
#: loops, edge by edge (N, E, S, W), each edge in board order.
RIM: tuple[RimArc, ...] = _rim()


def walk(square: int, facing: int, steps: int) -> tuple[Step, ...]:
    """Assam's path for a roll (R10), square by square, following the arcs (R2).

    >>> [(square_name(s.square), FACING_LETTERS[s.facing]) for s in walk(0, W, 3)]
    [('a1', 'N'), ('a2', 'N'), ('a3', 'N')]
    """
    if not 0 <= steps <= 4:
        raise ValueError(f"a roll moves 1 to 4 steps, found {steps}")
    return PATHS[(square * 4 + facing) * 5 + steps]


class Slot(NamedTuple):
    """A place for a carpet: two orthogonally adjacent squares, ``low`` below or left.

    ``number`` is 0..83: horizontal slots first (rank by rank, file by file), then vertical.
    """

    number: int
    low: int
    high: int
    horizontal: bool


def _slots() -> tuple[Slot, ...]:
    slots: list[Slot] = []
    for rank in range(SIZE):
        for file in range(SIZE - 1):
            low = rank * SIZE + file
            slots.append(Slot(len(slots), low, low + 1, True))
    for rank in range(SIZE - 1):
        for file in range(SIZE):
            low = rank * SIZE + file
            slots.append(Slot(len(slots), low, low + SIZE, False))
    return tuple(slots)


#: The 84 carpet slots (42 horizontal, 42 vertical).
SLOTS: tuple[Slot, ...] = _slots()
SLOT_BY_SQUARES: dict[tuple[int, int], Slot] = {(s.low, s.high): s for s in SLOTS}


def slot_between(a: int, b: int) -> Slot:
    """The slot covering squares ``a`` and ``b`` in either order."""
    slot = SLOT_BY_SQUARES.get((min(a, b), max(a, b)))
    if slot is None:
        raise ValueError(f"{square_name(a)} and {square_name(b)} are not adjacent")
    return slot


def _candidates(assam: int) -> tuple[Slot, ...]:
    found: set[Slot] = set()
    for near in NEIGHBOURS[assam]:  # R14: one half shares a side with Assam's square
        for far in NEIGHBOURS[near]:
            if far != assam:  # R15: never under Assam
                found.add(slot_between(near, far))
    return tuple(sorted(found))


#: CANDIDATES[assam_square] -> the slots allowed by R14 and R15, in slot order (at most 12).
CANDIDATES: tuple[tuple[Slot, ...], ...] = tuple(_candidates(sq) for sq in range(SQUARES))
