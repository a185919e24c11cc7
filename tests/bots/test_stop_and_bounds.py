"""Bot budgets have upper bounds, and a search told to stop returns at once."""

from __future__ import annotations

import random
import threading

import pytest

from marrakech.bots import ExpectimaxBot, MctsBot, SearchBot, make_bot
from marrakech.bots.base import choose_stoppable
from marrakech.state import State


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:inf", "seconds must be more than 0 and at most 60, found inf"),
        ("search:nan", "seconds must be more than 0 and at most 60, found nan"),
        ("expert:61", "seconds must be more than 0 and at most 60, found 61.0"),
        ("expectimax@depth=100", "depth must be 1 to 60, found 100"),
        ("mcts@iterations=100000000", "iterations must be 1 to 10000000, found 100000000"),
        ("random:inf", "seconds must be more than 0 and at most 60, found inf"),
        ("greedy@iterations=0", "iterations must be 1 to 10000000, found 0"),
        ("mcts@exploration=1e9", "exploration must be 0 to 10, found 1000000000.0"),
        ("mcts@rollouts=5000", "rollouts must be 1 to 1000, found 5000"),
        ("search@prior=inf", "prior must be 0 to 1000, found inf"),
        ("expectimax@width=1000", "width must be 1 to 100, found 1000"),
    ],
)
def test_budgets_beyond_their_range_are_refused_with_the_range(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        make_bot(spec)
    assert str(refused.value) == message


def test_the_largest_budgets_are_accepted() -> None:
    assert MctsBot(seconds=60).seconds == 60
    assert ExpectimaxBot(seconds=None, depth=60).depth == 60
    assert make_bot("expectimax:60@depth=60") is not None


class CountingStop:
    """A stop flag that is set after ``after`` looks: the search must look at it as it
    goes and end as soon as it is set."""

    def __init__(self, after: int) -> None:
        self.after, self.looks = after, 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > self.after


@pytest.mark.parametrize(
    "bot",
    [
        MctsBot(seconds=60, use_fast=False),
        SearchBot(seconds=60, use_fast=False),
        SearchBot(seconds=60),
        ExpectimaxBot(seconds=60),
    ],
    ids=["mcts", "search-python", "search", "expectimax"],
)
def test_a_search_told_to_stop_returns_with_a_legal_decision(bot: MctsBot) -> None:
    state = State.new(players=4)
    stop = CountingStop(after=3)
    action = choose_stoppable(bot, state, random.Random(0), stop)
    assert action in state.legal_actions()
    # It looked at the flag, saw it set and stopped there: a 60 s budget not spent.
    assert stop.looks == 4
    assert bot.stop is None  # the flag is the caller's, for this decision only


def test_a_stop_flag_set_before_the_search_ends_it_at_once() -> None:
    stop = threading.Event()
    stop.set()
    bot = MctsBot(seconds=60, use_fast=False)
    state = State.new(players=3)
    assert choose_stoppable(bot, state, random.Random(1), stop) in state.legal_actions()
    assert bot.last_iterations == 0


def test_a_bot_that_does_not_search_ignores_the_flag() -> None:
    state = State.new(players=3)
    action = choose_stoppable(make_bot("greedy"), state, random.Random(0), threading.Event())
    assert action in state.legal_actions()
