"""The core's fast observation encoders give exactly the vectors of the reference encoder
(one pass, nothing kept), whatever order positions and seats are asked for in."""

from __future__ import annotations

import random
import sys
import threading
from array import array

import numpy as np
import pytest

from marrakech import State, parse_rules, random_action
from marrakech.observation import encode_observation, encode_observation_f32
from tests.envs.reference_observation import reference_observation

RULES = ["standard", "bga", "custom:12/10/12:4:no-own", "custom:4/4/4:1:own"]


def positions(players: int, games: int = 6, seed: int = 0) -> list[State]:
    """Every position of random games, chance nodes and ends included, under every rule
    set (the low-money ones eliminate seats, R13)."""
    rng = random.Random(seed + players)
    found = []
    for game in range(games):
        state = State.new(players, parse_rules(RULES[game % len(RULES)]), game % players)
        found.append(state)
        while not state.is_terminal:
            state = state.apply(random_action(state, rng))
            found.append(state)
    return found


def check(state: State, seat: int) -> None:
    expected = reference_observation(state, seat)
    vector = encode_observation(state, seat)
    assert vector == expected and all(type(value) is float for value in vector)
    vector32 = encode_observation_f32(state, seat)
    assert isinstance(vector32, array) and vector32.typecode == "f"
    assert np.array_equal(
        np.frombuffer(vector32, np.float32), np.asarray(expected, dtype=np.float32)
    )
    assert encode_observation(state, seat, float32=True) == vector32.tolist()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_in_game_order_from_every_seat(players: int) -> None:
    for state in positions(players):
        for seat in range(players):
            check(state, seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_in_any_order(players: int) -> None:
    """What the encoders keep from one call to the next (the last board's planes, the
    last seat values) never leaks into another position's vector."""
    asked = [(state, seat) for state in positions(players) for seat in range(players)]
    random.Random(players).shuffle(asked)
    mixed = [*asked[:500], *[(state, 0) for state in positions(4 if players < 4 else 2)][:200]]
    random.Random(1).shuffle(mixed)
    for state, seat in mixed:
        check(state, seat)


def test_threads_share_the_encoders() -> None:
    asked = [
        (state, seat)
        for players in (2, 3, 4)
        for state in positions(players, 2)
        for seat in range(players)
    ]
    expected = [reference_observation(state, seat) for state, seat in asked]
    failures: list[int] = []

    def work(offset: int) -> None:
        for k in range(offset, offset + 3 * len(asked), 7):
            i = k % len(asked)
            state, seat = asked[i]
            vector32 = np.frombuffer(encode_observation_f32(state, seat), np.float32)
            if encode_observation(state, seat) != expected[i] or not np.array_equal(
                vector32, np.asarray(expected[i], dtype=np.float32)
            ):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not failures


def test_a_seat_outside_the_game_is_refused() -> None:
    state = State.new(players=3)
    for encode in (encode_observation, encode_observation_f32):
        with pytest.raises(ValueError, match=r"seat must be 0\.\.2, found 3"):
            encode(state, 3)
