"""Compiled playouts against a lean C reference, in one run.

Not a test: it prints numbers. It builds ``benchmarks/reference_c/playouts.c`` with the C
compiler (``cc -O2``, into a temporary directory), then plays the same uniform random games
(3 or 4 players, standard rules, R3-R21) with the kernels (:func:`marrakech.fast.random_playouts`)
and with the C program, alternating the two ``--repeat`` times, and prints the games per
CPU-second of each (the best and the median run) and the ratio kernels / C. CPU time of the
process is steadier than wall time on a shared machine; wall time is printed too. The C
program plays exactly the kernels' games for a seed (``tests/fast/test_reference_c.py``),
so both sides do the same work::

    .venv/bin/python benchmarks/bench_vs_c.py                      # 200,000 games x 5
    .venv/bin/python benchmarks/bench_vs_c.py --games 50000 --repeat 3 --json
    .venv/bin/python benchmarks/bench_vs_c.py --write-docs         # 4, then 3 players

``--write-docs`` measures 4 and then 3 players and rewrites the table between the
``<!-- vs-c:start -->`` and ``<!-- vs-c:end -->`` markers of ``docs/fast.md``.

Without a C compiler it says so and exits (status 0: nothing to compare).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from marrakech.fast.playouts import random_playouts
from marrakech.rules import STANDARD
from marrakech.state import State

SOURCE = Path(__file__).resolve().parent / "reference_c" / "playouts.c"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "fast.md"
MARKERS = ("<!-- vs-c:start -->", "<!-- vs-c:end -->")


def build(directory: Path) -> Path | None:
    """The C reference compiled into ``directory``; None without a compiler."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    executable = directory / "playouts"
    subprocess.run([compiler, "-O2", "-o", str(executable), str(SOURCE)], check=True)
    return executable


def run_c(executable: Path, players: int, games: int, seed: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of the C program's games (timed inside it), and its plies."""
    carpets = STANDARD.carpets_per_colour(players)
    args = [str(executable), str(players), str(games), str(seed), str(carpets)]
    fields = subprocess.run(
        [*args, str(STANDARD.money)], check=True, capture_output=True, text=True
    ).stdout.split()
    return float(fields[1]), float(fields[2]), int(fields[3])


def run_kernels(state: State, games: int, seed: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``games`` compiled playouts, and their plies."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = random_playouts(state, games, seed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, int(result.plies.sum())


def measure(executable: Path, players: int, games: int, seed: int, repeat: int) -> dict[str, Any]:
    """Both sides on the same games, alternated ``repeat`` times; the report's fields."""
    state = State.new(players)
    random_playouts(state, 10, 0)  # load or compile the kernel before timing
    runs: dict[str, list[tuple[float, float]]] = {"kernels": [], "C": []}
    for k in range(repeat):
        # The same games on both sides: the plies must agree.
        wall, cpu, plies = run_kernels(state, games, seed + k)
        c_wall, c_cpu, c_plies = run_c(executable, players, games, seed + k)
        if plies != c_plies:
            sys.exit(f"the C reference played other games: {c_plies} plies, not {plies}")
        runs["kernels"].append((wall, cpu))
        runs["C"].append((c_wall, c_cpu))

    def rates(name: str) -> dict[str, float]:
        walls = [wall for wall, _ in runs[name]]
        cpus = [cpu for _, cpu in runs[name]]
        return {
            "best_games_per_cpu_s": games / min(cpus),
            "median_games_per_cpu_s": games / statistics.median(cpus),
            "best_games_per_s": games / min(walls),
        }

    ours, theirs = rates("kernels"), rates("C")
    pairs = [c_cpu / cpu for (_, cpu), (_, c_cpu) in zip(runs["kernels"], runs["C"], strict=True)]
    return {
        "players": players,
        "games": games,
        "repeat": repeat,
        "load": os.getloadavg()[0],
        "kernels": ours,
        "C": theirs,
        "ratio_best": ours["best_games_per_cpu_s"] / theirs["best_games_per_cpu_s"],
        "ratio_median_of_pairs": statistics.median(pairs),
    }


def print_report(report: dict[str, Any]) -> None:
    print(
        f"{report['players']}-player uniform playouts, {report['games']:,} games x "
        f"{report['repeat']} alternated runs; load average {report['load']:.2f} at the end"
    )
    print(f"{'':10}{'best/cpu-s':>14}{'median/cpu-s':>14}{'best/wall-s':>14}")
    for name, row in (("kernels", report["kernels"]), ("C -O2", report["C"])):
        print(
            f"{name:10}{row['best_games_per_cpu_s']:>14,.0f}"
            f"{row['median_games_per_cpu_s']:>14,.0f}{row['best_games_per_s']:>14,.0f}"
        )
    print(
        f"kernels / C: {report['ratio_best']:.2f}x (best runs), "
        f"{report['ratio_median_of_pairs']:.2f}x (median of the paired runs)"
    )


def docs_block(reports: list[dict[str, Any]], load_at_start: float) -> str:
    """The table of ``docs/fast.md`` for ``reports`` (one per player count)."""
    first = reports[0]
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.M)
        model = found.group(1).strip() if found else model
    lines = [
        f"Measured by `python benchmarks/bench_vs_c.py --write-docs` in one run on "
        f"{os.cpu_count()} cores of an {model} (Python {platform.python_version()}; load "
        f"average {load_at_start:.1f} at the start, {reports[-1]['load']:.1f} at the end, "
        f"from other work): {first['games']:,} games x {first['repeat']} alternated runs "
        "per player count, games per CPU-second.",
        "",
        "| players | kernels (best, median) | C -O2 (best, median) | kernels / C |",
        "|---|---|---|---|",
    ]
    for report in reports:
        ours, theirs = report["kernels"], report["C"]
        lines.append(
            f"| {report['players']} | {ours['best_games_per_cpu_s']:,.0f}, "
            f"{ours['median_games_per_cpu_s']:,.0f} | {theirs['best_games_per_cpu_s']:,.0f}, "
            f"{theirs['median_games_per_cpu_s']:,.0f} | {report['ratio_best']:.2f}x best, "
            f"{report['ratio_median_of_pairs']:.2f}x median of pairs |"
        )
    return "\n".join(lines)


def write_docs(block: str) -> None:
    text = DOCS.read_text()
    start, end = MARKERS
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        sys.exit(f"{DOCS}: no {start} ... {end} markers")
    DOCS.write_text(pattern.sub(lambda _: f"{start}\n{block}\n{end}", text))
    print(f"updated {DOCS}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200_000, help="games per run")
    parser.add_argument("--players", type=int, default=4, choices=(3, 4))
    parser.add_argument("--seed", type=int, default=5, help="seed of the first run")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, alternated")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--write-docs", action="store_true", help="4 and 3 players; rewrite docs/fast.md's table"
    )
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="marrakech-c-") as directory:
        executable = build(Path(directory))
        if executable is None:
            print("no C compiler (cc or gcc, or $CC): the C reference cannot be built")
            return
        counts = (4, 3) if args.write_docs else (args.players,)
        reports = [
            measure(executable, players, args.games, args.seed, args.repeat) for players in counts
        ]
    for report in reports:
        if args.json:
            print(json.dumps(report))
        else:
            print_report(report)
    if args.write_docs:
        write_docs(docs_block(reports, load_at_start))


if __name__ == "__main__":
    main()
