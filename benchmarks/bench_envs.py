"""Environment steps per second: PettingZoo AEC, Gymnasium, and the batched VectorEnv.

A step is one decision of an agent (orient or place), chance and bots included in the
time. Agents pick uniformly random legal actions; observations are always produced.
VectorEnv is timed through its own API (``step_transition``) and through Gymnasium's.
Figures are steps per CPU-second of the process (steady on a shared machine). Not a
test: it prints numbers::

    .venv/bin/python benchmarks/bench_envs.py              # everything, a few seconds each
    .venv/bin/python benchmarks/bench_envs.py --only vector --batch 4096 --seconds 5
    .venv/bin/python benchmarks/bench_envs.py --only opponents --players 2 --batch 256

``--only opponents`` times the learning seat of a ``VectorEnv`` against each kind of
opponent in one run: ``random`` (the batch's own sampler), ``greedy`` and
``search@iterations=32`` (compiled in the batch), a batched policy (a numpy linear
policy called once per bot round), and, for comparison, the Python ``greedy`` bot called
game by game; the kinds take turns in short slices, each rated by its best one
(``timing.interleaved_per_cpu_second``), and it prints each rate and its ratio to the
rate against ``random``. With
``--write`` it measures 2 and 4 players and puts the table in docs/environments.md,
between its ``<!-- opponents:... -->`` markers::

    .venv/bin/python benchmarks/bench_envs.py --only opponents --batch 256 --seconds 5 --write
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import numpy as np
from timing import interleaved_per_cpu_second, per_cpu_second


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

    return per_cpu_second(game, seconds)


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

    return per_cpu_second(episode, seconds)


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

    return per_cpu_second(some_steps, seconds)


class _PythonGreedy:
    """The core ``greedy`` bot as any other bot is called: one game at a time (what the
    batch did for ``greedy`` before it had the compiled one)."""

    name = "greedy (Python, per game)"

    def __init__(self) -> None:
        from marrakech.bots.greedy import GreedyBot

        self._bot = GreedyBot()

    def choose(self, state: object, rng: object) -> object:
        return self._bot.choose(state, rng)  # type: ignore[arg-type]


def linear_policy(seed: int = 0) -> object:
    """A batched policy: a fixed random linear score over the 474 observation values,
    the best legal decision id per game (what a frozen network does, cheaply)."""
    weights = np.random.default_rng(seed).normal(size=(474, 87)).astype(np.float32)

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        scores = observations.reshape(len(masks), -1) @ weights
        best: np.ndarray = np.where(masks, scores, -np.inf).argmax(axis=1)
        return best

    return policy


#: The ``search`` opponent's budget in the opponents' figures: one chunk of the bot's.
SEARCH_BUDGET = 32
DOCS = Path(__file__).resolve().parent.parent / "docs" / "environments.md"
#: How the opponents' rows read in the docs, by the labels of :func:`bench_opponents`.
DOC_LABELS = {
    "random": "`random` (the batch's sampler)",
    "greedy (compiled in the batch)": "`greedy`, compiled in the batch",
    f"search@iterations={SEARCH_BUDGET} (compiled in the batch)": (
        f"`search@iterations={SEARCH_BUDGET}`, compiled in the batch"
    ),
    "a batched policy (numpy linear)": (
        "a batched policy (a numpy linear 474 × 87 policy, one call per bot round)"
    ),
    "greedy (Python bot, game by game)": "`greedy`, the Python bot game by game",
}


def opponents_block(batch: int, seconds: float, tables: dict[int, dict[str, float]]) -> str:
    """The docs' opponents table, from one run's figures per player count."""
    counts = sorted(tables)
    start, end = load_before, os.getloadavg()[0]
    lines = [
        f"Measured by `python benchmarks/bench_envs.py --only opponents --batch {batch} "
        f"--seconds {seconds:g} --write` in one run (load average {start:.1f} at the start, "
        f"{end:.1f} at the end, from other work); learning-seat steps per CPU-second, the "
        f"kinds taking turns in quarter-second slices and each rated by its best slice, "
        f"ratio to `random` in the same run:",
        "",
        "| opponents | " + " | ".join(f"{n} players" for n in counts) + " |",
        "|---|" + "---|" * len(counts),
    ]
    for label, shown in DOC_LABELS.items():
        cells = []
        for n in counts:
            rate, base = tables[n][label], tables[n]["random"]
            cells.append(f"{rate:,.0f} ({rate / base:.3f}×)")
        lines.append(f"| {shown} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_docs(block: str) -> None:
    """Put ``block`` between the ``<!-- opponents:start -->`` and ``end`` markers."""
    text = DOCS.read_text(encoding="utf-8")
    pattern = re.compile(r"(<!-- opponents:start -->\n).*?(<!-- opponents:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{DOCS}: no <!-- opponents:start --> ... end markers")
    DOCS.write_text(pattern.sub(lambda m: m[1] + block + m[2], text), encoding="utf-8")


load_before = os.getloadavg()[0]


def bench_opponents(players: int, batch: int, seconds: float) -> dict[str, float]:
    """Learning-seat steps per CPU-second against each kind of opponent (its random
    legal actions drawn by the batch), numba backend when there."""
    from marrakech.envs import VectorEnv

    kinds = {
        "random": "random",
        "greedy (compiled in the batch)": "greedy",
        f"search@iterations={SEARCH_BUDGET} (compiled in the batch)": (
            f"search@iterations={SEARCH_BUDGET}"
        ),
        "a batched policy (numpy linear)": linear_policy(),
        "greedy (Python bot, game by game)": _PythonGreedy(),
    }
    runs = {}
    for label, opponent in kinds.items():
        env = VectorEnv(
            batch, players, seed=0, opponents=(opponent,) * (players - 1), seat="rotate"
        )
        env.reset()
        rounds = 1 if isinstance(opponent, _PythonGreedy) else 10

        def some_steps(env: VectorEnv = env, rounds: int = rounds) -> int:
            for _ in range(rounds):
                env.step_transition(env.sample_actions())
            return rounds * env.n

        runs[label] = some_steps
    # In turns, best slice each: the ratios to ``random`` are what the figures are for.
    rows = interleaved_per_cpu_second(runs, seconds)
    return rows


def bench_frames(players: int, seconds: float) -> float:
    """``render_mode="rgb_array"`` pictures drawn per CPU-second, from positions of a game."""
    import random

    from marrakech import State, random_action
    from marrakech.envs.image import board_image

    rng, states = random.Random(0), []
    state = State.new(players)
    while not state.is_terminal:
        states.append(state)
        state = state.apply(random_action(state, rng))

    def frames() -> int:
        for state in states[::10]:
            board_image(state)
        return len(states[::10])

    return per_cpu_second(frames, seconds)


def measure(players: int, batch: int, seconds: float, only: str | None = None) -> dict[str, float]:
    """Steps per CPU-second of each environment, by label."""
    rows: dict[str, float] = {}
    if only == "opponents":
        return bench_opponents(players, batch, seconds)
    if only in (None, "aec"):
        rows["PettingZoo AEC, self-play"] = bench_aec(players, seconds)
    if only in (None, "gymnasium"):
        rows["Gymnasium, one seat vs random bots"] = bench_gymnasium(players, seconds)
    if only in (None, "vector"):
        try:
            import marrakech.fast  # noqa: F401

            backend = "numba"
        except ImportError:
            backend = "python"
        for copy in (True, False):
            label = f"VectorEnv {backend} n={batch} self-play, copy={copy}"
            rows[label] = bench_vector(players, batch, seconds, backend, copy, False)
        label = f"VectorEnv {backend} n={batch} self-play, Gymnasium API"
        rows[label] = bench_vector(players, batch, seconds, backend, False, False, True)
        label = f"VectorEnv {backend} n={batch} vs random bots, copy=False"
        rows[label] = bench_vector(players, batch, seconds, backend, False, True)
        if only == "vector" or backend == "python":
            label = "VectorEnv python n=64 self-play (reference backend)"
            rows[label] = bench_vector(players, 64, seconds, "python", True, False)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per figure")
    parser.add_argument("--only", choices=["aec", "gymnasium", "vector", "opponents"], default=None)
    parser.add_argument(
        "--write",
        action="store_true",
        help="with --only opponents: measure 2 and 4 players, update docs/environments.md",
    )
    args = parser.parse_args()
    if args.write:
        if args.only != "opponents":
            parser.error("--write goes with --only opponents")
        tables = {n: bench_opponents(n, args.batch, args.seconds) for n in (2, 4)}
        block = opponents_block(args.batch, args.seconds, tables)
        write_docs(block)
        print(block)
        return
    rows = measure(args.players, args.batch, args.seconds, args.only)
    if args.only == "opponents":
        print(
            f"VectorEnv n={args.batch}, {args.players} players: learning-seat steps per "
            f"CPU-second (random legal actions, observations included) against"
        )
        base = rows["random"]
        for label, rate in rows.items():
            print(f"{label:<36} {rate:>12,.0f}   {rate / base:>7.3f}x of random")
        return
    print(f"{args.players} players, random legal actions, observations included")
    for label, rate in rows.items():
        print(f"{label:<52} {rate:>14,.0f} steps per CPU-second")


if __name__ == "__main__":
    main()
