"""PettingZoo marrakech_v0: PettingZoo's own tests of the AEC and the parallel environment
(api, seed, parallel api, parallel seed, state, render), plus the game's rules."""

from __future__ import annotations

import importlib
import random
from typing import Any

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

from marrakech import IllegalActionError, RuleSet, State, action_from_id, parse_rules
from marrakech.envs import marrakech_v0
from marrakech.envs.spec import OUTCOME_REWARDS, RewardName, observation, outcome_rewards
from marrakech.record import GameRecord

# The module, not the function that pettingzoo.test re-exports under the same name.
pz_state = importlib.import_module("pettingzoo.test.state_test")
# The warning PettingZoo's classic games give for an illegal move (the tests that sample
# without the mask make many).
ILLEGAL_MOVE = "ignore:.*Illegal move made"
LOW_MONEY = parse_rules("custom:12/10/12:4:no-own")
# api_test's generic advice for Dict observations (the layout of PettingZoo's own classic
# games, observation + action_mask): expected, not a defect.
DICT_OBSERVATION_ADVICE = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]


def play_random(env: AECEnv[Any, Any, Any], seed: int) -> dict[str, float]:
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


def test_illegal_actions_lose_by_default_or_raise() -> None:
    losing = marrakech_v0.raw_env(players=3)
    losing.reset(seed=0)
    losing.step(40)
    assert losing.rewards == {"seat_0": -1.0, "seat_1": 0.5, "seat_2": 0.5}
    assert all(losing.terminations.values())
    assert losing.infos["seat_0"]["illegal_action"] == 40
    assert losing.infos["seat_1"]["ranks"] == (3, 1, 1)  # the offender last (forfeit_outcome)
    env = marrakech_v0.raw_env(players=3, illegal_action="raise")
    env.reset(seed=0)
    # The core's message (State.illegal_action_error), prefixed with the agent.
    found = r"seat_0: illegal action id 10 \(.*\) in the ORIENT phase .*: expected one of 0 \(L\)"
    with pytest.raises(IllegalActionError, match=found):
        env.step(10)
    notation: Any = "L"  # a token, not a decision id: refused at run time
    with pytest.raises(TypeError, match="decision id"):
        env.step(notation)


def play_to_forfeit(env: AECEnv[Any, Any, Any], seed: int, players: int) -> dict[str, float]:
    """A low-money game played at random until a seat is out (R13), then the seat to move
    sends an illegal action; the rewards each agent saw, summed."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    seen = dict.fromkeys(env.possible_agents, 0.0)
    forfeited = False
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seen[agent] += reward
        if terminated or truncated:
            env.step(None)
        elif env.unwrapped.game_state.eliminated and not forfeited:
            forfeited = True
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        else:
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return seen


@pytest.mark.filterwarnings(ILLEGAL_MOVE)
@pytest.mark.parametrize("reward", OUTCOME_REWARDS)
@pytest.mark.parametrize("players", [3, 4])
def test_the_declared_reward_sum_holds_when_a_seat_forfeits(
    reward: RewardName, players: int
) -> None:
    """rank: zero-sum, win: constant sum 1, also when the offender is not the first out:
    eliminated seats keep their rank below it (forfeit_outcome)."""
    total = 0.0 if reward == "rank" else 1.0
    checked = 0
    for seed in range(12):
        env = marrakech_v0.env(players=players, rules=LOW_MONEY, reward=reward)
        seen = play_to_forfeit(env, seed, players)
        assert sum(seen.values()) == pytest.approx(total)
        if env.unwrapped.game_state.eliminated and not env.unwrapped.game_state.is_terminal:
            checked += 1
    assert checked >= 3


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
    with pytest.raises(TypeError, match="render_mode"):
        marrakech_v0.raw_env(render_mode="rgb")


def test_pettingzoo_render_test() -> None:
    """Every render mode: ansi (text), human (printed), rgb_array (a picture)."""
    render_test(marrakech_v0.env)
    frame = marrakech_v0.parallel_env(render_mode="rgb_array")
    frame.reset(seed=0)
    picture = frame.render()
    assert isinstance(picture, np.ndarray) and picture.shape == (432, 384, 3)


@pytest.mark.filterwarnings(*DICT_OBSERVATION_ADVICE, ILLEGAL_MOVE)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_parallel_api_test(players: int) -> None:
    parallel_api_test(marrakech_v0.parallel_env(players=players), num_cycles=1000)
    low = marrakech_v0.parallel_env(players=players, rules=LOW_MONEY, reward="win")
    parallel_api_test(low, num_cycles=1000)


@pytest.mark.filterwarnings(ILLEGAL_MOVE)
@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_parallel_seed_test(players: int) -> None:
    """It samples every agent's action without the mask: the default illegal-action
    policy ends those games, the same way in both copies."""
    parallel_seed_test(lambda: marrakech_v0.parallel_env(players=players), num_cycles=500)


@pytest.mark.filterwarnings(ILLEGAL_MOVE)
def test_pettingzoo_state_test() -> None:
    state_test(marrakech_v0.env(players=4), marrakech_v0.parallel_env(players=4))


def test_the_parallel_env_plays_the_aec_game() -> None:
    """The same seed and the same decisions give the same game, rewards and ends."""
    cases: list[tuple[int, RuleSet | str]] = [(2, "bga"), (4, LOW_MONEY)]
    for players, rules in cases:
        aec = marrakech_v0.env(players=players, rules=rules)
        seen = play_random(aec, seed=3)
        history = aec.unwrapped.history
        decisions = iter(a for a in history if not action_from_id(a).is_chance)
        parallel = marrakech_v0.parallel_env(players=players, rules=rules)
        observations, _ = parallel.reset(seed=3)
        totals = dict.fromkeys(parallel.possible_agents, 0.0)
        while parallel.agents:
            mover = [a for a in parallel.agents if observations[a]["action_mask"].any()]
            assert len(mover) == 1  # one agent to move, the others wait
            action = next(decisions)
            actions = dict.fromkeys(parallel.agents, 0) | {mover[0]: action}
            observations, rewards, terminations, _, _ = parallel.step(actions)
            for agent, reward in rewards.items():
                totals[agent] += reward
            assert set(parallel.agents) == {a for a in terminations if not terminations[a]}
        assert parallel.unwrapped.history == history
        assert totals == seen


def test_the_parallel_env_needs_the_movers_action() -> None:
    env = marrakech_v0.parallel_env(players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"seat_0 is to move: actions must hold its decision id"):
        env.step({"seat_1": 0, "seat_2": 0})
    env.step({"seat_0": 1, "seat_1": 50, "seat_2": 86})  # the waiting seats' are ignored
    assert env.game_state.phase.name == "PLACE" and env.agents == env.possible_agents


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        marrakech_v0.env(players=5)
    with pytest.raises(ValueError, match="reward must be one of"):
        marrakech_v0.env(reward="score")
    with pytest.raises(ValueError, match="illegal_action"):
        marrakech_v0.env(illegal_action="ignore")
