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
  seat is eliminated, R13: its rank is fixed from then on); ``margin`` from the final
  scores (:func:`final_margins`), and the dense ``share`` at every step
  (:func:`step_rewards`, the change in each seat's share of the scores).

    >>> from marrakech import State
    >>> state = State.new(players=3)
    >>> observation(state, 0).shape, action_mask(state, 0).sum()
    ((474,), np.int64(3))
    >>> REWARDS
    ('rank', 'win', 'margin', 'share')
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
    "DENSE_REWARDS",
    "OBSERVATION_SIZE",
    "OUTCOME_REWARDS",
    "REWARDS",
    "SPEC_VERSION",
    "RewardName",
    "action_mask",
    "action_space",
    "check_reward",
    "coerce_players",
    "coerce_rules",
    "final_margins",
    "forfeit_outcome",
    "forfeit_scores",
    "observation",
    "observation_space",
    "outcome_rewards",
    "rank_rewards",
    "reward_arrays",
    "rewards_of",
    "score_shares",
    "share_arrays",
    "step_rewards",
    "win_rewards",
]

RewardName = Literal["rank", "win", "margin", "share"]
#: The reward schemes every adapter accepts (``reward=...``); ``rank`` is the default.
REWARDS: tuple[RewardName, ...] = ("rank", "win", "margin", "share")
#: The schemes read from the final ranking alone (:class:`~marrakech.outcome.Outcome`).
OUTCOME_REWARDS: tuple[RewardName, ...] = ("rank", "win")
#: The schemes that reward every step, not only the end (:func:`step_rewards`).
DENSE_REWARDS: tuple[RewardName, ...] = ("share",)


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


def rewards_of(
    outcome: Outcome, reward: RewardName = "rank", scores: Sequence[int] | None = None
) -> tuple[float, ...]:
    """Every seat's reward at the end for ``outcome``: :attr:`~Outcome.rank_rewards`
    (``rank``), :attr:`~Outcome.win_shares` (``win``), :func:`final_margins` of the final
    ``scores`` (``margin``, which needs them), or 0 (``share``: all of its reward comes
    step by step, :func:`step_rewards`). The one place a reward scheme is read.

    >>> rewards_of(Outcome((1, 1, 3)), "rank"), rewards_of(Outcome((1, 1, 3)), "win")
    ((0.5, 0.5, -1.0), (0.5, 0.5, 0.0))
    >>> rewards_of(Outcome((1, 2), over=True), "margin", scores=(50, 40))
    (10.0, -10.0)
    """
    if reward == "rank":
        return outcome.rank_rewards
    if reward == "win":
        return outcome.win_shares
    if reward == "margin":
        if scores is None:
            raise ValueError("the margin reward needs the final scores, found none")
        return final_margins(scores)
    if reward == "share":
        return (0.0,) * len(outcome.ranks)
    raise ValueError(check_reward_message(reward))


def final_margins(scores: Sequence[int]) -> tuple[float, ...]:
    """Each seat's score (R20) minus the mean score of the other seats (an eliminated
    seat scores the squares it still shows, R13 having taken its dirhams): the
    ``margin`` reward at the end of a game. They sum to 0.

    >>> final_margins((50, 40)), final_margins((30, 20, 10))
    ((10.0, -10.0), (15.0, 0.0, -15.0))
    """
    total = sum(scores)
    others = len(scores) - 1
    return tuple((others * s - (total - s)) / others for s in scores)


def score_shares(scores: Sequence[int]) -> tuple[float, ...]:
    """Each seat's share of the scores (R20): ``score / sum of scores`` (``1/players``
    each while they sum to 0). They sum to 1; ``1/players`` each at the opening.

    >>> score_shares((30, 30)), score_shares((60, 20)), score_shares((0, 0, 0))
    ((0.5, 0.5), (0.75, 0.25), (0.3333333333333333, 0.3333333333333333, 0.3333333333333333))
    """
    total = sum(scores)
    if total <= 0:
        return (1.0 / len(scores),) * len(scores)
    return tuple(s / total for s in scores)


