"""PettingZoo environments ``marrakech_v0``: every seat is an agent, AEC and parallel.

Agents are ``seat_0`` .. ``seat_{players-1}``; the agent to act is the seat to decide
(orient, then place). Chance steps (rolls, and draws at 2 players) are resolved inside
with the environment's seeded generator. Observations are dicts with the shared
``marrakech_v0`` vector and the legal-action mask (all zeros for a seat that waits)::

    >>> from marrakech.envs import marrakech_v0
    >>> env = marrakech_v0.env(players=3)
    >>> env.reset(seed=7)
    >>> for agent in env.agent_iter():
    ...     observation, reward, terminated, truncated, info = env.last()
    ...     if terminated or truncated:
    ...         action = None
    ...     else:
    ...         action = env.action_space(agent).sample(observation["action_mask"])
    ...     env.step(action)
    >>> env.unwrapped.game_state.is_terminal
    True

The parallel environment (:func:`marrakech_v0.parallel_env`) plays the same game: each
step every live agent sends an action, and only the one of the agent to move counts (it
is the only one with legal actions in its mask)::

    >>> env = marrakech_v0.parallel_env(players=2)
    >>> observations, infos = env.reset(seed=1)  # seeds the dice, not the samplers:
    >>> for number, agent in enumerate(env.possible_agents):
    ...     _ = env.action_space(agent).seed(number)
    >>> while env.agents:
    ...     actions = {
    ...         agent: env.action_space(agent).sample(observations[agent]["action_mask"])
    ...         for agent in env.agents
    ...     }
    ...     observations, rewards, terminations, truncations, infos = env.step(actions)
    >>> sorted(rewards.values())
    [-1.0, 1.0]

A seat that is eliminated (R13) is terminated at once with its final reward (its rank is
fixed from then on, R21); the others are terminated when the game ends (R19). By default
an illegal action ends the game with the offender ranked last (``illegal_action="lose"``,
PettingZoo's classic games do the same), so samplers that ignore the mask run too.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.env_logger import EnvLogger

from marrakech.actions import ACTIONS, DECISION_IDS
from marrakech.envs.common import (
    RENDER_MODES,
    ChanceFunction,
    IllegalPolicy,
    check_illegal_policy,
    check_render_mode,
    coerce_state,
    render_frame,
)
from marrakech.envs.spec import (
    RewardName,
    action_mask,
    action_space,
    check_reward,
    coerce_players,
    coerce_rules,
    decision_id,
    forfeit_outcome,
    forfeit_scores,
    observation,
    observation_space,
    outcome_rewards,
    rewards_of,
    step_rewards,
)
from marrakech.playout import sample_outcome
from marrakech.rules import RuleSet
from marrakech.state import State

__all__ = [
    "ChanceFunction",
    "MarrakechAEC",
    "MarrakechParallel",
    "agent_name",
    "env",
    "parallel_env",
    "raw_env",
]

Observation = dict[str, npt.NDArray[Any]]
#: What a step ends: per seat whose game is over, its final reward and its info.
Ended = dict[int, tuple[float, dict[str, Any]]]
#: A step's rewards to the seats it did not end (the dense ``share``; 0 otherwise).
Dense = dict[int, float]

METADATA: dict[str, Any] = {
    "render_modes": list(RENDER_MODES),
    "name": "marrakech_v0",
    "is_parallelizable": False,  # turn-based: use parallel_env(), not aec_to_parallel
    "render_fps": 2,
}


def agent_name(seat: int) -> str:
    """The agent of a seat: ``seat_0``, ``seat_1``..."""
    return f"seat_{seat}"


class _Game:
    """The game both environments run: the core state, chance resolved inside with a
    seeded generator, the actions applied, and which seats each step ends."""

    def __init__(
        self,
        players: int,
        rules: RuleSet,
        reward: RewardName,
        illegal_action: IllegalPolicy,
        chance: ChanceFunction | None,
    ) -> None:
        self.players, self.rules, self.reward = players, rules, reward
        self.illegal_action = illegal_action
        self.chance: ChanceFunction = chance or sample_outcome
        self.rng = random.Random()
        self.state = self.start = State.new(players, rules)
        #: Every action id applied since the reset, chance outcomes included.
        self.history: list[int] = []
        #: The seats whose game is over (eliminated, or the game ended or was forfeited).
        self.done: set[int] = set()
        #: The scores (R20) after the last step, for the dense rewards (step_rewards).
        self.scores: tuple[int, ...] = self.state.scores()

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> Ended:
        """A new game (from ``options["state"]`` or ``options["first_seat"]``); the seats
        that start out of it (a start position with eliminated seats)."""
        if seed is not None:
            self.rng = random.Random(seed)
        options = options or {}
        if "state" in options:
            start = coerce_state(options["state"], self.players)
        else:
            start = State.new(self.players, self.rules, int(options.get("first_seat", 0)))
        self.start, self.history, self.done = start, [], set()
        self.state = self._advance(start)
        self.scores = self.state.scores()
        return self._ended()

    @property
    def over(self) -> bool:
        return len(self.done) == self.players

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        """The seat's legal decisions (int8): none while it waits or once its game ends."""
        if seat in self.done:
            return np.zeros(DECISION_IDS, dtype=np.int8)
        return action_mask(self.state, seat)

    def play(self, seat: int, action: Any, who: str) -> tuple[Ended, Dense]:
        """Apply ``seat``'s decision id (and the chance after it); the seats it ends, and
        the rewards of the seats still playing."""
        aid = decision_id(action)
        before = self.state
        if not (0 <= aid < DECISION_IDS and before.legal_mask()[aid]):
            if self.illegal_action == "raise":
                raise before.illegal_action_error(aid, who=who)
            EnvLogger.warn_on_illegal_move()
            return self._settle(forfeit_scores(before, seat), self._forfeit(seat, aid))
        self.history.append(aid)
        self.state = self._advance(before.apply(ACTIONS[aid]))
        return self._settle(self.state.scores(), self._ended())

    def _settle(self, after: tuple[int, ...], ended: Ended) -> tuple[Ended, Dense]:
        """Add the step's dense rewards (the change in score shares under ``share``) to
        the final rewards of the seats it ended, and give them to the others still in."""
        dense = step_rewards(self.scores, after, self.reward)
        self.scores = after
        live: Dense = {}
        for seat in range(self.players):
            if seat in ended:
                reward, info = ended[seat]
                ended[seat] = (reward + dense[seat], info)
            elif seat not in self.done:
                live[seat] = dense[seat]
        return ended, live

    def _advance(self, state: State) -> State:
        """Resolve chance steps, recording their outcomes in the history."""
        while state.is_chance:
            outcome = self.chance(state, self.rng)
            self.history.append(outcome.id)
            state = state.apply(outcome)
        return state

    def _ended(self) -> Ended:
        """The seats eliminated since the last step, or everyone left at the end."""
        state = self.state
        ending = [
            seat
            for seat in range(self.players)
            if seat not in self.done and (state.is_terminal or not state.is_in(seat))
        ]
        if not ending:
            return {}
        rewards = outcome_rewards(state, self.reward)
        info = {"ranks": state.ranks(), "scores": state.scores()}
        self.done.update(ending)
        return {seat: (rewards[seat], dict(info)) for seat in ending}

    def _forfeit(self, seat: int, aid: int) -> Ended:
        """``illegal_action="lose"``: the offender ranks last of the seats still in
        (:func:`~marrakech.envs.spec.forfeit_outcome`), and the game is over."""
        outcome = forfeit_outcome(self.state, seat)
        rewards = rewards_of(outcome, self.reward, forfeit_scores(self.state, seat))
        ending = [other for other in range(self.players) if other not in self.done]
        self.done.update(ending)
        ended: Ended = {}
        for other in ending:
            info: dict[str, Any] = {"ranks": outcome.ranks, "scores": self.state.scores()}
            if other == seat:
                info["illegal_action"] = aid
            ended[other] = (rewards[other], info)
        return ended


