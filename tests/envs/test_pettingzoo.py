"""PettingZoo AEC marrakech_v0: PettingZoo's own API and seed tests, plus the game's rules."""

from __future__ import annotations

import importlib
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from marrakech import IllegalActionError, State, action_from_id, parse_rules
from marrakech.envs import marrakech_v0
from marrakech.envs.spec import observation, outcome_rewards
from marrakech.record import GameRecord

# The module, not the function that pettingzoo.test re-exports under the same name.
pz_state = importlib.import_module("pettingzoo.test.state_test")
LOW_MONEY = parse_rules("custom:12/10/12:4:no-own")
# api_test's generic advice for Dict observations (the layout of PettingZoo's own classic
# games, observation + action_mask): expected, not a defect.
DICT_OBSERVATION_ADVICE = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]


def play_random(env, seed: int) -> dict[str, float]:
    """Play a whole game with masked random actions; return the rewards each agent saw."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seen[agent] = seen.get(agent, 0.0) + reward
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.filterwarnings(*DICT_OBSERVATION_ADVICE)
@pytest.mark.parametrize(("players", "rules"), [(2, "standard"), (3, "standard"), (4, "bga")])
def test_pettingzoo_api_test(players: int, rules: str) -> None:
    api_test(marrakech_v0.env(players=players, rules=rules), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_seed_test(players: int) -> None:
    seed_test(lambda: marrakech_v0.env(players=players), num_cycles=500)


@pytest.mark.filterwarnings(*DICT_OBSERVATION_ADVICE)
def test_raw_env_passes_the_api_test_with_eliminations_and_win_reward() -> None:
    api_test(marrakech_v0.raw_env(players=4, rules=LOW_MONEY, reward="win"), num_cycles=1000)


def test_agents_masks_and_observations_follow_the_spec() -> None:
    env = marrakech_v0.raw_env(players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["seat_0", "seat_1", "seat_2"]
    assert env.agent_selection == "seat_0"
    obs = env.observe("seat_0")
    assert obs["action_mask"].tolist() == [1, 1, 1] + [0] * 84
    assert not env.observe("seat_1")["action_mask"].any()  # a waiting seat has no moves
    assert np.array_equal(obs["observation"], observation(env.game_state, 0))
    env.step(2)  # turn right, then the roll happens inside (R9, R10)
    assert env.game_state.phase.name == "PLACE" and env.agent_selection == "seat_0"
    assert [action_from_id(a).token() for a in env.history][:1] == ["R"]
    assert action_from_id(env.history[1]).is_chance


def test_global_state_is_the_observation_from_seat_0() -> None:
    env = marrakech_v0.raw_env(players=4)
    env.reset(seed=3)
    env.step(0)
    assert env.state_space.contains(env.state())
    assert np.array_equal(env.state(), observation(env.game_state, 0))
    # PettingZoo's own checks of state() (its state_test needs a parallel env as well).
    # Its test_state samples unmasked actions: an illegal one ends the game (rank last).
    sampled = marrakech_v0.raw_env(players=4, illegal_action="lose")
    pz_state.test_state_space(sampled)
    pz_state.test_state(sampled, num_cycles=100)


def test_history_is_an_exact_game_record() -> None:
    env = marrakech_v0.raw_env(players=2, rules="bga")
    play_random(env, seed=5)
    record = GameRecord.from_actions(
        State.new(2, env.rules), [action_from_id(a) for a in env.history]
    )
    assert record.final_state() == env.game_state
    assert env.game_state.is_terminal


def test_rewards_sum_to_zero_and_match_the_final_ranks() -> None:
    for seed in range(3):
        env = marrakech_v0.raw_env(players=4, rules=LOW_MONEY)
        seen = play_random(env, seed)
        expected = outcome_rewards(env.game_state)
        assert seen == {f"seat_{s}": expected[s] for s in range(4)}
        assert abs(sum(seen.values())) < 1e-9


def test_an_eliminated_seat_is_terminated_at_once() -> None:
    """R13: an eliminated seat takes no more turns; its agent leaves with its final reward."""
    for seed in range(20):
        env = marrakech_v0.raw_env(players=4, rules=LOW_MONEY)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while env.agents and not env.game_state.eliminated:
            obs, *_ = env.last()
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        if env.game_state.is_terminal or not env.game_state.eliminated:
            continue
        out = f"seat_{env.game_state.eliminated[0]}"
        assert env.terminations[out] and env.agent_selection == out
        assert env.rewards[out] == -1.0  # the first out ranks last (R21)
        assert not any(env.terminations[a] for a in env.agents if a != out)
        env.step(None)
        assert out not in env.agents and len(env.agents) == 3
        return
    pytest.fail("no elimination in 20 low-money games")


def test_illegal_actions_raise_or_lose() -> None:
    env = marrakech_v0.raw_env(players=3)
    env.reset(seed=0)
    # The core's message (State.illegal_action_error), prefixed with the agent.
    found = r"seat_0: illegal action id 10 \(.*\) in the ORIENT phase .*: expected one of 0 \(L\)"
    with pytest.raises(IllegalActionError, match=found):
        env.step(10)
    with pytest.raises(TypeError, match="decision id"):
        env.step("L")  # type: ignore[arg-type]
    losing = marrakech_v0.raw_env(players=3, illegal_action="lose")
    losing.reset(seed=0)
    losing.step(40)
    assert losing.rewards == {"seat_0": -1.0, "seat_1": 0.5, "seat_2": 0.5}
    assert all(losing.terminations.values())
    assert losing.infos["seat_0"] == {"illegal_action": 40}


def test_reset_options_start_position_and_first_seat() -> None:
    env = marrakech_v0.raw_env(players=3)
    env.reset(seed=1, options={"first_seat": 2})
    assert env.agent_selection == "seat_2"
    start = State.new(3).apply(action_from_id(0)).apply(action_from_id(88))
    env.reset(options={"state": start.notation()})
    assert env.game_state == start and env.agent_selection == "seat_0"
    with pytest.raises(ValueError, match="expected 3 players"):
        env.reset(options={"state": State.new(2)})


def test_ansi_render_uses_the_core_renderer() -> None:
    env = marrakech_v0.env(players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seat 0 [RY]" in text and "ORIENT: seat 0" in text and "▲" in text
    with pytest.raises(ValueError, match="render_mode"):
        marrakech_v0.raw_env(render_mode="rgb_array")


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        marrakech_v0.env(players=5)
    with pytest.raises(ValueError, match="reward must be one of"):
        marrakech_v0.env(reward="score")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="illegal_action"):
        marrakech_v0.env(illegal_action="ignore")  # type: ignore[arg-type]
