"""The ``greedy`` bot compiled, for batched opponents: the same scores, bit for bit.

:class:`marrakech.bots.greedy.GreedyBot` scores each legal decision with the static
evaluation (:mod:`marrakech.bots.evaluation`, the home of its definition): a placement
by the value of the position it leads to, an orientation by that value averaged over the
die with the best placement after each roll. These kernels compute the same numbers on
kernel rows, in the same order of floating-point operations, so every score is the
Python one exactly (``tests/fast/test_greedy_kernels.py`` compares them on thousands of
positions); the decision is the best-scoring one, and equal best ones (within the
bot's tie margin) are chosen between with the game's own generator instead of the
bot's ``random.Random``.

The evaluation's weights and constants come in as parameters
(:func:`marrakech.bots.greedy.greedy_params`, in the order of the ``P_`` indices here),
not frozen in the compiled code: this layer sits below the bots, and the cache never
holds stale values::

    >>> import numpy as np
    >>> from marrakech import State
    >>> from marrakech.bots.greedy import greedy_params, orient_scores
    >>> from marrakech.fast.rows import to_arrays
    >>> state = State.new(players=3)
    >>> scores = np.zeros(12)
    >>> count = greedy_scores(to_arrays(state), np.array(greedy_params(None, 3)), scores)
    >>> scores[:count].tolist() == orient_scores(state, 0)[1]
    True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from marrakech.actions import PLACE_BASE, ROLL_BASE
from marrakech.fast.kernels import (
    MONEY,
    NOUT,
    ORIENT,
    OUT,
    OVER,
    PHASE,
    PLACE,
    PLAYERS,
    ROLL,
    TURN,
    WIDTH,
    _is_out,
    _popcount,
    apply_unchecked,
    below,
    cheapest_threat,
    colour_bits,
    placements,
    roll_threat,
)
from marrakech.fast.search_kernels import _regions_squared
from marrakech.fast.tables import DIE

__all__ = ["batch_greedy", "greedy_choose", "greedy_scores"]

#: The parameters' places in the array: the evaluation's weights (area, region, threat),
#: the elimination penalty and value, the tie margin.
P_AREA, P_REGION, P_THREAT, P_PENALTY, P_ELIMINATED, P_TIE = range(6)
#: Chance of each roll 1..4 in sixths (R3).
_ROLL_SIXTHS = np.bincount(DIE, minlength=5).astype(np.int64)


@njit(cache=True)
def evaluate(s: np.ndarray, params: np.ndarray, values: np.ndarray, scratch: np.ndarray) -> None:
    """The value vector of row ``s`` into ``values[:players]``: mirrors
    :func:`marrakech.bots.evaluation.evaluate` (``scratch``: 8 floats)."""
    players = s[PLAYERS]
    eliminated_value = params[P_ELIMINATED]
    over = s[PHASE] == OVER
    for seat in range(players):
        if _is_out(s, seat):
            index = 0
            for k in range(s[NOUT]):
                if s[OUT + k] == seat:
                    index = k
            values[seat] = eliminated_value + 10.0 * index
            continue
        bits = colour_bits(s, seat)
        area = _popcount(bits)
        potential = float(_regions_squared(bits))
        if players == 2:
            other = colour_bits(s, seat + 2)
            area += _popcount(other)
            potential = potential + float(_regions_squared(other))
        money = s[MONEY + seat]
        if over:
            values[seat] = (money + area) + 0.001 * money
        else:
            values[seat] = money + params[P_AREA] * area + params[P_REGION] * potential
    if over:
        return
    phase = s[PHASE]
    if phase != PLACE:
        mover = s[TURN]
        received = scratch[:4]
        if phase == ROLL:
            paid, ruin = roll_threat(s, 1, received)
        else:
            _, paid, ruin = cheapest_threat(s, received, scratch[4:8])
        threat = params[P_THREAT]
        values[mover] -= threat * (paid + params[P_PENALTY] * ruin)
        for seat in range(players):
            values[seat] += threat * received[seat]


@njit(cache=True)
def utility(values: np.ndarray, players: int, seat: int, params: np.ndarray) -> float:
    """What ``seat`` maximises: mirrors :func:`marrakech.bots.evaluation.utility`."""
    mine: float = values[seat]
    half = params[P_ELIMINATED] / 2
    count = 0
    best = 0.0
    total = 0.0
    for other in range(players):
        v = values[other]
        if other != seat and v > half:
            if count == 0 or v > best:
                best = v
            total += v
            count += 1
    if count == 0:
        return mine + 100.0
    return mine - 0.5 * (best + total / count)


@njit(cache=True)
def _position_value(
    s: np.ndarray, seat: int, params: np.ndarray, values: np.ndarray, scratch: np.ndarray
) -> float:
    evaluate(s, params, values, scratch)
    return utility(values, s[PLAYERS], seat, params)


@njit(cache=True)
def _place_scores(
    s: np.ndarray,
    seat: int,
    params: np.ndarray,
    slots: np.ndarray,
    scores: np.ndarray,
    child: np.ndarray,
    values: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """Each legal placement's value to ``seat`` into ``scores`` (id order); how many."""
    count = placements(s, slots)
    for k in range(count):
        child[:] = s
        apply_unchecked(child, PLACE_BASE + slots[k])
        scores[k] = _position_value(child, seat, params, values, scratch)
    return count


