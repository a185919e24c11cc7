"""The observation spec ``marrakech_v0``: a flat vector seen from one seat.

Every learning interface (PettingZoo, Gymnasium, OpenSpiel, the batched environment and
the compiled kernels) encodes positions with exactly this layout, so agents move between
them unchanged. ``docs/environments.md`` documents it; the compiled kernels are tested to
produce the same numbers.

Seats and colours are **relative to the observing seat**: relative seat ``k`` is the seat
``k`` places clockwise from it (0 is itself). Relative colour of colour ``c`` at ``n``
players is ``((c % n) - seat) % n + n * (c // n)``: at 3-4 players that is the relative seat
of its owner; at 2 players 0 and 2 are the observer's two colours, 1 and 3 the opponent's.

Layout (``OBSERVATION_SIZE`` = 474 float values in ``[0, 1]``):

=========  ======  ============================================================
offset     size    content
=========  ======  ============================================================
0          4 × 49  plane per relative colour: 1 where that colour is visible
196        4 × 49  plane per direction N, E, S, W: 1 where the other visible half
                   of the same carpet lies that way
392        49      Assam's square
441        5       phase one-hot: ORIENT, ROLL, PLACE, DRAW, OVER
446        4       Assam's facing one-hot: N, E, S, W
450        4 × 6   per relative seat: seat exists, still in the game, dirhams /
                   (30 × players) capped at 1, carpets in hand / starting carpets,
                   pile top is its first colour, pile top is its second colour
=========  ======  ============================================================

Planes index squares ``rank * 7 + file`` (``a1`` = 0, ``g7`` = 48).

    >>> from marrakech import State
    >>> vector = encode_observation(State.new(players=4), seat=0)
    >>> len(vector), vector[392 + 24], vector[441]
    (474, 1.0, 1.0)
"""

from __future__ import annotations

from marrakech.geometry import SQUARES
from marrakech.rules import colours_of
from marrakech.state import NO_LINK, State

SPEC_VERSION = "marrakech_v0"
PLANES_OFFSET = 0
LINKS_OFFSET = 4 * SQUARES
ASSAM_OFFSET = 8 * SQUARES
PHASE_OFFSET = 9 * SQUARES
FACING_OFFSET = PHASE_OFFSET + 5
SEATS_OFFSET = FACING_OFFSET + 4
SEAT_FEATURES = 6
OBSERVATION_SIZE = SEATS_OFFSET + 4 * SEAT_FEATURES  # 474


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
    start = state.rules.carpets_per_colour(players) * (2 if players == 2 else 1)
    all_money = 30 * players
    for relative in range(players):
        other = (seat + relative) % players
        base = SEATS_OFFSET + relative * SEAT_FEATURES
        vector[base] = 1.0
        vector[base + 1] = 0.0 if other in state.eliminated else 1.0
        vector[base + 2] = min(1.0, state.money[other] / all_money)
        vector[base + 3] = state.carpets_in_hand(other) / start
        top = state.pile_top(other)
        if top is not None:
            vector[base + 4 + colours_of(other, players).index(top)] = 1.0
    return vector
