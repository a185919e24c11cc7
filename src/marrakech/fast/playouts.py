"""Many random playouts from one position in one compiled call.

>>> from marrakech import State
>>> result = random_playouts(State.new(players=3), n=1000, seed=7)
>>> result.n, result.players, bool((result.ranks >= 1).all())
(1000, 3, True)
>>> value = result.mean_rank_reward()
>>> value.shape, bool(((0 <= value) & (value <= 1)).all())
((3,), True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from marrakech.fast import kernels
from marrakech.fast.rows import to_arrays
from marrakech.state import State

#: Number of weights of the weighted policy (see :func:`random_playouts`).
POLICY_WEIGHTS = 6
_NO_WEIGHTS = np.zeros(0, dtype=np.float64)

#: The informed policy's parameters (see :func:`random_playouts`) and their defaults.
INFORMED_NAMES = ("epsilon", "cover", "grow", "own", "ruin")
INFORMED_DEFAULT = (0.1, 1.0, 1.0, 2.0, 30.0)


@dataclass(frozen=True)
class PlayoutResult:
    """The ends of ``n`` playouts: one row per game, one column per seat.

    ``scores`` (R20), ``money`` (dirhams) and ``ranks`` (R21: 1 = win, equal seats share
    a rank) have shape ``(n, players)``; the counters have shape ``(n,)`` and count from
    the start position: ``plies`` (actions applied, decisions and chance), ``turns``
    (ORIENT decisions), ``tithes`` and ``tithe_dirhams`` (tithes paid, R11, and the
    dirhams they moved), ``eliminated`` (seats that went out, R13), ``places`` (PLACE
    decisions) and ``place_options`` (legal placements summed over them).
    """

    scores: npt.NDArray[np.int32]
    money: npt.NDArray[np.int32]
    ranks: npt.NDArray[np.int8]
    plies: npt.NDArray[np.int32]
    turns: npt.NDArray[np.int32]
    tithes: npt.NDArray[np.int32]
    tithe_dirhams: npt.NDArray[np.int32]
    eliminated: npt.NDArray[np.int32]
    places: npt.NDArray[np.int32]
    place_options: npt.NDArray[np.int32]

    @property
    def n(self) -> int:
        return int(self.scores.shape[0])

    @property
    def players(self) -> int:
        return int(self.scores.shape[1])

    def outcome_values(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Per game and seat, the rank value and the win share of
        :class:`marrakech.outcome.Outcome` (computed by a kernel that mirrors it)."""
        return outcome_arrays(self.ranks)

    def rank_values(self) -> npt.NDArray[np.float64]:
        """Per game and seat, the rank as a value in [0, 1] (:attr:`Outcome.rank_values
        <marrakech.outcome.Outcome.rank_values>`): 1 for a sole winner, 0 for the last,
        tied seats share their places, and a game's values sum to ``players / 2``."""
        return self.outcome_values()[0]

    def mean_rank_reward(self) -> npt.NDArray[np.float64]:
        """The mean of :meth:`rank_values` over the playouts, per seat (for search bots)."""
        mean: npt.NDArray[np.float64] = self.rank_values().mean(axis=0)
        return mean

    def win_shares(self) -> npt.NDArray[np.float64]:
        """Per game and seat, the share of the win (:attr:`Outcome.win_shares
        <marrakech.outcome.Outcome.win_shares>`): 1/k for each of k winners, else 0."""
        return self.outcome_values()[1]

    def mean_win_share(self) -> npt.NDArray[np.float64]:
        """Each seat's share of the wins over the playouts (shared wins split)."""
        mean: npt.NDArray[np.float64] = self.win_shares().mean(axis=0)
        return mean