@njit(cache=True)
def _after_roll_value(
    s: np.ndarray,
    seat: int,
    params: np.ndarray,
    slots: np.ndarray,
    scores: np.ndarray,
    child: np.ndarray,
    values: np.ndarray,
    scratch: np.ndarray,
) -> float:
    """Mirrors :func:`marrakech.bots.greedy.after_roll_value`."""
    if s[PHASE] == PLACE and s[TURN] == seat:
        count = _place_scores(s, seat, params, slots, scores, child, values, scratch)
        best: float = scores[0]
        for k in range(1, count):
            if scores[k] > best:
                best = scores[k]
        return best
    return _position_value(s, seat, params, values, scratch)


@njit(cache=True)
def greedy_scores(s: np.ndarray, params: np.ndarray, scores: np.ndarray) -> int:
    """The score of each legal decision of row ``s`` (at ORIENT or PLACE) for the seat to
    move, into ``scores`` in id order (12 entries); how many. Mirrors
    :func:`marrakech.bots.greedy.orient_scores` and ``place_scores``."""
    seat = s[TURN]
    slots = np.empty(12, dtype=np.int32)
    inner = np.empty(12, dtype=np.float64)
    values = np.empty(4, dtype=np.float64)
    scratch = np.empty(8, dtype=np.float64)
    child = np.empty(WIDTH, dtype=s.dtype)
    if s[PHASE] != ORIENT:
        return _place_scores(s, seat, params, slots, scores, child, values, scratch)
    rolled = np.empty(WIDTH, dtype=s.dtype)
    after = np.empty(WIDTH, dtype=s.dtype)
    for turn_by in range(3):
        rolled[:] = s
        apply_unchecked(rolled, turn_by)
        total = 0.0
        # An orientation is always followed by the roll (under R32 at 2 players the pile
        # showed its next top before the placer oriented): rolls 1..4 with their
        # chances, as chance_outcomes lists them.
        for steps in range(1, 5):
            after[:] = rolled
            apply_unchecked(after, ROLL_BASE + steps - 1)
            p = _ROLL_SIXTHS[steps] / 6.0
            total += p * _after_roll_value(
                after, seat, params, slots, inner, child, values, scratch
            )
        scores[turn_by] = total
    return 3


@njit(cache=True)
def greedy_choose(s: np.ndarray, params: np.ndarray, stream: np.uint64) -> tuple[np.uint64, int]:
    """The decision id ``greedy`` plays in row ``s``, and the stream after it: the best
    score; equal best ones (within the tie margin) chosen between with one draw of
    ``stream`` (none when a single one is best)."""
    scores = np.empty(12, dtype=np.float64)
    count = greedy_scores(s, params, scores)
    best = scores[0]
    for k in range(1, count):
        if scores[k] > best:
            best = scores[k]
    floor = best - params[P_TIE]
    tied = 0
    for k in range(count):
        if scores[k] >= floor:
            tied += 1
    pick = 0
    if tied > 1:
        stream, pick = below(stream, tied)
    for k in range(count):
        if scores[k] >= floor:
            if pick == 0:
                if s[PHASE] == ORIENT:
                    return stream, k
                slots = np.empty(12, dtype=np.int32)
                placements(s, slots)
                return stream, PLACE_BASE + slots[k]
            pick -= 1
    return stream, -1


@njit(cache=True)
def batch_greedy(
    rows: np.ndarray, games: np.ndarray, streams: np.ndarray, params: np.ndarray, out: np.ndarray
) -> None:
    """``greedy``'s decision in each game of ``games`` (indices of ``rows`` waiting at a
    decision) into ``out`` (one per entry of ``games``), with each game's stream."""
    for k in range(games.shape[0]):
        i = games[k]
        streams[i], out[k] = greedy_choose(rows[i], params, streams[i])
