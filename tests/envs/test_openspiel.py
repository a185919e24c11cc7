"""OpenSpiel python_marrakech: OpenSpiel's own simulation test, serialisation, pickling,
and full games of OpenSpiel's MCTS (which samples chance nodes) against a marrakech bot."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts  # noqa: E402

import marrakech.envs.openspiel as marrakech_openspiel  # noqa: E402
from marrakech import State, action_from_id  # noqa: E402
from marrakech.bots import BOTS, make_bot  # noqa: E402
from marrakech.envs.spec import outcome_rewards  # noqa: E402
from marrakech.observation import LAYOUT, encode_observation  # noqa: E402
from marrakech.record import GameRecord  # noqa: E402

SMALL = "custom:4/4/4:30:no-own"  # short games for the search test


def test_registered_with_its_parameters() -> None:
    assert marrakech_openspiel.SHORT_NAME in pyspiel.registered_names()
    game = pyspiel.load_game("python_marrakech")
    assert (game.num_players(), game.num_distinct_actions()) == (4, 87)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    win = pyspiel.load_game("python_marrakech", {"players": 2, "reward": "win"})
    assert win.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert win.utility_sum() == 1.0


@pytest.mark.parametrize("reward", ["margin", "share"])
def test_rewards_without_fixed_bounds_are_refused_with_where_to_find_them(reward: str) -> None:
    with pytest.raises(ValueError, match=f"takes reward 'rank' or 'win', found '{reward}'"):
        pyspiel.load_game("python_marrakech", {"players": 2, "reward": reward})


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2},
        {"players": 3},
        {"players": 4},
        {"players": 2, "rules": "bga", "reward": "win"},
        {"players": 4, "rules": "custom:12/10/12:4:no-own"},  # eliminations (R13)
    ],
)
def test_openspiel_random_sim_test(params: dict[str, int | str]) -> None:
    game = pyspiel.load_game("python_marrakech", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_chance_nodes_are_explicit_with_exact_probabilities() -> None:
    state = pyspiel.load_game("python_marrakech", {"players": 2}).new_initial_state()
    assert state.is_chance_node()  # R7: the piles reveal their tops first
    assert state.chance_outcomes() == [(91, 0.5), (93, 0.5)]
    state.apply_action(91)
    state.apply_action(94)
    state.apply_action(1)
    assert state.chance_outcomes() == [(87, 1 / 6), (88, 2 / 6), (89, 2 / 6), (90, 1 / 6)]


def test_serialisation_and_pickling_round_trip() -> None:
    game = pyspiel.load_game("python_marrakech", {"players": 3, "rules": "bga"})
    state = game.new_initial_state()
    rng = random.Random(0)
    for _ in range(40):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and state2.history() == state.history()
    assert state2.core == state.core
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    unpickled = pickle.loads(pickle.dumps(state))
    assert unpickled.core == state.core and unpickled.history() == state.history()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0] if not clone.is_chance_node() else 87)
    assert clone.core != state.core  # a clone is independent


def test_observation_tensors_and_strings_are_the_shared_spec() -> None:
    game = pyspiel.load_game("python_marrakech", {"players": 4})
    state = game.new_initial_state()
    for action in (2, 89, 64):  # R, r3, f3-f4
        state.apply_action(action)
    for player in range(4):
        tensor = np.asarray(state.observation_tensor(player), dtype=np.float32)
        assert np.array_equal(
            tensor, np.asarray(encode_observation(state.core, player), dtype=np.float32)
        )
        assert State.from_notation(state.observation_string(player)) == state.core
    assert game.observation_tensor_shape() == [474]


def test_the_observer_views_are_the_pieces_of_the_layout() -> None:
    game = pyspiel.load_game("python_marrakech", {"players": 3})
    state = game.new_initial_state()
    state.apply_action(1)
    state.apply_action(88)
    observer = game.make_py_observer()
    observer.set_from(state, 1)
    assert list(observer.dict) == [piece.name for piece in LAYOUT]
    vector = np.asarray(encode_observation(state.core, 1), dtype=np.float32)
    for piece in LAYOUT:
        view = observer.dict[piece.name]
        assert view.shape == piece.shape and np.shares_memory(view, observer.tensor)
        assert np.array_equal(view.ravel(), vector[piece.offset : piece.end])


def test_history_is_a_core_game_record() -> None:
    game = pyspiel.load_game("python_marrakech", {"players": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    record = GameRecord.from_actions(State.new(2), [action_from_id(a) for a in state.history()])
    assert record.final_state() == state.core
    assert state.returns() == list(outcome_rewards(state.core))


def test_openspiel_mcts_plays_full_games_against_a_marrakech_bot() -> None:
    game = pyspiel.load_game("python_marrakech", {"players": 2, "rules": SMALL})
    results = []
    for game_index in range(2):
        rs = np.random.RandomState(game_index)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        searcher = mcts.MCTSBot(game, 2.0, 12, evaluator, solve=False, random_state=rs)
        ours = make_bot("greedy" if "greedy" in BOTS else "random")
        rng = random.Random(game_index)
        mcts_seat = game_index % 2  # each side plays both seats
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                action = int(rs.choice(outcomes, p=probs))
            elif state.current_player() == mcts_seat:
                action = searcher.step(state)
            else:
                action = ours.choose(state.core, rng).id
            assert action in (state.legal_actions() or [a for a, _ in state.chance_outcomes()])
            state.apply_action(action)
        results.append(state.returns()[mcts_seat])
    assert all(r in (-1.0, 0.0, 1.0) for r in results)


def test_unknown_parameters_are_refused() -> None:
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("python_marrakech", {"players": 5})
    with pytest.raises(Exception, match="rule set"):
        pyspiel.load_game("python_marrakech", {"rules": "house"})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_python_answers_are_what_the_cpp_side_returns(players: int) -> None:
    """The state answers legal_actions, is_chance_node, current_player, rewards and
    observation_tensor in Python; OpenSpiel's C++ side (pyspiel.State's own methods,
    through the observer) returns the same, at every node of a game."""
    game = pyspiel.load_game("python_marrakech", {"players": players, "rules": SMALL})
    state = game.new_initial_state()
    rng = random.Random(players)
    while True:
        assert state.current_player() == pyspiel.State.current_player(state)
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for player in range(players):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
            tensor = state.observation_tensor(player)
            assert tensor == pyspiel.State.observation_tensor(state, player)
            assert (
                tensor
                == np.asarray(encode_observation(state.core, player), dtype=np.float32).tolist()
            )
        if state.current_player() >= 0:
            assert state.observation_tensor() == state.observation_tensor(state.current_player())
        else:
            with pytest.raises(pyspiel.SpielError):
                state.observation_tensor()
        if state.is_terminal():
            assert state.rewards() == state.returns()
            break
        assert state.rewards() == [0.0] * players
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
