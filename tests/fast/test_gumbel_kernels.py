"""The compiled Gumbel search (marrakech.fast.gumbel_kernels) and the self-play network
(marrakech.fast.az_network): root selection, chance nodes, compiled inference."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from marrakech import State
from marrakech.actions import DECISION_IDS, DRAW_BASE, ROLL_BASE, Orient
from marrakech.bots.value import features, load_value, progress
from marrakech.fast.az_network import FEATURE_INPUTS, Adam, Network, NetworkError
from marrakech.fast.gumbel_kernels import (
    T_COUNT,
    T_FIRST,
    completed_q,
    considered_visits,
    feature_inputs,
    forward,
    has_prior,
    prior_bias,
    reads_features,
    root_child,
    search,
    tree_arrays,
)
from marrakech.fast.kernels import TURN, batch_observe
from marrakech.fast.rows import from_arrays, to_arrays
from marrakech.fast.search_kernels import seat_features


def bandit(q: list[float], logits: list[float], gumbel: list[float], simulations: int) -> int:
    """The root's sequential halving on arms of known value: each visit of child k
    returns exactly ``q[k]`` for the seat to move (seat 0). Returns the chosen arm."""
    count = len(q)
    nodes, visits, totals, prior, raw, _ = tree_arrays(simulations)
    nodes[0, T_FIRST], nodes[0, T_COUNT] = 1, count
    prior[1 : 1 + count] = logits
    raw[0, 0] = 0.5
    sequence = np.zeros(simulations, dtype=np.int64)
    considered_visits(count, simulations, sequence)
    sigma = np.zeros(12)
    noise = np.array(gumbel + [0.0] * (12 - count))
    for simulation in range(simulations):
        completed_q(0, 0, nodes, visits, totals, prior, raw, sigma)
        child = root_child(nodes, visits, prior, noise, sigma, float(sequence[simulation]))
        visits[child] += 1.0
        totals[child, 0] += q[child - 1]
    most = float(visits[1 : 1 + count].max())
    completed_q(0, 0, nodes, visits, totals, prior, raw, sigma)
    return root_child(nodes, visits, prior, noise, sigma, most) - 1


def test_sequential_halving_spends_the_simulations_as_mctx_does() -> None:
    out = np.zeros(16, dtype=np.int64)
    considered_visits(4, 16, out)
    # log2(4) = 2 rounds: 4 arms twice each (8), then the best 2 four times each (8).
    assert out.tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_the_gumbel_root_picks_the_best_action_when_values_are_known() -> None:
    q = [0.2, 0.5, 0.9, 0.4, 0.1, 0.3]
    assert bandit(q, [0.0] * 6, [0.0] * 6, 32) == 2  # no noise: play time
    # With self-play's noise (a sample of the prior, here uniform) the searched values
    # make the best arm the most frequent choice by far.
    rng = random.Random(3)
    chosen = [
        bandit(q, [0.0] * 6, [-np.log(-np.log(rng.random())) for _ in q], 32) for _ in range(200)
    ]
    counts = [chosen.count(k) for k in range(6)]
    assert counts[2] > 0.5 * len(chosen) and counts[2] == max(counts), counts
    # A prior that prefers a worse arm is overruled by the values it searched.
    assert bandit(q, [3.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0] * 6, 32) == 2
    # Without simulations the prior (plus noise) decides.
    assert bandit(q, [3.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0] * 6, 0) == 0


def test_chance_nodes_weight_the_die_by_R3() -> None:
    network = Network.initial(16, 0, seed=2)
    state = State.new(players=3).apply(Orient(0))  # a roll follows (R10)
    row = to_arrays(state)
    tree = tree_arrays(600)
    policy = np.zeros(DECISION_IDS)
    search(row, network.compiled(), 600, 12, 1.0, np.uint64(1), *tree, policy)
    nodes, visits = tree[0], tree[1]
    first, count = nodes[0, T_FIRST], nodes[0, T_COUNT]
    assert [int(nodes[first + k, 2]) for k in range(count)] == [ROLL_BASE + k for k in range(4)]
    # Faces 1, 2, 2, 3, 3, 4: steps 1 and 4 have 1/6 each, steps 2 and 3 have 2/6 each.
    assert visits[first : first + count].tolist() == [100.0, 200.0, 200.0, 100.0]


def test_a_draw_weights_the_colours_by_what_is_left() -> None:
    state = State.new(players=2)  # the opening reveals seat 0's first top (R7)
    assert state.is_chance
    row = to_arrays(state)
    row[54 + 0], row[54 + 2] = 9, 3  # seat 0's pile: 9 of its first colour, 3 of the other
    tree = tree_arrays(120)
    search(row, Network.initial(16, 0, seed=2).compiled(), 120, 12, 1.0, np.uint64(1), *tree,
           np.zeros(DECISION_IDS))  # fmt: skip
    nodes, visits = tree[0], tree[1]
    first = nodes[0, T_FIRST]
    assert [int(nodes[first + k, 2]) for k in range(2)] == [DRAW_BASE, DRAW_BASE + 2]
    assert visits[first : first + 2].tolist() == [90.0, 30.0]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(("with_prior", "with_features"), [(False, False), (True, False),
                                                          (False, True), (True, True)])  # fmt: skip
def test_compiled_and_numpy_inference_agree(
    players: int, with_prior: bool, with_features: bool
) -> None:
    prior = load_value(players).array() if with_prior else None
    network = Network.initial(24, players, seed=players, prior=prior)
    if with_features:
        network = network.with_features()
    rng = np.random.default_rng(0)
    for name, values in network.params.items():  # larger weights than the initial ones
        network.params[name] = (values + rng.standard_normal(values.shape) * 0.1).astype(np.float32)
    batch = np.stack(random_decision_rows(players, 40))
    observations = np.zeros((len(batch), 474), dtype=np.float32)
    batch_observe(batch, batch[:, TURN].astype(np.int64), observations)
    bias, inputs = network.bias(batch), network.features(batch)
    assert (bias is not None) == with_prior and (inputs is not None) == with_features
    logits, values = network.forward(observations, bias, inputs)
    params = network.compiled()
    assert has_prior(params) == with_prior and reads_features(params) == with_features
    feats, scores = np.zeros((4, 7)), np.zeros(4)
    for i in range(len(batch)):
        one_logits, one_value, one_bias = np.zeros(DECISION_IDS), np.zeros(4), np.zeros(4)
        one_inputs = np.zeros(FEATURE_INPUTS)
        if with_prior:
            prior_bias(batch[i], params[8], feats, scores, one_bias)
        if with_features:
            seat_features(batch[i], feats)
            feature_inputs(batch[i], feats, one_inputs)
        forward(observations[i], params, one_logits, one_value, one_bias, one_inputs)
        np.testing.assert_allclose(one_logits, logits[i], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(one_value, values[i], rtol=1e-4, atol=1e-5)
        assert one_value.sum() == pytest.approx(1.0)
        assert not one_value[players:].any()


def random_decision_rows(players: int, most: int) -> list[np.ndarray]:
    """The decision positions of a game of random moves (at most ``most``), as rows."""
    state, chance = State.new(players=players), random.Random(players)
    rows: list[np.ndarray] = []
    while not state.is_terminal and len(rows) < most:
        if not state.is_chance:
            rows.append(to_arrays(state))
        state = state.apply(chance.choice(state.legal_actions()))
    return rows


@pytest.mark.parametrize("players", [2, 4])
def test_a_network_with_a_value_prior_and_no_value_head_values_as_the_prior(
    players: int,
) -> None:
    """The prior's scores are added to the value head's logits: with the head at zero the
    network's value is the linear value's chances, seat by seat from the mover."""
    model = load_value(players)
    network = Network.initial(16, players, seed=1, prior=model.array())
    network.params["wv"][:] = 0.0
    network.params["bv"][:] = 0.0
    batch = np.stack(random_decision_rows(players, 30))
    observations = np.zeros((len(batch), 474), dtype=np.float32)
    batch_observe(batch, batch[:, TURN].astype(np.int64), observations)
    _, values = network.forward(observations, network.bias(batch))
    for row, value in zip(batch, values, strict=True):
        state = from_arrays(row)
        chances = model.chances(state)
        expected = [chances[(state.turn + r) % players] for r in range(players)]
        np.testing.assert_allclose(value[:players], expected, rtol=1e-4, atol=1e-6)


def test_a_network_file_keeps_its_value_prior(tmp_path: Path) -> None:
    prior = load_value(2).array()
    Network.initial(8, 2, seed=1, prior=prior).save(tmp_path / "with.npz")
    Network.initial(8, 2, seed=1).save(tmp_path / "without.npz")
    again = Network.load(tmp_path / "with.npz")
    assert again.prior is not None and again.prior.tolist() == prior.tolist()
    assert again.copy().prior is not None
    assert Network.load(tmp_path / "without.npz").prior is None
    with pytest.raises(NetworkError, match=r"array prior: expected shape \(14,\), found \(3,\)"):
        Network(Network.initial(8, 2, seed=1).params, {}, np.zeros(3))


@pytest.mark.parametrize("children", [False, True])
def test_the_value_prior_values_each_new_child_until_it_is_visited(children: bool) -> None:
    """With ``prior_children`` every child of a decision node the search expands starts
    at the prior's chances of its position (what completed Q reads while it is
    unvisited), as the ``search`` bots start theirs at their learned value."""
    model = load_value(3)
    network = Network.initial(16, 3, seed=2, prior=model.array())
    network.meta["prior_children"] = children
    assert network.prior_children == children
    state = State.new(players=3)  # seat 0 orients (R9): three children
    tree = tree_arrays(1)
    search(to_arrays(state), network.compiled(), 1, 12, 0.0, np.uint64(1), *tree,
           np.zeros(DECISION_IDS))  # fmt: skip
    nodes, visits, raw = tree[0], tree[1], tree[4]
    first, count = nodes[0, T_FIRST], nodes[0, T_COUNT]
    unvisited = [first + k for k in range(count) if visits[first + k] == 0.0]
    assert len(unvisited) == 2
    for c in unvisited:
        after = state.apply(Orient(int(nodes[c, 2])))
        expected = model.chances(after) if children else [0.0, 0.0, 0.0]
        np.testing.assert_allclose(raw[c, :3], expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_feature_inputs_are_each_seats_value_features_from_the_mover(players: int) -> None:
    """The 56 feature inputs: the linear value's features (marrakech.bots.value, the
    Python reference) of the mover, the next seat..., zeros past the players, then the
    same times the game's progress."""
    network = Network.initial(8, players, seed=1).with_features()
    batch = np.stack(random_decision_rows(players, 40))
    inputs = network.features(batch)
    assert inputs is not None and inputs.shape == (len(batch), FEATURE_INPUTS)
    for row, found in zip(batch, inputs, strict=True):
        state = from_arrays(row)
        seats = features(state)
        relative = [seats[(state.turn + r) % players] for r in range(players)]
        relative += [[0.0] * 7] * (4 - players)
        expected = np.array(relative).ravel()
        expected = np.concatenate([expected, expected * progress(state)])
        np.testing.assert_allclose(found, expected, rtol=1e-5, atol=1e-6)
    assert Network.initial(8, players, seed=1).features(batch) is None


