"""Timing the compiled kernels: random playouts (one or more processes) and batches.

``marrakech bench --engine fast`` calls :func:`bench_fast`, which gives the figures of
the core's :class:`~marrakech.bench.BenchResult`; ``benchmarks/bench_fast.py`` prints a
table. Compilation (or loading the cache) happens before the clock starts.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass

import numpy as np

from marrakech.actions import DECISION_IDS
from marrakech.bench import BenchResult, split_games
from marrakech.errors import MarrakechError
from marrakech.fast.batch import Batch
from marrakech.fast.playouts import random_playouts
from marrakech.observation import OBSERVATION_SIZE
from marrakech.rules import RuleSet
from marrakech.state import State


@dataclass
class PlayoutTotals:
    """Sums over a set of playouts, enough to build the bench figures."""

    games: int
    plies: int
    turns: int
    places: int
    place_options: int
    win_share: list[float]
    seconds: float
    #: CPU seconds summed over the processes (steadier than wall time on a busy machine)
    cpu_seconds: float = 0.0

    def add(self, other: PlayoutTotals) -> PlayoutTotals:
        return PlayoutTotals(
            self.games + other.games,
            self.plies + other.plies,
            self.turns + other.turns,
            self.places + other.places,
            self.place_options + other.place_options,
            [a + b for a, b in zip(self.win_share, other.win_share, strict=True)],
            max(self.seconds, other.seconds),
            self.cpu_seconds + other.cpu_seconds,
        )


def _playout_chunk(task: tuple[int, RuleSet, int, int]) -> PlayoutTotals:
    players, rules, games, seed = task
    state = State.new(players, rules)
    start, start_cpu = time.perf_counter(), time.process_time()
    result = random_playouts(state, games, seed)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - start_cpu
    return PlayoutTotals(
        games=games,
        plies=int(result.plies.sum()),
        turns=int(result.turns.sum()),
        places=int(result.places.sum()),
        place_options=int(result.place_options.sum()),
        win_share=result.win_shares().sum(axis=0).tolist(),
        seconds=seconds,
        cpu_seconds=cpu_seconds,
    )


def _warm(players: int) -> int:
    random_playouts(State.new(players), 2, 0)
    return players


def time_playouts(
    players: int, rules: RuleSet, games: int, seed: int, workers: int = 1
) -> tuple[PlayoutTotals, float]:
    """Play ``games`` uniform random games from the start in ``workers`` processes.

    Returns the totals and the wall-clock seconds of the timed part (the processes are
    started and their kernels loaded before the clock starts).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, found {workers}")
    _warm(players)
    tasks = [(players, rules, share, s) for share, s in split_games(games, workers, seed)]
    if workers == 1:
        totals = _playout_chunk(tasks[0])
        return totals, totals.seconds
    methods = multiprocessing.get_all_start_methods()
    # fork shares the compiled kernels already in memory; spawn loads them from the cache
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(workers) as pool:
        pool.map(_warm, [players] * workers, chunksize=1)
        start = time.perf_counter()
        parts = pool.map(_playout_chunk, tasks, chunksize=1)
        seconds = time.perf_counter() - start
    totals = parts[0]
    for part in parts[1:]:
        totals = totals.add(part)
    return totals, seconds


@dataclass
class BatchTiming:
    """Batched stepping: ``steps`` game steps (one decision and its chance) in ``seconds``."""

    size: int
    steps: int
    seconds: float
    steps_per_s: float
    observed_steps_per_s: float


def time_batch(
    players: int, rules: RuleSet, size: int, seed: int, rounds: int = 300
) -> BatchTiming:
    """Step ``size`` games ``rounds`` times with random legal decisions, resetting the
    finished ones; then again reading legal masks and observations every round (what a
    learning loop does)."""
    batch = Batch(size, players, rules, seed=seed)
    actions = np.empty(size, dtype=np.int64)
    masks = np.empty((size, DECISION_IDS), dtype=np.bool_)
    observations = np.empty((size, OBSERVATION_SIZE), dtype=np.float32)

    def run(rounds: int, observe: bool) -> tuple[int, float]:
        steps = 0
        start = time.perf_counter()
        for _ in range(rounds):
            if observe:
                batch.legal_masks(out=masks)
                batch.observations(out=observations)
            batch.sample_actions(out=actions)
            batch.step(actions)
            steps += size
            over = batch.terminated()
            if over.any():
                batch.reset(over)
        return steps, time.perf_counter() - start

    run(2, True)  # compile or load every kernel first
    steps, seconds = run(rounds, False)
    observed_steps, observed_seconds = run(max(1, rounds // 3), True)
    return BatchTiming(
        size=size,
        steps=steps,
        seconds=seconds,
        steps_per_s=steps / seconds,
        observed_steps_per_s=observed_steps / observed_seconds,
    )


def bench_fast(
    players: int,
    rules: RuleSet,
    games: int,
    seed: int,
    workers: int = 1,
    batch: int = 0,
    batch_rounds: int = 300,
) -> BenchResult:
    """The figures of :func:`marrakech.bench.bench_core`, through the compiled kernels.

    ``batch`` > 0 also times a :class:`~marrakech.fast.Batch` of that many games stepped
    ``batch_rounds`` times.
    """
    if workers < 1:
        raise MarrakechError(f"workers must be at least 1, found {workers}")
    if batch < 0:
        raise MarrakechError(f"the batch size must be >= 0, found {batch}")
    totals, seconds = time_playouts(players, rules, games, seed, workers)
    result = BenchResult(
        games=games,
        seconds=seconds,
        games_per_s=games / seconds,
        plies_per_s=totals.plies / seconds,
        turns_per_game=totals.turns / games,
        placements_per_place=totals.place_options / max(totals.places, 1),
        win_share=[w / games for w in totals.win_share],
        engine="fast",
        workers=workers,
    )
    if batch:
        timing = time_batch(players, rules, batch, seed, batch_rounds)
        result.batch = batch
        result.batch_steps_per_s = timing.steps_per_s
        result.batch_observed_steps_per_s = timing.observed_steps_per_s
    return result
