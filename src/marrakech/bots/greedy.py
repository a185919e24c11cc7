"""``greedy``: one turn deep, instant.

* **Orient** (R9): for each of the three orientations, average over the die's outcomes
  (R3) the value of the best placement that would follow; a roll that stops on an
  opponent's region costs its tithe (R11) and an elimination (R13) is heavily penalised.
  So it turns Assam away from expensive regions and towards squares where its next
  carpet does good.
* **Place** (R14-R16): the placement whose resulting position is worth most by the
  static evaluation (:mod:`marrakech.bots.evaluation`): own visible squares and growing
  own regions count for it, hidden opponent squares and split opponent regions count
  against them, and the next seat's expected tithe (it is assumed to steer Assam away
  from costly squares) is credited to the owners.

Ties are broken with the caller's generator, so a seeded game is reproducible.

>>> import random
>>> from marrakech import State
>>> state = State.new(players=4)
>>> GreedyBot().choose(state, random.Random(0)) in state.legal_actions()
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from marrakech.actions import Action
from marrakech.bots.base import check_budget, check_decision_node
from marrakech.bots.evaluation import (
    ELIMINATED,
    ELIMINATION_PENALTY,
    Weights,
    evaluate,
    resolve_weights,
    utility,
)
from marrakech.state import Phase, State

#: Scores this close to the best count as equal to it (float noise is not a preference).
TIE_MARGIN = 1e-9


def best_actions(actions: Sequence[Action], scores: Sequence[float]) -> list[Action]:
    """The best-scoring actions, in their order: those within :data:`TIE_MARGIN` of the
    best score."""
    best = max(scores)
    return [a for a, s in zip(actions, scores, strict=True) if s >= best - TIE_MARGIN]


def pick_best(actions: Sequence[Action], scores: Sequence[float], rng: random.Random) -> Action:
    """The best-scoring action; equal best ones are chosen between with ``rng``."""
    tied = best_actions(actions, scores)
    return tied[0] if len(tied) == 1 else tied[rng.randrange(len(tied))]


def greedy_params(weights: Weights | None, players: int) -> tuple[float, ...]:
    """What the batch's compiled ``greedy`` (:mod:`marrakech.fast.greedy_kernels`) needs
    to score as this module does at ``players``: the evaluation's weights (the tuned ones
    where ``weights`` leaves them None), the elimination penalty and value, and the tie
    margin; :class:`Weights` of the first three give back the same scores in Python."""
    area, region, threat = resolve_weights(weights, players)
    return (area, region, threat, ELIMINATION_PENALTY, ELIMINATED, TIE_MARGIN)


def decision_scores(
    state: State, weights: Weights | None = None
) -> tuple[Sequence[Action], list[float]]:
    """Each legal decision of the seat to move and its score, as ``greedy`` weighs them:
    :func:`orient_scores` at an orientation, :func:`place_scores` at a placement. (The
    batch's compiled ``greedy``, :mod:`marrakech.fast.greedy_kernels`, computes the same
    numbers.)"""
    check_decision_node(state)
    if state.phase is Phase.ORIENT:
        return orient_scores(state, state.turn, weights)
    return place_scores(state, state.turn, weights)


def place_scores(
    state: State, seat: int, weights: Weights | None = None
) -> tuple[Sequence[Action], list[float]]:
    """Each legal placement and the value to ``seat`` of the position it leads to."""
    actions = state.legal_actions()
    return actions, [utility(evaluate(state.apply(a), weights), seat) for a in actions]


def after_roll_value(state: State, seat: int, weights: Weights | None = None) -> float:
    """The value to ``seat`` of a position right after a roll: its best placement, or
    the position itself when the roll ended the turn (elimination, R13) or the game."""
    if state.phase is Phase.PLACE and state.turn == seat:
        _, scores = place_scores(state, seat, weights)
        return max(scores)
    return utility(evaluate(state, weights), seat)


def orient_scores(
    state: State, seat: int, weights: Weights | None = None
) -> tuple[Sequence[Action], list[float]]:
    """Each orientation and its expected value over the die (one turn deep)."""
    actions = state.legal_actions()
    scores: list[float] = []
    for orient in actions:
        rolled = state.apply(orient)
        total = 0.0
        for outcome, probability in rolled.chance_outcomes():
            total += float(probability) * after_roll_value(rolled.apply(outcome), seat, weights)
        scores.append(total)
    return actions, scores


class GreedyBot:
    """One turn of lookahead with the static evaluation; a few milliseconds a decision.

    ``seconds`` and ``iterations`` are accepted for a uniform interface and ignored:
    the bot always answers at once. ``area``, ``region`` and ``threat`` are the
    evaluation's :class:`~marrakech.bots.evaluation.Weights`.
    """

    name = "greedy"

    def __init__(
        self,
        seconds: float | None = None,
        iterations: int | None = None,
        area: float | None = None,
        region: float | None = None,
        threat: float | None = None,
    ) -> None:
        check_budget(self.name, seconds, "iterations", iterations, required=False)
        self.seconds = seconds
        self.iterations = iterations
        self.weights = Weights(area, region, threat)

    def choose(self, state: State, rng: random.Random) -> Action:
        actions, scores = decision_scores(state, self.weights)
        return pick_best(actions, scores, rng)

    def __repr__(self) -> str:
        return "GreedyBot()"
