"""The static evaluation shared by ``greedy``, ``expectimax`` and ``mcts``.

A position is scored per seat (a *value vector*), in dirhams:

* the score itself (R20): dirhams plus visible squares, a square weighing ``area``
  dirhams (more than one at two players: it also brings tithes);
* region potential: a region of ``n`` squares charges ``n`` dirhams to whoever stops on
  it (R11), and a bigger region is also more likely to be stopped on, so future income
  grows about like ``n * n``; each seat gets ``region * sum(n * n)`` over its regions;
* the coming roll: the seat about to orient Assam is assumed to choose the orientation
  with the smallest expected tithe (R9-R13), and a seat about to roll keeps the facing
  it chose; that expected tithe (times ``threat``) moves from it to the owners, and
  its chance of elimination costs it ``ELIMINATION_PENALTY`` (both figures come from
  :mod:`marrakech.threat`, their home);
* eliminated seats (R13) are worth ``ELIMINATED`` whatever they hold; at the end the
  value is the exact score with dirhams as tie-break (R21).

Each seat turns the vector into one number with :func:`utility`: its own value minus
the average of the best and the mean of the others still in, so it both gains and keeps
the leader in check. The weights ``area``, ``region`` and ``threat`` are
:data:`TUNED_WEIGHTS` per player count unless a bot is given others (:class:`Weights`).

>>> from marrakech import State
>>> values = evaluate(State.new(players=3))
>>> [round(v, 1) for v in values]
[30.0, 30.0, 30.0]
>>> utility(values, 0)
0.0
"""

from __future__ import annotations

from dataclasses import dataclass

from marrakech.position import Phase, region_summary
from marrakech.state import State
from marrakech.threat import RUIN_COST, cheapest_orient, roll_threat

REGION_WEIGHT = 0.06
#: What the chance of being eliminated by the coming roll costs, per unit: the core's
#: price of a ruinous roll (``threat.RUIN_COST``), which also picks the facing.
ELIMINATION_PENALTY = RUIN_COST
THREAT_WEIGHT = 0.9
ELIMINATED = -1000.0


@dataclass(frozen=True)
class Weights:
    """The weights of the evaluation's terms, in dirhams per unit: ``area`` per visible
    square (the score counts 1, R20), ``region`` per ``size * size`` of a region,
    ``threat`` per dirham of the coming roll's expected tithe. ``None`` takes the
    :data:`TUNED_WEIGHTS` value for the game's player count. Bots take them as keywords
    (``greedy@area=1.5``), so that they can be tuned by self-play."""

    area: float | None = None
    region: float | None = None
    threat: float | None = None

    def __post_init__(self) -> None:
        for name in ("area", "region", "threat"):
            value = getattr(self, name)
            if value is not None and not 0 <= value < float("inf"):
                raise ValueError(f"evaluation weight {name} must be finite and >= 0, found {value}")


#: The weights for each player count, tuned on greedy self-play (docs/bots.md): a
#: logistic fit of the final winner on each term over 36,000 positions of 1,500
#: two-player games weighs a visible square 1.3-2.0 times a dirham and ``size * size``
#: 0.02-0.05 times, and a greedy bot with ``area=1.7, region=0.03, threat=0.65`` beats
#: the former ``(1.0, 0.06, 0.9)`` in 55% of 400 two-player games. At three and four
#: players the same fit finds a square worth about a dirham, so they keep those.
TUNED_WEIGHTS: dict[int, Weights] = {
    2: Weights(area=1.7, region=0.03, threat=0.65),
    3: Weights(area=1.0, region=REGION_WEIGHT, threat=THREAT_WEIGHT),
    4: Weights(area=1.0, region=REGION_WEIGHT, threat=THREAT_WEIGHT),
}
_resolved: dict[tuple[Weights | None, int], tuple[float, float, float]] = {}


def resolve_weights(weights: Weights | None, players: int) -> tuple[float, float, float]:
    """``(area, region, threat)`` for a game of ``players``: the given weights, the
    tuned ones where they are None."""
    found = _resolved.get((weights, players))
    if found is None:
        given = weights or Weights()
        tuned = TUNED_WEIGHTS[players]
        found = (
            _either(given.area, tuned.area),
            _either(given.region, tuned.region),
            _either(given.threat, tuned.threat),
        )
        _resolved[(weights, players)] = found
    return found


def _either(mine: float | None, tuned: float | None) -> float:
    value = mine if mine is not None else tuned
    assert value is not None  # every TUNED_WEIGHTS entry is complete
    return value


def evaluate(state: State, weights: Weights | None = None) -> list[float]:
    """The value vector of ``state``, one number (in dirhams) per seat, with the given
    ``weights`` or the :data:`TUNED_WEIGHTS` of its player count."""
    players = state.players
    area_weight, region_weight, threat = resolve_weights(weights, players)
    out = state.eliminated
    money = state.money
    _, _, counts, squares_sq = region_summary(state.board)
    two = players == 2
    values: list[float] = []
    over = state.is_terminal
    for seat in range(players):
        if seat in out:
            values.append(ELIMINATED + 10.0 * out.index(seat))
            continue
        if two:
            area = counts[seat] + counts[seat + 2]
            potential = squares_sq[seat] + squares_sq[seat + 2]
        else:
            area = counts[seat]
            potential = squares_sq[seat]
        if over:
            values.append(money[seat] + area + 0.001 * money[seat])
        else:
            values.append(money[seat] + area_weight * area + region_weight * potential)
    if over:
        return values
    phase = state.phase
    if phase is not Phase.PLACE:
        mover = state.turn
        # Before a roll Assam's facing is already chosen (straight on); before an
        # orientation the mover is assumed to choose the cheapest one.
        if phase is Phase.ROLL:
            paid, eliminated, received = roll_threat(state, 1)
        else:
            _, paid, eliminated, received = cheapest_orient(state)
        values[mover] -= threat * (paid + ELIMINATION_PENALTY * eliminated)
        for seat in range(players):
            values[seat] += threat * received[seat]
    return values


def utility(values: list[float], seat: int) -> float:
    """What ``seat`` maximises: its value minus the mean of (best other, average other),
    counting only the other seats still in (eliminated ones cannot win, R21)."""
    mine = values[seat]
    others = [v for s, v in enumerate(values) if s != seat and v > ELIMINATED / 2]
    if not others:
        return mine + 100.0
    return mine - 0.5 * (max(others) + sum(others) / len(others))
