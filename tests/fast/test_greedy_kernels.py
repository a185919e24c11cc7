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
