"""Fitting the learned value (:mod:`marrakech.bots.value`) to self-play games.

The model gives each seat still in the score ``features . (w + w' * progress)``
(:mod:`marrakech.value_features`) and models the final ranking as Plackett-Luce on those
scores: the winner is a softmax over the seats, then the second among the rest, and so
on, seats tied by R21 sharing each place (the target of a stage is uniform over the tied
group). :func:`fit` finds the weights of maximum likelihood, by projected full-batch
Adam from zero with a small L2 penalty, so the same data always gives the same weights.

:func:`self_play_positions` makes the data: games of the compiled search against itself
(:func:`marrakech.fast.search_kernels.self_play`), guided by any weights of the model.
``scripts/train_value.py`` fits the packaged weights this way, and
``examples/beat_greedy_value.py`` learns a value from nothing by alternating the two.

>>> import numpy as np
>>> games = self_play_positions(2, games=2, iterations=8, epsilon=0.1,
...                             weights=np.zeros(14), seed=1)
>>> games.features.shape[1:], bool((games.ranks[:, :2] >= 1).all())
((4, 7), True)
>>> weights = fit(design(games.features, games.progress),
...               stages(games.ranks, live_seats(games.features, 2), 2), steps=20)
>>> weights.shape
(14,)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from marrakech.fast.rows import WIDTH, to_arrays
from marrakech.fast.search_kernels import Tree, self_play
from marrakech.state import State
from marrakech.value_features import FEATURES

Array = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]
#: The Plackett-Luce stages of a set of positions: per stage, the seats still to place
#: and the target (the share of the place each of them took).
Plan = list[tuple[Mask, Array]]
#: Decisions a game of the standard rules takes at most (R6, R7): the arrays' rows per game.
DECISIONS_PER_GAME = 200


@dataclass(frozen=True)
class SelfPlayGames:
    """The decision nodes of self-play games, one row each: the seats' features
    ``(n, 4, FEATURES)`` (zeros for a seat out or absent), the game's progress (the share
    of the carpets placed), its final ranks ``(n, 4)`` (R21) and scores (R20), the game's
    number, and the positions themselves (``rows``, the compiled layout; empty unless
    asked for)."""

    features: Array
    progress: Array
    ranks: npt.NDArray[np.int32]
    scores: npt.NDArray[np.int32]
    game: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int32]


def self_play_positions(
    players: int,
    games: int,
    iterations: int,
    epsilon: float,
    weights: Array,
    seed: int,
    keep_rows: bool = False,
) -> SelfPlayGames:
    """``games`` games of the compiled search against itself (``iterations`` a decision,
    valued by ``weights``, a uniform decision with probability ``epsilon`` so that the
    positions vary), from the standard opening (R30) with the first seat rotating, and
    the positions at their decision nodes. The same arguments give the same games."""
    starts = np.stack([to_arrays(State.new(players, first_seat=s)) for s in range(players)])
    tree = Tree(capacity=(iterations + 2) * 12)
    size = games * DECISIONS_PER_GAME
    features = np.zeros((size, 4, FEATURES), dtype=np.float64)
    progress = np.zeros(size, dtype=np.float64)
    ranks = np.zeros((size, 4), dtype=np.int32)
    scores = np.zeros((size, 4), dtype=np.int32)
    game = np.zeros(size, dtype=np.int64)
    rows = np.zeros((size if keep_rows else 0, WIDTH), dtype=np.int32)
    n = self_play(
        starts, games, iterations, epsilon, np.ascontiguousarray(weights, dtype=np.float64),
        seed, *tree.arrays(), features, progress, ranks, scores, game, rows,
    )  # fmt: skip
    return SelfPlayGames(
        features[:n], progress[:n], ranks[:n], scores[:n], game[:n], rows[: n if keep_rows else 0]
    )


def design(features: Array, progress: Array) -> Array:
    """Per position and seat, the model's inputs: the features, then times progress."""
    return np.concatenate([features, features * progress[:, None, None]], axis=2)


