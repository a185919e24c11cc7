"""Driving a game with a seeded generator: sampling chance and random playouts.

The engine owns no random generator (docs/architecture.md); these helpers take the caller's
``random.Random`` so a driver (arena, environment, web room) stays reproducible::

    >>> import random
    >>> from marrakech import State
    >>> final, actions = random_game(State.new(players=4), random.Random(1))
    >>> final.is_terminal, len(actions) > 100
    (True, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction

from marrakech.actions import Action
from marrakech.state import State

_cumulative: dict[
    int, tuple[Sequence[tuple[Action, Fraction]], tuple[Action, ...], tuple[float, ...]]
] = {}


def sample_outcome(state: State, rng: random.Random) -> Action:
    """Sample a chance outcome of ``state`` with its true probability."""
    outcomes = state.chance_outcomes()
    if not outcomes:
        raise ValueError(f"not a chance node: {state.phase.name}")
    # The engine returns shared, cached outcome tuples, so their float tables are cached too.
    cached = _cumulative.get(id(outcomes))
    if cached is None or cached[0] is not outcomes:
        total = 0.0
        bounds: list[float] = []
        for _, probability in outcomes:
            total += float(probability)
            bounds.append(total)
        cached = (outcomes, tuple(a for a, _ in outcomes), tuple(bounds))
        if len(_cumulative) < 4096:
            _cumulative[id(outcomes)] = cached
    x = rng.random()
    actions, limits = cached[1], cached[2]
    for i, bound in enumerate(limits):
        if x < bound:
            return actions[i]
    return actions[-1]


def random_action(state: State, rng: random.Random) -> Action:
    """A chance outcome with its probability, or a decision uniformly at random."""
    if state.is_chance:
        return sample_outcome(state, rng)
    legal = state.legal_actions()
    return legal[int(rng.random() * len(legal))]


def random_game(state: State, rng: random.Random) -> tuple[State, list[Action]]:
    """Play uniformly random decisions (true chance) to the end; return the end and actions."""
    actions: list[Action] = []
    while not state.is_terminal:
        action = random_action(state, rng)
        actions.append(action)
        state = state.apply(action)
    return state, actions
