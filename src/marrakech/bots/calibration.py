"""Winning chances that mean what they say: the learned value's chances, recalibrated.

The learned value (:mod:`marrakech.bots.value`) is fitted on self-play, and its chances
are too sure of themselves in the games people and other bots play (the favourite wins
less often than it says), more so at four players and at some stages of the game than
others. A *calibration* corrects this per player count and stage of the game with one
sharpness ``a`` that depends on the game's progress (the share of all carpets placed,
:func:`marrakech.bots.value.progress`): each seat still in gets ``p ** a``, normalised
over the seats still in (a softmax of ``a * log p``). ``a < 1`` flattens the chances
towards the uniform, ``a > 1`` sharpens them; since ``a > 0`` the order of the seats is
kept, and a seat out (R13) keeps 0. ``a`` is piecewise linear between *knots* of
progress, dense enough (every sixteenth of the game) to follow how fast the value's
sureness changes near the end, and fitted (:func:`fit_scales`) by maximum likelihood of
the winners (ties of R21 shared) on arena games the value never saw, with a penalty on its
bends (second differences) so that a stage with few positions borrows from its
neighbours; ``scripts/calibration.py`` fits it (choosing the penalty by cross-validation
on the fitting games), writes ``bots/data/calibration.json`` and measures the result on
other games.

>>> calibration = load_calibration(4)
>>> chances = calibration.apply([0.4, 0.3, 0.2, 0.1], progress=0.5)
>>> round(sum(chances), 9), chances == sorted(chances, reverse=True)
(1.0, True)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from marrakech.errors import MarrakechError
from marrakech.rules import PLAYER_COUNTS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

CALIBRATION_FILE = "calibration.json"
#: The smallest sharpness a fit gives (nearly uniform chances; never 0, which would lose
#: the order of the seats).
MIN_SCALE = 0.05


@dataclass(frozen=True)
class Calibration:
    """The sharpness of one player count's chances along the game: ``scales[k]`` at
    progress ``knots[k]``, linear between knots and flat beyond the ends."""

    players: int
    knots: tuple[float, ...]
    scales: tuple[float, ...]

    def __post_init__(self) -> None:
        if self.players not in PLAYER_COUNTS:
            raise ValueError(f"expected 2, 3 or 4 players, found {self.players!r}")
        if not self.knots or len(self.knots) != len(self.scales):
            raise ValueError(
                f"expected as many scales as knots (at least one), found {len(self.knots)} "
                f"knots and {len(self.scales)} scales"
            )
        if any(b <= a for a, b in zip(self.knots, self.knots[1:], strict=False)):
            raise ValueError(f"expected increasing knots, found {list(self.knots)}")
        if not all(math.isfinite(s) and s > 0 for s in self.scales):
            raise ValueError(f"expected positive finite scales, found {list(self.scales)}")

    def scale(self, progress: float) -> float:
        """The sharpness ``a`` at ``progress`` (0 at the start, 1 at the end)."""
        knots, scales = self.knots, self.scales
        if progress <= knots[0]:
            return scales[0]
        for k in range(1, len(knots)):
            if progress <= knots[k]:
                share = (progress - knots[k - 1]) / (knots[k] - knots[k - 1])
                return scales[k - 1] + share * (scales[k] - scales[k - 1])
        return scales[-1]

    def apply(self, chances: Sequence[float], progress: float) -> list[float]:
        """``chances`` (one per seat, summing to 1; 0 for a seat out) recalibrated at
        ``progress``: ``p ** a`` normalised, so still a distribution, in the same order."""
        if len(chances) != self.players:
            raise ValueError(
                f"expected {self.players} chances (one per seat), found {len(chances)}"
            )
        if any(not 0.0 <= c <= 1.0 for c in chances):
            raise ValueError(f"expected chances in [0, 1], found {list(chances)}")
        a = self.scale(progress)
        logits = [a * math.log(c) if c > 0 else -math.inf for c in chances]
        top = max(logits)
        if top == -math.inf:
            raise ValueError("expected at least one seat with a chance above 0")
        exp = [math.exp(z - top) for z in logits]
        norm = sum(exp)
        return [e / norm for e in exp]

    def apply_one(self, chance: float, seats: int, progress: float) -> float:
        """One seat's ``chance`` recalibrated at ``progress`` when only it is known (a
        search's mean, as in a hint): the other ``seats - 1`` still in are taken to share
        the rest evenly (exact at two players). Increasing in ``chance``.

        >>> round(Calibration(2, (0.0,), (0.5,)).apply_one(0.8, 2, 0.5), 4)
        0.6667
        """
        if not 0.0 <= chance <= 1.0:
            raise ValueError(f"expected a chance in [0, 1], found {chance}")
        if not 1 <= seats <= self.players:
            raise ValueError(f"expected 1 to {self.players} seats still in, found {seats}")
        if seats == 1 or chance in (0.0, 1.0):
            return chance
        a = self.scale(progress)
        others = seats - 1
        mine: float = chance**a
        rest: float = others * ((1.0 - chance) / others) ** a
        return mine / (mine + rest)

    def to_dict(self) -> dict[str, Any]:
        return {
            "knots": [round(k, 6) for k in self.knots],
            "scales": [round(s, 6) for s in self.scales],
        }


def _knot_pairs(
    progress: npt.NDArray[np.float64], knots: Sequence[float]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """Each position's left knot ``k`` and its share towards knot ``k + 1`` (0 with a
    single knot, where ``k + 1`` is ``k`` itself)."""
    import numpy as np

    t = np.clip(np.asarray(progress, dtype=np.float64), knots[0], knots[-1])
    if len(knots) == 1:
        return np.zeros(len(t), dtype=np.intp), np.zeros(len(t))
    k = np.clip(np.searchsorted(knots, t, side="right") - 1, 0, len(knots) - 2)
    lo, hi = np.asarray(knots)[k], np.asarray(knots)[k + 1]
    return k, (t - lo) / (hi - lo)


def knot_weights(progress: npt.NDArray[np.float64], knots: Sequence[float]) -> npt.NDArray[Any]:
    """Each position's weight on each knot (``(positions, knots)``; rows sum to 1): the
    piecewise-linear interpolation that :meth:`Calibration.scale` computes."""
    import numpy as np

    k, share = _knot_pairs(progress, knots)
    basis = np.zeros((len(k), len(knots)))
    rows = np.arange(len(k))
    basis[rows, k] = 1.0 - share
    basis[rows, np.minimum(k + 1, len(knots) - 1)] += share
    return basis


def fit_scales(
    chances: npt.NDArray[np.float64],
    wins: npt.NDArray[np.float64],
    progress: npt.NDArray[np.float64],
    knots: Sequence[float],
    ridge: float = 1e-6,
    smooth: float = 0.0,
) -> tuple[float, ...]:
    """The scales at ``knots`` that maximise the likelihood of the winners: ``chances``
    and ``wins`` are ``(positions, seats)`` (the value's chances, 0 for a seat out; each
    seat's share of the win, R21), ``progress`` each position's. ``smooth`` penalises the
    bends of ``a`` (the squared second differences of the scales: a straight line costs
    nothing), so knots with few positions follow their neighbours; ``ridge`` pulls scales
    without any data towards 1. The penalised log-likelihood (per position) is concave in
    the scales, so Newton's method from 1 finds its maximum (scales kept at least
    :data:`MIN_SCALE`).

    >>> import numpy as np
    >>> p = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.6, 0.4]])
    >>> won = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> [round(s, 2) for s in fit_scales(p, won, np.zeros(4), [0.0])]  # too timid
    [2.23]
    """
    import numpy as np

    if ridge < 0 or smooth < 0:
        raise ValueError(f"expected ridge and smooth >= 0, found {ridge} and {smooth}")
    p = np.asarray(chances, dtype=np.float64)
    y = np.asarray(wins, dtype=np.float64)
    live = p > 0
    logp = np.where(live, np.log(np.where(live, p, 1.0)), 0.0)
    # Each position weighs on two neighbouring knots (``left`` and ``right``): sums by
    # knot rather than products with a dense (positions, knots) matrix, which are slow.
    size = len(knots)
    left, share = _knot_pairs(np.asarray(progress, dtype=np.float64), knots)
    right = np.minimum(left + 1, size - 1)
    near, far = 1.0 - share, share

    def per_knot(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        sums = np.bincount(left, near * values, minlength=size) + np.bincount(
            right, far * values, minlength=size
        )
        return np.asarray(sums, dtype=np.float64)  # weighted counts are floats

    def curvature(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        cells = size * size
        hess = (
            np.bincount(left * size + left, near * near * values, minlength=cells)
            + np.bincount(left * size + right, near * far * values, minlength=cells)
            + np.bincount(right * size + left, near * far * values, minlength=cells)
            + np.bincount(right * size + right, far * far * values, minlength=cells)
        )
        return np.asarray(hess, dtype=np.float64).reshape(size, size)

    bends = np.diff(np.eye(size), 2, axis=0)  # (size - 2, size): second differences
    penalty = smooth * bends.T @ bends + max(ridge, 1e-12) * np.eye(size)
    w = np.ones(size)
    n = len(p)
    for _ in range(100):
        a = near * w[left] + far * w[right]
        z = np.where(live, a[:, None] * logp, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        q = np.exp(z)
        q /= q.sum(axis=1, keepdims=True)
        mean = (q * logp).sum(axis=1)
        # d(-loglik)/da per position, and its second derivative (the variance of log p).
        grad_a = mean - (y * logp).sum(axis=1)
        hess_a = (q * logp**2).sum(axis=1) - mean**2
        grad = per_knot(grad_a) / n + penalty @ (w - 1.0)
        hess = curvature(hess_a) / n + penalty
        # Keep every scale at least MIN_SCALE, even at a knot with almost no positions
        # (the first turns, where a position's weight on knot 0 is small): a scale at
        # the floor that the likelihood pushes lower stays there (projected Newton).
        held = (w <= MIN_SCALE) & (grad > 0)
        free = ~held
        step = np.zeros(size)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        new = np.maximum(w - step, MIN_SCALE)
        moved = np.abs(new - w).max()
        w = new
        if moved < 1e-10:
            break
    return tuple(float(s) for s in w)


@cache
def load_calibration(players: int) -> Calibration:
    """The packaged calibration for ``players`` (2, 3 or 4), read once."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"expected 2, 3 or 4 players, found {players!r}")
    try:
        text = (
            resources.files("marrakech.bots").joinpath("data", CALIBRATION_FILE).read_text("utf-8")
        )
        entry = json.loads(text)["players"][str(players)]
        return Calibration(
            players, tuple(map(float, entry["knots"])), tuple(map(float, entry["scales"]))
        )
    except (OSError, KeyError, TypeError, ValueError) as error:
        raise MarrakechError(
            f"the packaged calibration {CALIBRATION_FILE} cannot be read: {error}"
        ) from None


__all__ = [
    "CALIBRATION_FILE",
    "MIN_SCALE",
    "Calibration",
    "fit_scales",
    "knot_weights",
    "load_calibration",
]
