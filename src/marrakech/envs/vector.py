"""The batched environment: ``n`` games stepped at once, a ``gymnasium.vector.VectorEnv``.

:class:`VectorEnv` runs on the compiled kernels (:class:`marrakech.fast.Batch`) when
Numba is available, else on :class:`~marrakech.envs.python_batch.PythonBatch` (the core, one
game at a time: slow but exact; the fallback warns once, :class:`SlowBackendWarning`);
both engines play the same games for the same seed (:mod:`marrakech.envs.engine`). Same
spec as every adapter (``marrakech_v0``), with Gymnasium's vector API::

    >>> import numpy as np
    >>> from marrakech.envs import VectorEnv
    >>> env = VectorEnv(8, players=3, seed=0, backend="python", opponents=("random",) * 2)
    >>> observations, infos = env.reset(seed=0)
    >>> observations.shape, infos["action_mask"].shape, env.single_action_space
    ((8, 474), (8, 87), Discrete(87))
    >>> rng = np.random.default_rng(0)
    >>> actions = [rng.choice(np.flatnonzero(m)) for m in env.action_masks()]
    >>> observations, rewards, terminations, truncations, infos = env.step(np.array(actions))
    >>> rewards.shape, terminations.any(), env.metadata["autoreset_mode"].name
    ((8,), np.False_, 'SAME_STEP')

Two modes:

* **against bots** (``opponents=("random", "greedy", ...)``, one per other seat): the
  bots and chance move inside :meth:`VectorEnv.step`; every game waits for the learning
  seat (``seat``: a number, or ``"rotate"`` for game ``i`` at seat ``i % players``), and
  ``rewards`` are the learning seat's. ``random`` opponents are drawn by the batch's own
  generator, vectorised; ``greedy`` runs compiled in the batch (the Python bot's
  scores, ties broken by each game's generator); a :data:`BatchPolicy` (any callable)
  answers for all its games in one call; other bots see core states, game by game.
* **self-play** (``opponents=None``): every decision of every seat comes back;
  ``infos["to_move"]`` says whose, the observation is from that seat. ``rewards[i]`` is
  the reward of the seat that decided in game ``i`` at this step, and
  ``infos["rewards"]`` holds every seat's, ``(n, players)``: on the step that ends a
  game, each seat's final reward (attribute them to each seat's last decision).

Autoreset (``metadata["autoreset_mode"]``, Gymnasium's :class:`AutoresetMode`):
``SAME_STEP`` (the default) starts a game that ends again within the step: the
observation is the new game's first, ``infos["final_obs"]`` and ``infos["final_info"]``
hold the last one's; ``NEXT_STEP`` (Gymnasium's default, and what its vector observation
wrappers require) returns the final observation and starts the new game at the next
step, whose action for it is ignored; ``DISABLED`` keeps a finished game over (its actions
ignored, ``terminations`` true) until ``reset(options={"reset_mask": ...})``.

:meth:`VectorEnv.step_transition` and :meth:`VectorEnv.reset_transition` are the batch's
own API, a :class:`Transition` of arrays (what ``step`` and ``reset`` returned before the
class followed Gymnasium); no infos are built, so they are the fastest.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple, TypeGuard

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from marrakech.actions import DECISION_IDS
from marrakech.batch_checks import check_flags, check_ids, check_seeds
from marrakech.bots import Bot, RandomBot
from marrakech.bots.greedy import GreedyBot, greedy_params
from marrakech.bots.search import SearchBot
from marrakech.bots.value import load_value
from marrakech.envs.common import (
    IllegalPolicy,
    Opponent,
    check_illegal_policy,
    check_render_mode,
    make_opponents,
    render_frame,
)
from marrakech.envs.engine import BatchEngine
from marrakech.envs.mixture import Mixture
from marrakech.envs.planes import planes, planes_space
from marrakech.envs.python_batch import PythonBatch
from marrakech.envs.spec import (
    DENSE_REWARDS,
    RewardName,
    action_space,
    check_reward,
    coerce_players,
    coerce_rules,
    forfeit_outcome,
    forfeit_scores,
    observation,
    observation_space,
    reward_arrays,
    rewards_of,
    share_arrays,
)
from marrakech.observation import OBSERVATION_SIZE
from marrakech.outcome import Outcome
from marrakech.position import TERMINAL
from marrakech.rules import RuleSet
from marrakech.state import State

__all__ = [
    "BackendName",
    "BatchPolicy",
    "ObservationName",
    "SlowBackendWarning",
    "Transition",
    "VectorEnv",
    "make_vector",
    "outcome_table",
]

BackendName = Literal["auto", "numba", "python"]
#: Mixes into the seed of the generator that draws mixtures' opponents, so that its
#: draws are not those of any other generator seeded from the same number.
_MIXTURE_STREAM = 0x6D6978
#: A batched opponent for :class:`VectorEnv`: given the observations of the ``k`` games
#: where it is to move (``(k, 474)``, or ``(k, 42, 7, 7)`` with ``observation="planes"``,
#: each from the seat it plays) and their ``(k, 87)`` bool legal masks, one legal decision
#: id per game, in one call: a frozen network, a league's past snapshot, a scripted rule.
BatchPolicy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], npt.ArrayLike]
#: The observation's form: the flat ``marrakech_v0`` vector, or its planes
#: (:mod:`marrakech.envs.planes`, ``(42, 7, 7)``, for convolutional networks).
ObservationName = Literal["vector", "planes"]
Array = npt.NDArray[Any]


class Transition(NamedTuple):
    """What :meth:`VectorEnv.reset_transition` and :meth:`VectorEnv.step_transition`
    return (numpy arrays)."""

    #: ``(n, 474)`` float32 ``marrakech_v0`` observations from the deciding seat (or
    #: ``(n, 42, 7, 7)`` planes with ``observation="planes"``).
    observations: npt.NDArray[np.float32]
    #: ``(n, 87)`` bool legal decisions.
    action_masks: npt.NDArray[np.bool_]
    #: ``(n, players)`` (self-play) or ``(n,)`` (against bots) float32 final rewards.
    rewards: npt.NDArray[np.float32]
    #: ``(n,)`` bool: the game ended in this step (or is over and waits for a reset).
    terminated: npt.NDArray[np.bool_]
    #: ``(n,)`` int8 seat to decide (-2 for a game that is over).
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


def mixture_generator(seeds: Sequence[int]) -> np.random.Generator:
    """The generator that draws the games' opponents from mixtures, from the env's seed
    (or its games' seeds): its own stream, apart from the batch's and the bots'."""
    return np.random.default_rng([_MIXTURE_STREAM, *(s & 0xFFFFFFFFFFFFFFFF for s in seeds)])


def make_vector_opponents(opponents: Sequence[Opponent | BatchPolicy]) -> list[Bot | BatchPolicy]:
    """:class:`VectorEnv`'s opponents: bots by name or as :class:`Bot` objects, and
    batched policies (:data:`BatchPolicy`: any other callable) as they are."""
    chosen: list[Bot | BatchPolicy] = []
    for opponent in opponents:
        if isinstance(opponent, str | Bot):
            chosen.extend(make_opponents([opponent]))
        elif callable(opponent):
            chosen.append(opponent)
        else:
            raise TypeError(
                f"an opponent is a bot name, a Bot or a batched policy (a callable from "
                f"observations and masks to decision ids), found {opponent!r}"
            )
    return chosen


def batched_search(bot: object) -> TypeGuard[SearchBot]:
    """Whether :class:`VectorEnv` runs opponent ``bot`` in the batch as the ``search`` bot:
    a compiled :class:`SearchBot` with a count budget and no clock
    (``search@iterations=N``), whose decisions do not depend on the machine's load."""
    return (
        type(bot) is SearchBot
        and bot.compiled
        and bot.seconds is None
        and bot.iterations is not None
    )


def opponent_name(opponent: Bot | BatchPolicy | Mixture) -> str:
    """A bot's name, or a batched policy's (its function or class name), or a
    mixture's (``mixture(random,greedy)``)."""
    if isinstance(opponent, Bot):
        return opponent.name
    if isinstance(opponent, Mixture):
        return f"mixture({','.join(opponent.names)})"
    return str(getattr(opponent, "__name__", type(opponent).__name__))


def make_batch(
    backend: BackendName, n: int, players: int, rules: RuleSet, seed: int
) -> tuple[BatchEngine, str]:
    """The batch engine for ``backend`` and its name (``numba`` or ``python``): the
    compiled :class:`marrakech.fast.Batch` when Numba is there (``auto``, ``numba``),
    else :class:`~marrakech.envs.python_batch.PythonBatch`, with a
    :class:`SlowBackendWarning` (once per process) when ``auto`` falls back to it. Both
    play the same games for the same seed."""
    if backend not in ("auto", "numba", "python"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'python', found {backend!r}")
    if backend != "python":
        try:
            from marrakech.fast import Batch
        except ImportError as missing:
            if backend == "numba":
                raise
            warn_slow_backend(missing)
        else:
            return Batch(n, players, rules, seed), "numba"
    return PythonBatch(n, players, rules, seed), "python"


class SlowBackendWarning(RuntimeWarning):
    """:class:`VectorEnv` (``backend="auto"``) runs on the pure-Python batch because the
    compiled one (Numba) cannot be imported: the same games, about 15x slower."""


#: Whether :func:`warn_slow_backend` has warned in this process (it warns once).
_warned_slow = False


def warn_slow_backend(missing: ImportError) -> None:
    """Warn, once per process, that the batch fell back to pure Python and how to get the
    compiled one. A run that means to use Python says ``backend="python"`` and is not
    warned; ``warnings.filterwarnings("ignore", category=SlowBackendWarning)`` silences
    it."""
    global _warned_slow
    if _warned_slow:
        return
    _warned_slow = True
    warnings.warn(
        f"VectorEnv runs on the pure-Python batch, about 15x slower than the compiled one: "
        f"Numba is missing ({missing}). Install it with: pip install numba (or "
        f"pip install 'marrakech[fast]'; the rl and sb3 extras bring it too), or pass "
        f"backend='python' to choose the slow batch without this warning",
        SlowBackendWarning,
        stacklevel=4,
    )


def observe_games(
    engine: BatchEngine, games: npt.NDArray[np.intp], seats: npt.NDArray[np.int8]
) -> npt.NDArray[np.float32]:
    """``(k, 474)`` observations of some games only, from ``seats``: the compiled batch
    observes just their rows (its public ``rows``, read only), another engine goes
    through core states."""
    rows = getattr(engine, "rows", None)
    if rows is None:
        return np.stack(
            [
                observation(engine.state(int(i)), int(seat))
                for i, seat in zip(games, seats, strict=True)
            ]
        )
    from marrakech.fast import kernels

    out = np.empty((len(games), OBSERVATION_SIZE), dtype=np.float32)
    kernels.batch_observe(rows[games], np.ascontiguousarray(seats, dtype=np.int64), out)
    return out


def autoreset_mode_of(value: object) -> AutoresetMode:
    """An :class:`AutoresetMode` from itself, its name or its value (``"same_step"``,
    ``"NextStep"``...)."""
    if isinstance(value, AutoresetMode):
        return value
    if isinstance(value, str):
        for mode in AutoresetMode:
            if value.lower().replace("_", "") in (
                mode.name.lower().replace("_", ""),
                mode.value.lower(),
            ):
                return mode
    names = ", ".join(mode.name for mode in AutoresetMode)
    raise ValueError(f"autoreset_mode must be one of {names}, found {value!r}")


class _GymnasiumTuple(tuple):  # type: ignore[type-arg]
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return: Gymnasium's plain
    tuple, which says how to migrate when read the way their :class:`Transition` was
    (by attribute) before the class followed Gymnasium."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"VectorEnv.reset() and step() return Gymnasium's tuples now, which have no "
            f".{name}: reset_transition() and step_transition() return the Transition "
            f"they returned before (docs/environments.md, version history)"
        )


class _Ended(NamedTuple):
    """Games that ended in a step: which, their final observations (``SAME_STEP``
    mode) and the seats they are seen from, their ranks and scores, and for games ended
    by an illegal action (a forfeit), the illegal decision ids (else None)."""

    games: npt.NDArray[np.intp]
    observations: npt.NDArray[np.float32]
    seats: npt.NDArray[np.int8]
    ranks: npt.NDArray[np.int8]
    scores: npt.NDArray[np.int32]
    illegal: npt.NDArray[np.int64] | None
    #: With a :class:`Mixture`: the kind each other seat played (``opponent_kinds``).
    kinds: npt.NDArray[np.int64] | None = None


class VectorEnv(gymnasium.vector.VectorEnv[Array, Array, Array]):
    """``n`` games of Marrakech in numpy arrays; see the module docstring.

    Parameters: ``n`` games, ``players`` (2..4), ``rules`` (a :class:`RuleSet` or a word),
    ``seed``, ``opponents`` (None for self-play, else one bot name, :class:`Bot` or
    :data:`BatchPolicy` per other seat), ``seat`` (the learning seat against bots: a
    number or ``"rotate"``), ``reward`` (``"rank"``, ``"win"``, ``"margin"`` or the
    dense ``"share"``, paid at every step: the change in each seat's share of the
    scores), ``autoreset_mode`` (an
    :class:`AutoresetMode` or its name, default ``SAME_STEP``; ``autoreset=False`` is
    ``DISABLED``),
    ``observation`` (``"vector"`` or ``"planes"``), ``illegal_action`` (``"raise"``, the
    default, or ``"lose"``: the game ends as a forfeit, see
    :func:`~marrakech.envs.spec.forfeit_outcome`), ``copy`` (True: new arrays at every
    call; False: the observations and masks are buffers of the env, overwritten by the
    next call, faster), ``backend`` (``"auto"``, ``"numba"``, ``"python"``),
    ``render_mode`` (``"rgb_array"`` or ``"ansi"``: :meth:`render` draws every game).
    """

    def __init__(
        self,
        n: int,
        players: int = 4,
        rules: RuleSet | str = "standard",
        seed: int = 0,
        *,
        opponents: Sequence[Opponent | BatchPolicy | Mixture] | None = None,
        seat: int | Literal["rotate"] = 0,
        reward: RewardName = "rank",
        autoreset: bool = True,
        autoreset_mode: AutoresetMode | str | None = None,
        observation: ObservationName = "vector",
        illegal_action: IllegalPolicy = "raise",
        copy: bool = True,
        backend: BackendName = "auto",
        render_mode: str | None = None,
    ) -> None:
        self.players = coerce_players(players)
        self.rules = coerce_rules(rules)
        self.reward_name = check_reward(reward)
        if autoreset_mode is None:
            mode = AutoresetMode.SAME_STEP if autoreset else AutoresetMode.DISABLED
        else:
            mode = autoreset_mode_of(autoreset_mode)
        self.autoreset_mode = mode
        self.autoreset = mode is not AutoresetMode.DISABLED
        self.metadata = {"autoreset_mode": mode, "render_modes": ["ansi", "rgb_array"]}
        self.illegal_action = check_illegal_policy(illegal_action)
        self.render_mode = check_render_mode(render_mode)
        if self.render_mode == "human":
            raise TypeError("VectorEnv renders 'ansi' or 'rgb_array', found 'human'")
        if observation not in ("vector", "planes"):
            raise ValueError(f"observation must be 'vector' or 'planes', found {observation!r}")
        self.observation_name = observation
        self._batch, self.backend = make_batch(backend, n, self.players, self.rules, seed)
        self.n = self.num_envs = self._batch.n
        self.opponents: list[Bot | BatchPolicy | Mixture] | None = None
        # Per other seat (clockwise from the learning seat), its kinds: one, or a
        # mixture's, of which opponent_kinds says which plays each game.
        self._slots: list[list[Bot | BatchPolicy]] = []
        if opponents is not None:
            if isinstance(opponents, str | Mixture) or len(opponents) != self.players - 1:
                raise ValueError(
                    f"{self.players} players need {self.players - 1} opponents "
                    f"(one per other seat), found {opponents!r}"
                )
            self.opponents = []
            for opponent in opponents:
                if isinstance(opponent, Mixture):
                    self.opponents.append(opponent)
                    self._slots.append(make_vector_opponents(list(opponent.kinds)))
                else:
                    self._slots.append(make_vector_opponents([opponent]))
                    self.opponents.append(self._slots[-1][0])
        #: ``(n, players - 1)``: per game, the kind each other seat plays (an index into
        #: its :class:`Mixture`'s kinds; 0 for a seat with a single opponent), drawn at
        #: each game's start.
        self.opponent_kinds = np.zeros((n, max(0, len(self._slots))), dtype=np.int64)
        self._mixed = any(isinstance(o, Mixture) for o in self.opponents or ())
        self._draws = mixture_generator([seed])
        if seat == "rotate":
            self.seats = (np.arange(self.n) % self.players).astype(np.int8)
        elif isinstance(seat, int | np.integer) and not isinstance(seat, bool):
            if not 0 <= seat < self.players:
                raise ValueError(f"seat must be 0..{self.players - 1} or 'rotate', found {seat}")
            self.seats = np.full(self.n, seat, dtype=np.int8)
        else:
            raise ValueError(f"seat must be 0..{self.players - 1} or 'rotate', found {seat!r}")
        self.single_observation_space = (
            planes_space() if observation == "planes" else observation_space()
        )
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.n)
        self.action_space = batch_space(self.single_action_space, self.n)
        self._rng = random.Random(seed)
        self._draw_kinds(None)
        self.copy = bool(copy)
        self._observations = np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32)
        self._masks = np.zeros((self.n, DECISION_IDS), dtype=np.bool_)
        self._over = np.zeros(self.n, dtype=np.bool_)
        # The seat each game's last observation is from (its final one's, once over).
        self._seen_from = self._batch.to_move().astype(np.int8)
        self._ended: list[_Ended] = []
        # Dense rewards (share): every seat's share of the scores at the last transition,
        # and the games that ended or restarted since (their next change starts afresh).
        self._dense = self.reward_name in DENSE_REWARDS
        self._potential = share_arrays(self._batch.scores()) if self._dense else None
        self._fresh = np.ones(self.n, dtype=np.bool_)

    @property
    def single_agent(self) -> bool:
        """True when bots play the other seats (rewards are the learning seat's)."""
        return self.opponents is not None

    # -- Gymnasium's vector API -------------------------------------------------------

    def reset(
        self,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Array, dict[str, Any]]:
        """Start the games again: all of them, or ``options["reset_mask"]``'s (n bools).

        ``seed`` reseeds the games' generators first: an int seeds the batch (game ``i``
        from the seed and ``i``), a list gives one seed per game as Gymnasium allows
        (game ``i`` plays as a lone game seeded ``seed[i]`` would, ``None`` keeps that
        game's generators going); see :meth:`reset_transition`."""
        mask = None if not options or "reset_mask" not in options else options["reset_mask"]
        out = self.reset_transition(seed, mask)
        return _GymnasiumTuple((out.observations, self._infos(out, out.rewards)))

    def step(self, actions: npt.ArrayLike) -> tuple[Array, Array, Array, Array, dict[str, Any]]:
        """One decision id per game (ignored for a game over or restarting); chance and
        the bots move inside. Returns observations, rewards, terminations, truncations
        (always false: a game is at most a few hundred steps) and infos."""
        deciders = self._batch.to_move()
        out = self._advance(actions, record=True)
        infos = self._infos(out, out.rewards, deciders)
        rewards = out.rewards
        if self.opponents is None:
            rewards = np.where(
                deciders >= 0, rewards[np.arange(self.n), np.maximum(deciders, 0)], 0.0
            ).astype(np.float32)
        truncations = np.zeros(self.n, np.bool_)
        return _GymnasiumTuple((out.observations, rewards, out.terminated, truncations, infos))

    def _infos(
        self,
        out: Transition,
        rewards: npt.NDArray[np.float32],
        deciders: npt.NDArray[np.int8] | None = None,
    ) -> dict[str, Any]:
        """The step's infos, laid out as Gymnasium's ``SyncVectorEnv`` of ``Marrakech-v0``
        lays out its environments' infos (the same keys, each with its ``_key`` mask):
        ``action_mask`` and ``seat`` (the learning seat; in self-play the seat that
        decided, after a step), plus ``to_move`` and in self-play every seat's
        ``rewards``; for the games that ended, their ``ranks`` and ``scores`` (and the
        ``illegal_action`` id of a forfeit, and with a :class:`Mixture` the
        ``opponents`` they played: ``opponent_kinds``' rows), in ``final_info`` with
        ``final_obs`` under ``SAME_STEP``, at the top level otherwise."""
        every = np.ones(self.n, dtype=np.bool_)
        infos: dict[str, Any] = {
            "action_mask": out.action_masks,
            "_action_mask": every,
            "to_move": out.to_move,
            "_to_move": every,
        }
        if self.opponents is not None:
            infos.update(seat=self.seats.astype(np.int64), _seat=every)
        else:
            infos.update(rewards=rewards, _rewards=every)
            if deciders is not None:
                infos.update(seat=deciders, _seat=deciders >= 0)
        if not self._ended:
            return infos
        done = np.zeros(self.n, dtype=np.bool_)
        ranks = np.zeros((self.n, self.players), dtype=np.int8)
        scores = np.zeros((self.n, self.players), dtype=np.int32)
        seats = np.zeros(self.n, dtype=np.int64)
        illegal = np.zeros(self.n, dtype=np.int64)
        forfeited = np.zeros(self.n, dtype=np.bool_)
        for ended in self._ended:
            done[ended.games] = True
            ranks[ended.games] = ended.ranks
            scores[ended.games] = ended.scores
            seats[ended.games] = ended.seats
            if ended.illegal is not None:
                illegal[ended.games] = ended.illegal
                forfeited[ended.games] = True
        ending: dict[str, Any] = {"ranks": ranks, "_ranks": done, "scores": scores, "_scores": done}
        if self._mixed:  # which kind each other seat played in the games that ended
            kinds = np.zeros_like(self.opponent_kinds)
            for ended in self._ended:
                if ended.kinds is not None:
                    kinds[ended.games] = ended.kinds
            ending.update(opponents=kinds, _opponents=done)
        if forfeited.any():
            ending.update(illegal_action=illegal, _illegal_action=forfeited)
        if self.autoreset_mode is not AutoresetMode.SAME_STEP:
            infos.update(ending)
            return infos
        final = np.full(self.n, None, dtype=object)
        for ended in self._ended:
            for game, vector in zip(ended.games, ended.observations, strict=True):
                final[game] = self._shaped(vector)
        # A game over has no legal decision: its final mask is all False.
        masks = np.zeros((self.n, DECISION_IDS), dtype=np.bool_)
        final_info = {"action_mask": masks, "_action_mask": done, "seat": seats, "_seat": done}
        infos.update(final_obs=final, _final_obs=done, final_info=final_info | ending)
        infos["_final_info"] = done
        return infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """``(n, 87)`` legal decisions now (what sb3-contrib's maskable algorithms ask)."""
        return self._batch.legal_masks()

    def greedy_scores(self, bot: GreedyBot | None = None) -> npt.NDArray[np.float64]:
        """``(n, 87)``: how ``greedy`` (or ``bot``, a :class:`GreedyBot` with other
        weights) scores each legal decision of the seat to decide in every game, by
        decision id (its utility after the decision, in dirhams, R20; at an orientation
        the expected value over the roll, R3), ``-inf`` for illegal ids and games over.
        Compiled on the numba backend; no generator is drawn from, so asking does not
        change the games. A feature for learners: ``argmax`` is ``greedy``'s decision
        (up to its ties), and a policy can start from it and learn where to differ."""
        weights = None if bot is None else bot.weights
        out = np.full((self.n, DECISION_IDS), -np.inf)
        games = np.flatnonzero(self._batch.to_move() >= 0)
        if games.size:
            out[games] = self._batch.greedy_scores(games, greedy_params(weights, self.players))
        return out

    # -- the batch's own API -------------------------------------------------------------

    def reset_transition(
        self, seed: int | Sequence[int | None] | None = None, mask: npt.ArrayLike | None = None
    ) -> Transition:
        """Start all ``n`` games again, or those where ``mask`` (n bools) is True
        (reseeding the games' generators first if ``seed``).

        ``seed``: an int reseeds every game from it and the game's index; a list of ``n``
        ints or ``None`` reseeds game ``i`` as game 0 of a batch seeded ``seed[i]`` (so
        ``seed=[s]`` for one game is ``seed=s``, and equal seeds give equal games),
        ``None`` entries leaving their game's generators as they are. A list of the
        wrong length, or an entry that is not an int or None, is refused. The bots other
        than ``random`` share one generator, seeded from the int or from the list."""
        if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            self._batch.seed(int(seed))
            self._rng = random.Random(int(seed))
            self._draws = mixture_generator([int(seed)])
        elif seed is not None:
            seeds = check_seeds(seed, self.n)
            self._batch.seed_games(seeds)
            if any(value is not None for value in seeds):
                self._rng = random.Random(repr(seeds))
                self._draws = mixture_generator([s for s in seeds if s is not None])
        self._ended = []
        if mask is None:
            self._restart(None)
            self._over[:] = False
        else:
            flags = np.asarray(mask)
            check_flags(flags, self.n, "reset")
            self._restart(flags)
            self._over &= ~flags
        self._fresh |= True if mask is None else np.asarray(mask, dtype=np.bool_)
        rewards, terminated = self._empty_outcome()
        if self.opponents is not None:
            self._play_bots(rewards, terminated, record=False)
        self._settle(rewards)
        return self._transition(rewards, terminated)

    def step_transition(self, actions: npt.ArrayLike) -> Transition:
        """Apply one decision id per game (ignored for a game that is over or restarts),
        move chance and the bots, and return the new :class:`Transition`."""
        return self._advance(actions, record=False)

    def _advance(self, actions: npt.ArrayLike, record: bool) -> Transition:
        """A step; ``record``: keep what ended for the infos."""
        ids = np.asarray(actions)
        check_ids(ids, self.n)
        self._ended = []
        moving: npt.NDArray[np.bool_] | None = None
        if self.autoreset_mode is AutoresetMode.NEXT_STEP and self._over.any():
            moving = ~self._over
            self._restart(self._over)
            self._fresh |= self._over
            self._over[:] = False
        rewards, terminated = self._empty_outcome()
        if self.illegal_action == "lose":
            forfeits = self._forfeits(ids, moving, rewards, terminated, record)
            if forfeits.any():
                moving = ~forfeits if moving is None else moving & ~forfeits
        if moving is None:
            self._batch.step(ids)
        else:
            self._batch.step(ids, mask=moving)
        self._collect_ends(rewards, terminated, record)
        if self.opponents is not None:
            self._play_bots(rewards, terminated, record)
        self._settle(rewards)
        return self._transition(rewards, terminated)

    def _settle(self, rewards: npt.NDArray[np.float32]) -> None:
        """The dense rewards (``share``) of the games that go on: each seat's change in
        its share of the scores since the last transition (the learning seat's against
        bots). Games that ended or restarted in the step only take their new baseline."""
        if self._potential is None:
            return
        now = share_arrays(self._batch.scores())
        change = np.where((self._fresh | self._over)[:, None], 0.0, now - self._potential)
        self._potential = now
        self._fresh[:] = False
        games = np.flatnonzero(change.any(axis=1))
        self._add(rewards, games, change[games])

    def _add(
        self,
        rewards: npt.NDArray[np.float32],
        games: npt.NDArray[np.intp],
        table: npt.NDArray[np.floating],
    ) -> None:
        """Add ``table`` (one row of every seat's reward per game of ``games``) to the
        step's rewards: the learning seat's against bots, every seat's in self-play."""
        if self.opponents is not None:
            rewards[games] += table[np.arange(games.size), self.seats[games]].astype(np.float32)
        else:
            rewards[games] += table.astype(np.float32)

    def _final_change(
        self, games: npt.NDArray[np.intp], scores: npt.NDArray[np.integer]
    ) -> npt.NDArray[np.float64]:
        """The dense rewards of games that end, up to their final ``scores``; from now
        on they count from their next game's start."""
        if self._potential is None:
            return np.zeros(scores.shape, dtype=np.float64)
        self._fresh[games] = True
        return share_arrays(scores) - self._potential[games]

    def _restart(self, mask: npt.NDArray[np.bool_] | None) -> None:
        """Start the games of ``mask`` (all if None) again, drawing their opponents."""
        if mask is None:
            self._batch.reset()
        else:
            self._batch.reset(mask)
        self._draw_kinds(mask)

    def _draw_kinds(self, mask: npt.NDArray[np.bool_] | None) -> None:
        """Draw each mixture seat's kind for the games of ``mask`` (all if None)."""
        if not self._mixed:
            return
        games = np.arange(self.n) if mask is None else np.flatnonzero(mask)
        for k, opponent in enumerate(self.opponents or ()):
            if isinstance(opponent, Mixture):
                self.opponent_kinds[games, k] = opponent.draw(self._draws, games.size)

    def _empty_outcome(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        shape = (self.n,) if self.opponents is not None else (self.n, self.players)
        return np.zeros(shape, dtype=np.float32), np.zeros(self.n, dtype=np.bool_)

    def _collect_ends(
        self, rewards: npt.NDArray[np.float32], terminated: npt.NDArray[np.bool_], record: bool
    ) -> None:
        """Score the games that just ended; restart them in ``SAME_STEP`` mode, else
        keep them over. ``record``: keep their ranks (and in ``SAME_STEP`` mode their
        final observations) for the infos."""
        ended = self._batch.terminated() & ~self._over
        if not ended.any():
            return
        values, shares = self._batch.outcome_values()
        games = np.flatnonzero(ended)
        final_scores = self._batch.scores()[ended]
        table = reward_arrays(values[ended], shares[ended], self.reward_name, final_scores)
        self._add(rewards, games, table + self._final_change(games, final_scores))
        terminated |= ended
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        if record:
            # Seen from the learning seat, or in self-play from the seat that decided.
            seen = self.seats if self.opponents is not None else self._seen_from
            finals = np.zeros((0, OBSERVATION_SIZE), dtype=np.float32)
            if same_step:
                finals = observe_games(self._batch, games, seen[games])
            self._ended.append(
                _Ended(
                    games,
                    finals,
                    seen[games],
                    self._batch.ranks()[ended],
                    self._batch.scores()[ended],
                    None,
                    self.opponent_kinds[ended] if self._mixed else None,
                )
            )
        if same_step:
            self._restart(ended)
        else:
            self._over |= ended

    def _forfeits(
        self,
        ids: npt.NDArray[Any],
        moving: npt.NDArray[np.bool_] | None,
        rewards: npt.NDArray[np.float32],
        terminated: npt.NDArray[np.bool_],
        record: bool,
    ) -> npt.NDArray[np.bool_]:
        """``illegal_action="lose"``: the games whose decision id is illegal end as a
        forfeit of the seat that sent it (rewards from
        :func:`~marrakech.envs.spec.forfeit_outcome`); they are not stepped."""
        masks = self._batch.legal_masks()
        live = masks.any(axis=1) if moving is None else masks.any(axis=1) & moving
        valid = (ids >= 0) & (ids < DECISION_IDS)
        legal = valid & masks[np.arange(self.n), np.where(valid, ids, 0)]
        forfeits = live & ~legal
        games = np.flatnonzero(forfeits)
        if games.size == 0:
            return forfeits
        to_move = self._batch.to_move()
        finals, ranks, scores, seats = [], [], [], []
        for i in games:
            state, seat = self._batch.state(int(i)), int(to_move[i])
            outcome = forfeit_outcome(state, seat)
            given = forfeit_scores(state, seat)
            table = np.array(rewards_of(outcome, self.reward_name, given))[None, :]
            game = np.array([i])
            table = table + self._final_change(game, np.array([given]))
            self._add(rewards, game, table)
            seen = int(self.seats[i]) if self.opponents is not None else seat
            finals.append(observation(state, seen))
            seats.append(seen)
            ranks.append(outcome.ranks)
            scores.append(state.scores())
        terminated |= forfeits
        if record:
            self._ended.append(
                _Ended(
                    games,
                    np.stack(finals),
                    np.array(seats, dtype=np.int8),
                    np.array(ranks, dtype=np.int8),
                    np.array(scores, dtype=np.int32),
                    ids[games].astype(np.int64),
                    self.opponent_kinds[games] if self._mixed else None,
                )
            )
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            self._restart(forfeits)
        else:
            self._over |= forfeits
        return forfeits

    def _play_bots(
        self, rewards: npt.NDArray[np.float32], terminated: npt.NDArray[np.bool_], record: bool
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
            for k, kinds in enumerate(self._slots):
                seated = pending & (slot == k)
                if not seated.any():
                    continue
                for j, bot in enumerate(kinds):
                    rows = seated if len(kinds) == 1 else seated & (self.opponent_kinds[:, k] == j)
                    if rows.any():
                        sampled = self._bot_actions(bot, rows, actions, sampled, to_move)
            self._batch.step(actions, mask=actions >= 0)
            self._collect_ends(rewards, terminated, record)

    def _bot_actions(
        self,
        bot: Bot | BatchPolicy,
        rows: npt.NDArray[np.bool_],
        actions: npt.NDArray[np.int64],
        sampled: npt.NDArray[np.int64] | None,
        to_move: npt.NDArray[np.int8],
    ) -> npt.NDArray[np.int64] | None:
        """Write ``bot``'s decisions in the games of ``rows`` into ``actions``; the
        batch's random draws for this round (made once, at the first ``random``)."""
        if isinstance(bot, RandomBot):
            if sampled is None:
                sampled = self._batch.sample_actions()
            actions[rows] = sampled[rows]
        elif type(bot) is GreedyBot:  # the batch's own greedy (same scores)
            games = np.flatnonzero(rows)
            params = greedy_params(bot.weights, self.players)
            actions[games] = self._batch.greedy_actions(games, params)
        elif batched_search(bot):  # search@iterations=N: the batch's own search
            games = np.flatnonzero(rows)
            weights = load_value(self.players).array()
            actions[games] = self._batch.search_actions(games, bot, weights)
        elif isinstance(bot, Bot):
            for i in np.flatnonzero(rows):
                actions[i] = bot.choose(self._batch.state(int(i)), self._rng).id
        else:
            games = np.flatnonzero(rows)
            actions[games] = self._policy_actions(bot, games, to_move[games])
        return sampled

    def _policy_actions(
        self, policy: BatchPolicy, games: npt.NDArray[np.intp], seats: npt.NDArray[np.int8]
    ) -> npt.NDArray[np.int64]:
        """One call of a batched opponent for the games where it is to move: their
        observations from its seats and their masks in, one legal id per game out."""
        observations = self._shaped(observe_games(self._batch, games, seats))
        masks = self._batch.legal_masks()[games]
        chosen = np.asarray(policy(observations, masks))
        name = opponent_name(policy)
        if chosen.shape != games.shape or chosen.dtype.kind not in "iu":
            raise ValueError(
                f"opponent policy {name}: expected {games.size} integer decision ids (one "
                f"per game it moves in), found shape {chosen.shape} of {chosen.dtype}"
            )
        ids = chosen.astype(np.int64)
        valid = (ids >= 0) & (ids < DECISION_IDS)
        legal = valid & masks[np.arange(games.size), np.where(valid, ids, 0)]
        if not legal.all():
            j = int(np.flatnonzero(~legal)[0])
            game = int(games[j])
            who = f"opponent policy {name} in game {game}"
            raise self._batch.state(game).illegal_action_error(int(ids[j]), who=who)
        return ids

    def _transition(
        self, rewards: npt.NDArray[np.float32], terminated: npt.NDArray[np.bool_]
    ) -> Transition:
        # copy=False writes into buffers that live as long as the env (no fresh pages to
        # fault in at every step: the arrays are several megabytes at batch 4,096).
        buffer = None if self.copy else self._observations
        masks = None if self.copy else self._masks
        to_move = self._batch.to_move()
        if self.opponents is not None:
            seats = self.seats
        else:
            # A game over (waiting for its reset) is seen from the seat that ended it.
            seats = np.where(to_move == TERMINAL, self._seen_from, to_move).astype(np.int8)
            self._seen_from = seats
        observations = self._shaped(self._batch.observations(seats, out=buffer))
        return Transition(
            observations,
            self._batch.legal_masks(out=masks),
            rewards,
            terminated | self._over,
            to_move,
        )

    def _shaped(self, vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return planes(vectors) if self.observation_name == "planes" else vectors

    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal decision id per game (-1 for a game that is over),
        drawn by the batch's own generator: the ``random`` baseline at batch speed."""
        return self._batch.sample_actions()

    # -- reading and setting games ------------------------------------------------------

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

    def render(self) -> tuple[Any, ...] | None:
        """Every game as text (``ansi``) or as a picture (``rgb_array``); keep ``n`` small."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return tuple(render_frame(self._batch.state(i), self.render_mode) for i in range(self.n))

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (no processes or files)."""

    def __repr__(self) -> str:
        mode = (
            "self-play"
            if self.opponents is None
            else "vs " + ",".join(opponent_name(b) for b in self.opponents)
        )
        return (
            f"VectorEnv(n={self.n}, players={self.players}, rules={self.rules}, {mode}, "
            f"backend={self.backend}, autoreset_mode={self.autoreset_mode.name})"
        )


def make_vector(
    num_envs: int = 1,
    opponents: Sequence[Opponent | BatchPolicy] | None = None,
    players: int | None = None,
    rules: RuleSet | str = "standard",
    *,
    seat: int | Literal["random", "rotate"] = 0,
    reward: RewardName = "rank",
    illegal_action: IllegalPolicy = "lose",
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    **options: Any,
) -> VectorEnv:
    """``Marrakech-v0``'s vector entry point: ``gymnasium.make_vec("Marrakech-v0",
    num_envs=...)`` is this :class:`VectorEnv`, with the parameters of the single
    environment (:class:`~marrakech.envs.gymnasium_env.MarrakechEnv`): ``random``
    opponents unless given, ``illegal_action="lose"``, Gymnasium's default autoreset
    (``NEXT_STEP``), ``seat="random"`` read as ``"rotate"``. Other keyword arguments go to
    :class:`VectorEnv` (``seed``, ``observation``, ``copy``, ``backend``...)."""
    if opponents is None:
        count = 4 if players is None else coerce_players(players)
        opponents = ("random",) * (count - 1)
    elif players is not None and coerce_players(players) != len(opponents) + 1:
        raise ValueError(f"{players} players need {players - 1} opponents, found {len(opponents)}")
    return VectorEnv(
        num_envs,
        len(opponents) + 1,
        rules,
        opponents=opponents,
        seat="rotate" if seat == "random" else seat,
        reward=reward,
        illegal_action=illegal_action,
        autoreset_mode=autoreset_mode,
        **options,
    )
