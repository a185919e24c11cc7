"""The bot protocol: ``bot.choose(state, rng) -> action``.

A bot sees only the public engine API, never mutates the state it is given (states are
immutable anyway), and is deterministic for a given ``rng``. Budgets (iterations or
seconds) are constructor parameters.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from marrakech.actions import Action
from marrakech.state import State


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a legal decision for the seat to move."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """A legal decision for ``state`` (which must be a decision node)."""
        ...


def check_decision_node(state: State) -> None:
    if state.is_chance or state.is_terminal:
        raise ValueError(f"a bot chooses at a decision node, found the {state.phase.name} phase")
