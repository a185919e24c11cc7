"""The batch engine protocol: what :class:`~marrakech.envs.VectorEnv` asks of a batch.

Two engines follow it: :class:`marrakech.fast.Batch` (the Numba kernels) and
:class:`marrakech.envs.python_batch.PythonBatch` (the core, one game at a time: slow but exact,
no Numba). This module imports neither, so it loads without Numba.

Both draw every roll, pile draw and :meth:`BatchEngine.sample_actions` from SplitMix64
streams (:mod:`marrakech.splitmix`) seeded alike, in the same order: for the same seed
and the same actions they play **the same games**, move for move::

    >>> import numpy as np
    >>> from marrakech.envs.python_batch import PythonBatch
    >>> engine: BatchEngine = PythonBatch(4, players=3, seed=5)
    >>> engine.step(engine.sample_actions())
    >>> engine.last_chance().tolist()
    [[89, -1, -1, -1], [89, -1, -1, -1], [88, -1, -1, -1], [87, -1, -1, -1]]

(``marrakech.fast.Batch(4, players=3, seed=5)`` prints the same.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from marrakech.bots.search import SearchBot
from marrakech.rules import RuleSet
from marrakech.state import State

__all__ = ["BatchEngine"]


class BatchEngine(Protocol):
    """``n`` games of ``players`` seats under ``rules``, stepped together.

    After :meth:`reset` and after every :meth:`step`, each game waits at a decision
    (ORIENT or PLACE) or is over: the chance that follows a decision is resolved inside,
    with the game's own generator. Arrays are new unless ``out`` is given.
    """

    n: int
    players: int
    rules: RuleSet
    first_seat: int

    def seed(self, seed: int) -> None:
        """Reseed every game's generators (chance and :meth:`sample_actions`)."""

    def seed_games(self, seeds: Sequence[int | None]) -> None:
        """Reseed game ``i``'s generators from ``seeds[i]`` as :meth:`seed` seeds game 0
        (so a game plays the same for the same seed wherever it sits); ``None`` leaves
        that game's generators as they are. One entry per game."""

    def reset(self, mask: npt.ArrayLike | None = None) -> None:
        """Start new games: all of them, or those where ``mask`` (n bools) is True."""

    def step(self, actions: npt.ArrayLike, mask: npt.ArrayLike | None = None) -> None:
        """Apply one decision id per game (ignored for finished games; with ``mask``, only
        where it is True), then resolve the chance that follows. An illegal id raises
        :class:`~marrakech.IllegalActionError` naming the first bad game; then no game
        has moved."""

    def sample_actions(self, out: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.int64]:
        """A uniformly random legal decision id per game (-1 for finished games)."""
        ...

    def greedy_actions(
        self, games: npt.NDArray[np.intp], params: Sequence[float]
    ) -> npt.NDArray[np.int64]:
        """``greedy``'s decision in each of ``games`` (indices of games waiting at a
        decision) for ``params`` (:func:`marrakech.bots.greedy.greedy_params`): the best
        of its scores, equal best ones chosen between with one draw of each game's own
        bot stream (seeded with the others), so both engines agree."""
        ...

    def greedy_scores(
        self, games: npt.NDArray[np.intp], params: Sequence[float]
    ) -> npt.NDArray[np.float64]:
        """``greedy``'s score of every legal decision of ``games`` by id (``-inf`` for
        illegal ids)."""
        ...

    def search_actions(
        self, games: npt.NDArray[np.intp], bot: SearchBot, weights: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.int64]:
        """The decision of ``bot`` (``search`` with ``iterations`` and no clock, ``weights``
        its learned value) in each of ``games``, its chunks seeded from each game's own
        bot stream, so both engines agree."""
        ...

    def legal_masks(self, out: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.bool_]:
        """``(n, 87)`` legal decision flags (all False once a game is over)."""
        ...

    def phase(self) -> npt.NDArray[np.int8]:
        """``(n,)`` :class:`~marrakech.Phase` values: ORIENT, PLACE or OVER."""
        ...

    def to_move(self) -> npt.NDArray[np.int8]:
        """``(n,)`` the seat to decide, ``TERMINAL`` (-2) for a finished game."""
        ...

    def terminated(self) -> npt.NDArray[np.bool_]:
        """``(n,)`` True where the game is over (R19)."""
        ...

    def scores(self) -> npt.NDArray[np.int32]:
        """``(n, players)`` scores (R20) as they stand."""
        ...

    def ranks(self) -> npt.NDArray[np.int8]:
        """``(n, players)`` ranks (R21) as they stand."""
        ...

    def outcome_values(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``(n, players)`` rank values and win shares (:class:`marrakech.outcome.Outcome`)
        of the finished games, 0 for the games not over."""
        ...

    def observations(
        self, seats: npt.ArrayLike | None = None, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``(n, 474)`` ``marrakech_v0`` observations from each game's acting seat (seat
        ``state.turn`` once over), or from ``seats``."""
        ...

    def last_chance(self) -> npt.NDArray[np.int32]:
        """``(n, 4)`` chance outcome ids resolved in the last reset or step (-1 pad)."""
        ...

    def state(self, i: int) -> State:
        """Game ``i`` as a core :class:`State`."""
        ...

    def set_state(self, i: int, state: State) -> None:
        """Put ``state`` in game ``i``; a chance node is resolved at once."""

    def __len__(self) -> int: ...
