"""Gymnasium environment ``Marrakech-v0``: one learning seat against bots.

The other seats are played by bots chosen by name (``make_bot``: ``random``, ``greedy``,
``expectimax``, ``mcts``, or a level such as ``easy``) or given as :class:`Bot` objects;
they and the chance steps move inside :meth:`MarrakechEnv.step`, so every observation is
a decision of the learning seat. Observations and actions follow ``marrakech_v0``;
``info["action_mask"]`` and :meth:`MarrakechEnv.action_masks` give the legal decisions
(the method is what masked-policy libraries such as sb3-contrib's ``MaskablePPO`` call)::

    >>> import gymnasium, numpy as np
    >>> import marrakech.envs
    >>> env = gymnasium.make("Marrakech-v0", opponents=("random",) * 3)
    >>> observation, info = env.reset(seed=3)
    >>> rng = np.random.default_rng(0)
    >>> done = False
    >>> while not done:
    ...     action = int(rng.choice(np.flatnonzero(info["action_mask"])))
    ...     observation, reward, done, truncated, info = env.step(action)
    >>> done, -1.0 <= reward <= 1.0
    (True, True)

The episode ends when the game ends or when the learning seat is eliminated (R13; its
rank, hence its reward, is final then). Rewards are 0 until that last step, except under
the dense ``reward="share"`` (the change in the seat's share of the scores at each step).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
import numpy.typing as npt

from marrakech.actions import ACTIONS, DECISION_IDS
from marrakech.bots import Bot
from marrakech.envs.common import (
    RENDER_MODES,
    ChanceFunction,
    IllegalPolicy,
    Opponent,
    check_illegal_policy,
    check_render_mode,
    coerce_state,
    make_opponents,
    render_frame,
)
from marrakech.envs.mixture import Mixture
from marrakech.envs.planes import planes, planes_space
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

__all__ = ["MarrakechEnv"]


class MarrakechEnv(gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One seat learns; the others are bots. See ``docs/environments.md``.

    Parameters:
        opponents: one bot (name or :class:`Bot`) per other seat, clockwise from the
            learning seat; default ``random`` for each. An entry may be a
            :class:`~marrakech.envs.mixture.Mixture` of bots: that seat's bot is drawn
            from it at every reset (``info["opponents"]`` names the bots drawn). Their
            number sets the player count unless ``players`` is given too (then they must agree).
        players: 2..4 (default 4, or ``len(opponents) + 1``).
        rules: a :class:`RuleSet` or a word (``standard``, ``bga``, ``custom:...``).
        seat: the learning seat (default 0), or ``"random"`` to draw it at each reset.
        reward: ``"rank"`` (default, in [-1, 1]), ``"win"`` (1 split among winners),
            ``"margin"`` (the final score minus the others' mean) or ``"share"`` (dense:
            the change in the seat's share of the scores at every step); see
            ``docs/environments.md``.
        render_mode: ``"ansi"`` (the text board), ``"human"`` (printed), ``"rgb_array"``
            (a picture of the board), or None; any other raises ``TypeError``.
        illegal_action: ``"lose"`` (default: the episode ends, the learning seat ranked
            last of the seats still in, so unmasked samplers such as Gymnasium's checker
            work) or ``"raise"``.
        chance: a function choosing chance outcomes (default: true probabilities).
        observation: ``"vector"`` (default, the 474 floats) or ``"planes"`` (the same
            values as ``(42, 7, 7)`` planes for convolutional networks,
            :mod:`marrakech.envs.planes`).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        opponents: Sequence[Opponent | Mixture] | None = None,
        players: int | None = None,
        rules: RuleSet | str = "standard",
        *,
        seat: int | Literal["random"] = 0,
        reward: RewardName = "rank",
        render_mode: str | None = None,
        illegal_action: IllegalPolicy = "lose",
        chance: ChanceFunction | None = None,
        observation: Literal["vector", "planes"] = "vector",
    ) -> None:
        if opponents is None:
            count = 4 if players is None else coerce_players(players)
            opponents = ("random",) * (count - 1)
        elif isinstance(opponents, str):
            raise TypeError(
                f"opponents must be a sequence with one bot per other seat, such as "
                f"({opponents!r},) * 3, found the string {opponents!r}"
            )
        count = len(opponents) + 1
        if players is not None and coerce_players(players) != count:
            raise ValueError(
                f"{players} players need {players - 1} opponents, found {len(opponents)}"
            )
        self.players = coerce_players(count)
        self.rules = coerce_rules(rules)
        # Per other seat its bots: one, or a mixture's, drawn at each reset.
        self._slots = [
            make_opponents(o.kinds if isinstance(o, Mixture) else [o])  # type: ignore[arg-type]
            for o in opponents
        ]
        self._mixtures = [o if isinstance(o, Mixture) else None for o in opponents]
        #: The bot at each other seat in this episode, clockwise from the learning seat.
        self.opponents = [kinds[0] for kinds in self._slots]
        if seat != "random" and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < count
        ):
            raise ValueError(f"seat must be 0..{count - 1} or 'random', found {seat!r}")
        self.seat_option = seat
        self.seat = 0 if seat == "random" else seat
        self.reward_name = check_reward(reward)
        self.render_mode = check_render_mode(render_mode)
        self.illegal_action = check_illegal_policy(illegal_action)
        self._chance: ChanceFunction = chance or sample_outcome
        if observation not in ("vector", "planes"):
            raise ValueError(f"observation must be 'vector' or 'planes', found {observation!r}")
        self.observation_name = observation
        space = planes_space() if observation == "planes" else observation_space()
        self.observation_space = space  # type: ignore[assignment]
        self.action_space = action_space()
        self._rng = random.Random(0)
        self._state = State.new(self.players, self.rules)
        self.history: list[int] = []
        self._over = True  # until the first reset
        # The scores (R20) at the last observation, for the dense rewards.
        self._scores: tuple[int, ...] = self._state.scores()

    @property
    def game_state(self) -> State:
        """The core :class:`State` now (the learning seat is to move unless it ended)."""
        return self._state

    def bot_at(self, seat: int) -> Bot:
        """The bot playing ``seat`` (not the learning seat)."""
        if seat == self.seat:
            raise ValueError(f"seat {seat} is the learning seat")
        return self.opponents[(seat - self.seat) % self.players - 1]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        # Every draw of the episode comes from np_random, so a seed fixes the episode.
        self._rng = random.Random(int(self.np_random.integers(0, 2**62)))
        options = options or {}
        if self.seat_option == "random":
            self.seat = int(self.np_random.integers(0, self.players))
        for k, mixture in enumerate(self._mixtures):
            if mixture is not None:
                self.opponents[k] = self._slots[k][int(mixture.draw(self.np_random, 1)[0])]
        if "state" in options:
            start = coerce_state(options["state"], self.players)
        else:
            start = State.new(self.players, self.rules, int(options.get("first_seat", 0)))
        self.history = []
        self._state = self._advance(start)
        self._scores = self._state.scores()
        self._over = self._state.is_terminal or not self._state.is_in(self.seat)
        return self._observation(self._state), self._info()

    def step(
        self, action: Any
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        state = self._state
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        aid = decision_id(action)
        if not (0 <= aid < DECISION_IDS and state.legal_mask()[aid]):
            if self.illegal_action == "raise":
                raise state.illegal_action_error(aid, who=f"seat {self.seat}")
            info = self._info()
            info["illegal_action"] = aid
            self._over = True
            outcome = forfeit_outcome(state, self.seat)
            # The final info of every ending holds the ranks and scores, a forfeit's too.
            info["ranks"], info["scores"] = outcome.ranks, state.scores()
            scores = forfeit_scores(state, self.seat)
            forfeit = rewards_of(outcome, self.reward_name, scores)[self.seat]
            forfeit += self._dense(scores)
            return self._observation(state), float(forfeit), True, False, info
        self.history.append(aid)
        self._state = self._advance(state.apply(ACTIONS[aid]))
        done = self._state.is_terminal or not self._state.is_in(self.seat)
        self._over = done
        reward = outcome_rewards(self._state, self.reward_name)[self.seat] if done else 0.0
        reward += self._dense(self._state.scores())
        info = self._info()
        if done:
            info["ranks"] = self._state.ranks()
            info["scores"] = self._state.scores()
        if self.render_mode == "human":
            self.render()
        return self._observation(self._state), float(reward), done, False, info

    def _dense(self, scores: tuple[int, ...]) -> float:
        """The learning seat's dense reward since its last observation (``share``)."""
        before, self._scores = self._scores, scores
        return step_rewards(before, scores, self.reward_name)[self.seat]

    def _advance(self, state: State) -> State:
        """Chance and the bots move until the learning seat decides or its game ends."""
        while not state.is_terminal and state.is_in(self.seat):
            if state.is_chance:
                action = self._chance(state, self._rng)
            elif state.to_move == self.seat:
                break
            else:
                action = self.bot_at(state.to_move).choose(state, self._rng)
            self.history.append(action.id)
            state = state.apply(action)
        return state

    def _observation(self, state: State) -> npt.NDArray[np.float32]:
        vector = observation(state, self.seat)
        return planes(vector) if self.observation_name == "planes" else vector

    def _info(self) -> dict[str, Any]:
        info = {"action_mask": action_mask(self._state, self.seat), "seat": self.seat}
        if any(mixture is not None for mixture in self._mixtures):
            info["opponents"] = tuple(bot.name for bot in self.opponents)
        return info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The 87 legal-decision flags of the learning seat (bool), for masked policies."""
        return action_mask(self._state, self.seat).astype(bool)

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The board and status as text (``ansi``; printed in ``human`` mode) or as an
        ``(H, W, 3)`` uint8 picture (``rgb_array``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode: pass render_mode='ansi', 'human' "
                "or 'rgb_array'"
            )
            return None
        return render_frame(self._state, self.render_mode)
