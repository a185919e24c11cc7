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


def check_budget(bot: str, seconds: float | None, count: str, value: int | None) -> None:
    """A search budget is a clock (``seconds``), a count (``iterations``, ``depth``), or
    both; at least one, each positive."""
    if seconds is not None and seconds <= 0:
        raise ValueError(f"seconds must be positive, found {seconds}")
    if value is not None and value < 1:
        raise ValueError(f"{count} must be at least 1, found {value}")
    if seconds is None and value is None:
        raise ValueError(f"{bot} needs a budget: seconds, {count}, or both")
