"""Every place that scores a finished game agrees with the core Outcome (R20, R21), on
every tie pattern of 2, 3 and 4 players: the compiled kernels (which mirror it), the
bots' playout values, the arena's win shares and the environments' rewards (which are
also the very numbers they were before Outcome: the pairwise rank reward and the share
of the win)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from marrakech.arena.match import GameResult
from marrakech.bots.rollout import MARGIN_SCALE, WIN_WEIGHT, Rollouts, terminal_rewards
from marrakech.outcome import Outcome
from marrakech.record import GameRecord
from marrakech.rules import STANDARD
from tests.core.test_outcome import finished_state, tie_patterns

if TYPE_CHECKING:  # the environments need gymnasium: imported by the tests that skip without
    from marrakech.envs.vector import BackendName

np = pytest.importorskip("numpy")

PATTERNS = [ranks for players in (2, 3, 4) for ranks in tie_patterns(players)]


def test_kernel_outcome_values_mirror_outcome() -> None:
    pytest.importorskip("numba")
    from marrakech.fast.playouts import outcome_arrays

    for players in (2, 3, 4):
        patterns = tie_patterns(players)
        values, shares = outcome_arrays(np.array(patterns, dtype=np.int8))
        for row, ranks in enumerate(patterns):
            assert values[row].tolist() == pytest.approx(Outcome(ranks).rank_values)
            assert shares[row].tolist() == pytest.approx(Outcome(ranks).win_shares)


@pytest.mark.parametrize("ranks", PATTERNS, ids=str)
def test_compiled_playouts_and_batches_score_like_outcome(ranks: tuple[int, ...]) -> None:
    pytest.importorskip("numba")
    from marrakech.fast import Batch, random_playouts

    state = finished_state(ranks)
    outcome = state.outcome()
    played = random_playouts(state, 2, seed=1)
    assert played.ranks.tolist() == [list(ranks)] * 2
    assert played.rank_values()[0].tolist() == pytest.approx(outcome.rank_values)
    assert played.win_shares()[0].tolist() == pytest.approx(outcome.win_shares)
    batch = Batch(1, players=len(ranks))
    batch.set_state(0, state)
    assert batch.rewards()[0].tolist() == pytest.approx(outcome.rank_values)


@pytest.mark.parametrize("objective", ["rank", "win"])
@pytest.mark.parametrize("ranks", PATTERNS, ids=str)
def test_playout_rewards_take_the_rank_part_from_outcome(
    ranks: tuple[int, ...], objective: str
) -> None:
    state = finished_state(ranks)
    outcome = state.outcome()
    part = outcome.win_shares if objective == "win" else outcome.rank_values
    scores = state.scores()
    expected = []
    for seat, score in enumerate(scores):
        best_other = max(s for other, s in enumerate(scores) if other != seat)
        margin = 0.5 + 0.5 * float(np.tanh((score - best_other) / MARGIN_SCALE))
        expected.append(WIN_WEIGHT * part[seat] + (1 - WIN_WEIGHT) * margin)
    assert terminal_rewards(state, objective) == pytest.approx(expected)
    rollouts = Rollouts(use_fast=None, objective=objective)
    if rollouts.compiled:  # the kernel's vectorised rewards, from a finished position
        fast = rollouts._run_fast(state, 3, random.Random(0))
        assert fast == pytest.approx(expected)


@pytest.mark.parametrize("ranks", PATTERNS, ids=str)
def test_arena_win_shares_come_from_outcome(ranks: tuple[int, ...]) -> None:
    state = finished_state(ranks)
    players = len(ranks)
    result = GameResult(
        index=0,
        seats=("random",) * players,
        scores=state.scores(),
        ranks=state.ranks(),
        money=state.money,
        eliminated=(),
        plies=0,
        seconds=(0.0,) * players,
        decisions=(0,) * players,
        record=GameRecord.from_actions(state, ()),
    )
    assert result.winners == state.outcome().winners
    assert [result.win_share(seat) for seat in range(players)] == list(state.outcome().win_shares)


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


@pytest.mark.parametrize("ranks", PATTERNS, ids=str)
def test_env_rewards_are_the_outcome_and_the_old_numbers(ranks: tuple[int, ...]) -> None:
    pytest.importorskip("gymnasium")
    from marrakech.envs import spec
    from marrakech.envs.vector import outcome_table

    outcome = Outcome(ranks)
    state = finished_state(ranks)
    assert spec.rank_rewards(ranks) == outcome.rank_rewards == tuple(pairwise(ranks))
    assert spec.win_rewards(ranks) == outcome.win_shares == tuple(shares(ranks))
    assert spec.outcome_rewards(state, "rank") == outcome.rank_rewards
    assert spec.outcome_rewards(state, "win") == outcome.win_shares
    # In float32 (VectorEnv's rewards) they are the very same numbers.
    expected = {"rank": np.float32(pairwise(ranks)), "win": np.float32(shares(ranks))}
    values = np.array([outcome.rank_values])
    win = np.array([outcome.win_shares])
    for reward in spec.OUTCOME_REWARDS:
        assert spec.reward_arrays(values, win, reward)[0].tobytes() == expected[reward].tobytes()
        assert outcome_table(np.array([ranks]), reward)[0].tobytes() == expected[reward].tobytes()


def env_backends() -> list[BackendName]:
    pytest.importorskip("gymnasium")
    from tests.envs.test_vector import backends

    return backends()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_engines_and_vector_env_reward_every_tie_like_outcome(players: int) -> None:
    from marrakech.envs import VectorEnv, spec
    from marrakech.envs.vector import make_batch

    patterns = tie_patterns(players)
    for backend in env_backends():
        for reward in spec.OUTCOME_REWARDS:
            env = VectorEnv(len(patterns), players, reward=reward, backend=backend)
            env.reset_transition()
            for i, ranks in enumerate(patterns):
                env.set_state(i, finished_state(ranks))
            out = env.step_transition(np.zeros(len(patterns), dtype=np.int64))  # finished
            assert out.terminated.all()
            old = pairwise if reward == "rank" else shares
            assert out.rewards.tobytes() == np.float32([old(r) for r in patterns]).tobytes()
        batch, _ = make_batch(backend, len(patterns) + 1, players, STANDARD, seed=0)
        for i, ranks in enumerate(patterns):
            batch.set_state(i, finished_state(ranks))
        values, win = batch.outcome_values()
        # The kernel mirrors Outcome operation for operation: the same float64 numbers.
        expected_values = [list(Outcome(r).rank_values) for r in patterns]
        assert values.tolist() == [*expected_values, [0.0] * players]
        assert win.tolist() == [*(list(Outcome(r).win_shares) for r in patterns), [0.0] * players]


def test_ranks_that_no_game_ends_with_are_refused() -> None:
    pytest.importorskip("gymnasium")
    from marrakech.envs import spec

    with pytest.raises(ValueError, match="competition ranks"):
        spec.rank_rewards((2, 1, 1, 4))  # two seats rank above the first: it is third
