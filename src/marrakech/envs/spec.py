"""The shared environment spec ``marrakech_v0``: observations, actions and rewards.

Every adapter (PettingZoo, Gymnasium, OpenSpiel, the batched :class:`VectorEnv`) uses the
functions of this module, so an agent trained in one runs unchanged in the others:

* **actions**: the 87 decision ids of the core (``0..2`` orient L S R, ``3..86`` carpet
  slots), with a legal-action mask; chance steps (rolls, draws) happen inside the
  environments with their seeded generator;
* **observations**: :func:`observation`, the core's ``marrakech_v0`` encoder
  (:mod:`marrakech.observation`, 474 floats in ``[0, 1]``) as a float32 numpy array seen
  from one seat;
* **rewards**: :func:`outcome_rewards`, from how the game ended
  (:class:`marrakech.outcome.Outcome`: the final ranks, R20, R21) when it ends (or when a
  seat is eliminated, R13: its rank is fixed from then on).

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
from marrakech.observation import OBSERVATION_SIZE, SPEC_VERSION, encode_observation_f32
from marrakech.outcome import Outcome
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
    "forfeit_outcome",
    "observation",
    "observation_space",
    "outcome_rewards",
    "rank_rewards",
    "reward_arrays",
    "rewards_of",
    "win_rewards",
]

RewardName = Literal["rank", "win"]
#: The reward schemes every adapter accepts (``reward=...``); ``rank`` is the default.
REWARDS: tuple[RewardName, ...] = ("rank", "win")


def observation(state: State, seat: int) -> npt.NDArray[np.float32]:
    """The ``marrakech_v0`` observation of ``state`` seen from ``seat`` (474 float32)."""
    return np.frombuffer(encode_observation_f32(state, seat), dtype=np.float32)


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


def rewards_of(outcome: Outcome, reward: RewardName = "rank") -> tuple[float, ...]:
    """Every seat's reward for ``outcome``: :attr:`~Outcome.rank_rewards` (``rank``) or
    :attr:`~Outcome.win_shares` (``win``). The one place a reward scheme is read.

    >>> rewards_of(Outcome((1, 1, 3)), "rank"), rewards_of(Outcome((1, 1, 3)), "win")
    ((0.5, 0.5, -1.0), (0.5, 0.5, 0.0))
    """
    if reward == "rank":
        return outcome.rank_rewards
    if reward == "win":
        return outcome.win_shares
    raise ValueError(check_reward_message(reward))


def reward_arrays(
    rank_values: npt.NDArray[np.float64], win_shares: npt.NDArray[np.float64], reward: RewardName
) -> npt.NDArray[np.float32]:
    """:func:`rewards_of` for arrays: the float32 rewards of games given by their rank
    values and win shares (each ``(k, players)``, as a batch engine's ``outcome_values``
    returns them, in float64). ``rank`` is ``2 * value - 1``, which is
    :attr:`Outcome.rank_rewards <marrakech.outcome.Outcome.rank_rewards>` (in float32 the
    very same numbers, as ``tests/test_outcome_everywhere.py`` checks).

    >>> reward_arrays(np.array([[0.75, 0.75, 0.0]]), np.array([[0.5, 0.5, 0.0]]), "rank")
    array([[ 0.5,  0.5, -1. ]], dtype=float32)
    """
    if reward == "rank":
        return (2.0 * rank_values - 1.0).astype(np.float32)
    if reward == "win":
        return win_shares.astype(np.float32)
    raise ValueError(check_reward_message(reward))


def outcome_rewards(state: State, reward: RewardName = "rank") -> tuple[float, ...]:
    """The reward of every seat for the outcome of ``state`` (:meth:`State.outcome`; use
    it at the end).

    Before the end only the entries of eliminated seats mean something, and they are
    final (R13), whatever happens later: eliminated seats rank below every seat still
    in, in reverse order of elimination (R21), so their rank is fixed when they go out;
    and they cannot win (``win`` gives every seat 0 until the game is over).
    """
    return rewards_of(state.outcome(), reward)


def rank_rewards(ranks: Sequence[int]) -> tuple[float, ...]:
    """The ``rank`` rewards of final ``ranks``: ``Outcome(ranks).rank_rewards``, the mean
    over the other seats of +1 (ranked above it), 0 (same rank) or -1 (ranked below it).

    >>> rank_rewards((1, 2)), rank_rewards((1, 1)), rank_rewards((1, 1, 3))
    ((1.0, -1.0), (0.0, 0.0), (0.5, 0.5, -1.0))
    """
    return Outcome(tuple(ranks)).rank_rewards


def win_rewards(ranks: Sequence[int]) -> tuple[float, ...]:
    """The ``win`` rewards of final ``ranks``: ``Outcome(ranks).win_shares``, ``1/k`` to
    each of the ``k`` seats sharing the win (R21), 0 to everyone else.

    >>> win_rewards((3, 1, 1))
    (0.0, 0.5, 0.5)
    """
    return Outcome(tuple(ranks)).win_shares


def forfeit_outcome(state: State, seat: int) -> Outcome:
    """How the game ends when ``seat`` forfeits it (an illegal action under
    ``illegal_action="lose"``): the seat ranks last of the seats still in, the others
    still in share the win, and the eliminated seats keep their ranks below them all
    (R21), so the rewards they were given when they went out stay theirs.

    Every reward scheme keeps its sum (``rank``: 0, ``win``: 1), and the offender gets
    the worst reward still open to it: -1 under ``rank`` unless a seat is already out.

    >>> from marrakech import State
    >>> forfeit_outcome(State.new(players=3), 0).ranks
    (3, 1, 1)
    >>> rewards_of(forfeit_outcome(State.new(players=3), 0), "win")
    (0.0, 0.5, 0.5)
    """
    if not state.is_in(seat):
        raise ValueError(f"seat {seat} is out of the game: it cannot forfeit it")
    ranks = list(state.ranks())
    still_in = state.seats_in
    for other in still_in:
        ranks[other] = len(still_in) if other == seat else 1
    return Outcome(tuple(ranks), over=True)


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
