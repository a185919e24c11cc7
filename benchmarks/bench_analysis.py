"""Seconds to analyse a whole game: each seat's winning chances after every turn
(``marrakech.bots.analysis.analyse_game``, what ``marrakech analyse`` prints) and the web
end screen's analysis (the same chances plus scores, dice luck and swings).

Not a test: it prints numbers. Issue #17 asks for every position of a game in under 2 s::

    .venv/bin/python benchmarks/bench_analysis.py
    .venv/bin/python benchmarks/bench_analysis.py --games 20 --players 4
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from marrakech import State
from marrakech.bots.analysis import analyse_game
from marrakech.playout import random_game
from marrakech.record import GameRecord


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="2,3,4", help="comma-separated")
    parser.add_argument("--games", type=int, default=10, help="random games per count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    from marrakech.web.analysis_jobs import analyse  # the web extra: optional here

    print(
        f"{'players':>7} {'games':>5} {'positions':>9} {'analyse_game':>13} {'web end screen':>15}"
    )
    for players in (int(p) for p in args.players.split(",")):
        rng = random.Random(args.seed)
        records = []
        for _ in range(args.games):
            start = State.new(players)
            _, actions = random_game(start, rng)
            records.append(GameRecord.from_actions(start, actions))
        analyse_game(records[0])  # load the weights
        timings: dict[str, list[float]] = {"game": [], "web": []}
        for number, record in enumerate(records):
            began = time.perf_counter()
            analyse_game(record)
            timings["game"].append(time.perf_counter() - began)
            began = time.perf_counter()
            analyse(record, f"g{number}")
            timings["web"].append(time.perf_counter() - began)
        positions = statistics.fmean(len(r.actions) + 1 for r in records)
        game, web = (statistics.fmean(timings[k]) for k in ("game", "web"))
        print(
            f"{players:>7} {len(records):>5} {positions:>9.0f} {game * 1e3:>10.1f} ms"
            f" {web * 1e3:>12.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
