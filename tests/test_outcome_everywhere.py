"""Every place that scores a finished game agrees with the core Outcome (R20, R21), on
every tie pattern of 2, 3 and 4 players: the compiled kernels (which mirror it), the
bots' playout values, the arena's win shares and the environments' rewards."""

from __future__ import annotations

import random

import pytest

from marrakech.arena.match import GameResult
from marrakech.bots.rollout import MARGIN_SCALE, WIN_WEIGHT, Rollouts, terminal_rewards
from marrakech.outcome import Outcome
from marrakech.record import GameRecord
from tests.core.test_outcome import finished_state, tie_patterns

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
