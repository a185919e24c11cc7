"""The shared environment spec ``marrakech_v0``: observations, actions and rewards.

Every adapter (PettingZoo, Gymnasium, OpenSpiel, the batched :class:`VectorEnv`) uses the
functions of this module, so an agent trained in one runs unchanged in the others:

* **actions**: the 87 decision ids of the core (``0..2`` orient L S R, ``3..86`` carpet
  slots), with a legal-action mask; chance steps (rolls, draws) happen inside the
  environments with their seeded generator;
* **observations**: :func:`observation`, the core's ``marrakech_v0`` encoder
  (:mod:`marrakech.observation`, 474 floats in ``[0, 1]``) as a float32 numpy array seen
  from one seat;
* **rewards**: :func:`outcome_rewards`, from the final ranks (R20, R21) when a game ends
  (or when a seat is eliminated, R13: its rank is fixed from then on).

    >>> from marrakech import State
    >>> state = State.new(players=3)
    >>> observation(state, 0).shape, action_mask(state, 0).sum()
    ((474,), np.int64(3))
    >>> REWARDS
    ('rank', 'win')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from marrakech.actions import DECISION_IDS
from marrakech.observation import OBSERVATION_SIZE, SPEC_VERSION, encode_observation
from marrakech.rules import STANDARD, RuleSet, check_players, parse_rules
from marrakech.state import State

__all__ = [
    "DECISION_IDS",
    "OBSERVATION_SIZE",
    "REWARDS",
    "SPEC_VERSION",
    "RewardName",
    "action_mask",
    "action_space",
    "check_reward",
    "coerce_players",
    "coerce_rules",
    "observation",
    "observation_space",
    "outcome_rewards",
    "rank_rewards",
    "win_rewards",
]

RewardName = Literal["rank", "win"]
#: The reward schemes every adapter accepts (``reward=...``); ``rank`` is the default.
REWARDS: tuple[RewardName, ...] = ("rank", "win")


def observation(state: State, seat: int) -> npt.NDArray[np.float32]:
    """The ``marrakech_v0`` observation of ``state`` seen from ``seat`` (474 float32)."""
    return np.asarray(encode_observation(state, seat), dtype=np.float32)


def action_mask(state: State, seat: int | None = None) -> npt.NDArray[np.int8]:
    """The 87 legal-decision flags (int8, 1 = legal).

    All zeros at chance nodes, at the end, and when ``seat`` is given and is not the seat
    to move (PettingZoo's convention for agents that wait).
    """
    if seat is not None and state.to_move != seat:
        return np.zeros(DECISION_IDS, dtype=np.int8)
    return np.asarray(state.legal_mask(), dtype=np.int8)


def observation_space() -> spaces.Box:
    """``Box(0, 1, (474,), float32)``."""
    return spaces.Box(low=0.0, high=1.0, shape=(OBSERVATION_SIZE,), dtype=np.float32)


def action_space() -> spaces.Discrete:
    """``Discrete(87)``: the decision ids of the core."""
    return spaces.Discrete(DECISION_IDS)


def rank_rewards(ranks: Sequence[int]) -> tuple[float, ...]:
    """Pairwise rank reward in ``[-1, 1]``: the mean over the other seats of +1 (ranked
    above it), 0 (same rank: a shared win or an equal place) or -1 (ranked below it).

    Zero-sum; a sole winner gets +1, the last seat -1, and a 2-player draw 0 each.

    >>> rank_rewards((1, 3, 2, 4))
    (1.0, -0.3333333333333333, 0.3333333333333333, -1.0)
    >>> rank_rewards((1, 1, 3))
    (0.5, 0.5, -1.0)
    """
    players = len(ranks)
    return tuple(
        sum((ranks[j] > ranks[i]) - (ranks[j] < ranks[i]) for j in range(players)) / (players - 1)
        for i in range(players)
    )


def win_rewards(ranks: Sequence[int]) -> tuple[float, ...]:
    """Win/loss reward: 1 to a sole winner, ``1/k`` to each of ``k`` seats sharing the win
    (R21), 0 to everyone else (the rewards sum to 1).

    >>> win_rewards((2, 1, 1))
    (0.0, 0.5, 0.5)
    """
    winners = sum(1 for rank in ranks if rank == 1)
    return tuple(1.0 / winners if rank == 1 else 0.0 for rank in ranks)


def outcome_rewards(state: State, reward: RewardName = "rank") -> tuple[float, ...]:
    """The reward of every seat for the outcome of ``state`` (use it at the end).

    Before the end only the entries of eliminated seats mean something, and they are
    final (R13), whatever happens later: eliminated seats rank below every seat still
    in, in reverse order of elimination (R21), so their rank is fixed when they go out.
    """
    ranks = state.ranks()
    if reward == "rank":
        return rank_rewards(ranks)
    if reward == "win":
        # Eliminated seats cannot win (R21), even while the game goes on.
        wins = win_rewards(ranks)
        return tuple(wins[s] if state.is_in(s) else 0.0 for s in range(len(ranks)))
    raise ValueError(check_reward_message(reward))


def worst_reward(reward: RewardName) -> float:
    """The reward of the last place (an illegal action under ``illegal_action='lose'``)."""
    return -1.0 if reward == "rank" else 0.0


def check_reward_message(reward: object) -> str:
    return f"reward must be one of {', '.join(REWARDS)}, found {reward!r}"


def check_reward(reward: Any) -> RewardName:
    """``reward`` if it names a scheme of :data:`REWARDS`, else a clear ``ValueError``."""
    if reward not in REWARDS:
        raise ValueError(check_reward_message(reward))
    return reward  # type: ignore[no-any-return]


def coerce_rules(rules: RuleSet | str) -> RuleSet:
    """A :class:`RuleSet` from a rule set or its word (``standard``, ``bga``, ``custom:...``)."""
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, str):
        return parse_rules(rules)
    raise TypeError(f"rules must be a RuleSet or a rule set word, found {rules!r}")


def coerce_players(players: object) -> int:
    """``players`` as an int 2..4, else a clear error."""
    if isinstance(players, bool) or not isinstance(players, int | np.integer):
        raise TypeError(f"players must be an integer 2..4, found {players!r}")
    check_players(int(players))
    return int(players)


def decision_id(action: Any) -> int:
    """An action id from an int-like (Python int, numpy integer, 0-d array)."""
    if isinstance(action, bool):
        raise TypeError(f"expected a decision id 0..{DECISION_IDS - 1}, found {action!r}")
    try:
        value = int(action)
    except (TypeError, ValueError):
        raise TypeError(f"expected a decision id 0..{DECISION_IDS - 1}, found {action!r}") from None
    if bool(value != action):
        raise TypeError(f"expected an integer decision id, found {action!r}")
    return value


DEFAULT_RULES = STANDARD
