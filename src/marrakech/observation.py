"""The observation spec ``marrakech_v0``: a flat vector seen from one seat.

Every learning interface (PettingZoo, Gymnasium, OpenSpiel, the batched environment and
the compiled kernels) encodes positions with exactly this layout, so agents move between
them unchanged. ``docs/environments.md`` documents it; the compiled kernels are tested to
produce the same numbers.

Seats and colours are **relative to the observing seat**: relative seat ``k`` is the seat
``k`` places clockwise from it (0 is itself). Relative colour of colour ``c`` at ``n``
players is ``((c % n) - seat) % n + n * (c // n)``: at 3-4 players that is the relative seat
of its owner; at 2 players 0 and 2 are the observer's two colours, 1 and 3 the opponent's.

Layout: :data:`LAYOUT` names the pieces (``OBSERVATION_SIZE`` = 474 floats in ``[0, 1]``)::

    >>> for piece in LAYOUT:
    ...     print(f"{piece.offset:>3}  {piece.name:<7}  {str(piece.shape):<9}  {piece.meaning}")
      0  colours  (4, 7, 7)  per relative colour: 1 where that colour is visible
    196  links    (4, 7, 7)  per facing N, E, S, W: 1 where the other half lies that way
    392  assam    (7, 7)     1 on Assam's square
    441  phase    (5,)       phase one-hot: ORIENT, ROLL, PLACE, DRAW, OVER
    446  facing   (4,)       Assam's facing one-hot: N, E, S, W
    450  seats    (4, 6)     per relative seat: exists, in, dirhams, carpets, pile top

The six values per relative seat: the seat exists, is still in the game, its dirhams /
(:data:`DIRHAMS_SCALE` × players) capped at 1, its carpets in hand / its starting carpets,
its pile top is its first colour, its pile top is its second colour (2 players).

Planes index squares ``rank * 7 + file`` (``a1`` = 0, ``g7`` = 48).

    >>> from marrakech import State
    >>> vector = encode_observation(State.new(players=4), seat=0)
    >>> len(vector), vector[392 + 24], vector[441]
    (474, 1.0, 1.0)
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable
from math import prod
from operator import itemgetter
from struct import Struct
from typing import NamedTuple

from marrakech.geometry import SIZE, SQUARES
from marrakech.position import NO_LINK
from marrakech.state import State

SPEC_VERSION = "marrakech_v0"


class Piece(NamedTuple):
    """One named piece of the observation vector: where it starts and its shape."""

    name: str
    offset: int
    shape: tuple[int, ...]
    meaning: str

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def end(self) -> int:
        return self.offset + self.size


#: Per relative seat, the meaning of each of its :data:`SEAT_FEATURES` values.
SEAT_EXISTS, SEAT_IN, SEAT_DIRHAMS, SEAT_CARPETS, SEAT_TOP_FIRST, SEAT_TOP_SECOND = range(6)
SEAT_FEATURES = 6
#: Dirhams are divided by this times the number of players (and capped at 1).
DIRHAMS_SCALE = 30


def _layout(*pieces: tuple[str, tuple[int, ...], str]) -> tuple[Piece, ...]:
    table: list[Piece] = []
    offset = 0
    for name, shape, meaning in pieces:
        table.append(Piece(name, offset, shape, meaning))
        offset += prod(shape)
    return tuple(table)


#: The observation, piece by piece, in order: the one description that the encoders
#: (this module, the compiled kernels), OpenSpiel's observer and the docs read.
LAYOUT: tuple[Piece, ...] = _layout(
    ("colours", (4, SIZE, SIZE), "per relative colour: 1 where that colour is visible"),
    ("links", (4, SIZE, SIZE), "per facing N, E, S, W: 1 where the other half lies that way"),
    ("assam", (SIZE, SIZE), "1 on Assam's square"),
    ("phase", (5,), "phase one-hot: ORIENT, ROLL, PLACE, DRAW, OVER"),
    ("facing", (4,), "Assam's facing one-hot: N, E, S, W"),
    ("seats", (4, SEAT_FEATURES), "per relative seat: exists, in, dirhams, carpets, pile top"),
)
PIECES: dict[str, Piece] = {piece.name: piece for piece in LAYOUT}
PLANES_OFFSET = PIECES["colours"].offset
LINKS_OFFSET = PIECES["links"].offset
ASSAM_OFFSET = PIECES["assam"].offset
PHASE_OFFSET = PIECES["phase"].offset
FACING_OFFSET = PIECES["facing"].offset
SEATS_OFFSET = PIECES["seats"].offset
OBSERVATION_SIZE = LAYOUT[-1].end  # 474

# marrakech_v0 is these 474 values: another layout is another spec version (and name).
assert SPEC_VERSION == "marrakech_v0" and OBSERVATION_SIZE == 474, LAYOUT


def relative_colour(colour: int, seat: int, players: int) -> int:
    return ((colour % players) - seat) % players + players * (colour // players)


# -- the encoders --------------------------------------------------------------------------
#
# Learning code asks for an observation after every step, often from every seat, so the
# encoders are written for speed with the standard library alone:
#
# * what depends on the board alone (its planes by absolute colour and by link) is kept
#   with the last board seen, shared by every seat: a board tuple is shared by every
#   position until a carpet is laid; likewise the seat values, kept with what they came
#   from. Each seat's view (which colour plane and which seat row come where for it) is
#   prepared once, and an observation joins the kept pieces in that order;
# * the float32 planes are built without a Python loop: the board is widened to four
#   bytes a square (below), and ``bytes.translate`` turns those into the float32 bytes
#   of 0.0 or 1.0 of each plane.
#
# What is kept is never changed once published, so threads may share the encoders.

_CELLS = 1 + 4 * (NO_LINK + 1)  # packed cells: 0 (empty) .. 1 + 3 + 4 * NO_LINK
_EMPTY_PLANE = 8  # the plane of a colour not in play
_ABSENT = 4  # the row of a seat not in the game
_ABSENT_ROWS = tuple((0.0,) * SEAT_FEATURES * (5 - players) for players in range(5))


def _one_hot(size: int, index: int) -> tuple[float, ...]:
    return tuple(1.0 if i == index else 0.0 for i in range(size))


_ASSAM = tuple(_one_hot(SQUARES, square) for square in range(SQUARES))
_PHASE = tuple(_one_hot(PIECES["phase"].size, phase) for phase in range(PIECES["phase"].size))
_FACING = tuple(_one_hot(PIECES["facing"].size, f) for f in range(PIECES["facing"].size))
_ASSAM32 = tuple(array("f", piece).tobytes() for piece in _ASSAM)
_PHASE32 = tuple(array("f", piece).tobytes() for piece in _PHASE)
_FACING32 = tuple(array("f", piece).tobytes() for piece in _FACING)


def _cell_planes(cell: int) -> tuple[int, ...]:
    """The planes where a packed cell shows: its colour's (0..3), its link's (4..7)."""
    if not cell:
        return ()
    colour, link = (cell - 1) & 3, (cell - 1) >> 2
    return (colour,) if link == NO_LINK else (colour, 4 + link)


_CELL_PLANES = tuple(_cell_planes(cell) for cell in range(_CELLS))


class _Viewpoint(NamedTuple):
    """One seat of a ``players``-seat game: the absolute colour plane of each relative
    colour (the empty plane for a colour not in play), and ``seats``, which picks the
    ``seats`` piece from every seat's values in its order (the absent row for a seat
    not in the game)."""

    colours: tuple[int, ...]
    seats: Callable[[list[float]], tuple[float, ...]]


def _viewpoint(players: int, seat: int) -> _Viewpoint:
    colours = [_EMPTY_PLANE] * 4
    for colour in range(4 if players == 2 else players):
        colours[relative_colour(colour, seat, players)] = colour
    seats = [(seat + k) % players for k in range(players)] + [_ABSENT] * (4 - players)
    in_order = itemgetter(*[SEAT_FEATURES * s + k for s in seats for k in range(SEAT_FEATURES)])
    return _Viewpoint(tuple(colours), in_order)


#: _VIEWPOINTS[players][seat] (2..4 players).
_VIEWPOINTS: tuple[tuple[_Viewpoint, ...], ...] = tuple(
    tuple(_viewpoint(players, seat) for seat in range(players) if players >= 2)
    for players in range(5)
)

# The board widened to four bytes a square, the bytes of a float32 word: ``0, 0, cell,
# cell + 64`` in little-endian order (``cell + 64, cell, 0, 0`` in big-endian), made in C
# by integer arithmetic on the board's words (each word ``cell`` times 0x01010000, plus
# 0x40000000). The two bytes that make 1.0 (0x3F800000) then hold values of their own,
# which a translate table turns into 0x3F and 0x80, or zeros: the plane in float32.
_BOARD_WORDS = Struct(f"={SQUARES}I")
_WIDEN, _WIDE_BASE = 0x01010000, sum(0x40000000 << (32 * square) for square in range(SQUARES))


def _widen(board: tuple[int, ...]) -> bytes:
    words = int.from_bytes(_BOARD_WORDS.pack(*board), sys.byteorder)
    return (words * _WIDEN + _WIDE_BASE).to_bytes(4 * SQUARES, sys.byteorder)


def _plane_table(plane: int) -> bytes:
    """The ``bytes.translate`` table turning a widened board into the float32 bytes of a
    plane: 1.0 on the squares whose cell shows on ``plane``, 0.0 elsewhere."""
    table = bytearray(256)
    for cell in range(_CELLS):
        if plane in _CELL_PLANES[cell]:
            table[64 + cell], table[cell] = 0x3F, 0x80
    return bytes(table)


_PLANE_TABLES = tuple(_plane_table(plane) for plane in range(8))
_SEAT_VALUES = Struct(f"={PIECES['seats'].size}f")

# The last board seen and its planes (four colours, four links, then an empty plane), in
# float32 bytes and as lists; the last state whose seat values were asked for, what they
# came from, and the values: six per seat, then zeros (the absent row) up to five rows.
_planes: tuple[tuple[int, ...], tuple[bytes, ...]] = ((0,) * SQUARES, (bytes(4 * SQUARES),) * 9)
_lists: tuple[tuple[int, ...], tuple[list[float], ...]] = ((0,) * SQUARES, ([0.0] * SQUARES,) * 9)
_rows: tuple[object, object, list[float]] = (None, None, [])


def _board_planes32(board: tuple[int, ...]) -> tuple[bytes, ...]:
    global _planes
    last, planes = _planes
    if last is not board:
        wide = _widen(board)
        planes = (*[wide.translate(table) for table in _PLANE_TABLES], planes[_EMPTY_PLANE])
        _planes = (board, planes)
    return planes


def _board_lists(board: tuple[int, ...]) -> tuple[list[float], ...]:
    global _lists
    last, lists = _lists
    if last is not board:
        fresh = [[0.0] * SQUARES for _ in range(8)]
        for square, cell in enumerate(board):
            if cell:
                for plane in _CELL_PLANES[cell]:
                    fresh[plane][square] = 1.0
        lists = (*fresh, lists[_EMPTY_PLANE])
        _lists = (board, lists)
    return lists


def _seat_values(state: State) -> list[float]:
    global _rows
    last_state, last_key, values = _rows
    if last_state is state:
        return values
    players, rules = state.players, state.rules
    money, hand, out = state.money, state.hand, state.eliminated
    two = players == 2
    tops = (state.pile_top(0), state.pile_top(1)) if two else None
    key = (money, hand, out, tops, rules)
    if key != last_key:
        all_money = DIRHAMS_SCALE * players
        start = rules.starting_carpets(players)
        values = []
        for seat in range(players):
            dirhams = money[seat] / all_money
            top = tops[seat] if two else None  # type: ignore[index]
            values += (
                1.0,
                0.0 if seat in out else 1.0,
                dirhams if dirhams < 1.0 else 1.0,
                (hand[seat] + hand[seat + 2] if two else hand[seat]) / start,
                1.0 if top is not None and top == seat else 0.0,
                1.0 if top is not None and top != seat else 0.0,
            )
        values += _ABSENT_ROWS[players]
    _rows = (state, key, values)
    return values


def _viewpoint_of(state: State, seat: int) -> _Viewpoint:
    players = state.players
    if not 0 <= seat < players:
        raise ValueError(f"seat must be 0..{players - 1}, found {seat!r}")
    return _VIEWPOINTS[players][seat]


def encode_observation(state: State, seat: int, *, float32: bool = False) -> list[float]:
    """The ``marrakech_v0`` observation of ``state`` as seen by ``seat``.

    ``float32=True`` rounds the values to float32 (the numbers a float32 tensor of the
    observation holds, as Python floats).
    """
    viewpoint = _viewpoint_of(state, seat)
    c0, c1, c2, c3 = viewpoint.colours
    board = state.board
    last_board, planes = _lists
    if last_board is not board:
        planes = _board_lists(board)
    seats = viewpoint.seats(_seat_values(state))
    return [
        *planes[c0],
        *planes[c1],
        *planes[c2],
        *planes[c3],
        *planes[4],
        *planes[5],
        *planes[6],
        *planes[7],
        *_ASSAM[state.assam_square],
        *_PHASE[state.phase],
        *_FACING[state.assam_facing],
        *(_SEAT_VALUES.unpack(_SEAT_VALUES.pack(*seats)) if float32 else seats),
    ]


def encode_observation_f32(state: State, seat: int) -> array[float]:
    """:func:`encode_observation` in float32, as an ``array.array('f')``: what tensors
    hold, ready to be read without a copy (``numpy.frombuffer(vector, numpy.float32)``).

    >>> from marrakech import State
    >>> vector = encode_observation_f32(State.new(players=3), 1)
    >>> vector.typecode, len(vector), vector[450:456].tolist()
    ('f', 474, [1.0, 1.0, 0.3333333432674408, 1.0, 0.0, 0.0])
    """
    viewpoint = _viewpoint_of(state, seat)
    c0, c1, c2, c3 = viewpoint.colours
    board = state.board
    last_board, planes = _planes
    if last_board is not board:
        planes = _board_planes32(board)
    return array(
        "f",
        b"".join(
            (
                planes[c0],
                planes[c1],
                planes[c2],
                planes[c3],
                planes[4],
                planes[5],
                planes[6],
                planes[7],
                _ASSAM32[state.assam_square],
                _PHASE32[state.phase],
                _FACING32[state.assam_facing],
                _SEAT_VALUES.pack(*viewpoint.seats(_seat_values(state))),
            )
        ),
    )
