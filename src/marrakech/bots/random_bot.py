"""``random``: uniform over the legal decisions."""

from __future__ import annotations

import random

from marrakech.actions import Action
from marrakech.bots.base import check_budget, check_decision_node
from marrakech.state import State


class RandomBot:
    """Picks uniformly among the legal decisions.

    >>> import random
    >>> from marrakech import State
    >>> RandomBot().choose(State.new(players=3), random.Random(1))
    Orient(-1)
    """

    name = "random"

    def __init__(self, seconds: float | None = None, iterations: int | None = None) -> None:
        # Budgets are accepted for a uniform interface; the bot always answers at once.
        check_budget(self.name, seconds, "iterations", iterations, required=False)
        self.seconds = seconds
        self.iterations = iterations

    def __repr__(self) -> str:
        return "RandomBot()"

    def choose(self, state: State, rng: random.Random) -> Action:
        check_decision_node(state)
        legal = state.legal_actions()
        return legal[rng.randrange(len(legal))]
