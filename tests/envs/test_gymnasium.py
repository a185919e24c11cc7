"""Gymnasium Marrakech-v0: Gymnasium's checker, bots by name, masks, episode ends."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import marrakech.envs
from marrakech import IllegalActionError, parse_rules
from marrakech.bots import BOTS, make_bot
from marrakech.envs.gymnasium_env import MarrakechEnv
from marrakech.envs.planes import planes as to_planes
from marrakech.envs.spec import observation, outcome_rewards
from marrakech.observation import PHASE_OFFSET, SEAT_TOP_FIRST, SEATS_OFFSET

LOW_MONEY = parse_rules("custom:12/10/12:4:no-own")
STRONGER = [name for name in ("greedy",) if name in BOTS]


def run_episode(env: gymnasium.Env[Any, Any], seed: int) -> tuple[float, int, dict[str, Any]]:
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, done, reward = 0, False, 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, gained, done, truncated, info = env.step(action)
        reward = float(gained)  # gymnasium types a reward as SupportsFloat
        assert not truncated
        steps += 1
    return reward, steps, info


def test_registered_on_import_and_passes_check_env() -> None:
    assert marrakech.envs.GYMNASIUM_ID in gymnasium.registry
    env = gymnasium.make("Marrakech-v0", opponents=("random",) * 3, render_mode="ansi")
    check_env(env.unwrapped)
    with pytest.warns(UserWarning, match="not having a spec"):
        check_env(MarrakechEnv(opponents=("random",), rules="bga"))


@pytest.mark.parametrize("opponents", [("random",) * 3, ("random", *STRONGER)])
def test_a_whole_episode_against_bots_by_name(opponents: tuple[str, ...]) -> None:
    env = gymnasium.make("Marrakech-v0", opponents=opponents)
    reward, steps, info = run_episode(env, seed=1)
    assert isinstance(env.unwrapped, MarrakechEnv)
    state = env.unwrapped.game_state
    assert state.is_terminal or not state.is_in(0)
    assert -1.0 <= reward <= 1.0 and steps >= 10
    assert info["ranks"] == state.ranks() and not info["action_mask"].any()


def test_observations_and_masks_are_the_learning_seats() -> None:
    env = MarrakechEnv(opponents=("random", "random"), seat=2)
    obs, info = env.reset(seed=4)
    state = env.game_state
    assert state.to_move == 2  # seats 0 and 1 (bots) moved inside reset
    assert np.array_equal(obs, observation(state, 2))
    assert np.array_equal(env.action_masks(), np.asarray(state.legal_mask()))
    assert env.action_masks().dtype == np.bool_ and info["action_mask"].dtype == np.int8
    assert info["seat"] == 2


def test_random_seat_changes_with_the_seed() -> None:
    env = MarrakechEnv(players=4, seat="random")
    seats = {env.reset(seed=seed)[1]["seat"] for seed in range(12)}
    assert seats == {0, 1, 2, 3}


def test_the_episode_ends_when_the_learning_seat_is_eliminated() -> None:
    """R13: the seat's rank is final once it is out, so its episode ends there."""
    for seed in range(30):
        env = MarrakechEnv(opponents=("random",) * 3, rules=LOW_MONEY)
        reward, _, _ = run_episode(env, seed)
        state = env.game_state
        if not state.is_terminal:
            assert not state.is_in(0)
            assert reward == outcome_rewards(state)[0] < 0
            return
    pytest.fail("the learning seat was never eliminated in 30 low-money games")


def test_illegal_actions_lose_by_default_or_raise() -> None:
    env = MarrakechEnv(opponents=("random",))
    env.reset(seed=0)
    _, reward, done, truncated, info = env.step(50)
    assert (reward, done, truncated, info["illegal_action"]) == (-1.0, True, False, 50)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    strict = MarrakechEnv(opponents=("random",), illegal_action="raise")
    strict.reset(seed=0)
    found = r"seat 0: illegal action id 50 \(.*\) in the ORIENT phase .*: expected one of "
    found += r"0 \(L\), 1 \(S\), 2 \(R\)"
    with pytest.raises(IllegalActionError, match=found):
        strict.step(50)


def test_bot_objects_and_win_reward() -> None:
    env = MarrakechEnv(opponents=(make_bot("random"),), reward="win")
    reward, _, info = run_episode(env, seed=2)
    assert reward in (0.0, 0.5, 1.0)
    assert (reward > 0) == (info["ranks"][0] == 1)


