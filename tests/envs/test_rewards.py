"""The reward schemes ``margin`` (final score margin) and ``share`` (dense change in score
share) in every adapter that offers them: Gymnasium, PettingZoo and VectorEnv."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

from marrakech import parse_rules
from marrakech.envs import VectorEnv, marrakech_v0
from marrakech.envs.gymnasium_env import MarrakechEnv
from marrakech.envs.spec import (
    REWARDS,
    RewardName,
    final_margins,
    forfeit_scores,
    score_shares,
    step_rewards,
)
from marrakech.envs.vector import BackendName
from marrakech.state import State
from tests.envs.test_pettingzoo import DICT_OBSERVATION_ADVICE
from tests.envs.test_vector import backends

LOW_MONEY = parse_rules("custom:12/10/12:4:no-own")


def test_margins_and_shares_are_read_from_the_scores() -> None:
    """R20: a score is dirhams plus visible squares; margins sum to 0, shares to 1."""
    assert REWARDS == ("rank", "win", "margin", "share")
    assert final_margins((60, 45, 30)) == (22.5, 0.0, -22.5)
    assert sum(final_margins((13, 71, 40, 2))) == pytest.approx(0)
    assert score_shares((60, 20)) == (0.75, 0.25)
    assert step_rewards((30, 30), (40, 20), "share") == pytest.approx((1 / 6, -1 / 6))
    assert step_rewards((30, 30), (40, 20), "margin") == (0.0, 0.0)
    state = State.new(players=2)
    assert forfeit_scores(state, 0) == (0, state.scores()[1])


def play_gymnasium(
    env: MarrakechEnv, seed: int
) -> tuple[list[float], dict[str, Any], tuple[int, ...]]:
    """A random episode: the rewards, the final info, the scores at the first observation."""
    _, info = env.reset(seed=seed)
    start = env.game_state.scores()
    rng = np.random.default_rng(seed)
    rewards, done = [], False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, done, _, info = env.step(action)
        rewards.append(float(reward))
    return rewards, info, start


@pytest.mark.parametrize("seat", [0, 1])
def test_gymnasium_margin_is_the_final_score_margin(seat: int) -> None:
    env = MarrakechEnv(opponents=("greedy",), reward="margin", seat=seat)
    for seed in range(3):
        rewards, info, _ = play_gymnasium(env, seed)
        assert rewards[:-1] == [0.0] * (len(rewards) - 1)  # terminal only
        scores = info["scores"]
        assert rewards[-1] == scores[seat] - scores[1 - seat]


@pytest.mark.parametrize("seat", [0, 1])
def test_gymnasium_share_is_dense_and_adds_up_to_the_final_share(seat: int) -> None:
    env = MarrakechEnv(opponents=("random",), reward="share", seat=seat)
    for seed in range(3):
        rewards, info, start = play_gymnasium(env, seed)
        assert sum(1 for r in rewards[:-1] if r != 0.0) > len(rewards) // 4  # dense
        final = score_shares(info["scores"])[seat]
        assert sum(rewards) == pytest.approx(final - score_shares(start)[seat])


def test_gymnasium_checker_passes_with_every_reward() -> None:
    for reward in REWARDS:
        env = gymnasium.make("Marrakech-v0", opponents=("random", "random"), reward=reward)
        check_env(env.unwrapped)


def test_gymnasium_forfeit_costs_the_offenders_whole_score() -> None:
    env = MarrakechEnv(opponents=("random",), reward="margin")
    _, info = env.reset(seed=0)
    scores = env.game_state.scores()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, _ = env.step(illegal)
    assert done and reward == 0 - scores[1]


def pettingzoo_returns(
    players: int, reward: RewardName, seed: int
) -> tuple[dict[str, float], State]:
    env = marrakech_v0.env(players=players, reward=reward)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    nonzero_before_end = 0
    for agent in env.agent_iter():
        obs, gained, terminated, truncated, _ = env.last()
        seen[agent] += gained
        if gained and not terminated:
            nonzero_before_end += 1
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    if reward == "share":
        assert nonzero_before_end > 10
    return seen, env.unwrapped.game_state


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_margin_and_share_add_up_to_the_final_scores(players: int) -> None:
    for seed in range(3):
        margins, state = pettingzoo_returns(players, "margin", seed)
        if state.eliminated:  # an eliminated seat's margin is the one when it went out
            continue
        expected = final_margins(state.scores())
        assert [margins[f"seat_{s}"] for s in range(players)] == pytest.approx(expected)
        shares, state = pettingzoo_returns(players, "share", seed)
        start = 1 / players  # every seat starts with the same dirhams and no carpet
        expected = tuple(share - start for share in score_shares(state.scores()))
        assert [shares[f"seat_{s}"] for s in range(players)] == pytest.approx(expected)


@pytest.mark.filterwarnings(*DICT_OBSERVATION_ADVICE)
@pytest.mark.parametrize("reward", ["margin", "share"])
def test_pettingzoo_api_tests_pass_with_the_new_rewards(reward: RewardName) -> None:
    api_test(marrakech_v0.env(players=3, rules=LOW_MONEY, reward=reward), num_cycles=300)
    parallel_api_test(marrakech_v0.parallel_env(players=2, reward=reward), num_cycles=300)


def play_vector(env: VectorEnv, steps: int, seed: int) -> list[tuple[Any, ...]]:
    """Random legal steps; each step's rewards, terminations and infos."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, rewards, terminations, _, infos = env.step(actions)
        out.append((rewards, terminations, infos))
    return out


