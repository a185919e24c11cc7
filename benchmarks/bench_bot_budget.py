"""Seconds per decision of each bot against its time budget.

Not a test: it prints numbers (close other work on the machine first). For each bot (the
four levels at their interactive defaults, then the search bots at a shorter budget) and
each player count, a fresh bot decides at positions sampled from random games, opening
to endgame, with a real choice to make. Each row gives the mean and the largest wall-clock
seconds per decision, the budget, and largest / budget: a bot keeps its budget when that
ratio stays at or under 1 (the search bots aim just under it; they read the clock between
iterations or every 16 nodes, so a loaded machine can push it over). The budget logic
itself is tested on a fake clock in ``tests/bots/test_budget_slow.py``::

    .venv/bin/python benchmarks/bench_bot_budget.py                  # every level, 2 and 4 players
    .venv/bin/python benchmarks/bench_bot_budget.py --bots mcts:0.3,hard --players 2 --positions 4
    .venv/bin/python benchmarks/bench_bot_budget.py --json
"""

from __future__ import annotations

import argparse
import json
import random
import time

from marrakech import State, parse_rules, random_action
from marrakech.bots import LEVELS, make_bot, parse_bot_spec

DEFAULT_BOTS = "easy,medium,hard,expert,expectimax:0.3,mcts:0.3"


def sample_positions(players: int, rules: str, count: int, seed: int) -> list[State]:
    """``count`` decision positions with more than one legal decision, from random games."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = State.new(players, parse_rules(rules), first_seat=rng.randrange(players))
        seen = []
        while not state.is_terminal:
            if not state.is_chance and len(state.legal_actions()) > 1:
                seen.append(state)
            state = state.apply(random_action(state, rng))
        found.extend(rng.sample(seen, min(4, count - len(found), len(seen))))
    return found


def measure(spec: str, states: list[State]) -> dict[str, object]:
    """Wall-clock seconds of one decision per state, a fresh bot each time."""
    times = []
    budget: float | None = None
    for state in states:
        bot = make_bot(spec)  # built outside the timing (MCTS loads its kernels once)
        budget = getattr(bot, "seconds", None)
        began = time.perf_counter()
        bot.choose(state, random.Random(0))
        times.append(time.perf_counter() - began)
    name, _ = parse_bot_spec(spec)  # a level is named by its bot
    level = next((lvl for lvl, bot in LEVELS.items() if bot == name), "-")
    worst = max(times)
    return {
        "bot": spec,
        "level": level,
        "decisions": len(times),
        "mean_s": sum(times) / len(times),
        "max_s": worst,
        "budget_s": budget,
        "max_over_budget": None if budget is None else worst / budget,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--bots", default=DEFAULT_BOTS, help=f"bot specs ({DEFAULT_BOTS})")
    parser.add_argument("--players", default="2,4", help="player counts (2,4)")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--positions", type=int, default=8, help="decisions per row (8)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON list instead of a table")
    args = parser.parse_args(argv)
    specs = [spec.strip() for spec in args.bots.split(",") if spec.strip()]
    counts = [int(p) for p in args.players.split(",")]
    samples = {p: sample_positions(p, args.rules, args.positions, args.seed + p) for p in counts}
    rows = []
    if not args.json:
        print(
            f"{'bot':<18} {'level':<7} {'players':>7} {'decisions':>9} {'mean s':>8} "
            f"{'max s':>8} {'budget s':>8} {'max/budget':>10}"
        )
    for spec in specs:
        for players in counts:
            row = {"players": players, **measure(spec, samples[players])}
            rows.append(row)
            if not args.json:
                budget, ratio = row["budget_s"], row["max_over_budget"]
                print(
                    f"{spec:<18} {row['level']:<7} {players:>7} {row['decisions']:>9} "
                    f"{row['mean_s']:>8.3f} {row['max_s']:>8.3f} "
                    f"{'-' if budget is None else f'{budget:g}':>8} "
                    f"{'-' if ratio is None else f'{ratio:.2f}':>10}",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
