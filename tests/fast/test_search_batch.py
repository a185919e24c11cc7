"""The batch's compiled ``search`` (``fast.search_batch``) plays the Python ``SearchBot``'s
decision at the same budget when the bot's generator draws from the game's bot stream,
on the positions of whole games of every player count; both batch engines and the
vector env agree, and a clock budget is refused."""

from __future__ import annotations

import random

import pytest

from marrakech import BGA, STANDARD
from marrakech.bots import SearchBot, make_bot
from marrakech.envs.python_batch import PythonBatch, StreamRandom
from marrakech.rules import RuleSet
from tests.fast.positions import random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.bots.value import load_value  # noqa: E402
from marrakech.envs import VectorEnv  # noqa: E402
from marrakech.fast import Batch  # noqa: E402
from marrakech.fast.rows import to_arrays  # noqa: E402
from marrakech.fast.search_batch import INFORMED, batch_search, tree_arrays  # noqa: E402


@pytest.mark.parametrize(
    ("players", "rules", "spec"),
    [
        (2, STANDARD, "search@iterations=40"),
        (3, BGA, "search@iterations=70@exploration=0.3"),
        (4, STANDARD, "search@iterations=40@paranoid=true@prior=0.5"),
    ],
)
def test_it_plays_the_python_bots_decision(players: int, rules: RuleSet, spec: str) -> None:
    """On every decision of random games (40 iterations: a chunk of 32 and one of 8)."""
    bot = make_bot(spec)
    assert isinstance(bot, SearchBot)
    states = random_positions(players, rules, players, 2, lambda state: not state.is_chance)
    rows = np.stack([to_arrays(state) for state in states])
    seeds = [random.Random(k).getrandbits(64) for k in range(len(states))]
    streams = np.array(seeds, dtype=np.uint64)
    out = np.empty(len(states), dtype=np.int64)
    assert bot.iterations is not None
    batch_search(
        rows, np.arange(len(states)), streams, *tree_arrays(bot.iterations), bot.iterations,
        bot.exploration, bot.prior, bot.playout, bot.paranoid,
        load_value(players).array(), INFORMED, out,
    )  # fmt: skip
    chosen, moved = [], []
    for state, seed, after in zip(states, seeds, streams.tolist(), strict=True):
        rng = StreamRandom(seed)
        chosen.append(bot.choose(state, rng).id)
        moved.append(rng.stream == after)
    assert out.tolist() == chosen
    assert all(moved)  # the same draws, so the games' streams go on alike


@pytest.mark.parametrize("players", [2, 4])
def test_both_engines_choose_alike(players: int) -> None:
    bot = SearchBot(seconds=None, iterations=33)
    compiled, python = Batch(6, players, seed=3), PythonBatch(6, players, seed=3)
    every = np.arange(6)
    for step in range(30):
        live = every[~compiled.terminated()]
        weights = load_value(players).array()
        ours = compiled.search_actions(live, bot, weights)
        assert ours.tolist() == python.search_actions(live, bot, weights).tolist(), step
        actions = np.full(6, -1)
        actions[live] = ours
        compiled.step(actions)
        python.step(actions)


def test_the_vector_env_runs_it_in_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """``search@iterations=N`` opponents play as the batch's own search (never through
    the bot's ``choose`` on the compiled backend), the same games on both backends."""
    games = []
    for backend in ("numba", "python"):
        env = VectorEnv(
            4, 2, seed=5, opponents=("search@iterations=20",), seat="rotate", backend=backend
        )
        if backend == "numba":
            assert env.opponents is not None
            bot = env.opponents[0]
            monkeypatch.setattr(bot, "choose", None)  # the batch must not call it
        env.reset(seed=5)
        for _ in range(12):
            env.step_transition(env.sample_actions())
        games.append([env.state(i).notation() for i in range(4)])
    assert games[0] == games[1]


def test_a_clock_budget_is_refused() -> None:
    batch = Batch(2, 2, seed=0)
    with pytest.raises(ValueError, match="iterations and no clock"):
        bot = SearchBot(seconds=0.1)
        batch.search_actions(np.arange(2), bot, load_value(2).array())
