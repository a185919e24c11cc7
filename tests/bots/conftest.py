"""Helpers for the bot tests: reachable decision positions of every configuration."""

from __future__ import annotations

import random

from marrakech import State, parse_rules, random_action

CONFIGS = [
    (p, r) for p in (2, 3, 4) for r in ("standard", "bga", "standard+orient-last")
]  # R30-R32


def decision_positions(players: int, rules: str, count: int, seed: int = 0) -> list[State]:
    """``count`` decision positions sampled from random games (opening to endgame)."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = State.new(players, parse_rules(rules), first_seat=rng.randrange(players))
        positions = []
        while not state.is_terminal:
            if not state.is_chance:
                positions.append(state)
            state = state.apply(random_action(state, rng))
        # Spread the picks over the whole game: opening, middle game and the very end.
        picks = sorted({0, len(positions) - 1, *rng.sample(range(len(positions)), 3)})
        found.extend(positions[i] for i in picks)
    return found[:count]
