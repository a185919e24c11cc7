"""Names, levels and bot specs (``NAME[:SECONDS][@KEY=VALUE]...``)."""

from __future__ import annotations

import inspect
import random
import threading
from pathlib import Path

import pytest

from marrakech import State
from marrakech.bots import (
    BOTS,
    LEVEL_PLAYERS,
    LEVELS,
    REGISTRY,
    ExpectimaxBot,
    GreedyBot,
    MctsBot,
    Option,
    PolicyBot,
    RandomBot,
    SearchBot,
    check_level_players,
    check_players,
    make_bot,
    options_of,
    parse_bot_spec,
)
from marrakech.bots.search import LEVEL_ITERATIONS
from tests.recipe_copy import SourceCopy


def test_levels_map_to_the_bots() -> None:
    """The shipped levels and bots (a bot added by the recipe adds to them)."""
    shipped = {
        "easy": "random",
        "learned": "policy",
        "medium": "greedy",
        "hard": "search-quick",
        "expert": "search",
    }
    assert [level for level in LEVELS if level in shipped] == list(shipped)  # weakest first
    assert shipped.items() <= LEVELS.items()
    assert isinstance(make_bot("easy"), RandomBot)
    assert isinstance(make_bot("medium"), GreedyBot)
    learned = make_bot("learned")
    assert isinstance(learned, PolicyBot) and learned.weights is None  # the count's policy
    assert isinstance(make_bot("hard"), SearchBot)
    assert isinstance(make_bot("expert"), SearchBot)
    assert set(BOTS) >= {
        "random",
        "greedy",
        "expectimax",
        "mcts",
        "hard-v1",
        "expert-v1",
        "search-quick",
        "search",
        "policy",
        "policy-2p",
        "policy-4p",
    }


def test_levels_search_a_count_with_seconds_as_a_cap() -> None:
    hard, expert = make_bot("hard"), make_bot("expert")
    assert isinstance(hard, SearchBot) and (hard.budget, hard.seconds) == ("hard", 0.75)
    assert isinstance(expert, SearchBot) and (expert.budget, expert.seconds) == ("expert", 3.0)
    for players in (2, 3, 4):
        assert hard.iterations_for(players) == LEVEL_ITERATIONS["hard"][players]
        assert expert.iterations_for(players) > hard.iterations_for(players)
    assert options_of("hard")["seconds"].default == 0.75  # what the web app shortens from
    assert options_of("expert")["seconds"].default == 3.0
    # A spec's count wins over the level's, and drops the cap: reproducible games.
    counted = make_bot("expert@iterations=300")
    assert isinstance(counted, SearchBot) and counted.iterations_for(4) == 300
    assert counted.seconds is None


def test_a_levels_decisions_do_not_depend_on_the_machines_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The hard level at a small count for the test: each decision runs exactly its
    # count, so the same position and seed give the same search, busy machine or not.
    monkeypatch.setitem(LEVEL_ITERATIONS, "hard", {2: 400, 3: 400, 4: 400})
    bot = make_bot("hard")
    assert isinstance(bot, SearchBot)
    state = State.new(players=3)
    first = bot.statistics(state, random.Random(7))
    assert bot.last_iterations == 400
    busy = threading.Event()

    def burn() -> None:
        while not busy.is_set():
            sum(range(10_000))

    workers = [threading.Thread(target=burn) for _ in range(4)]
    for worker in workers:
        worker.start()
    try:
        assert bot.statistics(state, random.Random(7)) == first
        assert bot.last_iterations == 400
    finally:
        busy.set()
        for worker in workers:
            worker.join()
    with pytest.raises(ValueError, match="budget: expected one of expert, hard, found 'huge'"):
        SearchBot(budget="huge")


def test_version_one_levels_are_frozen_by_name() -> None:
    """hard-v1 and expert-v1 are 0.1's hard and expert: the constructors' defaults."""
    hard, expert = make_bot("hard-v1"), make_bot("expert-v1")
    assert isinstance(hard, ExpectimaxBot) and repr(hard) == repr(ExpectimaxBot())
    assert isinstance(expert, MctsBot) and repr(expert) == repr(MctsBot())
    assert hard.seconds == expert.seconds == 1.0


def test_presets_are_overridden_by_specs() -> None:
    assert parse_bot_spec("hard@iterations=50") == (
        "search-quick",
        {"iterations": 50, "seconds": None},
    )
    bot = make_bot("hard@iterations=50")
    assert isinstance(bot, SearchBot) and bot.seconds is None and bot.iterations == 50
    quick = make_bot("search-quick:0.5")
    assert isinstance(quick, SearchBot) and quick.seconds == 0.5


def test_specs_set_budgets() -> None:
    assert parse_bot_spec("mcts:0.2") == ("mcts", {"seconds": 0.2})
    assert parse_bot_spec("expert@iterations=2000") == (
        "search",
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
        ("wizard", f"unknown bot 'wizard': expected one of {', '.join(list(BOTS)[:3])}, "),
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
        (lambda: MctsBot(seconds=-1), "seconds must be more than 0 and at most 60, found -1"),
        (lambda: MctsBot(iterations=0), "iterations must be 1 to 10000000, found 0"),
        (lambda: MctsBot(heuristic=2), "heuristic must be between 0 and 1"),
        (lambda: ExpectimaxBot(seconds=None), "needs a budget"),
        (lambda: ExpectimaxBot(depth=0), "depth must be 1 to 60, found 0"),
    ],
)
def test_bad_budgets_are_explained(make: object, message: str) -> None:
    assert callable(make)
    with pytest.raises(ValueError, match=message):
        make()