def live_seats(features: Array, players: int) -> Mask:
    """The seats still in at each position."""
    # A seat out of the game has all-zero features (fast.search_kernels.seat_features); a seat
    # still in has some carpets in hand or on the board, or dirhams, in practice always.
    live: Mask = np.abs(features).sum(axis=2) > 0
    live[:, players:] = False
    return live


def stages(ranks: npt.NDArray[np.integer], live: Mask, players: int) -> Plan:
    """The Plackett-Luce stages of every position: (seats still to place, target)."""
    remaining = live.copy()
    found = []
    big = np.where(remaining, ranks, 99)
    for _ in range(players - 1):
        best = big.min(axis=1, keepdims=True)
        group = (big == best) & remaining
        active = remaining.sum(axis=1) >= 2
        target = group / np.maximum(group.sum(axis=1, keepdims=True), 1)
        target[~active] = 0.0
        found.append((remaining.copy(), target))
        remaining &= ~group
        big = np.where(remaining, ranks, 99)
    return found


def log_softmax(scores: Array, mask: Mask) -> Array:
    """The log-softmax of ``scores`` over the seats in ``mask`` (0 elsewhere)."""
    masked = np.where(mask, scores, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        norm = np.log(np.exp(masked - top).sum(axis=1, keepdims=True))
    return np.where(mask, scores - top - norm, 0.0)


def ranking_loss(scores: Array, plan: Plan) -> float:
    """The Plackett-Luce log-loss of the final rankings, per position."""
    total = 0.0
    for mask, target in plan:
        total -= float((target * log_softmax(scores, mask)).sum())
    return total / int(scores.shape[0])


#: Features whose weight may not be negative anywhere in the game: dirhams, visible
#: squares, regions and the coming tithe are worth something to their owner at every
#: stage, and the chance of ruin costs. Fitted freely, the early-game weights of the
#: first ones came out negative at four players (the data holds little early signal and
#: the progress term extrapolates), and a search exploits such a value: it paid tithes
#: on purpose. A weight is kept >= 0 (<= 0 for ruin) at both ends of the game, so all
#: along it (it is linear in progress).
SIGNS = {0: 1.0, 1: 1.0, 2: 1.0, 4: 1.0, 5: -1.0}
#: Features whose weight stays the same all game: a dirham now is a dirham at the end
#: (money only moves by tithes), and so is an expected tithe. Let free, the fit makes
#: them nearly worthless early (where the data says little) next to region potential,
#: so a short search would trade money for regions at any price.
CONSTANT = (0, 4)


def project(w: Array) -> Array:
    """The nearest weights (per feature) that keep :data:`SIGNS` at progress 0 and 1."""
    w = w.copy()
    for k, sign in SIGNS.items():
        start, end = sign * w[k], sign * (w[k] + w[FEATURES + k])
        start = max(start, 0.0)
        end = max(end, 0.0)
        w[k], w[FEATURES + k] = sign * start, sign * (end - start)
    for k in CONSTANT:
        w[FEATURES + k] = 0.0
    return w


def fit(
    x: Array, plan: Plan, steps: int, report: Callable[[int, float], None] | None = None
) -> Array:
    """Projected full-batch Adam on the Plackett-Luce log-likelihood from zero weights
    (a convex problem: the same data always gives the same weights). ``x``: the inputs
    (:func:`design`); ``report(step, loss)`` is told the loss every 100 steps."""
    w = np.zeros(x.shape[2])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    rate, beta1, beta2, l2 = 0.05, 0.9, 0.999, 1e-4
    n = x.shape[0]
    for step in range(1, steps + 1):
        scores = x @ w
        grad = l2 * w
        for mask, target in plan:
            p = np.exp(log_softmax(scores, mask)) * mask
            weight = target.sum(axis=1, keepdims=True)  # 0 for a finished stage
            grad += np.einsum("ns,nsk->k", p * weight - target, x) / n
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        w -= rate * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + 1e-8)
        w = project(w)
        if report is not None and step % 100 == 0:
            report(step, ranking_loss(scores, plan))
    return w
