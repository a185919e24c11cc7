"""Rated games' ratings (issue 24): openskill's Plackett-Luce over the end's ranks, ties
shared (R21), leavers last, bots seeded from the arena on the same scale."""

from __future__ import annotations

import random

import pytest

from marrakech import State
from marrakech.playout import random_game
from marrakech.web.ratings import (
    START,
    Rating,
    bot_seeds,
    plays_like,
    ranks_with_leavers,
    rate,
    shown,
)


def test_r21_ranks_of_a_finished_game_move_the_ratings() -> None:
    """The ranks R21 gives at the end rate the seats: the winners up, the last down."""
    for players in (2, 3, 4):
        end, _ = random_game(State.new(players), random.Random(players))
        ranks = list(end.outcome().ranks)
        after = rate([START] * players, ranks)
        best, worst = min(ranks), max(ranks)
        for seat, rating in enumerate(after):
            assert rating.games == 1 and rating.sigma < START.sigma
            if ranks[seat] == best and ranks.count(best) < players:
                assert rating.mu > START.mu
            if ranks[seat] == worst and ranks.count(worst) < players:
                assert rating.mu < START.mu


def test_r21_a_shared_rank_rates_both_alike() -> None:
    first, second, third = rate([START, START, START], [1, 1, 3])
    assert first == second and first.mu > START.mu > third.mu


def test_a_win_against_a_stronger_player_counts_more() -> None:
    strong = Rating(35.0, 2.0, 40)
    beat_strong, _ = rate([START, strong], [1, 2])
    beat_equal, _ = rate([START, START], [1, 2])
    assert beat_strong.mu > beat_equal.mu


def test_resigning_or_timing_out_counts_as_last() -> None:
    assert ranks_with_leavers([1, 2, 3], leavers=[0]) == [3, 1, 2]
    assert ranks_with_leavers([1, 1, 3, 4], leavers=[3]) == [1, 1, 3, 4]
    assert ranks_with_leavers([1, 2, 3, 4], leavers=[0, 1]) == [3, 3, 1, 2]
    left, stayed = rate([START, START], ranks_with_leavers([1, 2], leavers=[0]))
    assert left.mu < START.mu < stayed.mu


@pytest.mark.parametrize(
    ("ratings", "ranks", "expected"),
    [
        ([START], [1], "expected 2 to 4 ratings and as many ranks, found 1 and 1"),
        ([START] * 2, [1], "expected 2 to 4 ratings and as many ranks, found 2 and 1"),
        ([START] * 2, [2, 2], "expected ranks from 1 to 2, found [2, 2]"),
        ([START] * 3, [1, 2, 5], "expected ranks from 1 to 3, found [1, 2, 5]"),
    ],
)
def test_bad_ranks_are_refused(ratings: list[Rating], ranks: list[int], expected: str) -> None:
    with pytest.raises(ValueError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        rate(ratings, ranks)


def test_a_stored_rating_is_checked() -> None:
    assert Rating.from_dict(START.to_dict()) == START
    with pytest.raises(ValueError, match="expected a rating"):
        Rating.from_dict({"mu": "high"})
    with pytest.raises(ValueError, match="sigma > 0"):
        Rating.from_dict({"mu": 25, "sigma": 0})


def test_the_shown_rating_is_conservative() -> None:
    """A newcomer's lucky win does not put them above a proven player."""
    lucky, _ = rate([START, START], [1, 2])
    proven = Rating(27.0, 1.5, 200)
    assert lucky.mu > proven.mu - 1 and shown(lucky) < shown(proven)
    assert shown(Rating(-50.0, 8.0)) == 0


def test_the_bot_levels_are_seeded_in_order_on_the_same_scale() -> None:
    """From the arena's games (scripts/bot_ratings.py): random far below greedy, the
    searches above it (docs/bots.md measures hard and expert about even)."""
    seeds = bot_seeds()
    assert set(seeds) == {"easy", "medium", "hard", "expert"}
    assert seeds["easy"].mu < seeds["medium"].mu - 10
    assert seeds["medium"].mu < min(seeds["hard"].mu, seeds["expert"].mu)
    assert all(0 < seed.sigma < START.sigma for seed in seeds.values())
    assert plays_like(seeds["medium"], seeds) == "medium"
    # The strongest level whose number shown the player's reaches (the leaderboard's
    # numbers): one loss to easy from the start is 872, above easy, far below medium.
    lost_to_easy = rate([START, seeds["easy"]], [2, 1])[0]
    assert shown(seeds["easy"]) < shown(lost_to_easy) < shown(seeds["medium"])
    assert plays_like(lost_to_easy, seeds) == "easy"
    assert plays_like(Rating(-30.0, 2.0), seeds) is None  # below every level
    assert plays_like(START, {}) is None
