"""Winning chances that mean what they say: the learned value's chances, recalibrated
for the player count, the stage of the game and, when known, the table's strength.

The learned value (:mod:`marrakech.bots.value`) is fitted on self-play and does not know
who plays: its chances are too sure of themselves at evenly matched tables, and a lead
is worth more to a strong seat against weak ones. A *calibration* corrects this per
player count with a sharpness ``a`` and a strength weight ``b`` that depend on the
game's progress (the share of all carpets placed, :func:`marrakech.bots.value.progress`):
each seat still in gets ``p ** a * exp(b * gap)``, normalised over the seats still in,
where ``gap`` is the seat's strength (a rating on the arena ladder's scale,
:data:`RATING_SCALE`) minus the table's mean (:func:`strength_gaps`). Strengths not
known (or all equal) make every gap 0: the table is taken as evenly matched.
``a < 1`` flattens the chances towards the uniform, ``a > 1`` sharpens them; since
``a > 0`` the order of equally strong seats is kept, and a seat out (R13) keeps 0.
``a`` and ``b`` are piecewise linear between *knots* of progress (every sixteenth of the
game), fitted (:func:`fit_calibration`) by maximum likelihood of the winners (ties of R21
shared) on fresh games of every level pairing, evenly matched ones included, with a
penalty on their bends; ``scripts/calibration_games.py`` plays the games,
``scripts/calibration.py`` fits the map, writes ``bots/data/calibration.json`` (with
the bots' strengths, :func:`bot_strength`) and measures it on games it never saw.

>>> calibration = load_calibration(4)
>>> chances = calibration.apply([0.4, 0.3, 0.2, 0.1], progress=0.5)
>>> round(sum(chances), 9), chances == sorted(chances, reverse=True)
(1.0, True)
>>> even = calibration.apply([0.25] * 4, progress=0.0)
>>> table = calibration.apply([0.25] * 4, 0.0, [1538.0, 1538.0, 1538.0, 1061.0])
>>> table[3] < even[3]  # random against three greedy
True
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


#: Seats' strengths are ratings on the arena ladder's scale (docs/bots.md, "Every bot
#: spec ... rated together": Bradley-Terry, mean 1500, 400 points an odds of 10 to 1);
#: the strength term reads each seat's gap to the table's mean in units of this.
RATING_SCALE = 400.0
#: The table strength taken when no seat's is known (the ladder's mean, about ``greedy``,
#: the medium level): the sharpness of the chances depends on how well the table plays.
REFERENCE = 1500.0


def table_level(strengths: Sequence[float], chances: Sequence[float]) -> float:
    """The mean strength of the seats still in (``chances`` above 0) minus
    :data:`REFERENCE`, in :data:`RATING_SCALE` units."""
    live = [s for s, c in zip(strengths, chances, strict=True) if c > 0]
    return (sum(live) / len(live) - REFERENCE) / RATING_SCALE if live else 0.0


def strength_gaps(strengths: Sequence[float], chances: Sequence[float]) -> list[float]:
    """Each seat's strength minus the mean of the seats still in (``chances`` above 0),
    in :data:`RATING_SCALE` units; 0 for a seat out."""
    if len(strengths) != len(chances):
        raise ValueError(
            f"expected {len(chances)} strengths (one per seat), found {len(strengths)}"
        )
    if not all(math.isfinite(s) for s in strengths):
        raise ValueError(f"expected finite strengths, found {list(strengths)}")
    live = [s for s, c in zip(strengths, chances, strict=True) if c > 0]
    mean = sum(live) / len(live) if live else 0.0
    return [
        (s - mean) / RATING_SCALE if c > 0 else 0.0 for s, c in zip(strengths, chances, strict=True)
    ]


@dataclass(frozen=True)
class Calibration:
    """The sharpness of one player count's chances along the game: ``scales[k]`` at
    progress ``knots[k]``, linear between knots and flat beyond the ends; and, when the
    seats' strengths are known, how much a seat's strength gap moves its chances:
    ``strength[k]`` at the same knots (none: the strengths are not used), and how much
    the table's level (its mean strength, :func:`table_level`) changes the sharpness:
    ``level[k]`` (none: not at all)."""

    players: int
    knots: tuple[float, ...]
    scales: tuple[float, ...]
    strength: tuple[float, ...] = ()
    level: tuple[float, ...] = ()

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
        if self.strength and len(self.strength) != len(self.knots):
            raise ValueError(
                f"expected a strength weight per knot ({len(self.knots)}) or none, found "
                f"{len(self.strength)}"
            )
        if self.level and len(self.level) != len(self.knots):
            raise ValueError(
                f"expected a level weight per knot ({len(self.knots)}) or none, found "
                f"{len(self.level)}"
            )
        if not all(math.isfinite(b) for b in (*self.strength, *self.level)):
            raise ValueError(
                f"expected finite weights, found {list(self.strength)} and {list(self.level)}"
            )

    @staticmethod
    def _interpolate(knots: tuple[float, ...], values: tuple[float, ...], at: float) -> float:
        if at <= knots[0]:
            return values[0]
        for k in range(1, len(knots)):
            if at <= knots[k]:
                share = (at - knots[k - 1]) / (knots[k] - knots[k - 1])
                return values[k - 1] + share * (values[k] - values[k - 1])
        return values[-1]

    def scale(self, progress: float, level: float = 0.0) -> float:
        """The sharpness at ``progress`` (0 at the start, 1 at the end) at a table of
        ``level`` (:func:`table_level`; 0: :data:`REFERENCE`): ``a + c * level``, at
        least :data:`MIN_SCALE`."""
        a = self._interpolate(self.knots, self.scales, progress)
        if not self.level or level == 0.0:
            return a
        return max(MIN_SCALE, a + self._interpolate(self.knots, self.level, progress) * level)

    def strength_weight(self, progress: float) -> float:
        """How much a seat's strength gap (in :data:`RATING_SCALE` units) adds to the
        logit of its chance at ``progress`` (0 without strength weights)."""
        if not self.strength:
            return 0.0
        return self._interpolate(self.knots, self.strength, progress)

    def apply(
        self,
        chances: Sequence[float],
        progress: float,
        strengths: Sequence[float] | None = None,
    ) -> list[float]:
        """``chances`` (one per seat, summing to 1; 0 for a seat out) recalibrated at
        ``progress``: ``p ** a`` normalised, so still a distribution, in the same order.
        ``strengths`` (one per seat, ladder ratings: :func:`table_strengths`) adds
        ``b * gap`` to each seat's logit, its gap to the table's mean strength, and
        moves the sharpness with the table's level (:meth:`scale`); without them the
        table is taken as evenly matched, at the :data:`REFERENCE` level."""
        if len(chances) != self.players:
            raise ValueError(
                f"expected {self.players} chances (one per seat), found {len(chances)}"
            )
        if any(not 0.0 <= c <= 1.0 for c in chances):
            raise ValueError(f"expected chances in [0, 1], found {list(chances)}")
        gaps = [0.0] * len(chances) if strengths is None else strength_gaps(strengths, chances)
        a = self.scale(progress, 0.0 if strengths is None else table_level(strengths, chances))
        b = self.strength_weight(progress)
        logits = [
            a * math.log(c) + b * g if c > 0 else -math.inf
            for c, g in zip(chances, gaps, strict=True)
        ]
        top = max(logits)
        if top == -math.inf:
            raise ValueError("expected at least one seat with a chance above 0")
        exp = [math.exp(z - top) for z in logits]
        norm = sum(exp)
        return [e / norm for e in exp]

    def apply_one(
        self,
        chance: float,
        seats: int,
        progress: float,
        edge: float = 0.0,
        mean: float = REFERENCE,
    ) -> float:
        """One seat's ``chance`` recalibrated at ``progress`` when only it is known (a
        search's mean, as in a hint): the other ``seats - 1`` still in are taken to share
        the rest evenly (exact at two players), and to be equally strong, ``edge``
        rating points weaker than the seat (0: evenly matched), the table's mean
        strength ``mean``. Increasing in ``chance`` and in ``edge``.

        >>> round(Calibration(2, (0.0,), (0.5,)).apply_one(0.8, 2, 0.5), 4)
        0.6667
        """
        if not 0.0 <= chance <= 1.0:
            raise ValueError(f"expected a chance in [0, 1], found {chance}")
        if not 1 <= seats <= self.players:
            raise ValueError(f"expected 1 to {self.players} seats still in, found {seats}")
        if not (math.isfinite(edge) and math.isfinite(mean)):
            raise ValueError(f"expected a finite strength edge and mean, found {edge}, {mean}")
        if seats == 1 or chance in (0.0, 1.0):
            return chance
        a = self.scale(progress, (mean - REFERENCE) / RATING_SCALE)
        b = self.strength_weight(progress)
        others = seats - 1
        # The seat is edge * others / seats above the table's mean, the others edge /
        # seats below it (in rating points).
        mine: float = chance**a * math.exp(b * edge * others / seats / RATING_SCALE)
        rest: float = (
            others * ((1.0 - chance) / others) ** a * math.exp(-b * edge / seats / RATING_SCALE)
        )
        return mine / (mine + rest)

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "knots": [round(k, 6) for k in self.knots],
            "scales": [round(s, 6) for s in self.scales],
        }
        if self.strength:
            found["strength"] = [round(b, 6) for b in self.strength]
        if self.level:
            found["level"] = [round(c, 6) for c in self.level]
        return found


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
    :data:`MIN_SCALE`). :func:`fit_calibration` fits the strength term besides.

    >>> import numpy as np
    >>> p = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.6, 0.4]])
    >>> won = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> [round(s, 2) for s in fit_scales(p, won, np.zeros(4), [0.0])]  # too timid
    [2.23]
    """
    scales, _, _ = fit_calibration(chances, wins, progress, knots, ridge=ridge, smooth=smooth)
    return scales


