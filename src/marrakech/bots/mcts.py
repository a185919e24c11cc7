"""``mcts``: Monte Carlo tree search for 2-4 seats with explicit chance nodes.

Each iteration walks down the tree from the current position:

* at a **decision node** (ORIENT, PLACE) it picks the child with the best UCB1 score
  *for the seat to move* (every node keeps the total reward of every seat, so each seat
  maximises its own share: the max-n view of UCT that suits 3-4 players). When a
  decision node is first expanded, each child is seeded with ``prior`` virtual visits
  at its static value (:mod:`marrakech.bots.evaluation`): progressive bias, so the
  search starts from the greedy bot's opinion and needs real evidence to overturn it;
* at a **chance node** (ROLL, DRAW) it samples the outcome with its exact probability
  (R3, R7) and follows that child, creating it the first time;
* the first node it reaches that no iteration has visited yet is valued: playouts to
  the end of the game, through the compiled kernel (``marrakech.fast``, with its
  informed policy: no seat walks into a large region it could avoid) when it is
  available, uniformly random in Python otherwise (:mod:`marrakech.bots.rollout`), blended
  with the static evaluation (weight ``heuristic``). Rewards are per seat in [0, 1]:
  mostly the final rank (R21), partly the final score margin (R20); they are added
  along the path.

The move played is the most visited child. The tree is **reused**: the next decision
looks up the new position among the nodes already grown (the search spent on the
moves that were actually played is kept).

Budgets: ``seconds`` per decision (default 1.0) and/or ``iterations`` per decision
(with ``seconds=None`` the bot is reproducible whatever the machine load).

>>> import random
>>> from marrakech import State
>>> bot = MctsBot(seconds=None, iterations=50, use_fast=False)
>>> state = State.new(players=4)
>>> bot.choose(state, random.Random(0)) in state.legal_actions()
True
"""

from __future__ import annotations

import math
import random
import time
from collections import deque

from marrakech.actions import Action
from marrakech.bots.base import StopFlag, check_budget, check_decision_node, check_range, stopped
from marrakech.bots.evaluation import Weights, evaluate, utility
from marrakech.bots.rollout import Rollouts, terminal_rewards
from marrakech.playout import sample_outcome
from marrakech.state import State

_REUSE_DEPTH = 16  # plies searched below the old root for the new position
_REUSE_NODES = 50_000


#: Dirhams of evaluation margin that make a heuristic reward of about 0.88 (tanh(1)).
HEURISTIC_SCALE = 15.0


def heuristic_rewards(state: State, weights: Weights | None = None) -> list[float]:
    """Per-seat rewards in [0, 1] from the static evaluation (the margin over the others,
    squashed by tanh), on the same scale as the playout rewards."""
    values = evaluate(state, weights)
    return [
        0.5 + 0.5 * math.tanh(utility(values, seat) / HEURISTIC_SCALE)
        for seat in range(state.players)
    ]


class _Node:
    """A position in the tree, with the visit count and the reward sums of every seat.

    ``visits`` and ``totals`` include the ``prior`` virtual visits a decision's children
    get when their parent is expanded; ``real`` counts the iterations through the node.
    """

    __slots__ = ("children", "expanded", "real", "state", "totals", "visits")

    def __init__(self, state: State) -> None:
        self.state = state
        self.visits = 0.0
        self.real = 0
        self.totals = [0.0] * state.players
        self.children: dict[Action, _Node] = {}
        self.expanded = False


