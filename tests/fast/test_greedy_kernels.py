"""The batch's compiled ``greedy`` (``fast.greedy_kernels``) scores every decision as the
Python bot does, to the last bit, on random positions of every player count and rule
set (R9-R17, R31, R32, eliminations); it plays the Python bot's best decision (one of
them on a tie), and both batch engines choose alike for the same seed."""

from __future__ import annotations

import random

import pytest

from marrakech import BGA, STANDARD, State
from marrakech.bots.evaluation import Weights
from marrakech.bots.greedy import GreedyBot, best_actions, decision_scores, greedy_params
from marrakech.envs.python_batch import PythonBatch
from marrakech.rules import RuleSet
from tests.fast.positions import CONFIGS, IDS, random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import Batch  # noqa: E402
from marrakech.fast.greedy_kernels import greedy_choose, greedy_scores  # noqa: E402
from marrakech.fast.rows import to_arrays  # noqa: E402


def decisions(players: int, rules: RuleSet, seed: int, games: int = 3) -> list[State]:
    """Every decision of a few random games."""
    return random_positions(players, rules, seed, games, lambda state: not state.is_chance)


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_every_score_is_the_python_bots(players: int, rules: RuleSet) -> None:
    params = np.array(greedy_params(None, players))
    scores = np.zeros(12)
    for state in decisions(players, rules, seed=players):
        count = greedy_scores(to_arrays(state), params, scores)
        assert scores[:count].tolist() == decision_scores(state)[1], state.notation()


def test_other_weights_score_alike() -> None:
    weights = Weights(area=2.5, region=0.2, threat=0.1)
    params = np.array(greedy_params(weights, 3))
    scores = np.zeros(12)
    for state in decisions(3, STANDARD, seed=9, games=1):
        count = greedy_scores(to_arrays(state), params, scores)
        assert scores[:count].tolist() == decision_scores(state, weights)[1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_it_plays_the_python_bots_best_decision(players: int) -> None:
    """A single best decision: the one GreedyBot plays; a tie: one of the tied best."""
    params = np.array(greedy_params(None, players))
    bot, rng = GreedyBot(), random.Random(0)
    stream = np.uint64(12345)
    ties = 0
    for state in decisions(players, BGA, seed=players + 10, games=2):
        after, chosen = greedy_choose(to_arrays(state), params, stream)
        stream = np.uint64(after)
        tied = [a.id for a in best_actions(*decision_scores(state))]
        assert chosen in tied
        if len(tied) == 1:
            assert chosen == bot.choose(state, rng).id
        ties += len(tied) > 1
    assert ties > 0  # the openings tie (a symmetric board)


@pytest.mark.parametrize("players", [2, 4])
def test_both_engines_choose_alike_for_the_same_seed(players: int) -> None:
    """Ties are broken by each game's bot stream, seeded alike in both engines."""
    compiled, python = Batch(16, players, seed=4), PythonBatch(16, players, seed=4)
    params = greedy_params(None, players)
    every = np.arange(16)
    for step in range(40):
        live = every[~compiled.terminated()]
        ours = compiled.greedy_actions(live, params)
        assert ours.tolist() == python.greedy_actions(live, params).tolist(), step
        actions = np.full(16, -1)
        actions[live] = ours
        compiled.step(actions)
        python.step(actions)
    compiled.seed_games([7] * 16)
    python.seed_games([7] * 16)
    compiled.reset()
    python.reset()
    assert compiled.greedy_actions(every, params).tolist() == (
        python.greedy_actions(every, params).tolist()
    )


def test_a_game_over_is_refused() -> None:
    batch = Batch(2, 2, seed=0)
    while not batch.terminated().any():
        batch.step(batch.sample_actions())
    with pytest.raises(ValueError, match="every game must wait at a decision"):
        batch.greedy_actions(np.array([0, 1]), greedy_params(None, 2))


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_the_memo_changes_no_decision(players: int, rules: RuleSet) -> None:
    """A batch keeps the placements' scores each orientation found; whole games of two
    ``greedy`` weightings taking turns play as a batch without the memo plays them."""
    kept, fresh = Batch(24, players, rules, seed=5), Batch(24, players, rules, seed=5)
    weightings = [greedy_params(None, players), greedy_params(Weights(2.0, 0.1, 0.3), players)]
    for step in range(300):
        live = np.flatnonzero(~kept.terminated())
        params = weightings[(step // 2) % 2]  # an orientation and a placement each
        ours = kept.greedy_actions(live, params)
        fresh._greedy_memos = None
        assert ours.tolist() == fresh.greedy_actions(live, params).tolist(), step
        actions = np.full(24, -1)
        actions[live] = ours
        kept.step(actions)
        fresh.step(actions)
        ended = kept.terminated()
        kept.reset(ended)
        fresh.reset(ended)


def test_a_placement_after_an_orientation_reads_the_memo() -> None:
    """Its scores are the ones greedy_scores finds, and another weighting or another
    position is not served from it."""
    from marrakech.fast.greedy_kernels import TAB_SIZE, _memo_scores

    batch = Batch(64, 2, seed=3)
    params = greedy_params(None, 2)
    for _ in range(30):  # into the middle of the games
        batch.step(batch.greedy_actions(np.arange(64), params))
    orienting = np.flatnonzero(batch.phase() == 0)
    actions = np.full(64, -1)
    actions[orienting] = batch.greedy_actions(orienting, params)
    batch.step(actions, mask=actions >= 0)
    assert batch._greedy_memos is not None
    memo_rows, memos = batch._greedy_memos
    served = 0
    for i in orienting[batch.phase()[orienting] == 2]:
        row, scores, expected = batch.rows[i], np.zeros(12), np.zeros(12)
        tab = np.zeros(TAB_SIZE, dtype=np.int64)
        count = _memo_scores(row, np.array(params), scores, tab, memo_rows[i], memos[i])
        assert count == greedy_scores(row, np.array(params), expected)
        assert scores[:count].tolist() == expected[:count].tolist()
        served += 1
        other = np.array(greedy_params(Weights(2.0, 0.1, 0.3), 2))
        assert _memo_scores(row, other, scores, tab, memo_rows[i], memos[i]) == -1
        moved = row.copy()
        moved[0] = (moved[0] + 1) % 9  # another carpet on a square
        assert _memo_scores(moved, np.array(params), scores, tab, memo_rows[i], memos[i]) == -1
    assert served > 20