def outcome_arrays(
    ranks: npt.NDArray[np.integer],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Rank values and win shares, each ``(n, players)``, of final ranks ``(n, players)``."""
    block = np.ascontiguousarray(ranks, dtype=np.int8)
    values = np.empty(block.shape, dtype=np.float64)
    shares = np.empty(block.shape, dtype=np.float64)
    kernels.outcome_values(block, values, shares)
    return values, shares


def _check_weights(weights: Sequence[float] | None) -> npt.NDArray[np.float64]:
    if weights is None:
        return _NO_WEIGHTS
    values = np.asarray(weights, dtype=np.float64)
    if values.shape != (POLICY_WEIGHTS,):
        raise ValueError(
            f"expected {POLICY_WEIGHTS} policy weights (orient left, straight, right; "
            f"placement half on empty, on an opponent, on own colour), found {values.shape}"
        )
    if not all(math.isfinite(w) and w >= 0 for w in values.tolist()):
        raise ValueError(f"policy weights must be finite and >= 0, found {values.tolist()}")
    return values


def _check_informed(informed: Sequence[float] | bool | None) -> npt.NDArray[np.float64]:
    if informed is None or informed is False:
        return _NO_WEIGHTS
    values = np.asarray(INFORMED_DEFAULT if informed is True else informed, dtype=np.float64)
    if values.shape != (kernels.INFORMED_PARAMS,):
        raise ValueError(
            f"expected {kernels.INFORMED_PARAMS} informed-policy parameters "
            f"({', '.join(INFORMED_NAMES)}), found {values.shape}"
        )
    finite = all(math.isfinite(v) and v >= 0 for v in values.tolist())
    if not finite or values[0] > 1:
        raise ValueError(
            "informed-policy parameters must be finite and >= 0, with epsilon <= 1, "
            f"found {values.tolist()}"
        )
    return values


def random_playouts(
    state: State,
    n: int,
    seed: int,
    weights: Sequence[float] | None = None,
    informed: Sequence[float] | bool | None = None,
) -> PlayoutResult:
    """Play ``n`` games from ``state`` to the end; return how each ended.

    Decisions are uniform over the legal ones, or follow a simple weighted policy given
    by ``weights``: 6 numbers ``>= 0``: orient left, straight, right (R9), then a
    placement's weight per half (R14): on an empty square, on an opponent's colour, on
    one of the seat's own colours; a placement weighs the sum over its two halves and is
    chosen with probability proportional to its weight (``(1,) * 6`` is uniform; when
    all legal placements weigh 0 the choice is uniform). Chance nodes follow the true
    probabilities (R3, R7).

    ``informed`` (True for :data:`INFORMED_DEFAULT`, or 5 numbers ``epsilon, cover,
    grow, own, ruin``) replaces that with the policy MCTS plays out with: each seat turns
    Assam towards the least expected tithe (a roll it cannot pay costs its dirhams plus
    ``ruin``, R13) and lays its carpet where ``cover`` x the size of each opponent region
    it covers + ``grow`` x the own squares it touches - ``own`` x the own squares it
    hides is highest; ties at random, and with probability ``epsilon`` a uniform
    decision instead. Such games look like real play far more than uniform ones: no seat
    walks into a large region it could have turned away from.

    The same ``state``, ``n``, ``seed`` and policy give the same result.

    >>> from marrakech import State
    >>> greedy = random_playouts(State.new(players=2), 200, seed=3, weights=(1, 1, 1, 1, 4, 0))
    >>> bool((greedy.plies > 0).all())
    True
    >>> smart = random_playouts(State.new(players=2), 200, seed=3, informed=True)
    >>> bool(smart.tithe_dirhams.mean() < greedy.tithe_dirhams.mean())
    True
    """
    if not isinstance(state, State):
        raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a whole number of playouts >= 0, found {n!r}")
    policy = _check_weights(weights)
    smart = _check_informed(informed)
    if policy.shape[0] and smart.shape[0]:
        raise ValueError("expected one playout policy, found both weights and informed")
    start = to_arrays(state)
    players = state.players
    n = int(n)
    # One contiguous block (one compiled signature, one allocation); the fields are views.
    block = np.empty((n, 3 * players + kernels.STATS), dtype=np.int32)
    kernels.playouts(start, np.uint64(int(seed) % 2**64), policy, smart, block)
    stats = block[:, 3 * players :]
    return PlayoutResult(
        scores=block[:, :players],
        money=block[:, players : 2 * players],
        ranks=block[:, 2 * players : 3 * players].astype(np.int8),
        plies=stats[:, kernels.STAT_PLIES],
        turns=stats[:, kernels.STAT_TURNS],
        tithes=stats[:, kernels.STAT_TITHES],
        tithe_dirhams=stats[:, kernels.STAT_TITHE_DIRHAMS],
        eliminated=stats[:, kernels.STAT_OUT],
        places=stats[:, kernels.STAT_PLACES],
        place_options=stats[:, kernels.STAT_PLACE_OPTIONS],
    )
