"""Compile every kernel once, ahead of first use: ``marrakech compile``.

The kernels compile lazily, on their first call, and the first process to call them
writes the cache that later ones load (:mod:`marrakech.fast.compile_cache`). A fresh
environment therefore pays for the compilation at an awkward moment: the first
``VectorEnv`` against ``greedy`` waits minutes before its first step. :func:`warm_up`
calls each group of kernels once on a tiny input, so that the cost is paid at install
time, and tells how long each group took and whether it was compiled or loaded::

    >>> from marrakech.fast.warm_up import PARTS
    >>> list(PARTS)
    ['playouts', 'batch', 'greedy', 'search', 'training']

Each kernel is called with one set of argument types only (``docs/fast.md``), so one call
per group compiles every specialisation a program will use, at every player count and
rule set.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numba.core.registry import CPUDispatcher

from marrakech.fast import (
    greedy_kernels,
    gumbel_kernels,
    kernels,
    playouts,
    search_batch,
    search_kernels,
)
from marrakech.rules import parse_rules
from marrakech.state import State
from marrakech.value_features import FEATURES

#: The modules whose compiled functions :func:`warm_up` counts.
KERNEL_MODULES = (kernels, playouts, greedy_kernels, search_kernels, search_batch, gumbel_kernels)


def _playouts() -> None:
    from marrakech.fast.playouts import INFORMED_DEFAULT, random_playouts

    # Standard rules at 2, 3 and 4 players run loops compiled with them as constants;
    # other rule sets share one loop; the weighted and informed policies have their own.
    for players in (2, 3, 4):
        random_playouts(State.new(players), 2, 0)
    random_playouts(State.new(2, parse_rules("bga+orient-last")), 2, 0)
    random_playouts(State.new(3), 2, 0, weights=(1.0,) * 6)
    random_playouts(State.new(3), 2, 0, informed=INFORMED_DEFAULT)


def _batch() -> None:
    from marrakech.fast.batch import Batch

    batch = Batch(2, players=2, seed=0)
    for _ in range(3):
        batch.legal_masks()
        batch.observations()
        batch.step(batch.sample_actions())
    batch.step(batch.sample_actions(), mask=np.array([True, False]))
    batch.rewards()
    batch.reset(np.array([True, False]))


def _greedy() -> None:
    from marrakech.fast.batch import Batch

    # Any finite weighting compiles the same code (the kernels' types are fixed): the
    # area, region and threat weights, the elimination penalty and value, the tie margin.
    params = (1.0, 1.0, 1.0, -100.0, -1.0, 1e-9)
    batch = Batch(2, players=2, seed=0)
    for _ in range(3):  # an orientation, then a placement (which reads the memo)
        waiting = np.flatnonzero(batch.legal_masks().any(axis=1))
        batch.greedy_scores(waiting, params)  # the scores a learner reads (VectorEnv)
        batch.step(batch.greedy_actions(waiting, params))


@dataclass
class _Search:
    """A ``search@iterations=N`` bot's settings, as a batch reads them."""

    seconds: float | None = None
    iterations: int | None = 8
    exploration: float = 0.15
    prior: float = 1.0
    playout: float = 0.0
    paranoid: bool = False


def search_tree() -> None:
    """Load (or compile) the compiled ``search`` bot's tree kernels: one small search
    (``marrakech.bots.search`` calls this once per process, before its first decision)."""
    from marrakech.fast.rows import to_arrays
    from marrakech.fast.search_kernels import INFORMED, Tree, grow

    tree = Tree(capacity=64)
    tree.reset()
    # A value of zeros: the learned one is a float64 array of the same shape (bots.value).
    grow(to_arrays(State.new(players=2)), *tree.arrays(), 1, 0.15, 1.0, 0.0,
         np.zeros(2 * FEATURES), INFORMED, 0, -1)  # fmt: skip


def _search() -> None:
    from marrakech.fast.batch import Batch

    search_tree()
    batch = Batch(2, players=2, seed=0)
    waiting = np.flatnonzero(batch.legal_masks().any(axis=1))
    batch.search_actions(waiting, _Search(), np.zeros(2 * FEATURES))


def _training() -> None:
    from marrakech.actions import DECISION_IDS
    from marrakech.fast.az_network import Network
    from marrakech.fast.rows import to_arrays

    # One self-play game (``marrakech train``) and one search from Python (the ``az``
    # bot): the Gumbel search, its chance nodes and the network's forward pass.
    start, params = to_arrays(State.new(players=2)), Network.initial(8, 2, 0).compiled()
    tree = gumbel_kernels.tree_arrays(2)
    gumbel_kernels.self_play(
        start, 0, 1, params, 2, 2, 1.0, np.uint64(0), *tree,
        *gumbel_kernels.self_play_arrays(1),
    )  # fmt: skip
    policy = np.zeros(DECISION_IDS, dtype=np.float64)
    gumbel_kernels.search(start, params, 2, 2, 0.0, np.uint64(0), *tree, policy)


#: The groups of kernels, in the order :func:`warm_up` compiles them.
PARTS: dict[str, Callable[[], None]] = {
    "playouts": _playouts,
    "batch": _batch,
    "greedy": _greedy,
    "search": _search,
    "training": _training,
}


@dataclass(frozen=True)
class PartTiming:
    """One group of kernels made ready: how long it took, how many of its compiled
    versions were built now (``compiled``) and how many were read from the cache."""

    part: str
    seconds: float
    compiled: int
    loaded: int


def cache_counts() -> tuple[int, int]:
    """Compiled versions built (cache misses) and loaded (hits) so far in this process."""
    built = loaded = 0
    for module in KERNEL_MODULES:
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                built += sum(value.stats.cache_misses.values())
                loaded += sum(value.stats.cache_hits.values())
    return built, loaded


def warm_up(parts: Iterable[str] = PARTS) -> list[PartTiming]:
    """Compile (or load) each group of kernels of ``parts``; a name outside
    :data:`PARTS` raises ``ValueError`` before anything is compiled."""
    chosen = list(parts)
    unknown = [part for part in chosen if part not in PARTS]
    if unknown:
        raise ValueError(f"kernel groups are {', '.join(PARTS)}; found {', '.join(unknown)}")
    timings = []
    for part in chosen:
        built, loaded = cache_counts()
        start = time.perf_counter()
        PARTS[part]()
        seconds = time.perf_counter() - start
        now_built, now_loaded = cache_counts()
        timings.append(PartTiming(part, seconds, now_built - built, now_loaded - loaded))
    return timings


__all__ = ["PARTS", "PartTiming", "cache_counts", "search_tree", "warm_up"]
