"""``marrakech bench``: random games through the public API, timed.

Decisions are uniform over the legal actions, chance outcomes follow their true
probabilities; one process. The figures: games and plies per second, turns per game,
legal placements per PLACE decision and each seat's share of the wins (a shared win is
split between its winners).
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass

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

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def lines(self) -> list[str]:
        shares = "  ".join(f"seat {i}: {share:.1%}" for i, share in enumerate(self.win_share))
        return [
            f"games                  {self.games}",
            f"seconds                {self.seconds:.3f}",
            f"games per second       {self.games_per_s:,.0f}",
            f"plies per second       {self.plies_per_s:,.0f}",
            f"turns per game         {self.turns_per_game:.2f}",
            f"placements per PLACE   {self.placements_per_place:.2f}",
            f"win share              {shares}",
        ]


def bench_core(players: int, rules: RuleSet, games: int, seed: int) -> BenchResult:
    """Play ``games`` random games with the pure-Python engine."""
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
        winners = state.winners()
        for seat in winners:
            wins[seat] += 1 / len(winners)
    seconds = time.perf_counter() - start
    return BenchResult(
        games=games,
        seconds=seconds,
        games_per_s=games / seconds,
        plies_per_s=plies / seconds,
        turns_per_game=turns / games,
        placements_per_place=placement_choices / max(places, 1),
        win_share=[w / games for w in wins],
    )
