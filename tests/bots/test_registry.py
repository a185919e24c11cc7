"""Names, levels and bot specs (``NAME[:SECONDS][@KEY=VALUE]...``)."""

from __future__ import annotations

import inspect
import random

import pytest

from marrakech import Action, State
from marrakech.bots import (
    BOTS,
    LEVELS,
    REGISTRY,
    ExpectimaxBot,
    GreedyBot,
    MctsBot,
    Option,
    RandomBot,
    make_bot,
    options_of,
    parse_bot_spec,
)


def test_levels_map_to_the_four_bots() -> None:
    assert LEVELS == {"easy": "random", "medium": "greedy", "hard": "expectimax", "expert": "mcts"}
    assert isinstance(make_bot("easy"), RandomBot)
    assert isinstance(make_bot("medium"), GreedyBot)
    assert isinstance(make_bot("hard"), ExpectimaxBot)
    assert isinstance(make_bot("expert"), MctsBot)
    assert set(BOTS) == {"random", "greedy", "expectimax", "mcts"}


def test_interactive_defaults_are_about_one_second() -> None:
    hard, expert = make_bot("hard"), make_bot("expert")
    assert isinstance(hard, ExpectimaxBot) and hard.seconds == 1.0
    assert isinstance(expert, MctsBot) and expert.seconds == 1.0 and expert.iterations is None


def test_specs_set_budgets() -> None:
    assert parse_bot_spec("mcts:0.2") == ("mcts", {"seconds": 0.2})
    assert parse_bot_spec("expert@iterations=2000") == (
        "mcts",
        {"iterations": 2000, "seconds": None},
    )
    assert parse_bot_spec("mcts:0.5@iterations=100") == (
        "mcts",
        {"seconds": 0.5, "iterations": 100},
    )
    assert parse_bot_spec("expectimax@depth=2@width=3") == (
        "expectimax",
        {"depth": 2, "width": 3, "seconds": None},
    )
    assert parse_bot_spec("mcts@use_fast=false@iterations=5")[1]["use_fast"] is False
    bot = make_bot("mcts@iterations=10")
    assert isinstance(bot, MctsBot) and bot.seconds is None and bot.iterations == 10
    keyword = make_bot("mcts", seconds=None, iterations=7)
    assert isinstance(keyword, MctsBot) and keyword.iterations == 7


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("wizard", "unknown bot 'wizard': expected one of random, greedy"),
        ("mcts:fast", "seconds expects a number, found 'fast'"),
        ("mcts@iterations", "expected @KEY=VALUE"),
        ("mcts@depth=2", "mcts takes seconds, iterations"),
        ("expectimax@depth=two", "depth expects an integer"),
        ("mcts@reuse=maybe", "reuse expects true or false"),
        ("", "expected a bot spec"),
    ],
)
def test_bad_specs_are_explained(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MctsBot(seconds=None, iterations=None), "needs a budget"),
        (lambda: MctsBot(seconds=-1), "seconds must be positive"),
        (lambda: MctsBot(iterations=0), "iterations must be at least 1"),
        (lambda: MctsBot(heuristic=2), "heuristic must be between 0 and 1"),
        (lambda: ExpectimaxBot(seconds=None), "needs a budget"),
        (lambda: ExpectimaxBot(depth=0), "depth must be at least 1"),
    ],
)
def test_bad_budgets_are_explained(make: object, message: str) -> None:
    assert callable(make)
    with pytest.raises(ValueError, match=message):
        make()


def test_levels_and_names_come_from_the_registry() -> None:
    assert list(LEVELS) == [entry.level for entry in REGISTRY]  # weakest first
    assert {entry.name: entry.factory for entry in REGISTRY} == BOTS


def test_options_are_read_from_the_constructors() -> None:
    for entry in REGISTRY:
        parameters = inspect.signature(entry.factory).parameters
        options = options_of(entry.name)
        assert list(options) == list(parameters)
        for key, option in options.items():
            assert option.default == parameters[key].default
    assert options_of("expert") == options_of("mcts")
    assert options_of("mcts")["rollouts"] == Option(int, optional=True, default=None)
    assert options_of("mcts")["informed"] == Option(bool, optional=False, default=True)


class ToyBot:
    """A bot added the way a contributor adds one: a class, then its registry line."""

    name = "toy"

    def __init__(self, seconds: float | None = None, depth: int | None = None, greed: float = 1):
        self.seconds, self.depth, self.greed = seconds, depth, greed

    def choose(self, state: State, rng: random.Random) -> Action:
        return state.legal_actions()[0]


def test_a_new_bot_is_one_registry_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import marrakech.bots as bots

    monkeypatch.setitem(bots.BOTS, "toy", ToyBot)
    options_of.cache_clear()
    try:
        bot = make_bot("toy:0.5@greed=2.5@depth=none")
        assert isinstance(bot, ToyBot) and (bot.seconds, bot.depth, bot.greed) == (0.5, None, 2.5)
        with pytest.raises(ValueError, match="toy takes seconds, depth, greed, found 'width'"):
            make_bot("toy@width=2")
        with pytest.raises(ValueError, match="greed expects a number"):
            make_bot("toy@greed=lots")
    finally:
        options_of.cache_clear()
