"""The learned value: each seat's chance of winning a position, from a few features.

Every seat still in the game gets seven features of the position (its dirhams, its
visible squares, the sum of ``size * size`` over its regions, the share of its carpets
still in hand, the expected tithe it gains or loses on the coming roll, its chance of
being eliminated by that roll, and whether it is the seat to move); its *score* is
``features . (w + w' * progress)``, where ``progress`` is the share of all carpets
already placed, and the chances are the softmax of the scores over the seats still in
(R13: a seat out cannot win). That is the first place of a Plackett-Luce model of the
final ranking, which is what ``scripts/train_value.py`` fits by maximum likelihood on
self-play games (ties of R21 share the place). Once the game is over the chances are the
exact win shares.

The weights, one set per player count, are small JSON files in ``bots/data/``
(``value-2p.json``...), read once; the compiled search evaluates the same model in Numba
(:func:`marrakech.fast.search_kernels.win_chances`), whose features mirror :func:`features`.
The features' names and scales have their home in :mod:`marrakech.value_features`,
which both read.

>>> from marrakech import State
>>> chances = load_value(3).chances(State.new(players=3))
>>> [round(c, 3) for c in chances]  # seat 0 moves first
[0.346, 0.327, 0.327]
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from marrakech.bots.evaluation import TUNED_WEIGHTS
from marrakech.errors import MarrakechError
from marrakech.position import region_summary
from marrakech.rules import PLAYER_COUNTS
from marrakech.state import Phase, State
from marrakech.threat import RUIN_COST, cheapest_orient, roll_threat
from marrakech.value_features import (
    DIRHAMS_UNIT,
    F_DIRHAMS,
    F_HAND,
    F_MOVER,
    F_REGIONS,
    F_RUIN,
    F_TITHE,
    F_VISIBLE,
    FEATURE_NAMES,
    FEATURES,
    REGIONS_UNIT,
    TITHE_UNIT,
    VISIBLE_UNIT,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def features(state: State) -> list[list[float]]:
    """The :data:`FEATURE_NAMES` of every seat of ``state`` (zeros for a seat out).

    >>> features(State.new(players=2))[0]
    [3.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    """
    players = state.players
    out = state.eliminated
    _, _, counts, squared = region_summary(state.board)
    start = state.rules.starting_carpets(players)
    hand = state.hand
    money = state.money
    rows = [[0.0] * FEATURES for _ in range(players)]
    for seat in range(players):
        if seat in out:
            continue
        colours = (seat, seat + 2) if players == 2 else (seat,)
        row = rows[seat]
        row[F_DIRHAMS] = money[seat] / DIRHAMS_UNIT
        row[F_VISIBLE] = sum(counts[c] for c in colours) / VISIBLE_UNIT
        row[F_REGIONS] = sum(squared[c] for c in colours) / REGIONS_UNIT
        row[F_HAND] = sum(hand[c] for c in colours) / start if start > 0 else 0.0
    phase = state.phase
    if phase is Phase.OVER:
        return rows
    mover = state.turn
    rows[mover][F_MOVER] = 1.0
    if phase is Phase.ROLL:  # the facing is chosen: straight on
        paid, ruin, received = roll_threat(state, 1)
    elif phase is Phase.ORIENT:  # the mover takes the cheapest facing
        _, paid, ruin, received = cheapest_orient(state)
    else:
        return rows
    rows[mover][F_TITHE] -= paid / TITHE_UNIT
    rows[mover][F_RUIN] = ruin
    for seat in range(players):
        rows[seat][F_TITHE] += received[seat] / TITHE_UNIT
    return rows


def progress(state: State) -> float:
    """The share of all the carpets of the game already placed (0 at the start)."""
    total = state.rules.starting_carpets(state.players) * state.players
    return 1.0 - sum(state.hand) / total if total > 0 else 1.0


def _linear(weights: tuple[float, ...], rows: list[list[float]], done: float) -> list[float]:
    """``features . (w + w' * done)`` per row: the value's and the margin model's form."""
    return [
        sum(f * (weights[k] + weights[FEATURES + k] * done) for k, f in enumerate(row))
        for row in rows
    ]


@dataclass(frozen=True)
class ValueModel:
    """The weights of the value for one player count, and where they came from."""

    players: int
    weights: tuple[float, ...]
    source: dict[str, Any]
    #: The margin model's weights (same inputs; empty when there is none).
    margin_weights: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if len(self.weights) != 2 * FEATURES or not all(math.isfinite(w) for w in self.weights):
            raise ValueError(
                f"expected {2 * FEATURES} finite value weights, found {list(self.weights)}"
            )
        margin = self.margin_weights
        if margin and (len(margin) != 2 * FEATURES or not all(math.isfinite(w) for w in margin)):
            raise ValueError(
                f"expected no margin weights or {2 * FEATURES} finite ones, found {list(margin)}"
            )

    def _check(self, state: State) -> None:
        if not isinstance(state, State):
            raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
        if state.players != self.players:
            raise ValueError(
                f"this value is for {self.players} players, found a {state.players}-player game"
            )

    def scores(self, rows: list[list[float]], done: float) -> list[float]:
        """Each seat's score from its features and the game's progress ``done``."""
        return _linear(self.weights, rows, done)

    def chances(self, state: State) -> list[float]:
        """Each seat's chance of winning ``state`` (they sum to 1)."""
        self._check(state)
        if state.is_terminal:
            return list(state.outcome().win_shares)
        scores = self.scores(features(state), progress(state))
        out = state.eliminated
        live = [s for s in range(state.players) if s not in out]
        top = max(scores[s] for s in live)
        exp = [math.exp(scores[s] - top) if s not in out else 0.0 for s in range(state.players)]
        norm = sum(exp)
        return [e / norm for e in exp]

    def margins(self, state: State) -> list[float]:
        """Each seat's expected final margin in points (R20): its score at the end minus
        the mean of the other seats still in (0 for a seat out); exact once the game is
        over. They sum to 0.

        >>> margins = load_value(2).margins(State.new(players=2))
        >>> round(sum(margins), 9), margins[0] > 0  # the first seat moves first
        (0.0, True)
        """
        self._check(state)
        if not self.margin_weights:
            raise MarrakechError(f"this value ({self.source.get('method')}) has no margin model")
        out = state.eliminated
        live = [s for s in range(state.players) if s not in out]
        if state.is_terminal:
            values = [float(v) for v in state.scores()]
        else:
            values = _linear(self.margin_weights, features(state), progress(state))
        if len(live) < 2:
            return [0.0] * state.players
        total = sum(values[s] for s in live)
        others = len(live) - 1
        return [
            values[s] - (total - values[s]) / others if s not in out else 0.0
            for s in range(state.players)
        ]

    def array(self) -> npt.NDArray[np.float64]:
        """The weights as the ``float64`` array the compiled search takes."""
        import numpy as np

        return np.array(self.weights, dtype=np.float64)

    def to_json(self) -> str:
        return json.dumps(
            {
                "players": self.players,
                "features": list(FEATURE_NAMES),
                "weights": [round(w, 6) for w in self.weights],
                "margin_weights": [round(w, 6) for w in self.margin_weights],
                "source": self.source,
            },
            indent=2,
        )


#: Dirhams of the static evaluation per unit of score in :func:`static_value`.
STATIC_TEMPERATURE = 8.0


def static_value(players: int) -> ValueModel:
    """The value set by hand from the static evaluation's :data:`TUNED_WEIGHTS` (its
    score terms over :data:`STATIC_TEMPERATURE` dirhams): what guides the self-play that
    the learned value is fitted on (``scripts/value_data.py``), so the data, and the
    fit, depend on the seed only."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"expected 2, 3 or 4 players, found {players!r}")
    w = TUNED_WEIGHTS[players]
    assert w.area is not None and w.region is not None and w.threat is not None
    t = STATIC_TEMPERATURE
    base = (
        DIRHAMS_UNIT / t,
        VISIBLE_UNIT * w.area / t,
        REGIONS_UNIT * w.region / t,
        0.0,
        TITHE_UNIT * w.threat / t,
        -RUIN_COST * w.threat / t,
        0.0,
    )
    return ValueModel(players, base + (0.0,) * FEATURES, {"method": "static_value"})


def value_file(players: int) -> str:
    return f"value-{players}p.json"


@cache
def load_value(players: int) -> ValueModel:
    """The packaged value for ``players`` (2, 3 or 4), read once."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"expected 2, 3 or 4 players, found {players!r}")
    name = value_file(players)
    try:
        text = resources.files("marrakech.bots").joinpath("data", name).read_text("utf-8")
        data = json.loads(text)
        if data["features"] != list(FEATURE_NAMES):
            raise ValueError(f"features {data['features']} are not {list(FEATURE_NAMES)}")
        return ValueModel(
            int(data["players"]),
            tuple(map(float, data["weights"])),
            data["source"],
            tuple(map(float, data["margin_weights"])),
        )
    except (OSError, KeyError, TypeError, ValueError) as error:
        raise MarrakechError(f"the packaged value {name} cannot be read: {error}") from None


__all__ = [
    "FEATURES",
    "FEATURE_NAMES",
    "ValueModel",
    "features",
    "load_value",
    "progress",
    "static_value",
]
