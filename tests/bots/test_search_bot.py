"""``search``: the compiled MCTS bot and its Python fallback (legality is in
test_legal.py, with every player count and rule set)."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap

import pytest

from marrakech import Orient, State
from marrakech.bots import SearchBot, make_bot
from marrakech.bots.search import fast_available
from marrakech.state import Phase
from marrakech.threat import roll_threat

from .conftest import decision_positions

needs_fast = pytest.mark.skipif(not fast_available(), reason="needs Numba")


@needs_fast
def test_count_budgets_are_reproducible_and_exact() -> None:
    positions = decision_positions(3, "standard", count=6, seed=4)
    first = [SearchBot(seconds=None, iterations=700).choose(s, random.Random(9)) for s in positions]
    bot = SearchBot(seconds=None, iterations=700)
    second = [bot.choose(s, random.Random(9)) for s in positions]
    assert first == second
    assert bot.last_iterations == 700 and bot.last_nodes > 700


@needs_fast
def test_a_clock_budget_is_kept() -> None:
    state = decision_positions(4, "standard", count=1, seed=2)[0]
    bot = SearchBot(seconds=0.05)
    bot.choose(state, random.Random(0))
    assert bot.last_seconds < 0.2 and bot.last_iterations > 100


def test_the_python_fallback_searches_the_same_tree_shape() -> None:
    bot = SearchBot(seconds=None, iterations=40, use_fast=False)
    state = decision_positions(2, "bga", count=3, seed=1)[2]
    assert bot.choose(state, random.Random(1)) in state.legal_actions()
    assert bot.last_iterations == 40 and not bot.compiled


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_fast)])
def test_it_turns_away_from_a_ruinous_roll(compiled: bool) -> None:
    """R9-R13: in a position where one facing costs at least 4 dirhams more in expected
    tithe than another, the search does not choose the costliest facing."""
    bot = SearchBot(seconds=None, iterations=300 if compiled else 60, use_fast=compiled)
    found = None
    for start in decision_positions(2, "standard", count=300, seed=3):
        if start.phase is Phase.ORIENT:
            costs = [roll_threat(start, k)[0] for k in range(3)]
            if max(costs) - min(costs) >= 4:
                found = (start, costs)
                break
    assert found is not None
    start, costs = found
    choice = bot.choose(start, random.Random(2))
    assert isinstance(choice, Orient)
    assert costs[choice.id] < max(costs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seconds": None}, "needs a budget"),
        ({"exploration": -1}, "exploration must be 0 to 10, found -1"),
        ({"prior": float("nan")}, "prior must be 0 to 1000, found nan"),
        ({"playout": 2}, "playout must be 0 to 1, found 2"),
    ],
)
def test_bad_options_are_explained(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchBot(**kwargs)  # type: ignore[arg-type]


def test_a_bot_never_resigns_and_refuses_chance_nodes() -> None:
    state = State.new(players=2)  # the opening reveals the piles first (R7)
    with pytest.raises(ValueError, match="decision node, found the DRAW phase"):
        make_bot("search@iterations=5").choose(state, random.Random(0))


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_fast)])
def test_the_paranoid_model_plays_legally_and_differs(compiled: bool) -> None:
    positions = decision_positions(4, "standard", count=8, seed=6)
    n = 2000 if compiled else 80
    maxn = SearchBot(seconds=None, iterations=n, use_fast=compiled)
    paranoid = SearchBot(seconds=None, iterations=n, paranoid=True, use_fast=compiled)
    ours = [maxn.choose(s, random.Random(1)) for s in positions]
    theirs = [paranoid.choose(s, random.Random(1)) for s in positions]
    assert all(a in s.legal_actions() for a, s in zip(theirs, positions, strict=True))
    if compiled:  # enough search for the opponents' model to change some decisions
        assert ours != theirs


def test_without_numba_the_levels_search_in_python() -> None:
    script = textwrap.dedent(
        """
        import random, sys
        sys.modules["numba"] = None  # makes `import numba` raise ImportError
        from marrakech import State
        from marrakech.bots import make_bot
        from marrakech.bots.analysis import winning_chances
        state = State.new(players=3)
        bot = make_bot("hard@iterations=30")
        print(bot.compiled, bot.choose(state, random.Random(1)) in state.legal_actions())
        print(round(sum(winning_chances(state)), 5))  # each chance is rounded to 6 digits
        try:
            make_bot("expert@use_fast=true")
        except ValueError as error:
            print(error)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.splitlines() == [
        "False True",
        "1.0",
        "use_fast=true needs Numba: pip install 'marrakech[fast]'",
    ]
