"""Environment steps per second: PettingZoo AEC, Gymnasium, and the batched VectorEnv.

A step is one decision of an agent (orient or place), chance and bots included in the
time. Agents pick uniformly random legal actions; observations are always produced.
VectorEnv is timed through its own API (``step_transition``) and through Gymnasium's.
Not a test: it prints numbers (close other work on the machine first)::

    .venv/bin/python benchmarks/bench_envs.py              # everything, a few seconds each
    .venv/bin/python benchmarks/bench_envs.py --only vector --batch 4096 --seconds 5
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np


def timed(run: Callable[[], int], seconds: float) -> float:
    """Call ``run`` (which returns the steps it made) until ``seconds`` pass; steps/s."""
    run()  # warm up (Numba compiles on first use, caches fill)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run()
    return steps / (time.perf_counter() - start)


def bench_aec(players: int, seconds: float) -> float:
    from marrakech.envs import marrakech_v0

    env = marrakech_v0.raw_env(players=players)
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def game() -> int:
        env.reset()
        steps = 0
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        return steps

    return timed(game, seconds)


def bench_gymnasium(players: int, seconds: float) -> float:
    from marrakech.envs.gymnasium_env import MarrakechEnv

    env = MarrakechEnv(opponents=("random",) * (players - 1))
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def episode() -> int:
        _, info = env.reset()
        steps, done = 0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, done, _, info = env.step(action)
            steps += 1
        return steps

    return timed(episode, seconds)


def bench_vector(
    players: int,
    batch: int,
    seconds: float,
    backend: str,
    copy: bool,
    opponents: bool,
    gymnasium_api: bool = False,
) -> float:
    """VectorEnv steps per second: its own API (``step_transition``), or Gymnasium's
    (``step``, infos built; the default SAME_STEP autoreset adds final observations)."""
    from marrakech.envs import VectorEnv

    env = VectorEnv(
        batch,
        players,
        seed=0,
        backend=backend,  # type: ignore[arg-type]
        copy=copy,
        opponents=("random",) * (players - 1) if opponents else None,
    )
    env.reset()
    step = env.step if gymnasium_api else env.step_transition

    def some_steps() -> int:
        for _ in range(10):
            step(env.sample_actions())
        return 10 * env.n

    return timed(some_steps, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--only", choices=["aec", "gymnasium", "vector"], default=None)
    args = parser.parse_args()
    rows: list[tuple[str, float]] = []
    if args.only in (None, "aec"):
        rows.append(("PettingZoo AEC (self-play)", bench_aec(args.players, args.seconds)))
    if args.only in (None, "gymnasium"):
        rows.append(("Gymnasium (vs random bots)", bench_gymnasium(args.players, args.seconds)))
    if args.only in (None, "vector"):
        try:
            import marrakech.fast  # noqa: F401

            backend = "numba"
        except ImportError:
            backend = "python"
        n = args.batch
        for copy in (True, False):
            label = f"VectorEnv {backend} n={n} self-play, copy={copy}"
            rows.append((label, bench_vector(args.players, n, args.seconds, backend, copy, False)))
        label = f"VectorEnv {backend} n={n} self-play, Gymnasium API"
        rows.append(
            (label, bench_vector(args.players, n, args.seconds, backend, False, False, True))
        )
        label = f"VectorEnv {backend} n={n} vs random bots, copy=False"
        rows.append((label, bench_vector(args.players, n, args.seconds, backend, False, True)))
        if args.only == "vector" or backend == "python":
            label = "VectorEnv python n=64 self-play (reference backend)"
            rows.append(
                (label, bench_vector(args.players, 64, args.seconds, "python", True, False))
            )
    print(f"{args.players} players, random legal actions, observations included")
    for label, rate in rows:
        print(f"{label:<52} {rate:>14,.0f} steps/s")


if __name__ == "__main__":
    main()
