"""The batched environment: ``n`` games stepped at once, numpy arrays in and out.

:class:`VectorEnv` runs on the compiled kernels (:class:`marrakech.fast.Batch`) when
Numba is available, else on :class:`~marrakech.envs.batch.PythonBatch` (the core, one
game at a time: slow but exact); both engines play the same games for the same seed
(:mod:`marrakech.envs.engine`). Same spec as every adapter (``marrakech_v0``)::

    >>> import numpy as np
    >>> from marrakech.envs import VectorEnv
    >>> env = VectorEnv(8, players=3, seed=0, backend="python")
    >>> out = env.reset()
    >>> out.observations.shape, out.action_masks.shape, out.to_move.tolist()[:3]
    ((8, 474), (8, 87), [0, 0, 0])
    >>> rng = np.random.default_rng(0)
    >>> actions = [rng.choice(np.flatnonzero(m)) for m in out.action_masks]
    >>> out = env.step(np.array(actions))
    >>> out.rewards.shape, out.terminated.any()
    ((8, 3), np.False_)

Two modes:

* **self-play** (``opponents=None``): every decision of every seat comes back;
  ``to_move`` says whose, the observation is from that seat, and ``rewards`` is
  ``(n, players)``: each seat's final reward on the step that ends a game, else 0.
* **against bots** (``opponents=("random", "greedy", ...)``, one per other seat): the
  bots and chance move inside :meth:`VectorEnv.step`; every game waits for the learning
  seat (``seat``: a number, or ``"rotate"`` for game ``i`` at seat ``i % players``), and
  ``rewards`` is ``(n,)``, the learning seat's final reward. ``random`` opponents are
  drawn by the batch's own generator, vectorised; other bots see core states.

With ``autoreset=True`` (the default) a game that ends starts again in the same step:
``terminated[i]`` marks the end and ``rewards`` carries the outcome, while the
observation is already the new game's first (nothing is decided at the end). With
``autoreset=False`` a finished game stays over (its actions are ignored, ``terminated``
stays True) until :meth:`VectorEnv.reset`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from marrakech.actions import DECISION_IDS
from marrakech.batch_checks import check_ids
from marrakech.bots import Bot, RandomBot
from marrakech.envs.batch import PythonBatch
from marrakech.envs.common import Opponent, make_opponents
from marrakech.envs.engine import BatchEngine
from marrakech.envs.spec import (
    RewardName,
    check_reward,
    coerce_players,
    coerce_rules,
    reward_arrays,
    rewards_of,
)
from marrakech.observation import OBSERVATION_SIZE
from marrakech.outcome import Outcome
from marrakech.rules import RuleSet
from marrakech.state import State

__all__ = ["BackendName", "Transition", "VectorEnv", "outcome_table"]

BackendName = Literal["auto", "numba", "python"]


class Transition(NamedTuple):
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return (numpy arrays)."""

    #: ``(n, 474)`` float32 ``marrakech_v0`` observations from the deciding seat.
    observations: npt.NDArray[np.float32]
    #: ``(n, 87)`` bool legal decisions.
    action_masks: npt.NDArray[np.bool_]
    #: ``(n, players)`` (self-play) or ``(n,)`` (against bots) float32 final rewards.
    rewards: npt.NDArray[np.float32]
    #: ``(n,)`` bool: the game ended in this step (or is over, without autoreset).
    terminated: npt.NDArray[np.bool_]
    #: ``(n,)`` int8 seat to decide (-2 for a game that is over, without autoreset).
    to_move: npt.NDArray[np.int8]


def outcome_table(ranks: npt.NDArray[np.integer], reward: RewardName) -> npt.NDArray[np.float32]:
    """The float32 rewards of final ranks ``(k, p)``: :func:`~marrakech.envs.spec.rewards_of`
    of each row's :class:`~marrakech.outcome.Outcome`. (:class:`VectorEnv` takes its
    rewards from the batch engine's ``outcome_values`` instead.)

    >>> (outcome_table(np.array([[1, 3, 2, 4], [1, 1, 3, 4]]), "rank") * 3).round().tolist()
    [[3.0, -1.0, 1.0, -3.0], [2.0, 2.0, -1.0, -3.0]]
    """
    rows = np.asarray(ranks).tolist()
    table = [rewards_of(Outcome(tuple(row)), reward) for row in rows]
    return np.array(table, dtype=np.float32).reshape(len(rows), -1)


