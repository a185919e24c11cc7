"""The packed position: the fields a :class:`~marrakech.state.State` holds, the turn
phases, and how one board square packs the carpet it shows.

A state is a flat tuple of eleven :class:`Fields` (one C call builds it, which keeps
:meth:`State.apply <marrakech.state.State.apply>` fast). This module names those fields
so that the modules that read or write them without the rules (the position string,
:mod:`marrakech.notation`; the kernel row, :mod:`marrakech.fast.rows`) share one
description. The rules that move a position on live in :mod:`marrakech.state`.

A board cell is ``0`` when the square is empty, else ``1 + colour + 4 * link``, where
``link`` is the facing towards the other visible half of the same carpet (``0..3``) or
:data:`NO_LINK` when that half is covered. Colour and link are all that equality needs
(R16: a carpet may not lie exactly on both visible halves of one carpet), no carpet ids::

    >>> cell = pack_cell(colour=2, link=1)       # yellow, its other half to the East
    >>> cell, cell_colour(cell), cell_link(cell)
    (7, 2, 1)
    >>> regions((7, 15, 0, 0, 0, 0, 0, 1) + (0,) * 41)   # a1-b1 yellow, a2 red (R11)
    [[0, 1], [7]]
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import NamedTuple

from marrakech.geometry import NEIGHBOURS, SQUARES
from marrakech.rules import RuleSet

#: ``state.to_move`` at a chance node (ROLL, DRAW) and at the end of the game.
CHANCE = -1
TERMINAL = -2


class Phase(IntEnum):
    """Where a turn stands: ORIENT (the seat chooses, R9) -> ROLL (chance, R10-R13) ->
    PLACE (the seat chooses, R14-R17) -> the next seat; DRAW is the chance node that
    reveals a 2-player pile's top carpet (R7); OVER is the end (R19)."""

    ORIENT = 0
    ROLL = 1
    PLACE = 2
    DRAW = 3
    OVER = 4


#: A cell's link when the other half of its carpet is covered (or was never linked).
NO_LINK = 4


def pack_cell(colour: int, link: int) -> int:
    """The board cell of a visible carpet half: ``1 + colour + 4 * link``."""
    return 1 + colour + 4 * link


def cell_colour(cell: int) -> int:
    """The colour (0..3) a non-empty cell shows."""
    return (cell - 1) & 3


def cell_link(cell: int) -> int:
    """The facing (0..3) towards the other visible half of the carpet, or :data:`NO_LINK`."""
    return (cell - 1) >> 2


class Fields(NamedTuple):
    """The eleven fields of a position, in the order a :class:`State` stores them.

    ``board`` holds 49 cells (square ``rank * 7 + file``); ``assam`` is
    ``square * 4 + facing``; ``money`` one amount per seat; ``hand`` the carpets not yet
    placed per colour in play (a 2-player pile counts its top); ``tops`` the two pile
    tops at 2 players (-1 unknown or empty), else ``()``; ``out`` the eliminated seats in
    the order they went out (R13); ``phase`` a :class:`Phase` value; ``turn`` the seat
    whose turn it is (or comes next, during a DRAW); ``pile`` the pile revealing its top
    during a DRAW, else 0.
    """

    players: int
    rules: RuleSet
    board: tuple[int, ...]
    assam: int
    money: tuple[int, ...]
    hand: tuple[int, ...]
    tops: tuple[int, ...]
    out: tuple[int, ...]
    phase: int
    turn: int
    pile: int


# Each field's index in a packed position, read from :class:`Fields` so that the two
# cannot disagree: code that reads one field of a state says ``state[FIELD_BOARD]``,
# never ``state[2]``. (Plain ints rather than an enum: a state's getters read them in
# the engine's hottest paths.)
FIELD_PLAYERS = Fields._fields.index("players")
FIELD_RULES = Fields._fields.index("rules")
FIELD_BOARD = Fields._fields.index("board")
FIELD_ASSAM = Fields._fields.index("assam")
FIELD_MONEY = Fields._fields.index("money")
FIELD_HAND = Fields._fields.index("hand")
FIELD_TOPS = Fields._fields.index("tops")
FIELD_OUT = Fields._fields.index("out")
FIELD_PHASE = Fields._fields.index("phase")
FIELD_TURN = Fields._fields.index("turn")
FIELD_PILE = Fields._fields.index("pile")


def region(board: Sequence[int], square: int) -> list[int]:
    """The squares joined to ``square`` through shared sides showing its colour (R11)."""
    colour = (board[square] - 1) & 3
    found = [square]
    seen = {square}
    i = 0
    while i < len(found):
        for near in NEIGHBOURS[found[i]]:
            cell = board[near]
            if cell and near not in seen and (cell - 1) & 3 == colour:
                seen.add(near)
                found.append(near)
        i += 1
    return found


def regions(board: Sequence[int]) -> list[list[int]]:
    """Every region of a packed board (R11), each a list of squares of one colour."""
    seen = [False] * SQUARES
    found: list[list[int]] = []
    for start, cell in enumerate(board):
        if cell and not seen[start]:
            members = region(board, start)
            for square in members:
                seen[square] = True
            found.append(members)
    return found


class RegionSummary(NamedTuple):
    """The regions of one packed board (R11), read once: per square, the size of its
    region and its colour (0 and -1 when empty); per colour, its visible squares and the
    sum of ``size * size`` over its regions."""

    size_at: tuple[int, ...]
    colour_at: tuple[int, ...]
    counts: tuple[int, int, int, int]
    squares_squared: tuple[float, ...]


_summaries: dict[tuple[int, ...], RegionSummary] = {}


def region_summary(board: tuple[int, ...]) -> RegionSummary:
    """The :class:`RegionSummary` of a packed board.

    Boards repeat often inside a search (the same board with Assam or the money
    elsewhere), so summaries are cached (at most 100,000, then the cache starts again).

    >>> summary = region_summary((7, 15, 0, 0, 0, 0, 0, 1) + (0,) * 41)
    >>> summary.size_at[:3], summary.counts, summary.squares_squared
    ((2, 2, 0), (1, 0, 2, 0), (1.0, 0.0, 4.0, 0.0))
    """
    found = _summaries.get(board)
    if found is not None:
        return found
    size_at = [0] * SQUARES
    colour_at = [-1] * SQUARES
    counts = [0, 0, 0, 0]
    squares_sq = [0.0, 0.0, 0.0, 0.0]
    for members in regions(board):
        colour = (board[members[0]] - 1) & 3
        n = len(members)
        for square in members:
            size_at[square] = n
            colour_at[square] = colour
        counts[colour] += n
        squares_sq[colour] += n * n
    result = RegionSummary(
        tuple(size_at),
        tuple(colour_at),
        (counts[0], counts[1], counts[2], counts[3]),
        tuple(squares_sq),
    )
    if len(_summaries) > 100_000:
        _summaries.clear()  # bounded memory over long arena runs
    _summaries[board] = result
    return result


__all__ = [
    "CHANCE",
    "FIELD_ASSAM",
    "FIELD_BOARD",
    "FIELD_HAND",
    "FIELD_MONEY",
    "FIELD_OUT",
    "FIELD_PHASE",
    "FIELD_PILE",
    "FIELD_PLAYERS",
    "FIELD_RULES",
    "FIELD_TOPS",
    "FIELD_TURN",
    "NO_LINK",
    "TERMINAL",
    "Fields",
    "Phase",
    "RegionSummary",
    "cell_colour",
    "cell_link",
    "pack_cell",
    "region",
    "region_summary",
    "regions",
]