@pytest.mark.parametrize("backend", backends())
def test_vector_margin_sums_to_what_the_final_scores_say(backend: BackendName) -> None:
    env = VectorEnv(
        8, players=2, opponents=("greedy",), seat="rotate", reward="margin", backend=backend
    )
    ended = 0
    for rewards, terminations, infos in play_vector(env, 120, seed=1):
        assert (rewards[~terminations] == 0).all()
        for i in np.flatnonzero(terminations):
            scores = infos["final_info"]["scores"][i]
            seat = env.seats[i]
            assert rewards[i] == scores[seat] - scores[1 - seat]
            ended += 1
    assert ended >= 4


@pytest.mark.parametrize("mode", ["SAME_STEP", "NEXT_STEP", "DISABLED"])
@pytest.mark.parametrize("backend", backends())
def test_vector_share_against_bots_adds_up_to_the_final_share(
    backend: BackendName, mode: str
) -> None:
    bots = ("random", "random")
    env = VectorEnv(
        6, 3, opponents=bots, seat="rotate", reward="share", backend=backend, autoreset_mode=mode
    )
    env.reset(seed=2)
    start = np.array([score_shares(env.state(i).scores())[env.seats[i]] for i in range(env.n)])
    total = np.zeros(env.n)
    rng = np.random.default_rng(2)
    finished = np.zeros(env.n, dtype=bool)
    while not finished.all():
        masks = env.action_masks()  # a game over (NEXT_STEP, DISABLED) has none: any id
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, rewards, terminations, _, infos = env.step(actions)
        total += np.where(finished, 0.0, rewards)
        for i in np.flatnonzero(terminations & ~finished):
            ending = infos["final_info"] if mode == "SAME_STEP" else infos
            final = score_shares(tuple(ending["scores"][i]))[env.seats[i]]
            assert total[i] == pytest.approx(final - start[i], abs=1e-5)
            finished[i] = True


@pytest.mark.parametrize("backend", backends())
def test_vector_self_play_share_every_seat_every_step(backend: BackendName) -> None:
    env = VectorEnv(4, players=2, reward="share", backend=backend)
    totals = np.zeros((env.n, 2))
    done = np.zeros(env.n, dtype=bool)
    for _, terminations, infos in play_vector(env, 400, seed=3):
        every = infos["rewards"]
        assert np.allclose(every.sum(axis=1), 0.0, atol=1e-6)  # shares always sum to 1
        totals += np.where(done[:, None], 0.0, every)
        for i in np.flatnonzero(terminations & ~done):
            final = score_shares(tuple(infos["final_info"]["scores"][i]))
            assert totals[i] == pytest.approx([f - 0.5 for f in final], abs=1e-5)
            done[i] = True
    assert done.all()


def test_vector_forfeit_under_margin_counts_the_offender_at_zero() -> None:
    env = VectorEnv(2, players=2, opponents=("random",), reward="margin", illegal_action="lose")
    _, infos = env.reset(seed=0)
    scores = np.array([env.state(i).scores() for i in range(env.n)])
    illegal = np.array([int(np.flatnonzero(~m)[0]) for m in infos["action_mask"]])
    _, rewards, terminations, _, _ = env.step(illegal)
    assert terminations.all()
    assert rewards.tolist() == [-float(scores[0, 1]), -float(scores[1, 1])]