def make_batch(
    backend: BackendName, n: int, players: int, rules: RuleSet, seed: int
) -> tuple[BatchEngine, str]:
    """The batch engine for ``backend`` and its name (``numba`` or ``python``): the
    compiled :class:`marrakech.fast.Batch` when Numba is there (``auto``, ``numba``),
    else :class:`~marrakech.envs.batch.PythonBatch`. Both play the same games for the
    same seed."""
    if backend not in ("auto", "numba", "python"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'python', found {backend!r}")
    if backend != "python":
        try:
            from marrakech.fast import Batch
        except ImportError:
            if backend == "numba":
                raise
        else:
            return Batch(n, players, rules, seed), "numba"
    return PythonBatch(n, players, rules, seed), "python"


class VectorEnv:
    """``n`` games of Marrakech in numpy arrays; see the module docstring.

    Parameters: ``n`` games, ``players`` (2..4), ``rules`` (a :class:`RuleSet` or a word),
    ``seed``, ``opponents`` (None for self-play, else one bot name or :class:`Bot` per
    other seat), ``seat`` (the learning seat against bots: a number or ``"rotate"``),
    ``reward`` (``"rank"`` or ``"win"``), ``autoreset``, ``copy`` (True: new arrays at
    every call; False: the observations and masks are buffers of the env, overwritten by
    the next call, faster), ``backend`` (``"auto"``, ``"numba"``, ``"python"``).
    """

    def __init__(
        self,
        n: int,
        players: int = 4,
        rules: RuleSet | str = "standard",
        seed: int = 0,
        *,
        opponents: Sequence[Opponent] | None = None,
        seat: int | Literal["rotate"] = 0,
        reward: RewardName = "rank",
        autoreset: bool = True,
        copy: bool = True,
        backend: BackendName = "auto",
    ) -> None:
        self.players = coerce_players(players)
        self.rules = coerce_rules(rules)
        self.reward_name = check_reward(reward)
        self.autoreset = bool(autoreset)
        self._batch, self.backend = make_batch(backend, n, self.players, self.rules, seed)
        self.n = self._batch.n
        self.opponents: list[Bot] | None = None
        if opponents is not None:
            if isinstance(opponents, str) or len(opponents) != self.players - 1:
                raise ValueError(
                    f"{self.players} players need {self.players - 1} opponents "
                    f"(one per other seat), found {opponents!r}"
                )
            self.opponents = make_opponents(opponents)
        if seat == "rotate":
            self.seats = (np.arange(self.n) % self.players).astype(np.int8)
        elif isinstance(seat, int | np.integer) and not isinstance(seat, bool):
            if not 0 <= seat < self.players:
                raise ValueError(f"seat must be 0..{self.players - 1} or 'rotate', found {seat}")
            self.seats = np.full(self.n, seat, dtype=np.int8)
        else:
            raise ValueError(f"seat must be 0..{self.players - 1} or 'rotate', found {seat!r}")
        self._rng = random.Random(seed)
        self.copy = bool(copy)
        self._observations = np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32)
        self._masks = np.zeros((self.n, DECISION_IDS), dtype=np.bool_)
        self._over = np.zeros(self.n, dtype=np.bool_)
        self._index = np.arange(self.n)

    @property
    def single_agent(self) -> bool:
        """True when bots play the other seats (rewards are then ``(n,)``)."""
        return self.opponents is not None

    # -- stepping -------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> Transition:
        """Start all ``n`` games again (reseeding the games' generators if ``seed``)."""
        if seed is not None:
            self._batch.seed(seed)
            self._rng = random.Random(seed)
        self._batch.reset()
        self._over[:] = False
        rewards, terminated = self._empty_outcome()
        if self.opponents is not None:
            self._play_bots(rewards, terminated)
        return self._transition(rewards, terminated)

    def step(self, actions: npt.ArrayLike) -> Transition:
        """Apply one decision id per game (ignored for a game that is over), move chance
        and the bots, and return the new :class:`Transition`."""
        ids = np.asarray(actions)
        check_ids(ids, self.n)
        self._batch.step(ids)
        rewards, terminated = self._empty_outcome()
        self._collect_ends(rewards, terminated)
        if self.opponents is not None:
            self._play_bots(rewards, terminated)
        return self._transition(rewards, terminated)

    def _empty_outcome(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        shape = (self.n,) if self.opponents is not None else (self.n, self.players)
        return np.zeros(shape, dtype=np.float32), np.zeros(self.n, dtype=np.bool_)

    def _collect_ends(
        self, rewards: npt.NDArray[np.float32], terminated: npt.NDArray[np.bool_]
    ) -> None:
        """Score the games that just ended, and start them again under autoreset."""
        ended = self._batch.terminated() & ~self._over
        if not ended.any():
            return
        values, shares = self._batch.outcome_values()
        table = reward_arrays(values[ended], shares[ended], self.reward_name)
        if self.opponents is not None:
            rewards[ended] += table[np.arange(table.shape[0]), self.seats[ended]]
        else:
            rewards[ended] += table
        terminated |= ended
        if self.autoreset:
            self._batch.reset(ended)
        else:
            self._over |= ended

    def _play_bots(
        self, rewards: npt.NDArray[np.float32], terminated: npt.NDArray[np.bool_]
    ) -> None:
        """Bots move until every live game waits for its learning seat."""
        assert self.opponents is not None
        while True:
            to_move = self._batch.to_move()
            pending = (to_move >= 0) & (to_move != self.seats)
            if not pending.any():
                return
            actions = np.full(self.n, -1, dtype=np.int64)
            slot = (to_move.astype(np.int16) - self.seats) % self.players - 1
            sampled: npt.NDArray[np.int64] | None = None
            for k, bot in enumerate(self.opponents):
                rows = pending & (slot == k)
                if not rows.any():
                    continue
                if isinstance(bot, RandomBot):
                    if sampled is None:
                        sampled = self._batch.sample_actions()
                    actions[rows] = sampled[rows]
                else:
                    for i in np.flatnonzero(rows):
                        actions[i] = bot.choose(self._batch.state(int(i)), self._rng).id
            self._step_some(actions)
            self._collect_ends(rewards, terminated)

    def _step_some(self, actions: npt.NDArray[np.int64]) -> None:
        """Step only the games whose action is not -1."""
        if (actions >= 0).all():
            self._batch.step(actions)
        else:
            self._batch.step(actions, mask=actions >= 0)

    def _transition(
        self, rewards: npt.NDArray[np.float32], terminated: npt.NDArray[np.bool_]
    ) -> Transition:
        # copy=False writes into buffers that live as long as the env (no fresh pages to
        # fault in at every step: the arrays are several megabytes at batch 4,096).
        observations = None if self.copy else self._observations
        masks = None if self.copy else self._masks
        seats = self.seats if self.opponents is not None else None
        observations = self._batch.observations(seats, out=observations)
        if not self.autoreset:
            terminated = terminated | self._over
        return Transition(
            observations,
            self._batch.legal_masks(out=masks),
            rewards,
            terminated,
            self._batch.to_move(),
        )

    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal decision id per game (-1 for a game that is over),
        drawn by the batch's own generator: the ``random`` baseline at batch speed."""
        return self._batch.sample_actions()

    # -- reading and setting games ------------------------------------------------------

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """``(n, 87)`` legal decisions now."""
        return self._batch.legal_masks()

    def state(self, i: int) -> State:
        """Game ``i`` as a core :class:`State`."""
        return self._batch.state(i)

    def set_state(self, i: int, state: State) -> None:
        """Put a core position in game ``i`` (a chance node is resolved at once)."""
        self._batch.set_state(i, state)
        self._over[i] = False

    def last_chance(self) -> npt.NDArray[np.int32]:
        """``(n, 2)`` chance outcome ids resolved by the batch's last step or reset
        (-1 pad); only the last batch step counts when bots moved inside."""
        return self._batch.last_chance()

    def close(self) -> None:
        """Nothing to release (no processes or files)."""

    def __repr__(self) -> str:
        mode = (
            "self-play"
            if self.opponents is None
            else "vs " + ",".join(b.name for b in self.opponents)
        )
        return (
            f"VectorEnv(n={self.n}, players={self.players}, rules={self.rules}, {mode}, "
            f"backend={self.backend})"
        )
