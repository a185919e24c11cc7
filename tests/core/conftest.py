"""Shared helpers for the core tests: play tokens, reach random positions."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from marrakech import STANDARD, RuleSet, State, parse_action, random_action


def play(state: State, *tokens: str) -> State:
    """Apply action tokens in order (each must be legal)."""
    for token in tokens:
        state = state.apply(parse_action(token))
    return state


def random_states(
    players: int, rules: RuleSet = STANDARD, games: int = 5, seed: int = 0
) -> Iterator[State]:
    """Every position of a few random games."""
    rng = random.Random(seed)
    for _ in range(games):
        state = State.new(players, rules, first_seat=rng.randrange(players))
        yield state
        while not state.is_terminal:
            state = state.apply(random_action(state, rng))
            yield state


CONFIGS = [(p, r) for p in (2, 3, 4) for r in ("standard", "bga")]


@pytest.fixture(params=CONFIGS, ids=[f"{p}p-{r}" for p, r in CONFIGS])
def config(request: pytest.FixtureRequest) -> tuple[int, str]:
    return request.param  # type: ignore[no-any-return]
