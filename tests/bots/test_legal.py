"""Every bot returns a legal decision from any reachable position, of every player count
and rule set (R30-R32), without changing the state it is given, and reproducibly."""

from __future__ import annotations

import random

import pytest

from marrakech import State
from marrakech.bots import Bot, ExpectimaxBot, GreedyBot, MctsBot, RandomBot, SearchBot
from marrakech.bots.rollout import fast_kernel

from .conftest import CONFIGS, decision_positions


def small_bots() -> list[Bot]:
    bots: list[Bot] = [
        RandomBot(),
        GreedyBot(),
        ExpectimaxBot(seconds=None, depth=1),
        ExpectimaxBot(seconds=0.02),
        MctsBot(seconds=None, iterations=24, use_fast=False),
        SearchBot(seconds=None, iterations=24, use_fast=False),
    ]
    if fast_kernel() is not None:
        bots.append(MctsBot(seconds=None, iterations=24, use_fast=True))
        bots.append(SearchBot(seconds=None, iterations=300, use_fast=True))
        bots.append(SearchBot(seconds=None, iterations=100, playout=0.5, use_fast=True))
    return bots


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=[f"{p}p-{r}" for p, r in CONFIGS])
def test_every_bot_returns_a_legal_decision(players: int, rules: str) -> None:
    positions = decision_positions(players, rules, count=10, seed=players)
    for bot in small_bots():
        rng = random.Random(5)
        for state in positions:
            before = state.notation()
            action = bot.choose(state, rng)
            assert action in state.legal_actions(), (bot, state.notation(), action)
            assert state.notation() == before  # never changes what it was given
            assert isinstance(bot, Bot)


@pytest.mark.parametrize(
    "make",
    [
        RandomBot,
        GreedyBot,
        lambda: ExpectimaxBot(seconds=None, depth=2),
        lambda: MctsBot(seconds=None, iterations=60, use_fast=False),
        lambda: SearchBot(seconds=None, iterations=60, use_fast=False),
        lambda: SearchBot(seconds=None, iterations=500),
    ],
    ids=["random", "greedy", "expectimax", "mcts", "search-python", "search"],
)
def test_same_rng_same_decisions(make: object) -> None:
    assert callable(make)
    positions = decision_positions(4, "standard", count=4, seed=11)
    first = [make().choose(s, random.Random(3)) for s in positions]
    second = [make().choose(s, random.Random(3)) for s in positions]
    assert first == second


def test_bots_refuse_chance_and_terminal_positions() -> None:
    opening = State.new(players=2)  # a DRAW chance node (R7)
    for bot in small_bots():
        with pytest.raises(ValueError, match="decision node"):
            bot.choose(opening, random.Random(0))


def test_a_whole_game_between_every_bot() -> None:
    from marrakech.playout import sample_outcome

    rng = random.Random(2)
    bots: list[Bot] = [
        GreedyBot(),
        ExpectimaxBot(seconds=None, depth=1),
        MctsBot(seconds=None, iterations=16),
        RandomBot(),
    ]
    state = State.new(players=4)
    while not state.is_terminal:
        if state.is_chance:
            state = state.apply(sample_outcome(state, rng))
        else:
            state = state.apply(bots[state.turn].choose(state, rng))
    assert state.winners()
