"""Compiled kernels (``marrakech.fast``): random playouts and batched stepping, timed.

Not a test: it prints numbers (close other work on the machine first). Each figure is the
best of ``--repeat`` runs, in wall-clock time and in CPU time of the process (the CPU
figure is steadier on a shared machine; with several workers it is the parent's only, so
only wall time is shown)::

    .venv/bin/python benchmarks/bench_fast.py                  # the figures of the targets below
    .venv/bin/python benchmarks/bench_fast.py --all --json     # every configuration

The project's speed targets (one core of a 2-core VM): playouts >= 200,000 four-player
games/s in one process and at least a lean C implementation's rate (``bench_vs_c.py``
times both in one run and prints the ratio), >= 1.8x that with 2 workers, batched
stepping of 4,096 games >= 5 million steps/s.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from marrakech.fast.bench import time_batch, time_playouts
from marrakech.fast.playouts import random_playouts
from marrakech.rules import BGA, STANDARD, RuleSet
from marrakech.state import State


def playouts(players: int, rules: RuleSet, games: int, repeat: int) -> dict[str, float]:
    """Single-process playouts: best wall and CPU rates over ``repeat`` runs."""
    state = State.new(players, rules)
    random_playouts(state, 10, 0)  # load or compile the kernel
    wall = cpu = float("inf")
    for seed in range(repeat):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        random_playouts(state, games, seed)
        wall = min(wall, time.perf_counter() - start_wall)
        cpu = min(cpu, time.process_time() - start_cpu)
    return {"games_per_s": games / wall, "games_per_cpu_s": games / cpu}


def workers_rate(
    players: int, rules: RuleSet, games: int, workers: int, repeat: int
) -> tuple[float, float]:
    """Best wall rate over ``repeat`` runs, and the games per CPU second of the workers."""
    best = per_cpu = 0.0
    for seed in range(repeat):
        totals, seconds = time_playouts(players, rules, games, seed, workers)
        best = max(best, totals.games / seconds)
        per_cpu = max(per_cpu, totals.games / totals.cpu_seconds)
    return best, per_cpu


def batch_rate(players: int, size: int, rounds: int, repeat: int) -> dict[str, float]:
    best = {"steps_per_s": 0.0, "observed_steps_per_s": 0.0}
    for seed in range(repeat):
        timing = time_batch(players, STANDARD, size, seed, rounds)
        best["steps_per_s"] = max(best["steps_per_s"], timing.steps_per_s)
        best["observed_steps_per_s"] = max(
            best["observed_steps_per_s"], timing.observed_steps_per_s
        )
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200_000, help="playouts per run")
    parser.add_argument("--workers", type=int, default=2, help="processes for the 2nd figure")
    parser.add_argument("--batch", type=int, default=4096, help="games in the batch")
    parser.add_argument("--rounds", type=int, default=400, help="batch steps per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--all", action="store_true", help="2, 3, 4 players and both rule sets")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    configs = [(p, r) for r in (STANDARD, BGA) for p in (2, 3, 4)] if args.all else [(4, STANDARD)]
    report: dict[str, object] = {"cpus": os.cpu_count(), "load": os.getloadavg()[0]}
    rows = []
    for players, rules in configs:
        single = playouts(players, rules, args.games, args.repeat)
        parallel, parallel_cpu = workers_rate(
            players, rules, args.games * args.workers, args.workers, 2
        )
        batch = batch_rate(players, args.batch, args.rounds, args.repeat)
        rows.append(
            {
                "players": players,
                "rules": rules.token(),
                **single,
                "workers": args.workers,
                "workers_games_per_s": parallel,
                "speedup": parallel / single["games_per_s"],
                "workers_games_per_cpu_s": parallel_cpu,
                "batch": args.batch,
                "batch_steps_per_s": batch["steps_per_s"],
                "batch_observed_steps_per_s": batch["observed_steps_per_s"],
            }
        )
    report["results"] = rows
    if args.json:
        print(json.dumps(report))
        return
    print(f"{report['cpus']} CPUs, load average {report['load']:.2f} at start")
    print("games/cpu-s: per CPU second of the process; W cpu-s: of the workers, summed")
    header = (
        f"{'config':<14}{'games/s':>12}{'games/cpu-s':>13}{'W workers':>12}{'speedup':>9}"
        f"{'W cpu-s':>10}"
        f"{'batch steps/s':>15}{'+masks+obs':>13}"
    )
    print(header)
    for row in rows:
        print(
            f"{row['players']}p {row['rules']:<11}{row['games_per_s']:>12,.0f}"
            f"{row['games_per_cpu_s']:>13,.0f}{row['workers_games_per_s']:>12,.0f}"
            f"{row['speedup']:>8.2f}x{row['workers_games_per_cpu_s']:>10,.0f}"
            f"{row['batch_steps_per_s']:>15,.0f}"
            f"{row['batch_observed_steps_per_s']:>13,.0f}"
        )


if __name__ == "__main__":
    main()