def fit_calibration(
    chances: npt.NDArray[np.float64],
    wins: npt.NDArray[np.float64],
    progress: npt.NDArray[np.float64],
    knots: Sequence[float],
    gaps: npt.NDArray[np.float64] | None = None,
    levels: npt.NDArray[np.float64] | None = None,
    ridge: float = 1e-6,
    smooth: float = 0.0,
) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """The scales ``a``, the strength weights ``b`` and the level weights ``c`` at
    ``knots`` that maximise the likelihood of the winners under
    ``p ** (a + c * level) * exp(b * gap)`` normalised (see :func:`fit_scales` for
    ``chances``, ``wins``, ``progress``, ``ridge`` and ``smooth``): ``gaps`` is
    ``(positions, seats)``, each seat's strength minus the table's mean
    (:func:`strength_gaps`; all 0 at an evenly matched table), ``levels`` ``(positions,)``
    the table's mean strength minus :data:`REFERENCE` (:func:`table_level`), both in
    :data:`RATING_SCALE` units. Without ``gaps`` (``levels``) the weights ``b`` (``c``)
    are all 0. The penalised log-likelihood is concave (a conditional logit), so
    Newton's method from ``(1, 0, 0)`` finds its maximum; ``ridge`` pulls ``b`` and ``c``
    without data to 0.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> gap = np.repeat([[1.0, -1.0]], 4000, axis=0)
    >>> strong = rng.random(4000) < 1 / (1 + np.exp(-2.0))  # b = 1: logit gap of 2
    >>> won = np.column_stack([strong, ~strong]).astype(float)
    >>> _, b, _ = fit_calibration(np.full((4000, 2), 0.5), won, np.zeros(4000), [0.0], gap)
    >>> round(b[0], 1)
    1.0
    """
    import numpy as np

    if ridge < 0 or smooth < 0:
        raise ValueError(f"expected ridge and smooth >= 0, found {ridge} and {smooth}")
    p = np.asarray(chances, dtype=np.float64)
    y = np.asarray(wins, dtype=np.float64)
    live = p > 0
    logp = np.where(live, np.log(np.where(live, p, 1.0)), 0.0)
    x = np.zeros_like(p) if gaps is None else np.where(live, np.asarray(gaps, dtype=float), 0.0)
    if x.shape != p.shape:
        raise ValueError(f"expected gaps shaped like the chances {p.shape}, found {x.shape}")
    level = np.zeros(len(p)) if levels is None else np.asarray(levels, dtype=np.float64)
    if level.shape != (len(p),):
        raise ValueError(f"expected one level per position ({len(p)}), found {level.shape}")
    # The features whose weights are fitted: log p (a), the gap (b), log p * level (c).
    features = [logp, x, logp * level[:, None]]
    fitted = [True, gaps is not None, levels is not None]
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
    start = np.concatenate([np.ones(size), np.zeros(2 * size)])
    theta = start.copy()
    n = len(p)
    for _ in range(200):
        weights = [near * theta[j * size + left] + far * theta[j * size + right] for j in range(3)]
        z = sum(w[:, None] * f for w, f in zip(weights, features, strict=True))
        z = np.where(live, z, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        q = np.exp(z)
        q /= q.sum(axis=1, keepdims=True)
        means = [(q * f).sum(axis=1) for f in features]
        # d(-loglik)/d(weights) per position, and its second derivatives (the
        # covariances of the features under the calibrated chances).
        grad = np.concatenate(
            [
                per_knot(means[j] - (y * features[j]).sum(axis=1)) / n
                + penalty @ (theta[j * size : (j + 1) * size] - start[j * size : (j + 1) * size])
                for j in range(3)
            ]
        )
        hess = np.block(
            [
                [
                    curvature((q * features[j] * features[k]).sum(axis=1) - means[j] * means[k]) / n
                    + (penalty if j == k else 0.0)
                    for k in range(3)
                ]
                for j in range(3)
            ]
        )
        # Keep every scale at least MIN_SCALE, even at a knot with almost no positions
        # (the first turns, where a position's weight on knot 0 is small): a scale at
        # the floor that the likelihood pushes lower stays there (projected Newton).
        # The weights not fitted stay 0 (their rows are left out).
        held = np.concatenate(
            [(theta[:size] <= MIN_SCALE) & (grad[:size] > 0)]
            + [np.full(size, not fit) for fit in fitted[1:]]
        )
        free = ~held
        step = np.zeros(3 * size)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        # Damped: a Newton step far from the maximum (a weight whose feature barely
        # varies, as the level at a player count with few levels) may overshoot.
        step *= min(1.0, 0.5 / max(float(np.abs(step).max()), 1e-300))
        new = theta - step
        new[:size] = np.maximum(new[:size], MIN_SCALE)
        moved = np.abs(new - theta).max()
        theta = new
        if moved < 1e-10:
            break
    a, b, c = (tuple(float(v) for v in theta[j * size : (j + 1) * size]) for j in range(3))
    return a, b, c


@cache
def _packaged() -> dict[str, Any]:
    try:
        text = (
            resources.files("marrakech.bots").joinpath("data", CALIBRATION_FILE).read_text("utf-8")
        )
        found = json.loads(text)
        if not isinstance(found, dict):
            raise TypeError(f"expected an object, found {type(found).__name__}")
        return found
    except (OSError, TypeError, ValueError) as error:
        raise MarrakechError(
            f"the packaged calibration {CALIBRATION_FILE} cannot be read: {error}"
        ) from None


@cache
def load_calibration(players: int) -> Calibration:
    """The packaged calibration for ``players`` (2, 3 or 4), read once."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"expected 2, 3 or 4 players, found {players!r}")
    try:
        entry = _packaged()["players"][str(players)]
        return Calibration(
            players,
            tuple(map(float, entry["knots"])),
            tuple(map(float, entry["scales"])),
            tuple(map(float, entry.get("strength", ()))),
            tuple(map(float, entry.get("level", ()))),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise MarrakechError(
            f"the packaged calibration {CALIBRATION_FILE} cannot be read: {error}"
        ) from None


@cache
def bot_strengths(players: int) -> dict[str, float]:
    """The bots' strengths at ``players`` (ladder ratings, :data:`RATING_SCALE`), by bot
    name or spec, as the packaged calibration was fitted with them."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"expected 2, 3 or 4 players, found {players!r}")
    try:
        table = _packaged().get("strengths", {}).get(str(players), {})
        return {str(name): float(rating) for name, rating in table.items()}
    except (AttributeError, TypeError, ValueError) as error:
        raise MarrakechError(
            f"the packaged calibration {CALIBRATION_FILE} cannot be read: {error}"
        ) from None


def bot_strength(bot: str, players: int) -> float | None:
    """A bot's strength at ``players`` by its name, level (``expert``...) or spec
    (``search@iterations=2000``), or None when it is not rated (a bot spec with other
    options, a custom weights file)."""
    from marrakech.bots import LEVELS

    table = bot_strengths(players)
    return table.get(bot, table.get(LEVELS.get(bot, bot)))


def table_strengths(
    strengths: Sequence[float | None], players: int | None = None
) -> tuple[float, ...] | None:
    """Each seat's strength for :meth:`Calibration.apply`, from what is known of them
    (None: not known, a player without a rating): a seat not known is taken to be as
    strong as the mean of the seats known (nothing is assumed of it), and a table where
    no seat is known is evenly matched (None).

    >>> table_strengths([1552.0, None, 439.0])
    (1552.0, 995.5, 439.0)
    >>> table_strengths([None, None]) is None
    True
    """
    if players is not None and len(strengths) != players:
        raise ValueError(f"expected {players} strengths (one per seat), found {len(strengths)}")
    known = [s for s in strengths if s is not None]
    if not known:
        return None
    mean = sum(known) / len(known)
    return tuple(mean if s is None else float(s) for s in strengths)


__all__ = [
    "CALIBRATION_FILE",
    "MIN_SCALE",
    "RATING_SCALE",
    "REFERENCE",
    "Calibration",
    "bot_strength",
    "bot_strengths",
    "fit_calibration",
    "fit_scales",
    "knot_weights",
    "load_calibration",
    "strength_gaps",
    "table_level",
    "table_strengths",
]
