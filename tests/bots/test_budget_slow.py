"""Slow checks: time budgets are kept (within 20%) and the strength ordering holds.

Run with ``pytest -m slow tests/bots``. They measure wall-clock time and win rates, so
they belong to the slow suite (a loaded machine can upset them); the full measured
table comes from ``scripts/bot_strength.py``.
"""

from __future__ import annotations

import random
import time

import pytest

from marrakech.arena import MatchConfig, run_match, summarise
from marrakech.bots import make_bot

from .conftest import decision_positions


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["expectimax:0.3", "mcts:0.3", "hard", "expert"])
@pytest.mark.parametrize("players", [2, 4])
def test_search_bots_keep_their_time_budget(spec: str, players: int) -> None:
    bot = make_bot(spec)
    budget = getattr(bot, "seconds", None)
    assert budget is not None
    for state in decision_positions(players, "standard", count=4, seed=players):
        began = time.perf_counter()
        bot.choose(state, random.Random(0))
        assert time.perf_counter() - began <= 1.2 * budget


@pytest.mark.slow
def test_random_and_greedy_answer_at_once() -> None:
    for spec in ("random", "greedy"):
        bot = make_bot(spec)
        for state in decision_positions(4, "standard", count=10, seed=1):
            began = time.perf_counter()
            bot.choose(state, random.Random(0))
            assert time.perf_counter() - began < 0.1


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
