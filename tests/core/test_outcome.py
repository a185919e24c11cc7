"""How a game ended (R20, R21): the core Outcome on every tie pattern."""

from __future__ import annotations

import itertools

import pytest

from marrakech import State
from marrakech.outcome import Outcome, rank_seats


def tie_patterns(players: int) -> list[tuple[int, ...]]:
    """Every competition ranking of ``players`` seats (each weak order once)."""
    found = set()
    for levels in itertools.product(range(players), repeat=players):
        found.add(tuple(1 + sum(other < mine for other in levels) for mine in levels))
    return sorted(found)


def test_tie_patterns_are_all_weak_orders() -> None:
    # Fubini numbers: 3, 13 and 75 weak orders of 2, 3 and 4 seats.
    assert [len(tie_patterns(p)) for p in (2, 3, 4)] == [3, 13, 75]
    assert (1, 1, 3) in tie_patterns(3) and (1, 2, 2, 4) in tie_patterns(4)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_values_rewards_and_shares_on_every_tie_pattern(players: int) -> None:
    for ranks in tie_patterns(players):
        outcome = Outcome(ranks)
        values = outcome.rank_values
        # A seat of rank r shared by k seats holds places r .. r + k - 1.
        for seat, rank in enumerate(ranks):
            shared = ranks.count(rank)
            places = range(rank, rank + shared)
            mean = sum((players - place) / (players - 1) for place in places) / shared
            assert values[seat] == pytest.approx(mean)
            above = sum(other < rank for other in ranks)
            below = sum(other > rank for other in ranks)
            assert outcome.rank_rewards[seat] == pytest.approx((below - above) / (players - 1))
        assert sum(values) == pytest.approx(players / 2)
        assert sum(outcome.rank_rewards) == pytest.approx(0)
        winners = [seat for seat, rank in enumerate(ranks) if rank == 1]
        assert outcome.winners == tuple(winners)
        assert outcome.win_shares == tuple(
            1 / len(winners) if seat in winners else 0.0 for seat in range(players)
        )
        going_on = Outcome(ranks, over=False)
        assert going_on.winners == () and going_on.win_shares == (0.0,) * players
        assert going_on.rank_values == values


def test_r21_a_shared_win_is_split_and_a_shared_place_averaged() -> None:
    outcome = Outcome((1, 1, 3))
    assert outcome.rank_values == (0.75, 0.75, 0.0)
    assert outcome.win_shares == (0.5, 0.5, 0.0)
    assert Outcome((2, 1, 2, 4)).rank_values == (0.5, 1.0, 0.5, 0.0)


def test_r21_ranks_by_score_then_dirhams_eliminated_below() -> None:
    assert rank_seats((40, 40, 35), (10, 10, 20), ()) == (1, 1, 3)
    assert rank_seats((40, 40, 35), (11, 10, 20), ()) == (1, 2, 3)
    # Eliminated seats rank below every seat in, the last to go out highest (R21),
    # whatever their visible squares (R20).
    assert rank_seats((3, 50, 9, 20), (3, 0, 9, 0), (1, 3)) == (2, 4, 1, 3)


@pytest.mark.parametrize(
    ("ranks", "message"),
    [
        ((1,), "2 to 4 seats"),
        ((1, 1, 1, 1, 1), "2 to 4 seats"),
        ((1, 2, 2, 3), "competition ranks"),
        ((2, 2), "competition ranks"),
        ((0, 1), "competition ranks"),
    ],
)
def test_impossible_ranks_are_refused(ranks: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Outcome(ranks)


def finished_state(ranks: tuple[int, ...]) -> State:
    """A finished game (R19: no carpet left) whose seats end with ``ranks``: an empty
    board, so a seat's score is its dirhams, and tied seats hold the same dirhams."""
    players = len(ranks)
    money = ",".join(str(10 * (6 - rank)) for rank in ranks)
    hand = ",".join("0" for _ in range(4 if players == 2 else players))
    tops = "-,-" if players == 2 else "-"
    return State.from_notation(f"7/7/7/7/7/7/7 d4N {money} {hand} {tops} - over standard")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_state_outcome_on_every_tie_pattern(players: int) -> None:
    for ranks in tie_patterns(players):
        state = finished_state(ranks)
        assert state.is_terminal and state.ranks() == ranks
        assert state.outcome() == Outcome(ranks) and state.winners() == Outcome(ranks).winners
