"""The expected tithe of the coming roll, in floating point: the bots' and the learned
value's sense of risk (R9-R13).

This is the one home of that figure for code that needs it fast. The exact figure, the
rules applied roll by roll, is :func:`marrakech.preview.preview_orientations`
(``expected_tithe``, ``elimination_chance``); ``tests/core/test_threat.py`` checks that
the two agree, and the compiled kernels mirror this module
(:func:`marrakech.fast.kernels.roll_threat`, ``tests/fast/test_threat.py``)::

    >>> from marrakech import State
    >>> state = State.from_notation(  # a blue carpet on d5-d6, seat 0 (red) to orient
    ...     "7/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 10,9,10 - - orient:0 standard")
    >>> roll_threat(state, 1)  # straight on: d5 or d6 costs 2, with chance 1/6 + 1/3
    (1.0, 0.0, [0.0, 1.0, 0.0])
    >>> cheapest_orient(state)[:3]  # turning left costs nothing
    (0, 0.0, 0.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from marrakech.geometry import PATHS, SQUARES
from marrakech.position import region_summary
from marrakech.rules import ROLL_PROBABILITIES

if TYPE_CHECKING:
    from marrakech.state import State

#: The chance of each roll 1..4 (R3), as floats.
ROLL_CHANCES: tuple[float, ...] = tuple(float(ROLL_PROBABILITIES[k]) for k in range(1, 5))

#: What a roll that eliminates the seat (R13) costs it, in dirhams, on top of the money
#: it pays, when it chooses a facing (:func:`cheapest_orient`) or weighs the roll.
RUIN_COST = 60.0

#: ``ROLL_ENDS[position * 3 + orient]``: the squares Assam stops on for rolls 1..4, where
#: position = square * 4 + facing and orient 0, 1, 2 = left, straight, right (R9, R10).
ROLL_ENDS: tuple[tuple[int, int, int, int], ...] = tuple(
    (
        PATHS[(p & ~3 | ((p & 3) + o - 1) & 3) * 5 + 1][-1].square,
        PATHS[(p & ~3 | ((p & 3) + o - 1) & 3) * 5 + 2][-1].square,
        PATHS[(p & ~3 | ((p & 3) + o - 1) & 3) * 5 + 3][-1].square,
        PATHS[(p & ~3 | ((p & 3) + o - 1) & 3) * 5 + 4][-1].square,
    )
    for p in range(SQUARES * 4)
    for o in range(3)
)


def roll_threat(state: State, orient: int) -> tuple[float, float, list[float]]:
    """For the seat whose turn it is: the expected tithe it pays, its chance of being
    eliminated, and the expected dirhams each seat receives, if Assam is turned by
    ``orient`` (0 left, 1 straight, 2 right) and the die is cast (R10-R13).

    A seat about to roll has turned Assam already: ask with ``orient=1``."""
    players = state.players
    mover = state.turn
    out = state.eliminated
    size_at, colour_at, _, _ = region_summary(state.board)
    have = state.money[mover]
    ends = ROLL_ENDS[(state.assam_square * 4 + state.assam_facing) * 3 + orient]
    paid = 0.0
    eliminated = 0.0
    received = [0.0] * players
    # Rolls 1..4 in order: the kernels' mirror sums in the same order, so the two give
    # the same floats bit for bit.
    for k, end in enumerate(ends):
        colour = colour_at[end]
        if colour >= 0:
            owner = colour % players
            if owner != mover and owner not in out:  # R12
                due = size_at[end]  # R11
                p = ROLL_CHANCES[k]
                if due > have:  # R13: all it has, and it is out
                    eliminated += p
                    due = have
                paid += p * due
                received[owner] += p * due
    return paid, eliminated, received


def cheapest_orient(state: State) -> tuple[int, float, float, list[float]]:
    """The orientation (0 left, 1 straight, 2 right) with the least expected loss
    (the tithe plus :data:`RUIN_COST` times the elimination chance), with its
    :func:`roll_threat`; straight first, so that ties keep Assam's facing."""
    best: tuple[int, float, float, list[float]] | None = None
    best_cost = float("inf")
    for orient in (1, 0, 2):
        paid, eliminated, received = roll_threat(state, orient)
        cost = paid + RUIN_COST * eliminated
        if cost < best_cost:
            best, best_cost = (orient, paid, eliminated, received), cost
            if cost == 0.0:
                break  # nothing cheaper than a free roll
    assert best is not None
    return best


__all__ = ["ROLL_CHANCES", "ROLL_ENDS", "RUIN_COST", "cheapest_orient", "roll_threat"]
