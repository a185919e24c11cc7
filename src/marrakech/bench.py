"""``marrakech bench``: random games through an engine, timed.

Decisions are uniform over the legal actions, chance outcomes follow their true
probabilities. The figures: games and plies per second, turns per game, legal placements
per PLACE decision and each seat's share of the wins (a shared win is split between its
winners). ``engine="core"`` plays through the pure-Python public API;
``engine="fast"`` through the compiled kernels (:func:`marrakech.fast.bench.bench_fast`,
which can also time batched stepping). ``workers`` > 1 splits the games over that many
processes.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from dataclasses import asdict, dataclass

from marrakech.errors import MarrakechError
from marrakech.playout import sample_outcome
from marrakech.rules import RuleSet
from marrakech.state import Phase, State


@dataclass
class BenchResult:
    games: int
    seconds: float
    games_per_s: float
    plies_per_s: float
    turns_per_game: float
    placements_per_place: float
    win_share: list[float]
    engine: str = "core"
    workers: int = 1
    #: Batched stepping (fast engine with a batch size): games in the batch, game steps
    #: (one decision and the chance after it) per second, and the same while reading
    #: legal masks and observations every step.
    batch: int = 0
    batch_steps_per_s: float | None = None
    batch_observed_steps_per_s: float | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def lines(self) -> list[str]:
        shares = "  ".join(f"seat {i}: {share:.1%}" for i, share in enumerate(self.win_share))
        lines = [
            f"games                  {self.games}",
            f"seconds                {self.seconds:.3f}",
            f"games per second       {self.games_per_s:,.0f}",
            f"plies per second       {self.plies_per_s:,.0f}",
            f"turns per game         {self.turns_per_game:.2f}",
            f"placements per PLACE   {self.placements_per_place:.2f}",
            f"win share              {shares}",
        ]
        if self.batch_steps_per_s is not None:
            lines.append(
                f"batched steps per s    {self.batch_steps_per_s:,.0f}  (batch {self.batch})"
            )
        if self.batch_observed_steps_per_s is not None:
            lines.append(f"  with masks and obs   {self.batch_observed_steps_per_s:,.0f}")
        return lines


@dataclass
class _Counts:
    games: int = 0
    plies: int = 0
    turns: int = 0
    places: int = 0
    placement_choices: int = 0
    wins: list[float] | None = None


def _core_games(task: tuple[int, RuleSet, int, int]) -> tuple[_Counts, float]:
    players, rules, games, seed = task
    rng = random.Random(seed)
    rand = rng.random
    plies = turns = places = placement_choices = 0
    wins = [0.0] * players
    place_phase, orient_phase = Phase.PLACE, Phase.ORIENT
    start = time.perf_counter()
    for _ in range(games):
        state = State.new(players, rules)
        while not state.is_terminal:
            if state.is_chance:
                action = sample_outcome(state, rng)
            else:
                legal = state.legal_actions()
                phase = state.phase
                if phase is place_phase:
                    places += 1
                    placement_choices += len(legal)
                elif phase is orient_phase:
                    turns += 1
                action = legal[int(rand() * len(legal))]
            state = state.apply(action)
            plies += 1
        for seat, share in enumerate(state.outcome().win_shares):
            wins[seat] += share
    seconds = time.perf_counter() - start
    return _Counts(games, plies, turns, places, placement_choices, wins), seconds


def split_games(games: int, workers: int, seed: int) -> list[tuple[int, int]]:
    """(games, seed) per worker; worker 0 of a single-process run keeps ``seed``."""
    if workers == 1:
        return [(games, seed)]
    return [
        (games // workers + (1 if w < games % workers else 0), seed * 1_000_003 + w)
        for w in range(workers)
    ]


def bench_core(
    players: int, rules: RuleSet, games: int, seed: int, workers: int = 1
) -> BenchResult:
    """Play ``games`` random games with the pure-Python engine (in ``workers`` processes)."""
    if workers < 1:
        raise MarrakechError(f"workers must be at least 1, found {workers}")
    tasks = [(players, rules, share, s) for share, s in split_games(games, workers, seed)]
    if workers == 1:
        counts, seconds = _core_games(tasks[0])
        parts = [counts]
    else:
        with multiprocessing.get_context().Pool(workers) as pool:
            start = time.perf_counter()
            results = pool.map(_core_games, tasks, chunksize=1)
            seconds = time.perf_counter() - start
        parts = [counts for counts, _ in results]
    plies = sum(p.plies for p in parts)
    turns = sum(p.turns for p in parts)
    places = sum(p.places for p in parts)
    choices = sum(p.placement_choices for p in parts)
    wins = [sum((p.wins or [0.0] * players)[s] for p in parts) for s in range(players)]
    return BenchResult(
        games=games,
        seconds=seconds,
        games_per_s=games / seconds,
        plies_per_s=plies / seconds,
        turns_per_game=turns / games,
        placements_per_place=choices / max(places, 1),
        win_share=[w / games for w in wins],
        engine="core",
        workers=workers,
    )