class _Common:
    """What the AEC and the parallel environment share: options, spaces, the game."""

    possible_agents: list[str]
    agents: list[str]

    def __init__(
        self,
        players: int = 4,
        rules: RuleSet | str = "standard",
        *,
        reward: RewardName = "rank",
        render_mode: str | None = None,
        illegal_action: IllegalPolicy = "lose",
        chance: ChanceFunction | None = None,
    ) -> None:
        self.players = coerce_players(players)
        self.rules = coerce_rules(rules)
        self.reward_name = check_reward(reward)
        self.render_mode = check_render_mode(render_mode)
        self.illegal_action = check_illegal_policy(illegal_action)
        self._game = _Game(self.players, self.rules, self.reward_name, self.illegal_action, chance)
        self.possible_agents = [agent_name(seat) for seat in range(self.players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": observation_space(),
                    "action_mask": spaces.Box(0, 1, shape=(DECISION_IDS,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: action_space() for agent in self.possible_agents}
        #: The global state of :meth:`state` (for centralised critics).
        self.state_space = observation_space()
        self.agents = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def state(self) -> npt.NDArray[np.float32]:
        """The global state for centralised training: the ``marrakech_v0`` vector seen
        from seat 0, so colours and seats keep their absolute order (perfect information:
        every observation holds the same facts, only the viewpoint turns)."""
        return observation(self._game.state, 0)

    @property
    def game_state(self) -> State:
        """The core :class:`State` (immutable): render it, search from it, record it."""
        return self._game.state

    @property
    def start_state(self) -> State:
        """The position of the last reset (before its chance steps)."""
        return self._game.start

    @property
    def history(self) -> list[int]:
        """Every action id applied since the reset, chance outcomes included (a game
        record: ``GameRecord.from_actions`` replays it exactly)."""
        return self._game.history

    def _observation(self, agent: str, mask: bool = True) -> Observation:
        seat = self._seat_of[agent]
        legal = self._game.mask(seat)
        if not mask:
            legal[:] = 0
        return {"observation": observation(self._game.state, seat), "action_mask": legal}

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The board as text (``ansi``; printed in ``human`` mode) or as a picture
        (``rgb_array``)."""
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode: pass render_mode='ansi', "
                "'human' or 'rgb_array'",
                stacklevel=2,
            )
            return None
        return render_frame(self._game.state, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds no window, file or process."""

    def __str__(self) -> str:
        return "marrakech_v0"


class MarrakechAEC(_Common, AECEnv[str, Observation, int | None]):  # type: ignore[misc]
    """The raw (unwrapped) AEC environment; build it with :func:`env` or :func:`raw_env`.

    Parameters: ``players`` (2..4), ``rules`` (a :class:`RuleSet` or a word such as
    ``"bga"``), ``reward`` (``"rank"``, ``"win"``, ``"margin"`` or the dense ``"share"``,
    see ``docs/environments.md``),
    ``render_mode`` (``"ansi"``, ``"human"`` or ``"rgb_array"``), ``illegal_action``
    (``"lose"``, the default: the offender ranks last and the game ends; ``"raise"``:
    an :class:`~marrakech.IllegalActionError`), ``chance`` (a :data:`ChanceFunction`).

    ``reset(options=...)`` accepts ``{"state": State or position string}`` to start from
    any position, and ``{"first_seat": k}``.
    """

    metadata = dict(METADATA)  # noqa: RUF012 (PettingZoo reads a class attribute)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        AECEnv.__init__(self)
        _Common.__init__(self, *args, **kwargs)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._record(self._game.reset(seed, options))
        self.agent_selection = self._selected()
        self._deads_step_first()

    def observe(self, agent: str) -> Observation:
        return self._observation(agent, mask=agent == self.agent_selection)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: expected a decision id, found None")
        self._cumulative_rewards[agent] = 0.0
        for other in self.rewards:
            self.rewards[other] = 0.0
        ended, dense = self._game.play(self._seat_of[agent], action, agent)
        for seat, reward in dense.items():
            self.rewards[agent_name(seat)] = reward
        self._record(ended)
        self.agent_selection = self._selected(default=agent)
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _record(self, ended: Ended) -> None:
        for seat, (reward, info) in ended.items():
            agent = agent_name(seat)
            self.rewards[agent] = reward
            self.terminations[agent] = True
            self.infos[agent] = info

    def _selected(self, default: str | None = None) -> str:
        seat = self._game.state.to_move
        if seat >= 0:
            return self.possible_agents[seat]
        return default if default is not None else self.possible_agents[self._game.state.turn]


class MarrakechParallel(_Common, ParallelEnv[str, Observation, int | None]):  # type: ignore[misc]
    """The parallel environment: :class:`MarrakechAEC`'s game and parameters, stepped
    with one action per live agent, of which only the agent to move's counts.

    ``step`` returns observations, rewards, terminations, truncations and infos for the
    agents live before the step; an agent leaves ``agents`` once terminated.
    """

    metadata = dict(METADATA)  # noqa: RUF012 (PettingZoo reads a class attribute)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self._game.reset(seed, options)
        self.agents = [a for a in self.possible_agents if self._seat_of[a] not in self._game.done]
        observations = {agent: self._observation(agent) for agent in self.agents}
        return observations, {agent: {} for agent in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        if not self.agents:
            raise RuntimeError("the game is over: call reset() before step()")
        seat = self._game.state.to_move
        agent = agent_name(seat)
        if agent not in actions:
            raise ValueError(
                f"{agent} is to move: actions must hold its decision id, found {sorted(actions)}"
            )
        ended, dense = self._game.play(seat, actions[agent], agent)
        live = self.agents
        rewards = dict.fromkeys(live, 0.0)
        for other, reward in dense.items():
            rewards[agent_name(other)] = reward
        terminations = dict.fromkeys(live, False)
        infos: dict[str, dict[str, Any]] = {other: {} for other in live}
        for out, (reward, info) in ended.items():
            name = agent_name(out)
            rewards[name], terminations[name], infos[name] = reward, True, info
        observations = {other: self._observation(other) for other in live}
        self.agents = [other for other in live if not terminations[other]]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, dict.fromkeys(live, False), infos


def raw_env(players: int = 4, rules: RuleSet | str = "standard", **kwargs: Any) -> MarrakechAEC:
    """The unwrapped AEC environment (see :class:`MarrakechAEC` for the parameters)."""
    return MarrakechAEC(players, rules, **kwargs)


def env(
    players: int = 4, rules: RuleSet | str = "standard", **kwargs: Any
) -> AECEnv[Any, Any, Any]:
    """The AEC environment wrapped as PettingZoo's classic games are (bounds checked,
    order enforced; illegal actions lose the game by default)."""
    from pettingzoo.utils import wrappers

    wrapped: AECEnv[Any, Any, Any] = raw_env(players, rules, **kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


def parallel_env(
    players: int = 4, rules: RuleSet | str = "standard", **kwargs: Any
) -> MarrakechParallel:
    """The parallel environment (see :class:`MarrakechParallel`; the parameters are
    :class:`MarrakechAEC`'s)."""
    return MarrakechParallel(players, rules, **kwargs)
