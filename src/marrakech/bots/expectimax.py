"""``expectimax``: depth-limited max-n search over the die and the other seats' replies.

The tree alternates decision nodes (ORIENT, PLACE: the seat to move picks the child
best for itself) and chance nodes (ROLL, and DRAW at two players: children weighted by
their exact probabilities, R3 and R7). Depth is counted in whole turns; at the horizon
the static evaluation (:mod:`marrakech.bots.evaluation`) gives a value vector, one
number per seat.

**Max-n, not paranoid.** At 3-4 players every seat is modelled as maximising its own
utility. Marrakech has no coalitions: a tithe is paid by the seat that moves to one
owner, and each seat mainly steers Assam away from its own costs. The paranoid model
(everyone else minimises my value) would have the next seat walk Assam onto my regions
even when that ruins it, which real opponents (and our other bots) do not do, so it
makes the bot timid about exactly the large regions that win games. With two seats the
evaluation is zero-sum in effect and max-n is plain expectimax.

* **Iterative deepening** by whole turns within the time budget (``seconds``), or a
  fixed ``depth`` for reproducible runs; an unfinished iteration is used only when it
  has re-searched the previous best move first.
* **Move ordering**: root moves in the order of the previous iteration; placements
  deeper than the first turn are ordered by their static value and only the best
  ``width`` are searched, and orientations by their expected tithe, keeping the best
  ``orient_width`` (forward pruning: the evaluation already reflects the next roll,
  and weak moves rarely become best one turn later). At two players a pile draw whose
  colour cannot matter before the horizon is not branched on.
* **Transposition table** keyed on the immutable ``State`` (hashable, equal when the
  positions are equal) with the remaining depth; kept across decisions and cleared
  when it grows large.

>>> import random
>>> from marrakech import State
>>> bot = ExpectimaxBot(depth=1)
>>> state = State.new(players=3)
>>> bot.choose(state, random.Random(0)) in state.legal_actions()
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from fractions import Fraction

from marrakech.actions import Action
from marrakech.bots.base import (
    MAX_DEPTH,
    StopFlag,
    check_budget,
    check_decision_node,
    check_range,
    stopped,
)
from marrakech.bots.evaluation import (
    ELIMINATION_PENALTY,
    Weights,
    evaluate,
    utility,
)
from marrakech.bots.greedy import pick_best
from marrakech.state import Phase, State
from marrakech.threat import roll_threat

_ORIENT, _ROLL, _PLACE, _DRAW = Phase.ORIENT, Phase.ROLL, Phase.PLACE, Phase.DRAW
_TABLE_LIMIT = 100_000  # entries; about 20 MB


class _OutOfTime(Exception):
    pass


def _orient_cost(rolling: State) -> float:
    """Expected tithe and elimination cost of the roll ahead (the facing is chosen)."""
    paid, eliminated, _ = roll_threat(rolling, 1)
    return paid + ELIMINATION_PENALTY * eliminated


class ExpectimaxBot:
    """Max-n expectimax with iterative deepening, ordering and a transposition table.

    ``seconds`` bounds the time per decision (default 1.0); ``depth`` caps the search
    in whole turns (with ``seconds=None`` the search is exactly that deep, which makes
    the bot reproducible whatever the machine load); ``width`` and ``orient_width``
    are how many placements and orientations are searched at the turns after the
    first. ``iterations`` is accepted as an alias of ``depth``. ``area``, ``region``
    and ``threat`` are the evaluation's :class:`~marrakech.bots.evaluation.Weights`.
    """

    name = "expectimax"

    def __init__(
        self,
        seconds: float | None = 1.0,
        depth: int | None = None,
        width: int = 4,
        iterations: int | None = None,
        orient_width: int = 2,
        area: float | None = None,
        region: float | None = None,
        threat: float | None = None,
    ) -> None:
        self.weights = Weights(area, region, threat)
        if depth is None:
            depth = iterations
        check_budget(self.name, seconds, "depth", depth)
        check_range("width", width, 1, 100)
        if orient_width not in (1, 2, 3):
            raise ValueError(f"orient_width must be 1, 2 or 3, found {orient_width}")
        self.orient_width = orient_width
        self.seconds = seconds
        self.depth = depth
        self.width = width
        self._table: dict[tuple[State, int, bool], tuple[list[float], bool]] = {}
        self._deadline = float("inf")
        self._nodes = 0
        self._root_depth = 0
        self._cut = False
        #: Statistics of the last decision: depth completed, nodes, seconds.
        self.last_depth = 0
        self.last_nodes = 0
        self.last_seconds = 0.0
        #: Set (by another thread), the search ends at once (:mod:`marrakech.bots.base`).
        self.stop: StopFlag | None = None

    def __repr__(self) -> str:
        return f"ExpectimaxBot(seconds={self.seconds}, depth={self.depth}, width={self.width})"

    # -- the decision -------------------------------------------------------------

    def choose(self, state: State, rng: random.Random) -> Action:
        check_decision_node(state)
        start = time.perf_counter()
        # A small margin for the last node and the return keeps us inside the budget.
        budget = None if self.seconds is None else self.seconds * 0.97
        self._deadline = float("inf") if budget is None else start + budget
        if len(self._table) > _TABLE_LIMIT:
            self._table.clear()
        self._nodes = 0
        seat = state.turn
        actions: list[Action] = list(state.legal_actions())
        if len(actions) == 1:
            return actions[0]
        best_scores: list[float] | None = None
        order = actions
        max_depth = self.depth if self.depth is not None else MAX_DEPTH
        completed = 0
        partial: Action | None = None
        for depth in range(1, max_depth + 1):
            began = time.perf_counter()
            self._root_depth = depth
            self._cut = False
            scores: list[float] = []
            try:
                for action in order:
                    value = self._value(state.apply(action), depth, state.phase)
                    scores.append(utility(value, seat))
            except _OutOfTime:
                # An unfinished iteration counts only if it re-searched the previous best
                # first: then a move that beat it at the deeper horizon is better still.
                if best_scores is not None and len(scores) >= 2:
                    top = max(range(len(scores)), key=lambda i: scores[i])
                    if top != 0:
                        partial = order[top]
                break
            completed = depth
            ranked = sorted(range(len(order)), key=lambda i: -scores[i])
            order = [order[i] for i in ranked]
            best_scores = [scores[i] for i in ranked]
            if not self._cut:
                break  # the whole rest of the game was searched
            now = time.perf_counter()
            if budget is not None and now + 3 * (now - began) > start + budget:
                break  # the next iteration (about ten times longer) cannot finish
        self.last_depth = completed
        self.last_nodes = self._nodes
        self.last_seconds = time.perf_counter() - start
        if partial is not None:
            return partial
        if best_scores is None:
            # Not even one turn finished (a tiny budget): the static values decide.
            return self._static_choice(state, rng)
        return pick_best(order, best_scores, rng)

    def _static_choice(self, state: State, rng: random.Random) -> Action:
        actions = state.legal_actions()
        seat = state.turn
        scores = [utility(evaluate(state.apply(a), self.weights), seat) for a in actions]
        return pick_best(actions, scores, rng)

    # -- the search ---------------------------------------------------------------

    def _value(self, state: State, depth: int, parent: Phase) -> list[float]:
        """Value vector of ``state``, reached from a node of phase ``parent``."""
        if (parent is _PLACE or parent is _ROLL) and state.phase is not _PLACE:
            depth -= 1  # a turn just ended (placement made, or the mover eliminated)
        return self._search(state, depth)

    def _search(self, state: State, depth: int) -> list[float]:
        if state.is_terminal:
            return evaluate(state, self.weights)
        if depth <= 0:
            self._cut = True
            return evaluate(state, self.weights)
        full = depth == self._root_depth
        key = (state, depth, full)
        found = self._table.get(key)
        if found is not None:
            if found[1]:
                self._cut = True  # the stored value came from a search that hit the horizon
            return found[0]
        outer_cut = self._cut
        self._cut = False
        self._nodes += 1
        if not self._nodes & 15 and (time.perf_counter() > self._deadline or stopped(self.stop)):
            raise _OutOfTime
        phase = state.phase
        result: list[float]
        if state.is_chance:
            result = [0.0] * state.players
            outcomes = state.chance_outcomes()
            if phase is _DRAW and depth <= 1:
                # The drawn colour matters only to the pile's owner's next placement,
                # which lies beyond the horizon; the evaluation ignores pile tops.
                outcomes = outcomes[:1]
                outcomes = [(outcomes[0][0], Fraction(1))]
            for outcome, probability in outcomes:
                outcome_value = self._value(state.apply(outcome), depth, phase)
                p = float(probability)
                for seat in range(len(result)):
                    result[seat] += p * outcome_value[seat]
        else:
            mover = state.turn
            children: Sequence[State] = [state.apply(a) for a in state.legal_actions()]
            if phase is _ORIENT and not full and self.orient_width < 3:
                # Forward pruning: the turns after the first consider only the
                # orientations with the smallest expected tithe for the mover.
                costs = [_orient_cost(c) for c in children]
                ranked = sorted(range(3), key=lambda i: costs[i])
                children = [children[i] for i in sorted(ranked[: self.orient_width])]
            if phase is _PLACE and (not full) and depth > 1 and len(children) > self.width:
                # Forward pruning by static value (a placement ends the turn, so its
                # static value is a fair first guess at its searched value).
                statics = [utility(evaluate(c, self.weights), mover) for c in children]
                ranked = sorted(range(len(children)), key=lambda i: -statics[i])
                children = [children[i] for i in ranked[: self.width]]
            best_value: list[float] | None = None
            best = float("-inf")
            for child in children:
                value = self._value(child, depth, phase)
                score = utility(value, mover)
                if score > best:
                    best, best_value = score, value
            assert best_value is not None
            result = best_value
        self._table[key] = (result, self._cut)
        self._cut = self._cut or outer_cut
        return result
