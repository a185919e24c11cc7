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

from math import prod
from typing import NamedTuple

from marrakech.geometry import SIZE, SQUARES
from marrakech.position import NO_LINK
from marrakech.rules import colours_of
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


def encode_observation(state: State, seat: int) -> list[float]:
    """The ``marrakech_v0`` observation of ``state`` as seen by ``seat``."""
    players = state.players
    vector = [0.0] * OBSERVATION_SIZE
    for square, cell in enumerate(state.board):
        if not cell:
            continue
        colour, link = (cell - 1) & 3, (cell - 1) >> 2
        vector[PLANES_OFFSET + relative_colour(colour, seat, players) * SQUARES + square] = 1.0
        if link != NO_LINK:
            vector[LINKS_OFFSET + link * SQUARES + square] = 1.0
    vector[ASSAM_OFFSET + state.assam_square] = 1.0
    vector[PHASE_OFFSET + int(state.phase)] = 1.0
    vector[FACING_OFFSET + state.assam_facing] = 1.0
    start = state.rules.starting_carpets(players)
    all_money = DIRHAMS_SCALE * players
    for relative in range(players):
        other = (seat + relative) % players
        base = SEATS_OFFSET + relative * SEAT_FEATURES
        vector[base + SEAT_EXISTS] = 1.0
        vector[base + SEAT_IN] = 0.0 if other in state.eliminated else 1.0
        vector[base + SEAT_DIRHAMS] = min(1.0, state.money[other] / all_money)
        vector[base + SEAT_CARPETS] = state.carpets_in_hand(other) / start
        top = state.pile_top(other)
        if top is not None:
            vector[base + SEAT_TOP_FIRST + colours_of(other, players).index(top)] = 1.0
    return vector
