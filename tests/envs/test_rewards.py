"""Every reward of the environments comes from the core's Outcome (R20, R21), on every
tie pattern of 2, 3 and 4 players, and is the number it always was: the pairwise rank
reward (``rank``) and the share of the win (``win``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from marrakech import STANDARD, State
from marrakech.envs import VectorEnv, spec
from marrakech.envs.vector import make_batch, outcome_table
from marrakech.outcome import Outcome

from .test_vector import backends


def tie_patterns(players: int) -> list[tuple[int, ...]]:
    """Every competition ranking of ``players`` seats (1, 1, 3 but never 1, 1, 2)."""
    patterns = []
    for ranks in itertools.product(range(1, players + 1), repeat=players):
        if all(rank == 1 + sum(other < rank for other in ranks) for rank in ranks):
            patterns.append(ranks)
    return patterns


PATTERNS = [ranks for players in (2, 3, 4) for ranks in tie_patterns(players)]


def finished_state(ranks: tuple[int, ...]) -> State:
    """A finished game (R19: no carpet left) whose seats end with ``ranks``: an empty
    board, so a seat's score is its dirhams, and tied seats hold the same dirhams."""
    players = len(ranks)
    money = ",".join(str(10 * (6 - rank)) for rank in ranks)
    hand = ",".join("0" for _ in range(4 if players == 2 else players))
    tops = "-,-" if players == 2 else "-"
    return State.from_notation(f"7/7/7/7/7/7/7 d4N {money} {hand} {tops} - over standard")


def pairwise(ranks: tuple[int, ...]) -> list[float]:
    """The rank reward as the environments computed it before Outcome: the mean over the
    other seats of +1 (ranked above it), 0 (same rank) or -1 (ranked below it)."""
    players = len(ranks)
    return [
        sum((other > rank) - (other < rank) for other in ranks) / (players - 1) for rank in ranks
    ]


def shares(ranks: tuple[int, ...]) -> list[float]:
    winners = ranks.count(1)
    return [1.0 / winners if rank == 1 else 0.0 for rank in ranks]


def test_the_patterns_are_every_way_to_tie() -> None:
    assert [len(tie_patterns(players)) for players in (2, 3, 4)] == [3, 13, 75]


@pytest.mark.parametrize("ranks", PATTERNS, ids=str)
def test_spec_rewards_are_the_outcome_and_the_old_numbers(ranks: tuple[int, ...]) -> None:
    outcome = Outcome(ranks)
    state = finished_state(ranks)
    assert state.outcome() == outcome
    assert spec.rank_rewards(ranks) == outcome.rank_rewards
    assert spec.win_rewards(ranks) == outcome.win_shares
    assert spec.outcome_rewards(state, "rank") == outcome.rank_rewards
    assert spec.outcome_rewards(state, "win") == outcome.win_shares
    # The same numbers as before: exactly for the win shares; for the rank rewards
    # 2 * value - 1 may differ from the pairwise mean in the last bit of a float64.
    assert list(outcome.win_shares) == shares(ranks)
    assert list(outcome.rank_rewards) == pytest.approx(pairwise(ranks), rel=0, abs=1e-15)
    # In float32 (VectorEnv's rewards) they are the very same numbers.
    expected = {"rank": np.float32(pairwise(ranks)), "win": np.float32(shares(ranks))}
    values = np.array([outcome.rank_values])
    win = np.array([outcome.win_shares])
    for reward in spec.REWARDS:
        assert spec.reward_arrays(values, win, reward)[0].tobytes() == expected[reward].tobytes()
        assert outcome_table(np.array([ranks]), reward)[0].tobytes() == expected[reward].tobytes()


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_engines_and_vector_env_reward_every_tie_like_outcome(
    backend: str, players: int
) -> None:
    patterns = tie_patterns(players)
    for reward in spec.REWARDS:
        env = VectorEnv(len(patterns), players, reward=reward, backend=backend)
        env.reset()
        for i, ranks in enumerate(patterns):
            env.set_state(i, finished_state(ranks))
        out = env.step(np.zeros(len(patterns), dtype=np.int64))  # finished games ignore it
        assert out.terminated.all()
        old = pairwise if reward == "rank" else shares
        assert out.rewards.tobytes() == np.float32([old(ranks) for ranks in patterns]).tobytes()


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_engines_give_the_outcome_of_finished_games(backend: str, players: int) -> None:
    patterns = tie_patterns(players)
    batch, _ = make_batch(backend, len(patterns) + 1, players, STANDARD, seed=0)
    for i, ranks in enumerate(patterns):
        batch.set_state(i, finished_state(ranks))
    values, win = batch.outcome_values()
    # The kernel mirrors Outcome operation for operation: the same float64 numbers.
    assert values.tolist() == [*(list(Outcome(r).rank_values) for r in patterns), [0.0] * players]
    assert win.tolist() == [*(list(Outcome(r).win_shares) for r in patterns), [0.0] * players]


def test_ranks_that_no_game_ends_with_are_refused() -> None:
    with pytest.raises(ValueError, match="competition ranks"):
        spec.rank_rewards((2, 1, 1, 4))  # two seats rank above the first: it is third
