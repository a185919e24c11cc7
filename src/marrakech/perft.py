"""Perft: count the leaves of the game tree, a regression check on move generation.

A ply applies one legal decision (orient or place) or one distinct chance outcome (each
roll value or draw colour once, unweighted); a game that ends early counts as a leaf::

    >>> from marrakech import State
    >>> [perft(State.new(players=3), depth) for depth in range(4)]
    [1, 3, 12, 111]
"""

from __future__ import annotations

from marrakech.state import State


def perft(state: State, depth: int) -> int:
    """The number of leaves after exactly ``depth`` plies from ``state``."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, found {depth}")
    if depth == 0 or state.is_terminal:
        return 1
    actions = state.legal_actions()
    if depth == 1:
        return len(actions) if actions else 1
    return sum(perft(state.apply(action), depth - 1) for action in actions)
