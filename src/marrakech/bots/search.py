"""``search``: Monte Carlo tree search compiled with Numba, guided by the learned value.

One iteration walks down from the position to decide:

* at a **decision node** (ORIENT, PLACE) it takes the child with the best UCT score *for
  the seat to move* (every node keeps a value per seat and each seat maximises its own:
  max-n, so at three and four players the opponents are not assumed to be all against
  you). When a decision node is expanded, each child starts with ``prior`` virtual
  visits at its learned value (progressive bias);
* at a **chance node** (ROLL, DRAW) it samples the outcome with its exact probability
  (R3: faces 1, 2, 2, 3, 3, 4; R7: a pile's top in proportion to the colours left);
* the first unexpanded node it reaches is expanded and valued by the learned value
  (:mod:`marrakech.bots.value`: each seat's chance of winning), blended with one informed
  playout when ``playout`` > 0; a finished game is valued by its exact win shares (R21).
  The value vector is added to every node of the path.

The move played is the most visited child of the root. With Numba (the ``fast`` extra)
the whole tree lives in flat arrays inside compiled code (:mod:`marrakech.fast.search_kernels`);
without it the same search runs in Python on core states (much slower, same decisions
in kind; ``use_fast=False`` forces it).

Budgets: ``seconds`` per decision (default 1.0) and/or ``iterations`` (with
``seconds=None`` the bot is reproducible whatever the machine load), or a level's
``budget`` (:data:`LEVEL_ITERATIONS`: iterations by player count, so that the ``hard``
and ``expert`` levels play as strongly on a busy machine as on a quiet one, their
``seconds`` only a cap).

>>> import random
>>> from marrakech import State
>>> bot = SearchBot(seconds=None, iterations=200)
>>> state = State.new(players=4)
>>> bot.choose(state, random.Random(0)) in state.legal_actions()
True
"""

from __future__ import annotations

import math
import random
import time

from marrakech.actions import Action, action_from_id
from marrakech.bots.base import StopFlag, check_budget, check_decision_node, check_range, stopped
from marrakech.bots.value import ValueModel, load_value
from marrakech.playout import sample_outcome
from marrakech.state import State

#: Iterations per compiled call between two looks at the clock (doubles up to the max).
_FIRST_CHUNK = 32
_MAX_CHUNK = 4096


_warm = False

#: The levels' budgets: the iterations a decision searches at each player count, what
#: the compiled search runs in the level's interactive time (``expert`` 1 s, ``hard`` a
#: quarter of it), rounded from the "1 s of search" and "0.25 s of search" columns of
#: ``benchmarks/bench_search.py`` (docs/fast.md). A count, not a clock: a level plays
#: as strongly whatever the machine's load, its seconds only a cap.
LEVEL_ITERATIONS: dict[str, dict[int, int]] = {
    "expert": {2: 640_000, 3: 540_000, 4: 470_000},
    "hard": {2: 160_000, 3: 135_000, 4: 117_000},
}


def _warm_up() -> None:
    """Load (or compile) the search kernels once per process, when the first compiled bot
    is made, so that no decision pays for it."""
    global _warm
    if _warm:
        return
    from marrakech.fast.warm_up import search_tree

    search_tree()
    _warm = True


def fast_available() -> bool:
    """True when the compiled search can run (Numba and NumPy importable)."""
    try:
        import marrakech.fast.search_kernels  # noqa: F401
    except ImportError:
        return False
    return True


class _Node:
    """A position of the Python tree: visits (with virtual ones) and per-seat totals."""

    __slots__ = ("children", "state", "totals", "visits")

    def __init__(self, state: State, visits: float = 0.0, totals: list[float] | None = None):
        self.state = state
        self.visits = visits
        self.totals = totals if totals is not None else [0.0] * state.players
        self.children: dict[Action, _Node] | None = None