def test_feature_inputs_at_zero_weights_change_nothing_and_trained_ones_reach_the_search(
    tmp_path: Path,
) -> None:
    """``with_features`` adds the block at zero: the same values and the same search.
    Weights in it change the value the compiled search gives the root (it reads the
    inputs at every leaf, not only the numpy training pass)."""
    plain = Network.initial(16, 2, seed=3, prior=load_value(2).array())
    reading = plain.with_features()
    assert reading.reads_features and not plain.reads_features
    state = State.new(players=2, first_seat=0)
    while state.is_chance:  # R7: the first carpet is drawn
        state = state.apply(state.legal_actions()[0])
    row = to_arrays(state)

    def root_value(network: Network) -> list[float]:
        tree = tree_arrays(1)
        search(row, network.compiled(), 1, 12, 0.0, np.uint64(1), *tree, np.zeros(DECISION_IDS))
        value: list[float] = tree[4][0, :2].tolist()  # raw: the network's value, by seat
        return value

    assert root_value(reading) == root_value(plain)
    reading.params["wf"][:] = np.random.default_rng(1).standard_normal((FEATURE_INPUTS, 16))
    changed = root_value(reading)
    assert changed != root_value(plain)
    observation = np.zeros((1, 474), dtype=np.float32)
    batch_observe(row[None, :], np.array([state.turn]), observation)
    rows = row[None, :]
    _, value = reading.forward(observation, reading.bias(rows), reading.features(rows))
    assert state.turn == 0  # relative seats are the absolute ones
    np.testing.assert_allclose(value[0, :2], changed, rtol=1e-4)
    with pytest.raises(NetworkError, match=r"reads feature inputs: expected \(1, 56\)"):
        reading.forward(observation, reading.bias(rows))
    reading.save(tmp_path / "reading.npz")
    again = Network.load(tmp_path / "reading.npz")
    assert again.reads_features and (again.params["wf"] == reading.params["wf"]).all()
    broken = dict(plain.params, wf=np.zeros((3, 16), np.float32))
    with pytest.raises(NetworkError, match=r"array wf: expected shape \(56, 16\), found"):
        Network(broken, {})
    adam = Adam(reading)
    adam.save(tmp_path / "adam.npz", 1)
    with pytest.raises(NetworkError, match=r"no moments for array 'wf'"):
        Adam.load(_without_wf(tmp_path / "adam.npz"), reading)


def _without_wf(path: Path) -> Path:
    """The optimiser file at ``path`` with the moments of ``wf`` taken out."""
    with np.load(path) as data:
        kept = {k: data[k] for k in data.files if not k.endswith("_wf")}
    target = path.with_name("adam-plain.npz")
    np.savez(target, **kept)
    return target