class MctsBot:
    """UCT with chance nodes, playouts, multi-seat rewards and tree reuse.

    ``exploration`` is the UCB1 constant (rewards lie in [0, 1]); ``rollouts`` is the
    number of playouts per new node (default 1 in Python, 8 with the compiled kernel);
    ``informed`` plays them out with the kernel's informed policy (every seat steers
    Assam away from tithes and places sensibly, see
    :func:`marrakech.fast.random_playouts`) rather than uniformly; the Python fallback
    is always uniform; ``objective`` is what the rank part of a reward values
    (``"rank"``: every place, ``"win"``: only the win, see
    :data:`marrakech.bots.rollout.OBJECTIVES`); ``area``, ``region`` and ``threat`` are
    the evaluation's :class:`~marrakech.bots.evaluation.Weights`;
    ``heuristic`` is the weight of the static evaluation in a new node's value (0:
    playouts only, 1: no playouts); ``prior`` is the number of virtual visits that seed
    each new child at its static value (0: none); ``use_fast`` forces (True) or forbids
    (False) the compiled kernel; ``reuse`` keeps the tree between decisions.
    """

    name = "mcts"

    def __init__(
        self,
        seconds: float | None = 1.0,
        iterations: int | None = None,
        exploration: float = 0.35,
        rollouts: int | None = None,
        use_fast: bool | None = None,
        reuse: bool = True,
        heuristic: float = 0.5,
        prior: float = 4.0,
        informed: bool = True,
        objective: str = "rank",
        area: float | None = None,
        region: float | None = None,
        threat: float | None = None,
    ) -> None:
        self.weights = Weights(area, region, threat)
        check_budget(self.name, seconds, "iterations", iterations)
        check_range("exploration", exploration, 0, 10)
        if not 0.0 <= heuristic <= 1.0:
            raise ValueError(f"heuristic must be between 0 and 1, found {heuristic}")
        self.heuristic = heuristic
        check_range("prior", prior, 0, 1000)
        self.prior = prior
        self.seconds = seconds
        self.iterations = iterations
        self.exploration = exploration
        self.reuse = reuse
        self._rollouts = Rollouts(use_fast, informed, objective)
        default = 8 if self._rollouts.compiled else 1
        self.rollouts = default if rollouts is None else rollouts
        check_range("rollouts", self.rollouts, 1, 1000)
        self._root: _Node | None = None
        #: Set (by another thread), the search ends at once (:mod:`marrakech.bots.base`).
        self.stop: StopFlag | None = None
        #: Statistics of the last decision: iterations run, root visits, seconds.
        self.last_iterations = 0
        self.last_visits = 0
        self.last_seconds = 0.0

    @property
    def compiled(self) -> bool:
        """True when rollouts run through the compiled kernel."""
        return self._rollouts.compiled

    def __repr__(self) -> str:
        return (
            f"MctsBot(seconds={self.seconds}, iterations={self.iterations}, "
            f"exploration={self.exploration}, rollouts={self.rollouts})"
        )

    # -- the decision -------------------------------------------------------------

    def choose(self, state: State, rng: random.Random) -> Action:
        check_decision_node(state)
        start = time.perf_counter()
        actions = state.legal_actions()
        root = self._reuse(state) if self.reuse else None
        if root is None:
            root = _Node(state)
        self._root = root if self.reuse else None
        if len(actions) == 1:
            return actions[0]
        # Keep a small margin for the final choice inside the time budget.
        deadline = float("inf") if self.seconds is None else start + self.seconds * 0.98
        limit = self.iterations if self.iterations is not None else -1
        done = 0
        while done != limit:
            # An iteration costs far more than these two looks.
            if time.perf_counter() > deadline or stopped(self.stop):
                break
            self._iterate(root, rng)
            done += 1
        self.last_iterations = done
        self.last_visits = root.real
        self.last_seconds = time.perf_counter() - start
        return self._best(root, rng)

    def _best(self, root: _Node, rng: random.Random) -> Action:
        seat = root.state.turn
        best: list[Action] = []
        best_key: tuple[float, float] = (-1.0, -1.0)
        for action, child in root.children.items():
            key = (child.visits, child.totals[seat] / child.visits if child.visits else 0.0)
            if key > best_key:
                best, best_key = [action], key
            elif key == best_key:
                best.append(action)
        if not best:  # no iteration ran (a tiny time budget): any legal decision
            actions = root.state.legal_actions()
            return actions[rng.randrange(len(actions))]
        best.sort(key=lambda a: a.id)  # dict order depends on history; ids do not
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

    def _reuse(self, state: State) -> _Node | None:
        """The node of ``state`` in the tree kept from the last decision, if grown."""
        old = self._root
        if old is None:
            return None
        queue: deque[tuple[_Node, int]] = deque([(old, 0)])
        seen = 0
        while queue and seen < _REUSE_NODES:
            node, depth = queue.popleft()
            seen += 1
            if node.state == state:
                return node
            if depth < _REUSE_DEPTH:
                queue.extend((child, depth + 1) for child in node.children.values())
        return None

    # -- one iteration ------------------------------------------------------------

    def _leaf(self, state: State, rng: random.Random) -> list[float]:
        """The value of a new node: playouts blended with the static evaluation."""
        if state.is_terminal:
            return terminal_rewards(state, self._rollouts.objective)
        h = self.heuristic
        if h <= 0.0:
            return self._rollouts.run(state, self.rollouts, rng)
        guess = heuristic_rewards(state, self.weights)
        if h >= 1.0:
            return guess
        played = self._rollouts.run(state, self.rollouts, rng)
        return [(1.0 - h) * p + h * g for p, g in zip(played, guess, strict=True)]

    def _expand(self, node: _Node, rng: random.Random) -> None:
        """Create every child of a decision node, each seeded with ``prior`` virtual
        visits at its static value (progressive bias: good moves are tried first and
        bad ones need real evidence to be believed)."""
        state = node.state
        actions = list(state.legal_actions())
        rng.shuffle(actions)  # no bias from the id order among equal priors
        prior = self.prior
        for action in actions:
            child = _Node(state.apply(action))
            if prior > 0:
                guess = heuristic_rewards(child.state, self.weights)
                child.visits = prior
                child.totals = [prior * g for g in guess]
            node.children[action] = child
        node.expanded = True

    def _iterate(self, root: _Node, rng: random.Random) -> None:
        node = root
        path = [root]
        c = self.exploration
        while True:
            state = node.state
            if state.is_terminal:
                rewards = terminal_rewards(state, self._rollouts.objective)
                break
            if state.is_chance:
                outcome = sample_outcome(state, rng)
                child = node.children.get(outcome)
                if child is None:
                    child = _Node(state.apply(outcome))
                    node.children[outcome] = child
                node = child
                path.append(node)
                if not child.real:
                    rewards = self._leaf(child.state, rng)
                    break
                continue
            if not node.expanded:
                self._expand(node, rng)
            # UCB1 for the seat to move (max-n: each seat maximises its own reward).
            mover = state.turn
            log_n = math.log(node.visits + len(node.children) * self.prior + 1.0)
            best_score = -1.0
            chosen = node
            for child in node.children.values():
                visits = child.visits
                if visits <= 0:
                    chosen = child  # untried and without a prior: try it now
                    break
                score = child.totals[mover] / visits + c * math.sqrt(log_n / visits)
                if score > best_score:
                    best_score, chosen = score, child
            node = chosen
            path.append(node)
            if not node.real:
                rewards = self._leaf(node.state, rng)
                break
        for visited in path:
            visited.visits += 1
            visited.real += 1
            totals = visited.totals
            for seat, reward in enumerate(rewards):
                totals[seat] += reward
