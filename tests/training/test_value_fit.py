"""marrakech.training.value_fit: self-play positions for the learned value, and its fit."""

from __future__ import annotations

import numpy as np

from marrakech.training.value_fit import (
    CONSTANT,
    SIGNS,
    design,
    fit,
    live_seats,
    ranking_loss,
    self_play_positions,
    stages,
)
from marrakech.value_features import FEATURES, VALUE_WEIGHTS


def test_self_play_positions_are_the_same_for_the_same_arguments_and_each_games_own() -> None:
    weights = np.zeros(VALUE_WEIGHTS)
    first = self_play_positions(3, games=4, iterations=12, epsilon=0.2, weights=weights, seed=5)
    again = self_play_positions(3, games=4, iterations=12, epsilon=0.2, weights=weights, seed=5)
    other = self_play_positions(3, games=4, iterations=12, epsilon=0.2, weights=weights, seed=6)
    assert np.array_equal(first.features, again.features)
    assert np.array_equal(first.ranks, again.ranks)
    assert not np.array_equal(first.features[:40], other.features[:40])  # other dice
    assert first.features.shape == (len(first.progress), 4, FEATURES)
    assert first.rows.shape[0] == 0  # positions only when asked for
    assert set(first.game.tolist()) == {0, 1, 2, 3}
    for game in range(4):
        rows = first.game == game
        # One game's positions share its final ranks (R21: 1 to 3, ties allowed), and its
        # progress only grows, from the first carpet to the last.
        assert (first.ranks[rows] == first.ranks[rows][0]).all()
        assert set(first.ranks[rows][0, :3].tolist()) <= {1, 2, 3}
        assert (np.diff(first.progress[rows]) >= 0).all()
        assert first.progress[rows].min() >= 0.0 and first.progress[rows].max() <= 1.0
    with_rows = self_play_positions(
        3, games=4, iterations=12, epsilon=0.2, weights=weights, seed=5, keep_rows=True
    )
    assert with_rows.rows.shape[0] == len(with_rows.progress)
    assert np.array_equal(with_rows.features, first.features)


def test_the_fit_predicts_the_winners_better_than_an_even_value_within_its_signs() -> None:
    played = self_play_positions(2, games=40, iterations=16, epsilon=0.1,
                                 weights=np.zeros(VALUE_WEIGHTS), seed=2)  # fmt: skip
    x = design(played.features, played.progress)
    plan = stages(played.ranks, live_seats(played.features, 2), 2)
    losses: list[tuple[int, float]] = []
    weights = fit(x, plan, steps=200, report=lambda step, loss: losses.append((step, loss)))
    even = ranking_loss(np.zeros(x.shape[:2]), plan)
    assert abs(even - np.log(2)) < 1e-9  # every 2-player position a coin toss
    assert ranking_loss(x @ weights, plan) < even - 0.05
    assert [step for step, _ in losses] == [100, 200] and losses[1][1] <= losses[0][1]
    for k, sign in SIGNS.items():  # kept at the start and the end of the game
        assert sign * weights[k] >= 0 and sign * (weights[k] + weights[FEATURES + k]) >= 0
    for k in CONSTANT:
        assert weights[FEATURES + k] == 0.0
    # The same data gives the same weights.
    assert np.array_equal(fit(x, plan, steps=200), weights)
