"""The observation spec marrakech_v0 is declared once, as a table of named pieces."""

from __future__ import annotations

import itertools
import random

from marrakech import State, random_action
from marrakech.observation import (
    LAYOUT,
    OBSERVATION_SIZE,
    PIECES,
    SEAT_FEATURES,
    SEATS_OFFSET,
    encode_observation,
)


def test_pieces_tile_the_vector_in_the_documented_order() -> None:
    assert [(p.name, p.offset, p.size) for p in LAYOUT] == [
        ("colours", 0, 196),
        ("links", 196, 196),
        ("assam", 392, 49),
        ("phase", 441, 5),
        ("facing", 446, 4),
        ("seats", 450, 24),
    ]
    assert all(a.end == b.offset for a, b in itertools.pairwise(LAYOUT))
    assert LAYOUT[-1].end == OBSERVATION_SIZE == 474
    assert PIECES["seats"].shape == (4, SEAT_FEATURES) and SEATS_OFFSET == 450


def test_one_hot_pieces_hold_exactly_one_one() -> None:
    state = State.new(players=4)
    rng = random.Random(3)
    for _ in range(60):
        if state.is_terminal:
            break
        vector = encode_observation(state, state.turn)
        for name in ("assam", "phase", "facing"):
            piece = PIECES[name]
            assert sum(vector[piece.offset : piece.end]) == 1.0, name
        state = state.apply(random_action(state, rng))
