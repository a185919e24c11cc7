"""Budgets of the bots, on a fake clock; and (slow) the strength ordering.

The budget tests read no real time. The search bots read the clock through their
module's ``time``; the tests put a fake there that moves a fixed step forward at every
reading, so what a bot does with its budget is exact: a count budget alone ignores the
clock, a time budget stops the search once the clock has run past it. How many real
seconds a decision takes is measured by ``benchmarks/bench_bot_budget.py``, which
prints the numbers (speed is benchmarked, never asserted in a test).

The strength checks play real matches, so they are slow: run them with
``pytest -m slow tests/bots``; the full measured table comes from
``scripts/bot_strength.py``.
"""

from __future__ import annotations

import random

import pytest

from marrakech import State
from marrakech.arena import MatchConfig, run_match, summarise
from marrakech.bots import ExpectimaxBot, MctsBot, make_bot
from marrakech.bots import expectimax as expectimax_module
from marrakech.bots import mcts as mcts_module

from .conftest import decision_positions

#: Seconds the fake clock moves per reading: a power of two, so its sums are exact, and
#: small beside the margin the bots keep for their last step (2-3% of the budget).
STEP = 1 / 256


class FakeClock:
    """Stands in for a bot module's ``time``: each reading moves ``step`` seconds on."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 1000.0

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A fake clock in both search bots' modules (one step per reading)."""
    fake = FakeClock(STEP)
    for module in (mcts_module, expectimax_module):
        monkeypatch.setattr(module, "time", fake)
    return fake


def positions(players: int, count: int = 3) -> list[State]:
    """Decision positions with a real choice (a lone legal action returns at once)."""
    found = decision_positions(players, "standard", count=4 * count, seed=players)
    return [state for state in found if len(state.legal_actions()) > 1][:count]


@pytest.mark.parametrize("players", [2, 4])
def test_mcts_with_a_count_budget_alone_ignores_the_clock(clock: FakeClock, players: int) -> None:
    clock.step = 100.0  # every reading is far past any time budget
    for state in positions(players):
        bot = make_bot("mcts@iterations=30@use_fast=false")
        assert isinstance(bot, MctsBot) and bot.seconds is None
        assert bot.choose(state, random.Random(0)) in state.legal_actions()
        assert bot.last_iterations == 30


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("seconds", [0.5, 1.0])
def test_mcts_runs_while_its_time_budget_lasts(
    clock: FakeClock, players: int, seconds: float
) -> None:
    readings = seconds / STEP  # clock readings the budget holds
    for state in positions(players):
        chosen = []
        for _ in range(2):  # the same clock gives the same search
            bot = MctsBot(seconds=seconds, use_fast=False, reuse=False)
            chosen.append((bot.choose(state, random.Random(0)), bot.last_iterations))
            assert chosen[-1][0] in state.legal_actions()
            assert 0.9 * readings <= bot.last_iterations < readings
            assert bot.last_seconds <= seconds
        assert chosen[0] == chosen[1]


def test_mcts_stops_at_whichever_budget_runs_out_first(clock: FakeClock) -> None:
    state = positions(4, count=1)[0]
    counted = MctsBot(seconds=1.0, iterations=10, use_fast=False)
    counted.choose(state, random.Random(0))
    assert counted.last_iterations == 10
    timed = MctsBot(seconds=1.0, iterations=10_000, use_fast=False)
    timed.choose(state, random.Random(0))
    assert timed.last_iterations < 1.0 / STEP and timed.last_seconds <= 1.0


def test_mcts_out_of_time_at_once_still_decides(clock: FakeClock) -> None:
    clock.step = 100.0
    for state in positions(4):
        bot = MctsBot(seconds=0.1, use_fast=False)
        assert bot.choose(state, random.Random(0)) in state.legal_actions()
        assert bot.last_iterations == 0


@pytest.mark.parametrize("players", [2, 4])
def test_expectimax_with_a_depth_budget_alone_ignores_the_clock(
    clock: FakeClock, players: int
) -> None:
    clock.step = 100.0
    for state in positions(players):
        bot = make_bot("expectimax@depth=2")
        assert isinstance(bot, ExpectimaxBot) and bot.seconds is None
        assert bot.choose(state, random.Random(0)) in state.legal_actions()
        assert bot.last_depth == 2


@pytest.mark.parametrize("players", [2, 4])
def test_expectimax_deepens_while_its_time_budget_lasts(clock: FakeClock, players: int) -> None:
    # The bot reads the clock every 16 nodes: on the fake clock, 16 nodes take a step.
    for state in positions(players, count=2):
        full = ExpectimaxBot(seconds=None, depth=2)
        action = full.choose(state, random.Random(0))
        nodes = full.last_nodes  # a whole two-turn search
        # Ample time: the same search as without a clock.
        ample = ExpectimaxBot(seconds=10.0, depth=2)
        assert ample.choose(state, random.Random(0)) == action
        assert (ample.last_depth, ample.last_nodes) == (2, nodes)
        # Time for about half of it: the second turn is given up, the first one played.
        seconds = nodes // 32 * clock.step
        runs = []
        for _ in range(2):  # the same clock gives the same search
            bot = ExpectimaxBot(seconds=seconds, depth=2)
            runs.append(bot.choose(state, random.Random(0)))
            assert runs[-1] in state.legal_actions()
            assert bot.last_depth == 1 and bot.last_nodes < nodes
            assert bot.last_seconds <= seconds + 2 * clock.step  # to a reading or two
        assert runs[0] == runs[1]


def test_expectimax_out_of_time_at_once_still_decides(clock: FakeClock) -> None:
    clock.step = 100.0
    for state in positions(4):
        bot = ExpectimaxBot(seconds=0.1)
        assert bot.choose(state, random.Random(0)) in state.legal_actions()
        assert bot.last_depth <= 1  # a first turn may finish before the 16th node


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_random_and_greedy_take_a_budget_and_ignore_it(spec: str) -> None:
    for state in positions(4):
        decisions = {
            make_bot(spec, **budget).choose(state, random.Random(7))
            for budget in ({}, {"seconds": 1e-9}, {"seconds": 60, "iterations": 1})
        }
        assert len(decisions) == 1


@pytest.mark.slow
def test_greedy_beats_random_by_far() -> None:
    outcome = run_match(MatchConfig(2, ("greedy", "random"), games=100, seed=1), workers=2)
    rows = {r.bot: r for r in summarise(outcome.games)}
    assert rows["greedy"].ci_low >= 0.9


@pytest.mark.slow
def test_mcts_is_at_least_as_strong_as_greedy() -> None:
    config = MatchConfig(4, ("mcts@iterations=200", "greedy", "greedy", "greedy"), 40, seed=2)
    rows = {r.bot: r for r in summarise(run_match(config, workers=2).games)}
    assert rows["mcts@iterations=200"].win_share >= 0.25
