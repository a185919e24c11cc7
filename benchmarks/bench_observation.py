"""The core's observation encoders against the reference encoder (one pass, nothing kept).

For positions of random 4-player games, in three orders: each position once from the
seat to move, in game order (what a Gymnasium or PettingZoo loop asks); every position
from every seat (OpenSpiel's ``rl_environment``); and positions of many games shuffled
(a batch of games stepped together). Times are CPU time per call, the fastest of many
interleaved rounds (steadier on a shared machine). Not a test: it prints numbers::

    .venv/bin/python benchmarks/bench_observation.py
    .venv/bin/python benchmarks/bench_observation.py --json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from marrakech import State, random_action
from marrakech.observation import encode_observation, encode_observation_f32

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.envs.reference_observation import reference_observation

Encoder = Callable[[State, int], Any]
ENCODERS: dict[str, Encoder] = {
    "reference list": reference_observation,
    "encode_observation": encode_observation,
    "reference -> float32 numpy": lambda s, k: np.asarray(reference_observation(s, k), np.float32),
    "encode_observation_f32 -> numpy": lambda s, k: np.frombuffer(
        encode_observation_f32(s, k), np.float32
    ),
}
#: (fast, reference) pairs whose ratio is the speed-up.
SPEEDUPS = [
    ("encode_observation", "reference list"),
    ("encode_observation_f32 -> numpy", "reference -> float32 numpy"),
]


def workloads(games: int, seed: int) -> dict[str, list[tuple[State, int]]]:
    rng = random.Random(seed)
    decisions: list[State] = []
    for _ in range(games):
        state = State.new(4)
        while not state.is_terminal:
            if not state.is_chance:
                decisions.append(state)
            state = state.apply(random_action(state, rng))
    in_order = [(state, state.turn) for state in decisions]
    shuffled = in_order[:]
    rng.shuffle(shuffled)
    return {
        "game order, seat to move": in_order,
        "every seat of each position": [(s, k) for s, _ in in_order for k in range(4)],
        "many games shuffled": shuffled,
    }


def per_call(
    encoders: dict[str, Encoder], work: list[tuple[State, int]], rounds: int
) -> dict[str, float]:
    """Microseconds of CPU per call: the fastest of ``rounds`` interleaved chunks."""
    chunk = 200
    best = dict.fromkeys(encoders, float("inf"))
    for r in range(rounds):
        start = (r * chunk) % max(1, len(work) - chunk)
        part = work[start : start + chunk]
        for name, encode in encoders.items():
            begin = time.process_time()
            for state, seat in part:
                encode(state, seat)
            best[name] = min(best[name], (time.process_time() - begin) / len(part) * 1e6)
    return best


def measure(games: int = 40, rounds: int = 150, seed: int = 0) -> dict[str, dict[str, float]]:
    return {name: per_call(ENCODERS, work, rounds) for name, work in workloads(games, seed).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = measure(args.games, args.rounds)
    if args.json:
        print(json.dumps(results))
        return
    for workload, times in results.items():
        print(workload)
        for name, micros in times.items():
            print(f"  {name:<34} {micros:7.2f} us")
        for fast, slow in SPEEDUPS:
            print(f"  {fast}: {times[slow] / times[fast]:.1f}x the reference")


if __name__ == "__main__":
    main()