class SearchBot:
    """Compiled MCTS with chance nodes, max-n values and a learned leaf evaluation.

    ``exploration`` is the UCT constant on values in [0, 1]; ``prior`` the virtual visits
    each new decision child starts with at its learned value (0: none); ``playout`` the
    weight of one informed playout (compiled only) in a leaf's value (0: the learned
    value alone); ``paranoid`` models every other seat as playing against the seat to
    move (the default, max-n, has each seat maximise its own value; see docs/bots.md for
    the measurement); ``use_fast`` forces (True) or forbids (False) the compiled search.
    ``budget`` names a level's iterations by player count (:data:`LEVEL_ITERATIONS`);
    ``iterations``, if given, wins over it, and ``seconds`` caps either.
    """

    name = "search"

    def __init__(
        self,
        seconds: float | None = 1.0,
        iterations: int | None = None,
        budget: str | None = None,
        exploration: float = 0.15,
        prior: float = 2.0,
        playout: float = 0.0,
        paranoid: bool = False,
        use_fast: bool | None = None,
    ) -> None:
        if budget is not None and budget not in LEVEL_ITERATIONS:
            raise ValueError(
                f"budget: expected one of {', '.join(LEVEL_ITERATIONS)}, found {budget!r}"
            )
        check_budget(self.name, seconds, "iterations", iterations, required=budget is None)
        check_range("exploration", exploration, 0, 10)
        check_range("prior", prior, 0, 1000)
        check_range("playout", playout, 0, 1)
        available = fast_available()
        if use_fast and not available:
            raise ValueError("use_fast=true needs Numba: pip install 'marrakech[fast]'")
        self.compiled = available if use_fast is None else bool(use_fast)
        if self.compiled:
            _warm_up()
        self.seconds = seconds
        self.iterations = iterations
        self.budget = budget
        self.exploration = exploration
        self.prior = prior
        self.playout = playout
        self.paranoid = paranoid
        #: Statistics of the last decision: iterations run, seconds, tree nodes.
        self.last_iterations = 0
        self.last_seconds = 0.0
        self.last_nodes = 0
        #: Set (by another thread), the search ends at once (:mod:`marrakech.bots.base`).
        self.stop: StopFlag | None = None

    def __repr__(self) -> str:
        return (
            f"SearchBot(seconds={self.seconds}, iterations={self.iterations}, "
            f"budget={self.budget}, "
            f"exploration={self.exploration}, prior={self.prior}, playout={self.playout}, "
            f"paranoid={self.paranoid}, "
            f"compiled={self.compiled})"
        )

    def choose(self, state: State, rng: random.Random) -> Action:
        check_decision_node(state)
        actions = state.legal_actions()
        if len(actions) == 1:
            self.last_iterations, self.last_nodes, self.last_seconds = 0, 0, 0.0
            return actions[0]
        return _best(state, self._search(state, rng), rng)

    def statistics(self, state: State, rng: random.Random) -> list[tuple[Action, float, float]]:
        """Search ``state`` within the budget and return every legal decision with its
        root visits and the deciding seat's mean value there (its winning chance as the
        search sees it), in the order :meth:`choose` prefers them (most visited first).

        >>> import random
        >>> from marrakech import State
        >>> bot = SearchBot(seconds=None, iterations=300)
        >>> stats = bot.statistics(State.new(players=3), random.Random(1))
        >>> sorted(str(action) for action, _, _ in stats), sum(v for _, v, _ in stats) >= 300
        (['L', 'R', 'S'], True)
        """
        check_decision_node(state)
        found = {
            action_id: (visits, value) for action_id, visits, value in self._search(state, rng)
        }
        rows = [(a, *found.get(a.id, (0.0, 0.0))) for a in state.legal_actions()]
        rows.sort(key=lambda row: (-row[1], -row[2], row[0].id))
        return rows

    def iterations_for(self, players: int) -> int:
        """The iterations a decision searches at ``players`` players: ``iterations`` if
        given, else the level ``budget``'s, else none (-1: the clock alone).

        >>> SearchBot(budget="expert").iterations_for(4) == LEVEL_ITERATIONS["expert"][4]
        True
        >>> SearchBot(budget="hard", iterations=500).iterations_for(4)
        500
        >>> SearchBot().iterations_for(2)  # one second of search, however many that is
        -1
        """
        if self.iterations is not None:
            return self.iterations
        if self.budget is not None:
            return LEVEL_ITERATIONS[self.budget][players]
        return -1

    def _search(self, state: State, rng: random.Random) -> list[tuple[int, float, float]]:
        start = time.perf_counter()
        deadline = math.inf if self.seconds is None else start + self.seconds * 0.98
        limit = self.iterations_for(state.players)
        model = load_value(state.players)
        if self.compiled:
            stats = self._compiled(state, model, rng, deadline, limit)
        else:
            stats = self._python(state, model, rng, deadline, limit)
        self.last_seconds = time.perf_counter() - start
        return stats

    # -- compiled --------------------------------------------------------------------

    def _compiled(
        self, state: State, model: ValueModel, rng: random.Random, deadline: float, limit: int
    ) -> list[tuple[int, float, float]]:
        from marrakech.fast.rows import to_arrays
        from marrakech.fast.search_kernels import INFORMED, Tree, grow

        tree = Tree()  # zeroed memory: only what the search fills is taken
        tree.reset()
        root = to_arrays(state)
        weights = model.array()
        done = 0
        chunk = _FIRST_CHUNK
        while done != limit and time.perf_counter() < deadline and not stopped(self.stop):
            want = chunk if limit < 0 else min(chunk, limit - done)
            ran, _ = grow(
                root,
                *tree.arrays(),
                want,
                self.exploration,
                self.prior,
                self.playout,
                weights,
                INFORMED,
                rng.getrandbits(63),
                state.turn if self.paranoid else -1,
            )
            done += ran
            chunk = min(2 * chunk, _MAX_CHUNK)
        self.last_iterations = done
        self.last_nodes = tree.size
        mover = state.turn
        return [
            (
                int(tree.nodes[c, 2]),
                float(tree.visits[c]),
                float(tree.totals[c, mover] / tree.visits[c]) if tree.visits[c] > 0 else 0.0,
            )
            for c in tree.root_children()
        ]

    # -- Python fallback -----------------------------------------------------------------

    def _python(
        self, state: State, model: ValueModel, rng: random.Random, deadline: float, limit: int
    ) -> list[tuple[int, float, float]]:
        root = _Node(state)
        done = 0
        while done != limit and time.perf_counter() < deadline and not stopped(self.stop):
            self._iterate(root, model, rng)
            done += 1
        self.last_iterations = done
        self.last_nodes = 0
        mover = state.turn
        return [
            (action.id, child.visits, child.totals[mover] / child.visits if child.visits else 0.0)
            for action, child in (root.children or {}).items()
        ]

    def _expand(self, node: _Node, model: ValueModel) -> None:
        state = node.state
        children: dict[Action, _Node] = {}
        prior = self.prior
        for action in state.legal_actions():
            after = state.apply(action)
            if prior > 0 and not state.is_chance:
                chances = model.chances(after)
                children[action] = _Node(after, prior, [prior * c for c in chances])
            else:
                children[action] = _Node(after)
        node.children = children

    def _iterate(self, root: _Node, model: ValueModel, rng: random.Random) -> None:
        node = root
        path = [root]
        c = self.exploration
        me = root.state.turn if self.paranoid else -1
        while True:
            state = node.state
            if state.is_terminal:
                value = list(state.outcome().win_shares)
                break
            kids = node.children
            if kids is None:
                self._expand(node, model)
                value = model.chances(state)
                break
            if state.is_chance:
                node = kids[sample_outcome(state, rng)]
            else:
                mover = state.turn
                children = kids.values()
                log_n = math.log(sum(child.visits for child in children) + 1.0)
                best = -1.0
                chosen = node
                for child in children:
                    n = child.visits
                    if n <= 0:
                        chosen = child
                        break
                    if me < 0 or mover == me:
                        mean = child.totals[mover] / n
                    else:  # paranoid: everyone else plays against the searching seat
                        mean = 1.0 - child.totals[me] / n
                    score = mean + c * math.sqrt(log_n / n)
                    if score > best:
                        best, chosen = score, child
                node = chosen
            path.append(node)
        for visited in path:
            visited.visits += 1.0
            totals = visited.totals
            for seat, v in enumerate(value):
                totals[seat] += v


def _best(state: State, stats: list[tuple[int, float, float]], rng: random.Random) -> Action:
    """The most visited root child, the better mean on equal visits, lowest id last."""
    if not stats:  # no iteration ran (a tiny time budget): any legal decision
        actions = state.legal_actions()
        return actions[rng.randrange(len(actions))]
    best = max(stats, key=lambda item: (item[1], item[2], -item[0]))
    return action_from_id(best[0])


__all__ = ["LEVEL_ITERATIONS", "SearchBot", "fast_available"]
