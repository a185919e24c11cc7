"""Playouts for Monte Carlo search: the compiled kernel when present, else Python.

``marrakech.fast.random_playouts`` (Numba) plays many games from a position in one
call, uniformly or with its informed policy (``informed=True``: seats steer Assam away
from tithes and place sensibly). When it cannot be imported (no ``fast`` extra, no
Numba, or an older build without the function) uniform playouts run through the
pure-Python engine instead; uniform kernel playouts and Python playouts estimate the
same values.

Rewards are per seat in ``[0, 1]``, from the final scores (R20, R21), and suited to more
than two players: ``WIN_WEIGHT`` of it is the rank value of the game's
:class:`~marrakech.outcome.Outcome` (1 for the win, 0 for the last place, tied seats
share their places) or, with the ``win`` objective, its win share; the rest is the score
margin over the best other seat squashed by ``tanh``, which keeps the search playing for
points when every rollout wins or every rollout loses.

>>> import random
>>> from marrakech import State
>>> rewards = Rollouts(use_fast=False).run(State.new(players=3), 4, random.Random(1))
>>> len(rewards), all(0.0 <= r <= 1.0 for r in rewards)
(3, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from marrakech.outcome import Outcome
from marrakech.playout import random_action
from marrakech.state import State

WIN_WEIGHT = 0.75
MARGIN_SCALE = 12.0

_kernel: Callable[..., Any] | None = None
_kernel_checked = False


def fast_kernel() -> Callable[..., Any] | None:
    """``marrakech.fast.random_playouts`` if it can be imported and run, else None."""
    global _kernel, _kernel_checked
    if _kernel_checked:
        return _kernel
    _kernel_checked = True
    try:
        from marrakech.fast import random_playouts  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # also FastUnavailableError, which subclasses it
        return None
    try:
        # Compile now (Numba JIT) rather than inside a timed decision.
        random_playouts(State.new(players=2), 1, 0)
        random_playouts(State.new(players=4), 1, 0)
    except ImportError:
        return None
    _kernel = random_playouts
    return _kernel


#: What the rank part of a reward values: ``"rank"`` (1 for the win, 0 for the last
#: place, linear between) or ``"win"`` (only the win counts, shared by tied winners).
OBJECTIVES = ("rank", "win")


def final_rewards(
    scores: Sequence[int], ranks: Sequence[int], objective: str = "rank"
) -> list[float]:
    """Per-seat rewards in [0, 1] from the final scores and ranks (R20, R21).

    >>> [round(r, 3) for r in final_rewards((40, 40, 10), (1, 1, 3))]
    [0.688, 0.688, 0.002]
    """
    outcome = Outcome(tuple(ranks))
    rank_part = outcome.win_shares if objective == "win" else outcome.rank_values
    players = len(scores)
    rewards: list[float] = []
    for seat in range(players):
        best_other = max(scores[s] for s in range(players) if s != seat)
        margin = 0.5 + 0.5 * math.tanh((scores[seat] - best_other) / MARGIN_SCALE)
        rewards.append(WIN_WEIGHT * rank_part[seat] + (1.0 - WIN_WEIGHT) * margin)
    return rewards


def terminal_rewards(state: State, objective: str = "rank") -> list[float]:
    """Rewards of a finished game (eliminated seats score their rank only)."""
    return final_rewards(state.scores(), state.ranks(), objective)


class Rollouts:
    """Runs ``n`` playouts from a position and averages their rewards.

    ``use_fast``: None picks the compiled kernel when it is available, False forces the
    pure-Python engine, True requires the kernel (ImportError otherwise). ``informed``
    makes the kernel's playouts follow its informed policy instead of uniform decisions
    (the Python playouts are always uniform).
    """

    def __init__(
        self, use_fast: bool | None = None, informed: bool = False, objective: str = "rank"
    ) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(
                f"expected an objective among {', '.join(OBJECTIVES)}, found {objective!r}"
            )
        self.objective = objective
        kernel = fast_kernel() if use_fast is not False else None
        if use_fast and kernel is None:
            raise ImportError("the compiled kernels (marrakech.fast) are not available")
        self._kernel = kernel
        self.informed = informed

    @property
    def compiled(self) -> bool:
        """True when playouts run through ``marrakech.fast``."""
        return self._kernel is not None

    def run(self, state: State, n: int, rng: random.Random) -> list[float]:
        """Average rewards per seat over ``n`` playouts from ``state``."""
        if state.is_terminal:
            return terminal_rewards(state, self.objective)
        if self._kernel is not None:
            try:
                return self._run_fast(state, n, rng)
            except ImportError:
                self._kernel = None  # the kernel went away (e.g. Numba failed): fall back
        players = state.players
        total = [0.0] * players
        for _ in range(n):
            end = state
            while not end.is_terminal:
                end = end.apply(random_action(end, rng))
            for seat, reward in enumerate(terminal_rewards(end, self.objective)):
                total[seat] += reward
        return [t / n for t in total]

    def _run_fast(self, state: State, n: int, rng: random.Random) -> list[float]:
        import numpy as np

        assert self._kernel is not None
        result = self._kernel(state, n, rng.getrandbits(62), informed=self.informed)
        scores = result.scores.astype(np.float64)
        # The same rewards as final_rewards, for all playouts at once.
        values, shares = result.outcome_values()
        rank_value = shares if self.objective == "win" else values
        ordered = np.sort(scores, axis=1)
        best, second = ordered[:, -1:], ordered[:, -2:-1]
        best_other = np.where(scores == best, second, best)
        margin = 0.5 + 0.5 * np.tanh((scores - best_other) / MARGIN_SCALE)
        rewards = WIN_WEIGHT * rank_value + (1.0 - WIN_WEIGHT) * margin
        means: list[float] = rewards.mean(axis=0).tolist()
        return means
