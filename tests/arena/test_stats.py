"""Win shares, Wilson intervals and Bradley-Terry ratings."""

from __future__ import annotations

import pytest

from marrakech.arena import GameResult, bradley_terry, summarise, wilson
from marrakech.arena.stats import format_table, rating_intervals, seat_shares
from marrakech.record import GameRecord


def fake(index: int, seats: tuple[str, ...], ranks: tuple[int, ...]) -> GameResult:
    players = len(seats)
    return GameResult(
        index=index,
        seats=seats,
        scores=tuple(100 - 10 * r for r in ranks),
        ranks=ranks,
        money=(30,) * players,
        eliminated=(),
        plies=0,
        seconds=(0.0,) * players,
        decisions=(1,) * players,
        record=GameRecord(players=players),
    )


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3)
    assert high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_shared_wins_are_split_and_pooled_seats_counted() -> None:
    games = [
        fake(0, ("a", "b", "b"), (1, 1, 3)),  # a and one b share the win (R21)
        fake(1, ("b", "a", "b"), (1, 2, 3)),
    ]
    rows = {r.bot: r for r in summarise(games)}
    assert rows["a"].games == 2 and rows["b"].games == 4
    assert rows["a"].wins == pytest.approx(0.5)
    assert rows["b"].wins == pytest.approx(1.5)
    assert rows["a"].mean_rank == pytest.approx(1.5)
    assert seat_shares(games, 3) == pytest.approx([0.75, 0.25, 0.0])
    assert "win share" in format_table(list(rows.values()))


def test_bradley_terry_orders_bots_and_stays_finite() -> None:
    games = [fake(i, ("strong", "weak"), (1, 2)) for i in range(30)]
    games += [fake(30 + i, ("weak", "strong"), (2, 1)) for i in range(30)]
    ratings = bradley_terry(games, ["strong", "weak"])
    assert ratings["strong"] > ratings["weak"]
    assert ratings["strong"] + ratings["weak"] == pytest.approx(3000.0)
    assert ratings["strong"] - ratings["weak"] < 1500  # finite despite 60-0


def test_bradley_terry_recovers_a_known_edge() -> None:
    # 75% pair wins: a gap of 400*log10(3) ~ 191 points (the virtual draw pulls it in a bit).
    games = [fake(i, ("x", "y"), (1, 2) if i % 4 else (2, 1)) for i in range(400)]
    ratings = bradley_terry(games, ["x", "y"])
    assert ratings["x"] - ratings["y"] == pytest.approx(191, abs=5)


def test_rating_intervals_hold_the_rating_and_narrow_with_games() -> None:
    def match(games: int) -> list[GameResult]:
        return [fake(i, ("x", "y"), (1, 2) if i % 4 else (2, 1)) for i in range(games)]

    widths = []
    for games in (40, 400):
        rows = {r.bot: r for r in summarise(match(games))}
        x = rows["x"]
        assert x.rating_low <= x.rating <= x.rating_high
        assert rows["y"].rating_high < 1500 < x.rating_low  # 75% is a clear edge
        widths.append(x.rating_high - x.rating_low)
    assert widths[1] < widths[0] / 2  # about 1/sqrt(10) as wide with ten times the games
    even = rating_intervals(
        [fake(i, ("x", "y"), (1, 2) if i % 2 else (2, 1)) for i in range(100)], ["x", "y"]
    )
    assert even["x"][0] < 1500 < even["x"][1]
    assert rating_intervals(match(8), ["x", "y"]) == rating_intervals(match(8), ["x", "y"])
