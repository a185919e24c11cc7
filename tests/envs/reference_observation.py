"""The ``marrakech_v0`` encoder as first written: one pass over the board, nothing kept.

A test oracle: the fast encoders of :mod:`marrakech.observation` must produce exactly
these vectors (tests/envs/test_observation_encoders.py), and
``benchmarks/bench_observation.py`` measures them against it.
"""

from __future__ import annotations

from marrakech.observation import (
    ASSAM_OFFSET,
    DIRHAMS_SCALE,
    FACING_OFFSET,
    LINKS_OFFSET,
    OBSERVATION_SIZE,
    PHASE_OFFSET,
    PLANES_OFFSET,
    SEAT_CARPETS,
    SEAT_DIRHAMS,
    SEAT_EXISTS,
    SEAT_FEATURES,
    SEAT_IN,
    SEAT_TOP_FIRST,
    SEATS_OFFSET,
    relative_colour,
)
from marrakech.position import NO_LINK
from marrakech.rules import colours_of
from marrakech.state import State


def reference_observation(state: State, seat: int) -> list[float]:
    players = state.players
    vector = [0.0] * OBSERVATION_SIZE
    for square, cell in enumerate(state.board):
        if not cell:
            continue
        colour, link = (cell - 1) & 3, (cell - 1) >> 2
        vector[PLANES_OFFSET + relative_colour(colour, seat, players) * 49 + square] = 1.0
        if link != NO_LINK:
            vector[LINKS_OFFSET + link * 49 + square] = 1.0
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
