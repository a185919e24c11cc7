"""Every speed figure of README.md, docs/fast.md and docs/environments.md, from one run.

It measures them all in one process run, on this machine, and prints the machine, a
C-free reference measured in the same run (random games through the pure-Python core:
compare machines by it) and the tables; ``--write`` puts the tables in the documents,
between their ``<!-- speed:... -->`` markers, so the figures never disagree::

    .venv/bin/python scripts/speed_figures.py                 # measure and print (~5 min)
    .venv/bin/python scripts/speed_figures.py --write         # ... and update the docs
    .venv/bin/python scripts/speed_figures.py --seconds 1 --no-web   # a quick look

Figures are per CPU-second of the process (steady when other work shares the machine),
except where a row says wall clock (several processes, the web server).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_envs  # noqa: E402
import bench_observation  # noqa: E402
import bench_openspiel  # noqa: E402
from timing import per_cpu_second  # noqa: E402

from marrakech.bench import bench_core  # noqa: E402
from marrakech.fast import Batch  # noqa: E402
from marrakech.fast.bench import time_playouts  # noqa: E402
from marrakech.fast.playouts import random_playouts  # noqa: E402
from marrakech.rules import STANDARD  # noqa: E402
from marrakech.state import State  # noqa: E402

COMMAND = "python scripts/speed_figures.py --write"
Figures = dict[str, Any]


def machine() -> Figures:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.M)
        model = found.group(1).strip() if found else model
    import numba

    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "load_at_start": round(os.getloadavg()[0], 1),
    }


def core_reference(seconds: float) -> Figures:
    """Random 4-player games through the pure-Python public API (``marrakech bench``)."""
    played = {"games": 0, "plies": 0.0}

    def run() -> int:
        result = bench_core(4, STANDARD, 200, seed=played["games"])
        played["games"] += result.games
        played["plies"] += result.plies_per_s * result.seconds
        return result.games

    games = per_cpu_second(run, seconds)
    return {
        "games_per_cpu_s": games,
        "plies_per_cpu_s": games * played["plies"] / played["games"],
    }


def compiled(seconds: float) -> Figures:
    state = State.new(4)
    played = {"games": 0, "plies": 0}

    def playouts() -> int:
        result = random_playouts(state, 50_000, seed=played["games"])
        played["games"] += 50_000
        played["plies"] += int(result.plies.sum())
        return 50_000

    games = per_cpu_second(playouts, seconds)
    plies = games * played["plies"] / played["games"]

    def informed() -> int:
        random_playouts(state, 5_000, seed=1, informed=True)
        return 5_000

    single, single_wall = time_playouts(4, STANDARD, 200_000, seed=0, workers=1)
    double, double_wall = time_playouts(4, STANDARD, 400_000, seed=0, workers=2)
    return {
        "playouts_per_cpu_s": games,
        "plies_per_cpu_s": plies,
        "informed_per_cpu_s": per_cpu_second(informed, seconds),
        "workers": 2,
        "workers_games_per_s": double.games / double_wall,
        "workers_speedup": (double.games / double_wall) / (single.games / single_wall),
        "workers_games_per_cpu_s": double.games / double.cpu_seconds,
    }


def batch(seconds: float, size: int = 4096) -> Figures:
    """Batched stepping (``marrakech.fast.Batch``), with and without reading masks and
    observations every step."""
    games = Batch(size, 4, seed=0)
    actions = np.empty(size, dtype=np.int64)
    masks = np.empty((size, 87), dtype=np.bool_)
    observations = np.empty((size, 474), dtype=np.float32)

    def steps(observe: bool) -> Callable[[], int]:
        def run() -> int:
            for _ in range(10):
                if observe:
                    games.legal_masks(out=masks)
                    games.observations(out=observations)
                games.sample_actions(out=actions)
                games.step(actions)
                over = games.terminated()
                if over.any():
                    games.reset(over)
            return 10 * size

        return run

    return {
        "size": size,
        "steps_per_cpu_s": per_cpu_second(steps(False), seconds),
        "observed_steps_per_cpu_s": per_cpu_second(steps(True), seconds),
    }


def web(games: int = 100) -> Figures | None:
    """``benchmarks/load_web.py`` (it starts its own server): wall clock."""
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "load_web.py"),
            "--games",
            str(games),
            "--think",
            "0",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {"failed": done.stderr[-2000:]}


def measure(seconds: float, with_web: bool) -> Figures:
    figures: Figures = {"machine": machine()}
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("core", lambda: core_reference(seconds)),
        ("compiled", lambda: compiled(seconds)),
        ("batch", lambda: batch(seconds)),
        ("envs", lambda: bench_envs.measure(4, 4096, seconds)),
        ("frames", lambda: bench_envs.bench_frames(4, seconds)),
        ("openspiel", lambda: bench_openspiel.measure(seconds)),
        ("observation", lambda: bench_observation.measure()),
    ]
    if with_web:
        steps.append(("web", web))
    for name, run in steps:
        print(f"measuring {name}...", file=sys.stderr, flush=True)
        figures[name] = run()
    figures["machine"]["load_at_end"] = round(os.getloadavg()[0], 1)
    return figures


# -- the tables -----------------------------------------------------------------------


def number(value: float) -> str:
    if value >= 10_000_000:
        return f"{value / 1e6:.1f} million"
    if value >= 1_000_000:
        return f"{value / 1e6:.2f} million"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}"


def preamble(figures: Figures) -> str:
    m, core = figures["machine"], figures["core"]
    return (
        f"Measured by `{COMMAND}` in one run on {m['cores']} cores of an {m['cpu']} "
        f"(Python {m['python']}, numpy {m['numpy']}, Numba {m['numba']}; load average "
        f"{m['load_at_start']} at the start, {m['load_at_end']} at the end, from other "
        f"work). Figures are per CPU-second of one process unless a row says wall clock. "
        f"The C-free reference of that run, to compare machines by: the pure-Python core "
        f"plays **{number(core['games_per_cpu_s'])}** random 4-player games per CPU-second."
    )


def readme_block(figures: Figures) -> str:
    core, fast, b = figures["core"], figures["compiled"], figures["batch"]
    envs, spiel = figures["envs"], figures["openspiel"]["steps_per_cpu_s"]
    backgammon = spiel["backgammon (C++)"]
    vector = next(v for k, v in envs.items() if "self-play, copy=True" in k)
    rows = [
        (
            "random 4-player games through the public API (the reference)",
            "`marrakech bench --players 4 --games 5000`",
            f"{number(core['games_per_cpu_s'])} games, {number(core['plies_per_cpu_s'])} plies",
        ),
        (
            "random 4-player playouts, compiled kernels",
            "`marrakech bench --engine fast --players 4`",
            f"{number(fast['playouts_per_cpu_s'])} games, {number(fast['plies_per_cpu_s'])} "
            f"plies ({fast['playouts_per_cpu_s'] / core['games_per_cpu_s']:.0f}× the core)",
        ),
        (
            "the same in 2 worker processes",
            "`marrakech bench --engine fast --workers 2 --games 400000 --batch 0`",
            f"{number(fast['workers_games_per_cpu_s'])} games per CPU-second of each worker; "
            f"wall clock {number(fast['workers_games_per_s'])} games/s "
            f"({fast['workers_speedup']:.2f}× one process, the share of the CPUs this "
            "session got: docs/fast.md)",
        ),
        (
            "batched stepping, 4,096 games",
            "`marrakech bench --engine fast --batch 4096`",
            f"{number(b['steps_per_cpu_s'])} steps; {number(b['observed_steps_per_cpu_s'])} "
            "reading masks and observations",
        ),
        (
            "`VectorEnv`, 4,096 games, self-play, observations",
            "`python benchmarks/bench_envs.py`",
            f"{number(vector)} steps",
        ),
        (
            "OpenSpiel `python_marrakech` (2 / 4 players) against C++ backgammon, same run",
            "`python benchmarks/bench_openspiel.py`",
            "state API "
            + " / ".join(
                f"{spiel[k]['state API'] / backgammon['state API']:.2f}×"
                for k in spiel
                if "marrakech" in k
            )
            + ", `rl_environment` "
            + " / ".join(
                f"{spiel[k]['rl_environment'] / backgammon['rl_environment']:.2f}×"
                for k in spiel
                if "marrakech" in k
            ),
        ),
    ]
    if figures.get("web") and "actions_per_second" in figures["web"]:
        w = figures["web"]
        errors = "no errors" if w["error_count"] == 0 else f"{w['error_count']} errors"
        rows.append(
            (
                "web server, 100 concurrent games, clients answering instantly",
                "`python benchmarks/load_web.py --games 100 --think 0`",
                f"{number(w['actions_per_second'])} actions/s wall clock, p95 "
                f"{w['latency_ms']['p95']} ms from action to new state, {errors}, "
                f"{w['replays_matching']}/{w['games']} records replay",
            )
        )
    table = ["| what | command | per CPU-second |", "|---|---|---|"]
    table += [f"| {what} | {command} | {result} |" for what, command, result in rows]
    return preamble(figures) + "\n\n" + "\n".join(table)


def fast_block(figures: Figures) -> str:
    core, fast, b = figures["core"], figures["compiled"], figures["batch"]
    rows = [
        (
            "random 4-player playouts, one process",
            "`marrakech bench --engine fast`",
            f"{number(fast['playouts_per_cpu_s'])} games ({number(fast['plies_per_cpu_s'])} plies)",
            ">= 200,000 (C: about 280,000)",
        ),
        (
            "the same in 2 worker processes",
            "`marrakech bench --engine fast --workers 2 --games 400000`",
            f"{number(fast['workers_games_per_s'])} games/s wall clock, "
            f"{fast['workers_speedup']:.2f}× one process; "
            f"{number(fast['workers_games_per_cpu_s'])} per CPU-second of a worker",
            ">= 1.8x one process",
        ),
        (
            "informed playouts (what MCTS plays out with)",
            "`random_playouts(..., informed=True)`",
            f"{number(fast['informed_per_cpu_s'])} games",
            "",
        ),
        (
            "batched stepping, 4,096 games",
            "`marrakech bench --engine fast --batch 4096`",
            f"{number(b['steps_per_cpu_s'])} steps",
            ">= 5 million",
        ),
        (
            "the same, reading masks and observations every step",
            "idem",
            f"{number(b['observed_steps_per_cpu_s'])} steps",
            "",
        ),
        (
            "the pure-Python core, for scale",
            "`marrakech bench --games 5000`",
            f"{number(core['games_per_cpu_s'])} games",
            "",
        ),
    ]
    table = ["| figure | command | per CPU-second | target |", "|---|---|---|---|"]
    table += [f"| {a} | {b_} | {c} | {d} |" for a, b_, c, d in rows]
    return preamble(figures) + "\n\n" + "\n".join(table)


def environments_block(figures: Figures) -> str:
    envs, spiel = figures["envs"], figures["openspiel"]
    lines = [
        "| environment (4 players, random legal actions, observations) | steps per CPU-second |",
        "|---|---|",
    ]
    lines += [f"| {label} | {number(rate)} |" for label, rate in envs.items()]
    steps = spiel["steps_per_cpu_s"]
    backgammon = steps["backgammon (C++)"]
    lines += ["", "| OpenSpiel, random play | state API | `rl_environment` |", "|---|---|---|"]
    for label, row in steps.items():
        cells = " | ".join(
            f"{number(row[k])} ({row[k] / backgammon[k]:.2f}×)"
            for k in ("state API", "rl_environment")
        )
        lines.append(f"| {label} | {cells} |")
    tensor = spiel["tensor_us"]
    lines += [
        "",
        f"One `observation_tensor(player)` at 4 players: {tensor['python']:.1f} µs from "
        f"Python, {tensor['c++ observer']:.1f} µs through OpenSpiel's C++ observer. "
        f"OpenSpiel's Python `MCTSBot` (one random rollout a leaf) runs "
        f"{number(spiel['mcts_simulations_per_cpu_s'])} simulations per CPU-second from a "
        f'2-player opening. A `render_mode="rgb_array"` picture takes '
        f"{1000 / figures['frames']:.0f} ms.",
        "",
        "| observation encoder, µs per call (4 players) | game order, seat to move "
        "| every seat | games shuffled |",
        "|---|---|---|---|",
    ]
    observation = figures["observation"]
    orders = list(observation)
    for name in bench_observation.ENCODERS:
        cells = " | ".join(f"{observation[order][name]:.1f}" for order in orders)
        lines.append(f"| {name} | {cells} |")
    for fast, slow in bench_observation.SPEEDUPS:
        cells = " | ".join(
            f"{observation[order][slow] / observation[order][fast]:.1f}×" for order in orders
        )
        lines.append(f"| speed-up of {fast} | {cells} |")
    return preamble(figures) + "\n\n" + "\n".join(lines)


BLOCKS: dict[str, tuple[str, Callable[[Figures], str]]] = {
    "README.md": ("speed", readme_block),
    "docs/fast.md": ("speed", fast_block),
    "docs/environments.md": ("speed", environments_block),
}


def write(figures: Figures) -> None:
    for name, (marker, block) in BLOCKS.items():
        path = ROOT / name
        text = path.read_text()
        pattern = re.compile(rf"(<!-- {marker}:start[^>]*-->\n).*?(<!-- {marker}:end -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"{name}: no <!-- {marker}:start --> ... end markers")
        table = block(figures)
        text = pattern.sub(lambda m, table=table: m.group(1) + table + "\n" + m.group(2), text)
        path.write_text(text)
        print(f"updated {name}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per figure")
    parser.add_argument("--no-web", action="store_true", help="skip the web server's load test")
    parser.add_argument("--write", action="store_true", help="update README.md and docs")
    parser.add_argument("--json", default=None, help="also save the raw figures here")
    args = parser.parse_args()
    figures = measure(args.seconds, not args.no_web)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    for name, (_, block) in BLOCKS.items():
        print(f"\n## {name}\n\n{block(figures)}")
    if args.write:
        write(figures)


if __name__ == "__main__":
    main()