def test_seeded_episodes_repeat() -> None:
    first = MarrakechEnv(opponents=("random",) * 2)
    second = MarrakechEnv(opponents=("random",) * 2)
    assert run_episode(first, 9)[:2] == run_episode(second, 9)[:2]
    assert first.history == second.history


def test_render_modes() -> None:
    env = MarrakechEnv(opponents=("random",), render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "seat 1 [BP]" in text
    frames = gymnasium.make("Marrakech-v0", opponents=("random",) * 3, render_mode="rgb_array")
    frames.reset(seed=0)
    frame = frames.render()
    assert isinstance(frame, np.ndarray)
    assert frame.shape == (432, 384, 3) and frame.dtype == np.uint8
    assert MarrakechEnv.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    # Another mode is a TypeError, which gymnasium.make passes on (and which
    # Stable-Baselines3's make_vec_env takes as "retry without a render mode").
    with (
        pytest.warns(UserWarning, match="not in the possible render_modes"),
        pytest.raises(TypeError, match="render_mode must be None or one of"),
    ):
        gymnasium.make("Marrakech-v0", render_mode="video")


def test_stable_baselines3_make_vec_env_with_its_defaults() -> None:
    """make_vec_env asks for render_mode="rgb_array" first: the env now offers it."""
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    vec = env_util.make_vec_env("Marrakech-v0", n_envs=2, seed=0)
    observations = vec.reset()
    assert observations.shape == (2, 474) and vec.render_mode == "rgb_array"
    masks = np.stack(vec.env_method("action_masks"))
    observations, _, dones, _ = vec.step(masks.argmax(axis=1))
    assert observations.shape == (2, 474) and not dones.any()
    vec.close()


def test_a_forfeit_ranks_the_learner_last_of_the_seats_still_in() -> None:
    """With an opponent already out (R13), an illegal action ranks the learning seat
    just above it: under rank, -1 against each seat still in, +1 against the one out."""
    for seed in range(40):
        env = MarrakechEnv(opponents=("random",) * 3, rules=LOW_MONEY)
        _, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = False
        while not done and not env.game_state.eliminated:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, done, _, info = env.step(action)
        if done:
            continue
        _, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
        assert done and "illegal_action" in info
        out = len(env.game_state.eliminated)
        assert reward == pytest.approx((out - (3 - out)) / 3)
        return
    pytest.fail("no opponent was eliminated before the learning seat in 40 games")


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="4 players need 3 opponents, found 1"):
        MarrakechEnv(opponents=("random",), players=4)
    with pytest.raises(TypeError, match="one bot per other seat"):
        MarrakechEnv(opponents="greedy")
    with pytest.raises(ValueError, match="unknown bot 'grandmaster'"):
        MarrakechEnv(opponents=("grandmaster",))
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1"):
        MarrakechEnv(opponents=("random",), seat=3)


def test_planes_observations_pass_the_checker() -> None:
    env = gymnasium.make("Marrakech-v0", opponents=("random",) * 3, observation="planes")
    check_env(env.unwrapped)
    planes, _ = env.reset(seed=1)
    assert planes.shape == (42, 7, 7) and env.observation_space.contains(planes)
    assert isinstance(env.unwrapped, MarrakechEnv)
    assert np.array_equal(planes, to_planes(observation(env.unwrapped.game_state, 0)))


def test_r32_the_orientation_observation_shows_the_placers_next_carpet() -> None:
    # Two players orient last (R32): the learner's pile has revealed his next carpet (R7)
    # before he orients, so the observation and mask at that decision already show it.
    env = MarrakechEnv(players=2, opponents=("random",), rules="standard+orient-last")
    rng = np.random.default_rng(3)
    shown = 0
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            state = env.game_state
            if obs[PHASE_OFFSET] == 1.0 and state.carpets_in_hand(0):  # ORIENT, carpets left
                own = SEATS_OFFSET + SEAT_TOP_FIRST  # relative seat 0: the learner
                assert obs[own] + obs[own + 1] == 1.0  # one of his two colours is on top
                assert state.pile_top(0) is not None and state.phase.name == "ORIENT"
                assert list(np.flatnonzero(env.action_masks())) == [0, 1, 2]
                shown += 1
            legal = np.flatnonzero(env.action_masks())
            obs, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            done = terminated or truncated
    assert shown > 30
