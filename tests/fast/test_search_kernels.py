"""The compiled search (``fast/search_kernels.py``) against the core: the features and chances
mirror ``bots/value.py``, and every node of a grown tree holds exactly the legal
decisions (R9, R14-R16, R32) or chance outcomes (R3, R7) of its position."""

from __future__ import annotations

import random

import numpy as np
import pytest

from marrakech import State, parse_rules, random_action
from marrakech.actions import action_from_id
from marrakech.bots.value import features, load_value
from marrakech.fast.rows import WIDTH, to_arrays
from marrakech.fast.search_kernels import (
    INFORMED,
    Tree,
    grow,
    seat_features,
    self_play,
    win_chances,
)
from marrakech.value_features import FEATURES

CONFIGS = [(p, r) for p in (2, 3, 4) for r in ("standard", "bga", "standard+orient-last")]
IDS = [f"{p}p-{r}" for p, r in CONFIGS]


def positions(players: int, rules: str, games: int, seed: int) -> list[State]:
    """Every position (chance nodes and the end included) of a few random games."""
    rng = random.Random(seed)
    found: list[State] = []
    for _ in range(games):
        state = State.new(players, parse_rules(rules), first_seat=rng.randrange(players))
        found.append(state)
        while not state.is_terminal:
            state = state.apply(random_action(state, rng))
            found.append(state)
    return found


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_features_and_chances_mirror_the_python_value(players: int, rules: str) -> None:
    model = load_value(players)
    weights = model.array()
    feats = np.zeros((4, FEATURES))
    chances = np.zeros(4)
    for state in positions(players, rules, games=6, seed=players):
        row = to_arrays(state)
        seat_features(row, feats)
        expected = features(state)
        assert np.allclose(feats[:players], expected, atol=1e-12), state.notation()
        assert not feats[players:].any()
        win_chances(row, weights, feats, chances)
        assert np.allclose(chances[:players], model.chances(state), atol=1e-9), state.notation()
        assert chances.sum() == pytest.approx(1.0)
        for seat in state.eliminated:  # R13: a seat out cannot win
            assert chances[seat] == 0.0


def _check_subtree(tree: Tree, node: int, state: State, seen: list[int]) -> None:
    first, count = int(tree.nodes[node, 0]), int(tree.nodes[node, 1])
    if count == 0:
        return
    seen[0] += 1
    actions = [action_from_id(int(tree.nodes[c, 2])) for c in range(first, first + count)]
    if state.is_chance:
        outcomes = {a for a, _ in state.chance_outcomes()}
        assert set(actions) <= outcomes and len(set(actions)) == len(actions), state.notation()
        # a draw lists both colours of the pile; one may be gone (probability 0, never drawn)
        for c, action in zip(range(first, first + count), actions, strict=True):
            if action not in outcomes:
                assert tree.visits[c] == 0
        assert outcomes <= set(actions)
    else:
        assert sorted(actions, key=lambda a: a.id) == sorted(
            state.legal_actions(), key=lambda a: a.id
        ), state.notation()
    for c, action in zip(range(first, first + count), actions, strict=True):
        if tree.visits[c] > 0 and action in state.legal_actions():
            _check_subtree(tree, c, state.apply(action), seen)


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_every_node_of_a_grown_tree_is_legal(players: int, rules: str) -> None:
    rng = random.Random(players)
    weights = load_value(players).array()
    games = positions(players, rules, games=2, seed=10 + players)
    decisions = [s for s in games if not s.is_chance and not s.is_terminal]
    seen = [0]
    for state in rng.sample(decisions, 6):
        tree = Tree(capacity=1 << 14)
        tree.reset()
        done, _ = grow(to_arrays(state), *tree.arrays(), 400, 0.15, 2.0, 0.25, weights, INFORMED, 3)
        assert done == 400
        _check_subtree(tree, 0, state, seen)
        # every iteration went through the root, and each child's visits add up
        children = tree.root_children()
        real = tree.visits[list(children)].sum() - 2.0 * len(children)
        assert tree.visits[0] == pytest.approx(real + 1)  # + the expanding iteration
    assert seen[0] > 60  # the trees grew well below their roots


def test_a_full_tree_stops_growing_and_keeps_searching() -> None:
    state = State.new(players=4)
    weights = load_value(4).array()
    tree = Tree(capacity=64)
    tree.reset()
    done, _ = grow(to_arrays(state), *tree.arrays(), 1000, 0.15, 2.0, 0.0, weights, INFORMED, 1)
    assert done == 1000 and tree.size <= 64 and tree.visits[0] == 1000
    tree.enlarge()  # doubling keeps the tree, and it grows again
    more, _ = grow(to_arrays(state), *tree.arrays(), 50, 0.15, 2.0, 0.0, weights, INFORMED, 2)
    assert more == 50 and tree.visits[0] == 1050 and 64 < tree.size <= 128


def test_small_trees_are_refused() -> None:
    with pytest.raises(ValueError, match="capacity must be at least 24, found 8"):
        Tree(capacity=8)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_self_play_records_each_game_s_final_scores_and_ranks(players: int) -> None:
    # scripts/value_data.py fits the value on ranks (R21) and the margin model on scores
    # (R20): both must be the game's own, recorded at every one of its positions.
    starts = np.stack([to_arrays(State.new(players, first_seat=s)) for s in range(players)])
    tree = Tree(capacity=4096)
    size = 3 * 200
    features_ = np.zeros((size, 4, FEATURES))
    done = np.zeros(size)
    ranks = np.zeros((size, 4), dtype=np.int32)
    scores = np.zeros((size, 4), dtype=np.int32)
    game_of = np.zeros(size, dtype=np.int64)
    rows = np.zeros((size, WIDTH), dtype=np.int32)
    weights = load_value(players).array()
    n = self_play(
        starts, 3, 20, 0.2, weights, 5, *tree.arrays(),
        features_, done, ranks, scores, game_of, rows,
    )  # fmt: skip
    assert n > 3 * 20
    for game in range(3):
        mine = np.flatnonzero(game_of[:n] == game)
        # one game, one result: the same final scores and ranks at all its positions
        assert (scores[mine] == scores[mine[0]]).all() and (ranks[mine] == ranks[mine[0]]).all()
        final_scores, final_ranks = scores[mine[0], :players], ranks[mine[0], :players]
        assert sorted(final_ranks)[0] == 1 and scores[mine[0], players:].sum() == 0
        best = final_scores[final_ranks == 1].min()
        above = final_scores > best  # R21: only a seat out (R13, ranked last) may score more
        assert (final_ranks[above] == players).all()
        assert done[mine].min() >= 0.0 and done[mine].max() < 1.0
