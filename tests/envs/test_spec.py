"""The shared spec marrakech_v0: the encoder, masks, spaces and rewards (R13, R20, R21)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np
import pytest

from marrakech import BGA, RuleSet, State, parse_rules, random_action
from marrakech.envs import spec
from marrakech.envs.vector import outcome_table
from marrakech.observation import encode_observation

LOW_MONEY = parse_rules("custom:12/10/12:4:no-own")  # 4 dirhams: eliminations (R13) are common


def random_positions(
    players: int, rules: RuleSet = spec.DEFAULT_RULES, seed: int = 0, games: int = 3
) -> Iterator[State]:
    rng = random.Random(seed)
    for _ in range(games):
        state = State.new(players, rules)
        while not state.is_terminal:
            yield state
            state = state.apply(random_action(state, rng))
        yield state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_observation_is_the_core_encoder_in_float32(players: int) -> None:
    for state in itertools.islice(random_positions(players), 0, None, 7):
        for seat in range(players):
            vector = spec.observation(state, seat)
            assert vector.dtype == np.float32 and vector.shape == (spec.OBSERVATION_SIZE,)
            assert np.array_equal(
                vector, np.asarray(encode_observation(state, seat), dtype=np.float32)
            )
            assert spec.observation_space().contains(vector)


def test_mask_marks_the_legal_decisions_of_the_seat_to_move() -> None:
    for state in random_positions(2, BGA, games=1):
        mask = spec.action_mask(state)
        assert mask.dtype == np.int8 and mask.shape == (87,)
        assert np.flatnonzero(mask).tolist() == (
            [] if state.is_chance or state.is_terminal else state.legal_action_ids()
        )
        for seat in range(2):
            waiting = spec.action_mask(state, seat)
            assert waiting.any() == (state.to_move == seat)


def test_rank_reward_is_pairwise_and_zero_sum() -> None:
    assert spec.rank_rewards((1, 2)) == (1.0, -1.0)
    assert spec.rank_rewards((1, 1)) == (0.0, 0.0)  # a shared win (R21) is a draw
    # (3, 1, 1, 4) was (2, 1, 1, 4), which no game ends with (two seats rank above the
    # first, so it is third, R21): the rewards come from Outcome now, which refuses it.
    for ranks in [(1, 2, 3, 4), (3, 1, 1, 4), (1, 1, 1), (3, 1, 2)]:
        rewards = spec.rank_rewards(ranks)
        assert abs(sum(rewards)) < 1e-12
        assert all(-1.0 <= r <= 1.0 for r in rewards)
        table = outcome_table(np.array([ranks]), "rank")[0]
        assert np.allclose(table, rewards)


def test_win_reward_splits_a_shared_win() -> None:
    assert spec.win_rewards((1, 2, 3)) == (1.0, 0.0, 0.0)
    assert spec.win_rewards((1, 1, 3, 4)) == (0.5, 0.5, 0.0, 0.0)
    assert np.allclose(outcome_table(np.array([[1, 1, 3, 4]]), "win"), [[0.5, 0.5, 0, 0]])


@pytest.mark.parametrize("reward", ["rank", "win"])
def test_an_eliminated_seat_reward_is_final_when_it_goes_out(reward: spec.RewardName) -> None:
    """R13 + R21: the rank of an eliminated seat never changes, so neither does its reward."""
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = State.new(4, LOW_MONEY)
        at_exit: dict[int, float] = {}
        while not state.is_terminal:
            state = state.apply(random_action(state, rng))
            for seat in state.eliminated:
                if seat not in at_exit:
                    at_exit[seat] = spec.outcome_rewards(state, reward)[seat]
        final = spec.outcome_rewards(state, reward)
        for seat, value in at_exit.items():
            assert final[seat] == value
            checked += 1
    assert checked > 0


def test_bad_arguments_get_clear_errors() -> None:
    with pytest.raises(ValueError, match="reward must be one of rank, win"):
        spec.check_reward("score")
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        spec.coerce_players(5)
    with pytest.raises(TypeError, match=r"integer 2\.\.4"):
        spec.coerce_players("4")
    with pytest.raises(ValueError, match="rule set"):
        spec.coerce_rules("house")
    with pytest.raises(TypeError, match="decision id"):
        spec.decision_id("L")
    with pytest.raises(TypeError, match="integer decision id"):
        spec.decision_id(1.5)
    assert spec.decision_id(np.int32(5)) == 5
