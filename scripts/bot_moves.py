"""Every bot's moves on seeded positions, one line per bot: run it on two versions of
the code and compare the outputs to check that a refactoring changes no move.

The positions come from random games of every player count under ``standard`` and
``bga``, with and without R32's orient-last; the bots play with count budgets and no
clock (``seconds=None``), so a loaded machine cannot change a move::

    git worktree add /tmp/base main
    PYTHONPATH=/tmp/base/src .venv/bin/python scripts/bot_moves.py 300 > base.txt
    .venv/bin/python scripts/bot_moves.py 300 > mine.txt
    diff base.txt mine.txt && echo "the same moves"
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from marrakech import State
from marrakech.bots import LEVELS, Bot, check_players, make_bot
from marrakech.rules import NAMED_RULE_SETS

#: Every registry level, then the bots without a level; count budgets, no clock.
BUDGETS: dict[str, dict[str, Any]] = {
    "easy": {},
    "learned": {},
    "medium": {},
    "hard": {"iterations": 300, "seconds": None},
    "expert": {"iterations": 300, "playout": 0.5, "seconds": None},
    "expectimax": {"depth": 2, "seconds": None},
    "mcts": {"iterations": 150, "seconds": None},
    "hard-v1": {"depth": 1, "seconds": None},
    "expert-v1": {"iterations": 150, "informed": False, "seconds": None},
}


def positions(count: int, seed: int) -> list[State]:
    """``count`` decision positions (ORIENT or PLACE) of random games."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        players = rng.choice((2, 3, 4))
        rules = rng.choice(list(NAMED_RULE_SETS.values()))
        if rng.random() < 0.4:
            rules = rules.with_options(orient_last=True)
        state = State.new(players=players, rules=rules)
        for _ in range(rng.randrange(120)):
            if state.is_terminal:
                break
            if state.is_chance:
                actions, chances = zip(*state.chance_outcomes(), strict=True)
                state = state.apply(rng.choices(actions, [float(p) for p in chances])[0])
            else:
                state = state.apply(rng.choice(list(state.legal_actions())))
        if not state.is_terminal and not state.is_chance:
            found.append(state)
    return found


def _plays(bot: Bot, players: int) -> bool:
    """Whether ``bot`` plays ``players``-player games (``learned``: 2 and 4; "-" else)."""
    try:
        check_players(bot, players)
    except ValueError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("positions", type=int, nargs="?", default=300)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    assert set(LEVELS) <= set(BUDGETS), "every level is compared"
    states = positions(args.positions, args.seed)
    for spec, budget in BUDGETS.items():
        bot = make_bot(spec, **budget)
        moves = [
            str(bot.choose(s, random.Random(i))) if _plays(bot, s.players) else "-"
            for i, s in enumerate(states)
        ]
        print(spec, " ".join(moves), flush=True)


if __name__ == "__main__":
    main()