def test_levels_and_names_come_from_the_registry() -> None:
    assert list(LEVELS) == [entry.level for entry in REGISTRY if entry.level]  # weakest first
    assert {entry.name: entry.factory for entry in REGISTRY} == BOTS


def test_each_level_says_the_player_counts_it_plays() -> None:
    """Every level plays 2, 3 and 4 players but ``learned``: a shipped policy for 2 and 4
    only. What the registry declares is what the bot does: a count it declares is played
    (a decision is made), a count it does not is refused before the game
    (:func:`check_players`), as at its first decision."""
    assert {entry.level: entry.players for entry in REGISTRY if entry.level} == LEVEL_PLAYERS
    shipped = {
        "easy": (2, 3, 4),
        "learned": (2, 4),
        "medium": (2, 3, 4),
        "hard": (2, 3, 4),
        "expert": (2, 3, 4),
    }
    assert shipped.items() <= LEVEL_PLAYERS.items()
    for entry in REGISTRY:
        if entry.factory is not PolicyBot:
            continue
        bot = make_bot(entry.name)
        for players in (2, 3, 4):
            state = State.new(players=players)
            while state.is_chance:  # two players draw a carpet first (R7)
                state = state.apply(state.legal_actions()[0])
            if players in entry.players:
                check_players(bot, players)
                assert bot.choose(state, random.Random(0)) in state.legal_actions()
            else:
                with pytest.raises(ValueError, match=f"found a {players}-player game"):
                    check_players(bot, players)
                with pytest.raises(ValueError, match=f"found a {players}-player game"):
                    bot.choose(state, random.Random(0))
    check_players(make_bot("greedy"), 3)  # a bot without the method plays every count
    check_level_players("learned", 4)
    with pytest.raises(ValueError, match="the learned level plays 2- or 4-player games only"):
        check_level_players("learned", 3)
    with pytest.raises(ValueError, match="unknown level 'grandmaster': expected one of easy"):
        check_level_players("grandmaster", 2)


def test_options_are_read_from_the_constructors() -> None:
    for entry in REGISTRY:
        parameters = inspect.signature(entry.factory).parameters
        options = options_of(entry.name)
        assert list(options) == list(parameters)
        presets = dict(entry.presets)
        for key, option in options.items():
            assert option.default == presets.get(key, parameters[key].default)
    assert options_of("expert") == options_of("search")
    assert options_of("expert-v1") == options_of("mcts")
    assert options_of("mcts")["rollouts"] == Option(int, optional=True, default=None)
    assert options_of("mcts")["informed"] == Option(bool, optional=False, default=True)


#: The bot a contributor adds, as the recipe says: a file of ``bots/``...
TOY_BOT = '''"""``toy``: the first legal decision."""

from __future__ import annotations

import random

from marrakech.actions import Action
from marrakech.state import State


class ToyBot:
    """Plays the first legal decision."""

    name = "toy"

    def __init__(self, seconds: float | None = None, depth: int | None = None, greed: float = 1):
        self.seconds, self.depth, self.greed = seconds, depth, greed

    def choose(self, state: State, rng: random.Random) -> Action:
        return state.legal_actions()[0]
'''
#: ...what the new bot does, by its name and spec alone...
TOY_PLAYS = """
import pytest
from marrakech.bots import BOTS, make_bot
from marrakech.bots.toy import ToyBot

bot = make_bot("toy:0.5@greed=2.5@depth=none")
assert isinstance(bot, ToyBot) and (bot.seconds, bot.depth, bot.greed) == (0.5, None, 2.5)
with pytest.raises(ValueError, match="toy takes seconds, depth, greed, found 'width'"):
    make_bot("toy@width=2")
with pytest.raises(ValueError, match="greed expects a number"):
    make_bot("toy@greed=lots")
assert list(BOTS)[-1] == "toy"
"""


@pytest.mark.e2e
def test_a_new_bot_is_one_registry_line(tmp_path: Path) -> None:
    """The recipe "A bot" of docs/architecture.md, followed in a copy of the package: one
    file, its import and one line in ``REGISTRY``. The bot is made by name and spec, and
    this file's other tests pass as they are."""
    copy = SourceCopy(tmp_path, copied=("bots",))
    copy.add("bots/toy.py", TOY_BOT)
    anchor = "from marrakech.bots.search import SearchBot\n"
    copy.insert("bots/__init__.py", anchor, "from marrakech.bots.toy import ToyBot\n")
    anchor = ")\n\n#: Bot names -> their classes"  # the end of REGISTRY
    copy.insert("bots/__init__.py", anchor, '    BotEntry("toy", ToyBot),\n', before=True)
    copy.run("-c", TOY_PLAYS)
    others = "not test_a_new_bot_is_one_registry_line"
    copy.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", others, __file__)


def test_bots_are_named_by_their_registry_line() -> None:
    assert make_bot("hard").name == "search-quick" and make_bot("expert").name == "search"
    assert make_bot("hard-v1").name == "hard-v1" and make_bot("expectimax").name == "expectimax"
    assert ExpectimaxBot.name == "expectimax"  # the class keeps its own
