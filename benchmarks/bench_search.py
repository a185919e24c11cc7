"""Iterations per CPU-second of the compiled search (``search``) and of version 0.1's
MCTS (``expert-v1`` = ``mcts``), measured in one run, and the count budgets that give
each the same time per decision.

Not a test: it prints numbers. The strength matches (``scripts/bot_strength.py``) give
bots iteration counts, not seconds, so that their games are reproducible and do not
depend on the load of the machine; this script is how a time budget becomes a count:
a bot thinking ``T`` seconds runs about ``T x`` its iterations per second here::

    .venv/bin/python benchmarks/bench_search.py                      # 2, 3 and 4 players
    .venv/bin/python benchmarks/bench_search.py --players 2 --positions 8 --json

CPU time of this process (``benchmarks/timing.py``), so the ratio holds on a shared
machine; positions are sampled from random games, opening to endgame.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from bench_bot_budget import sample_positions

from marrakech.bots import MctsBot, SearchBot
from marrakech.state import State


def rate(make: object, states: list[State], iterations: int) -> float:
    """Iterations per CPU-second over ``states`` (a fresh bot per state; warmed up)."""
    assert callable(make)
    make(iterations).choose(states[0], random.Random(0))  # compile or load, fill caches
    done = 0
    began = time.process_time()
    for i, state in enumerate(states):
        bot = make(iterations)
        bot.choose(state, random.Random(i))
        done += bot.last_iterations
    return done / (time.process_time() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="2,3,4")
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for players in (int(p) for p in args.players.split(",")):
        states = sample_positions(players, "standard", args.positions, args.seed)
        new = rate(lambda n: SearchBot(seconds=None, iterations=n), states, 50_000)
        old = rate(lambda n: MctsBot(seconds=None, iterations=n), states, 1_000)
        python = rate(lambda n: SearchBot(seconds=None, iterations=n, use_fast=False), states, 500)
        rows.append(
            {
                "players": players,
                "search_per_s": round(new),
                "search_python_per_s": round(python),
                "mcts_per_s": round(old),
                "speedup": round(new / old, 1),
                "search_at_1s": round(new),
                "search_at_0.25s": round(new / 4),
                "mcts_at_1s": round(old),
            }
        )
    if args.json:
        print(json.dumps(rows))
        return 0
    print(
        "| players | search it/s (compiled) | search it/s (Python) | expert-v1 (mcts) it/s | "
        "ratio | 1 s of search | 0.25 s of search | 1 s of mcts |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['players']} | {r['search_per_s']:,} | {r['search_python_per_s']:,} | "
            f"{r['mcts_per_s']:,} | {r['speedup']}x | {r['search_at_1s']:,} | "
            f"{r['search_at_0.25s']:,} | {r['mcts_at_1s']:,} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
