"""Random positions of every player count and rule set, for the tests that compare a
compiled kernel with its home in the core, position by position."""

from __future__ import annotations

import random
from collections.abc import Callable

from marrakech import BGA, STANDARD, State, random_action
from marrakech.rules import RuleSet

#: Eliminations galore (R13): little money, short piles, covering one's own carpets.
POOR = RuleSet(carpets=(6, 5, 6), money=3, own_cover=True)
RULES = (STANDARD, BGA, STANDARD.with_options(orient_last=True), POOR)
#: Every player count under every rule set, and their test ids.
CONFIGS = [(players, rules) for players in (2, 3, 4) for rules in RULES]
IDS = [f"{p}p-{r.token()}" for p, r in CONFIGS]


def random_positions(
    players: int, rules: RuleSet, seed: int, games: int, keep: Callable[[State], bool]
) -> list[State]:
    """The positions ``keep`` accepts in ``games`` random games (true chance)."""
    rng = random.Random(seed)
    found: list[State] = []
    for _ in range(games):
        state = State.new(players, rules)
        while not state.is_terminal:
            if keep(state):
                found.append(state)
            state = state.apply(random_action(state, rng))
    return found