def step_rewards(
    before: Sequence[int], after: Sequence[int], reward: RewardName
) -> tuple[float, ...]:
    """The dense part of a step's reward, per seat, from the scores before and after it:
    the change in each seat's :func:`score_shares` under ``share``, 0 under the other
    schemes. Over a whole game they add up to the final share minus the share at the
    start (``1/players`` at the opening).

    >>> step_rewards((30, 30), (33, 30), "share")[0] > 0, step_rewards((30, 30), (33, 30), "rank")
    (True, (0.0, 0.0))
    """
    if reward not in DENSE_REWARDS:
        return (0.0,) * len(after)
    old, new = score_shares(before), score_shares(after)
    return tuple(b - a for a, b in zip(old, new, strict=True))


def share_arrays(scores: npt.NDArray[np.integer]) -> npt.NDArray[np.float64]:
    """:func:`score_shares` of ``(k, players)`` scores, in float64."""
    values = np.asarray(scores, dtype=np.float64)
    total = values.sum(axis=1, keepdims=True)
    even = np.full_like(values, 1.0 / values.shape[1])
    return np.where(total > 0, values / np.where(total > 0, total, 1.0), even)


def reward_arrays(
    rank_values: npt.NDArray[np.float64],
    win_shares: npt.NDArray[np.float64],
    reward: RewardName,
    scores: npt.NDArray[np.integer] | None = None,
) -> npt.NDArray[np.float32]:
    """:func:`rewards_of` for arrays: the float32 rewards of games given by their rank
    values and win shares (each ``(k, players)``, as a batch engine's ``outcome_values``
    returns them, in float64) and, for ``margin``, their final ``scores``. ``rank`` is
    ``2 * value - 1``, which is
    :attr:`Outcome.rank_rewards <marrakech.outcome.Outcome.rank_rewards>` (in float32 the
    very same numbers, as ``tests/test_outcome_everywhere.py`` checks).

    >>> reward_arrays(np.array([[0.75, 0.75, 0.0]]), np.array([[0.5, 0.5, 0.0]]), "rank")
    array([[ 0.5,  0.5, -1. ]], dtype=float32)
    """
    if reward == "rank":
        return (2.0 * rank_values - 1.0).astype(np.float32)
    if reward == "win":
        return win_shares.astype(np.float32)
    if reward == "margin":
        if scores is None:
            raise ValueError("the margin reward needs the final scores, found none")
        values: npt.NDArray[np.float64] = np.asarray(scores, dtype=np.float64)
        others = values.shape[1] - 1
        total = values.sum(axis=1, keepdims=True)
        margins: npt.NDArray[np.float64] = (others * values - (total - values)) / others
        return margins.astype(np.float32)
    if reward == "share":
        return np.zeros(rank_values.shape, dtype=np.float32)
    raise ValueError(check_reward_message(reward))


def outcome_rewards(state: State, reward: RewardName = "rank") -> tuple[float, ...]:
    """The reward of every seat at the end of ``state``'s game (:meth:`State.outcome`,
    :meth:`State.scores`; use it at the end).

    Before the end only the entries of eliminated seats mean something: under ``rank``
    and ``win`` they are final (R13), whatever happens later: eliminated seats rank
    below every seat still in, in reverse order of elimination (R21), so their rank is
    fixed when they go out; and they cannot win (``win`` gives every seat 0 until the
    game is over). Under ``margin`` they are the margins as the scores stand.
    """
    return rewards_of(state.outcome(), reward, state.scores())


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


def forfeit_scores(state: State, seat: int) -> tuple[int, ...]:
    """The scores a forfeit of ``seat`` ends with: the position's (R20), the offender's
    set to 0 (it gives up its dirhams and its squares), so that under ``margin`` and
    ``share`` too an illegal action costs the offender the most it can.

    >>> forfeit_scores(State.new(players=3), 1)
    (30, 0, 30)
    """
    scores = list(state.scores())
    scores[seat] = 0
    return tuple(scores)


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
