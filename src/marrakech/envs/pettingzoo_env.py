"""PettingZoo AEC environment ``marrakech_v0``: every seat is an agent.

Agents are ``seat_0`` .. ``seat_{players-1}``; the agent selected is the seat to decide
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

A seat that is eliminated (R13) is terminated at once with its final reward (its rank is
fixed from then on, R21); the others are terminated when the game ends (R19).
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from marrakech.actions import ACTIONS, DECISION_IDS
from marrakech.envs.common import (
    ChanceFunction,
    IllegalPolicy,
    check_illegal_policy,
    check_render_mode,
    coerce_state,
    render_board,
)
from marrakech.envs.spec import (
    RewardName,
    action_mask,
    action_space,
    check_reward,
    coerce_players,
    coerce_rules,
    decision_id,
    observation,
    observation_space,
    outcome_rewards,
    worst_reward,
)
from marrakech.playout import sample_outcome
from marrakech.rules import RuleSet
from marrakech.state import State

__all__ = ["ChanceFunction", "MarrakechAEC", "agent_name", "env", "raw_env"]


def agent_name(seat: int) -> str:
    """The agent of a seat: ``seat_0``, ``seat_1``..."""
    return f"seat_{seat}"


class MarrakechAEC(AECEnv[str, dict[str, npt.NDArray[Any]], int | None]):  # type: ignore[misc]
    """The raw (unwrapped) AEC environment; build it with :func:`env` or :func:`raw_env`.

    Parameters: ``players`` (2..4), ``rules`` (a :class:`RuleSet` or a word such as
    ``"bga"``), ``reward`` (``"rank"`` or ``"win"``, see ``docs/environments.md``),
    ``render_mode`` (``"ansi"`` or ``"human"``), ``illegal_action`` (``"raise"``, the
    default: a masked policy never sends one, so an illegal id is a bug to hear about;
    ``"lose"``: the offender is ranked last with the worst reward and the game ends),
    ``chance`` (a :data:`ChanceFunction`).

    ``reset(options=...)`` accepts ``{"state": State or position string}`` to start from
    any position, and ``{"first_seat": k}``.
    """

    metadata = {  # noqa: RUF012 (PettingZoo reads a class attribute)
        "render_modes": ["ansi", "human"],
        "name": "marrakech_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        players: int = 4,
        rules: RuleSet | str = "standard",
        *,
        reward: RewardName = "rank",
        render_mode: str | None = None,
        illegal_action: IllegalPolicy = "raise",
        chance: ChanceFunction | None = None,
    ) -> None:
        super().__init__()
        self.players = coerce_players(players)
        self.rules = coerce_rules(rules)
        self.reward_name = check_reward(reward)
        self.render_mode = check_render_mode(render_mode)
        self.illegal_action = check_illegal_policy(illegal_action)
        self._chance: ChanceFunction = chance or sample_outcome
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
        self._rng = random.Random()
        self._state = State.new(self.players, self.rules)
        self._start = self._state
        #: Every action id applied since the reset, chance outcomes included (a game
        #: record: ``GameRecord.from_actions`` replays it exactly).
        self.history: list[int] = []
        self.agents: list[str] = []

    # -- spaces -------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the game -----------------------------------------------------------------

    def state(self) -> npt.NDArray[np.float32]:
        """The global state for centralised training: the ``marrakech_v0`` vector seen
        from seat 0, so colours and seats keep their absolute order (perfect information:
        every observation holds the same facts, only the viewpoint turns)."""
        return observation(self._state, 0)

    @property
    def game_state(self) -> State:
        """The core :class:`State` (immutable): render it, search from it, record it."""
        return self._state

    @property
    def start_state(self) -> State:
        """The position of the last reset (before its chance steps)."""
        return self._start

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        options = options or {}
        if "state" in options:
            start = coerce_state(options["state"], self.players)
        else:
            start = State.new(self.players, self.rules, int(options.get("first_seat", 0)))
        self._start = start
        self.history = []
        self._state = self._advance(start)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._finish(())
        self.agent_selection = self._selected()
        self._deads_step_first()

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        seat = self._seat_of[agent]
        mask = action_mask(self._state, seat)
        if self.agent_selection != agent:
            mask[:] = 0
        return {"observation": observation(self._state, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: expected a decision id, found None")
        seat = self._seat_of[agent]
        before = self._state
        self._cumulative_rewards[agent] = 0.0
        for other in self.rewards:
            self.rewards[other] = 0.0
        aid = decision_id(action)
        legal = 0 <= aid < DECISION_IDS and before.legal_mask()[aid]
        if not legal:
            if self.illegal_action == "raise":
                raise before.illegal_action_error(aid, who=agent)
            self._forfeit(seat, aid)
        else:
            self.history.append(aid)
            self._state = self._advance(before.apply(ACTIONS[aid]))
            self._finish(before.eliminated)
        self.agent_selection = self._selected(default=agent)
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _advance(self, state: State) -> State:
        """Resolve chance steps, recording their outcomes in the history."""
        while state.is_chance:
            outcome = self._chance(state, self._rng)
            self.history.append(outcome.id)
            state = state.apply(outcome)
        return state

    def _finish(self, out_before: tuple[int, ...]) -> None:
        """Terminate the seats eliminated since ``out_before``, or everyone at the end."""
        state = self._state
        ended = state.is_terminal
        newly_out = [s for s in state.eliminated if s not in out_before]
        if not (ended or newly_out):
            return
        rewards = outcome_rewards(state, self.reward_name)
        for agent in self.agents:
            seat = self._seat_of[agent]
            if self.terminations[agent]:
                continue
            if ended or seat in newly_out:
                self.rewards[agent] = rewards[seat]
                self.terminations[agent] = True
                self.infos[agent] = {"ranks": state.ranks(), "scores": state.scores()}

    def _forfeit(self, seat: int, aid: int) -> None:
        """``illegal_action="lose"``: the offender is last, the others share the rest."""
        worst = worst_reward(self.reward_name)
        live = [a for a in self.agents if not self.terminations[a]]
        others = [a for a in live if self._seat_of[a] != seat]
        for agent in live:
            if self._seat_of[agent] == seat:
                self.rewards[agent] = worst
                self.infos[agent] = {"illegal_action": aid}
            else:
                # Zero-sum under "rank": the others split what the offender loses.
                share = (-worst / len(others)) if self.reward_name == "rank" else 0.0
                self.rewards[agent] = share if others else 0.0
            self.terminations[agent] = True

    def _selected(self, default: str | None = None) -> str:
        seat = self._state.to_move
        if seat >= 0:
            return self.possible_agents[seat]
        return default if default is not None else self.possible_agents[self._state.turn]

    # -- display --------------------------------------------------------------------

    def render(self) -> str | None:
        """The board and status as text (the core's renderer); printed in ``human`` mode."""
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode: pass render_mode='ansi' or 'human'",
                stacklevel=2,
            )
            return None
        return render_board(self._state, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds no window, file or process."""

    def __str__(self) -> str:
        return "marrakech_v0"


def raw_env(
    players: int = 4,
    rules: RuleSet | str = "standard",
    **kwargs: Any,
) -> MarrakechAEC:
    """The unwrapped AEC environment (see :class:`MarrakechAEC` for the parameters)."""
    return MarrakechAEC(players, rules, **kwargs)


def env(
    players: int = 4, rules: RuleSet | str = "standard", **kwargs: Any
) -> AECEnv[Any, Any, Any]:
    """The AEC environment wrapped the PettingZoo way (order enforcing, bounds checks)."""
    from pettingzoo.utils import wrappers

    wrapped: AECEnv[Any, Any, Any] = raw_env(players, rules, **kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped
