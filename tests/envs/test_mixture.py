"""Opponents drawn per game from a mixture (envs/mixture.py) in VectorEnv and
Marrakech-v0: each kind with its weight under a seed, and each game played by its kind."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import pytest
from gymnasium.utils.env_checker import check_env

from marrakech.bots import make_bot
from marrakech.envs import VectorEnv
from marrakech.envs.gymnasium_env import MarrakechEnv
from marrakech.envs.mixture import Mixture
from marrakech.envs.vector import BackendName
from tests.envs.test_vector import backends


class Recorder:
    """A batched policy that plays the first legal id and counts its calls and the
    games it is asked about."""

    def __init__(self, name: str) -> None:
        self.__name__ = name
        self.calls = 0
        self.asked = 0

    def __call__(
        self, observations: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int64]:
        self.calls += 1
        self.asked += len(masks)
        chosen: npt.NDArray[np.int64] = masks.argmax(axis=1).astype(np.int64)
        return chosen


def test_a_mixture_checks_its_entries() -> None:
    assert Mixture([("random", 1), ("greedy", 1)]).probabilities.tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="at least one"):
        Mixture({})
    with pytest.raises(ValueError, match="weight of greedy must be positive and finite, found 0"):
        Mixture({"random": 1, "greedy": 0})
    with pytest.raises(TypeError, match="weight of random must be a number"):
        Mixture({"random": "1"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bot name, a Bot or a batched policy"):
        Mixture([(3, 1.0)])
    inner = Mixture({"random": 1})
    with pytest.raises(TypeError, match=r"batched policy, found Mixture\(\{random: 1\}\)"):
        Mixture([(inner, 1.0)])  # no mixture of mixtures
    with pytest.raises(ValueError, match="2 players need 1 opponents"):
        VectorEnv(2, players=2, opponents=inner)


def kind_counts(seed: int, n: int = 3000) -> list[int]:
    env = VectorEnv(n, players=2, opponents=(Mixture({"random": 1, "greedy": 3}),), seed=seed)
    counts: list[int] = np.bincount(env.opponent_kinds[:, 0], minlength=2).tolist()
    return counts


def test_vector_env_draws_each_kind_with_its_weight_under_a_seed() -> None:
    counts = kind_counts(seed=5)
    assert counts == kind_counts(seed=5)  # the seed fixes the draws
    assert counts != kind_counts(seed=6)
    # 3000 draws at p = 3/4: the standard deviation is 24 games
    assert abs(counts[1] - 2250) < 4 * 24
    env = VectorEnv(3000, players=2, opponents=(Mixture({"random": 1, "greedy": 3}),), seed=0)
    env.reset(seed=5)
    assert np.bincount(env.opponent_kinds[:, 0], minlength=2).tolist() == counts


@pytest.mark.parametrize("backend", backends())
def test_every_game_is_played_by_the_kind_drawn_for_it(backend: BackendName) -> None:
    """A league in one batch: random, greedy, a count-budget search and two frozen
    policies, each seat of each game drawn from it, redrawn when a game restarts."""
    first, second = Recorder("first"), Recorder("second")
    league = Mixture(
        [
            ("random", 1.0),
            ("greedy", 1.0),
            ("search@iterations=4", 0.5),
            (first, 1.0),
            (second, 1.0),
        ]
    )
    env = VectorEnv(24, players=3, opponents=(league, "random"), seed=1, backend=backend)
    assert repr(env).startswith("VectorEnv(n=24, players=3") and "mixture(random,greedy" in repr(
        env
    )
    _, infos = env.reset(seed=1)
    rng = np.random.default_rng(1)
    played = np.zeros(len(league), dtype=np.int64)
    ended = 0
    for _ in range(400):
        kinds_before = env.opponent_kinds[:, 0].copy()
        asked = (first.asked, second.asked)
        # the kinds of the games where the mixture's seat is to move now
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        _, _, terminations, _, infos = env.step(actions)
        if terminations.any():
            final = infos["final_info"]
            assert (final["opponents"][terminations, 0] == kinds_before[terminations]).all()
            assert (final["opponents"][terminations, 1] == 0).all()
            ended += int(terminations.sum())
        played += np.bincount(kinds_before, minlength=len(league))
        if first.asked > asked[0]:
            assert (kinds_before == 3).any()
        if second.asked > asked[1]:
            assert (kinds_before == 4).any()
    assert ended >= 10 and (played > 0).all()
    assert first.calls > 0 and second.calls > 0


def test_a_policy_is_asked_only_about_its_own_games() -> None:
    first, second = Recorder("first"), Recorder("second")
    mixture = Mixture([(first, 1.0), (second, 1.0)])
    env = VectorEnv(64, players=2, opponents=(mixture,), seat=1, seed=3)
    env.reset(seed=3)  # seat 1 learns: the mixture's seat 0 moves first in every game
    mine = env.opponent_kinds[:, 0]
    # seat 0 orients then places (R9, R14) in every game before seat 1 decides: each
    # policy is asked twice about exactly the games drawn for it, once per decision
    assert (first.calls, second.calls) == (2, 2)
    assert (first.asked, second.asked) == (2 * int((mine == 0).sum()), 2 * int((mine == 1).sum()))


def test_gymnasium_draws_each_episodes_bots_with_their_weights() -> None:
    mixture = Mixture({"random": 1, "greedy": 1, make_bot("policy-2p"): 2})
    env = MarrakechEnv(opponents=(mixture,))
    seen: dict[tuple[str, ...], int] = {}
    for seed in range(400):
        _, info = env.reset(seed=seed)
        seen[info["opponents"]] = seen.get(info["opponents"], 0) + 1
        assert info["opponents"][0] == env.bot_at(1).name
    assert set(seen) == {("random",), ("greedy",), ("policy-2p",)}
    assert abs(seen[("policy-2p",)] - 200) < 4 * 10  # p = 1/2, sd 10
    again = MarrakechEnv(opponents=(mixture,))
    assert [again.reset(seed=s)[1]["opponents"] for s in range(20)] == [
        env.reset(seed=s)[1]["opponents"] for s in range(20)
    ]
    checked: Any = gymnasium.make("Marrakech-v0", opponents=(mixture,))
    check_env(checked.unwrapped)
    with pytest.raises(TypeError, match="a bot name or a Bot"):
        MarrakechEnv(opponents=(Mixture([(Recorder("policy"), 1.0)]),))
