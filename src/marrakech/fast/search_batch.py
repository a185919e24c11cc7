"""The ``search`` bot at a fixed budget for a batch of games, in one compiled call.

:class:`marrakech.bots.search.SearchBot` with ``iterations=N`` and no clock grows its tree
by chunks of 32, 64, 128... iterations (at most 4,096), each chunk seeded by
``rng.getrandbits(63)``, and plays the root's most visited child (the better mean on
equal visits, the lowest id after that); a decision with one legal choice is played
without a search. :func:`batch_search` does the same for every game of a batch with the
same compiled tree (:func:`marrakech.fast.search_kernels.grow`), each chunk's seed drawn
from the game's own SplitMix64 stream (the top 63 bits of one draw), so it plays the
Python bot's decision whenever the bot's ``getrandbits`` returns those draws
(``PythonBatch.search_actions`` gives it such a generator;
``tests/fast/test_search_batch.py`` compares them)::

    >>> from marrakech import State
    >>> from marrakech.bots.value import load_value
    >>> from marrakech.fast.rows import to_arrays
    >>> rows = np.stack([to_arrays(State.new(players=3))] * 2)
    >>> streams = np.array([1, 2], dtype=np.uint64)
    >>> out = np.empty(2, dtype=np.int64)
    >>> tree = tree_arrays(50)
    >>> batch_search(rows, np.arange(2), streams, *tree, 50, 0.15, 2.0, 0.0, False,
    ...              load_value(3).array(), INFORMED, out)
    >>> [0 <= int(action) < 3 for action in out]
    [True, True]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from marrakech.actions import PLACE_BASE
from marrakech.fast.kernels import _GOLDEN, ORIENT, PHASE, TURN, mix64, placements
from marrakech.fast.search_kernels import (
    _MAX_CHILDREN,
    INFORMED,
    T_ACTION,
    T_COUNT,
    T_FIRST,
    grow,
)

__all__ = ["INFORMED", "batch_search", "tree_arrays"]

#: The bot's chunks (``marrakech.bots.search``): the first, and the largest.
FIRST_CHUNK = 32
MAX_CHUNK = 4096


def tree_arrays(
    iterations: int,
) -> tuple[
    npt.NDArray[np.int32], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]
]:
    """A tree big enough for ``iterations`` (each adds at most 12 nodes), so that it never
    fills (the bot's own tree does not at these budgets): nodes, visits, totals, meta."""
    capacity = _MAX_CHILDREN * (iterations + 2)
    return (
        np.zeros((capacity, 3), dtype=np.int32),
        np.zeros(capacity, dtype=np.float64),
        np.zeros((capacity, 4), dtype=np.float64),
        np.zeros(1, dtype=np.int64),
    )


@njit(cache=True)
def _decide(
    s: np.ndarray,
    stream: np.uint64,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    meta: np.ndarray,
    iterations: int,
    exploration: float,
    prior: float,
    mix: float,
    paranoid: bool,
    weights: np.ndarray,
    informed: np.ndarray,
    slots: np.ndarray,
) -> tuple[np.uint64, int]:
    """The search bot's decision in row ``s`` and the stream after it."""
    if s[PHASE] != ORIENT and placements(s, slots) == 1:
        return stream, PLACE_BASE + slots[0]  # one legal decision: no search, no draw
    nodes[0, T_FIRST] = -1
    nodes[0, T_COUNT] = 0
    nodes[0, T_ACTION] = -1
    visits[0] = 0.0
    for seat in range(4):
        totals[0, seat] = 0.0
    meta[0] = 1
    mover = s[TURN]
    done = 0
    chunk = FIRST_CHUNK
    while done != iterations:
        want = min(chunk, iterations - done)
        stream = stream + _GOLDEN
        seed = mix64(stream) >> np.uint64(1)  # getrandbits(63)
        ran, _ = grow(
            s, nodes, visits, totals, meta, want, exploration, prior, mix, weights,
            informed, seed, mover if paranoid else -1,
        )  # fmt: skip
        done += ran
        chunk = min(2 * chunk, MAX_CHUNK)
    # The most visited child, the better mean on equal visits, the lowest id last.
    first = nodes[0, T_FIRST]
    best = -1
    best_visits = 0.0
    best_mean = 0.0
    for c in range(first, first + nodes[0, T_COUNT]):
        n = visits[c]
        mean = totals[c, mover] / n if n > 0 else 0.0
        if (
            best < 0
            or n > best_visits
            or (n == best_visits and mean > best_mean)
            or (
                n == best_visits
                and mean == best_mean
                and nodes[c, T_ACTION] < nodes[best, T_ACTION]
            )
        ):
            best, best_visits, best_mean = c, n, mean
    return stream, int(nodes[best, T_ACTION])


@njit(cache=True)
def batch_search(
    rows: np.ndarray,
    games: np.ndarray,
    streams: np.ndarray,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    meta: np.ndarray,
    iterations: int,
    exploration: float,
    prior: float,
    mix: float,
    paranoid: bool,
    weights: np.ndarray,
    informed: np.ndarray,
    out: np.ndarray,
) -> None:
    """The search bot's decision (``iterations`` a decision, the bot's ``exploration``,
    ``prior``, ``playout`` = ``mix`` and ``paranoid``; ``weights`` its learned value) in
    each game of ``games`` (indices of ``rows`` waiting at a decision) into ``out``, with
    each game's stream; one tree (:func:`tree_arrays`) reused game after game."""
    slots = np.empty(_MAX_CHILDREN, dtype=np.int32)
    for k in range(games.shape[0]):
        i = games[k]
        streams[i], out[k] = _decide(
            rows[i], streams[i], nodes, visits, totals, meta, iterations, exploration,
            prior, mix, paranoid, weights, informed, slots,
        )  # fmt: skip
