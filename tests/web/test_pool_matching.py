"""Quick pairing's matching (issue 37): waves, rating distance against waves missed,
tables of 3 and 4, blocked pairs, bots after the wait (marrakech.web.pool_matching)."""

from __future__ import annotations

import pytest

from marrakech.web.pool_matching import (
    BASE_RANGE,
    RANGE_PER_MISS,
    Rules,
    Table,
    Waiting,
    fill_open_table,
    full_table,
    match,
)

ANY = frozenset({2, 3, 4})


def players(tables: list[Table]) -> list[tuple[str, ...]]:
    return [table.players for table in tables]


def test_neighbours_in_rating_are_paired() -> None:
    waiting = [Waiting(key, rating) for key, rating in [("a", 1000), ("b", 1300), ("c", 1010)]]
    waiting.append(Waiting("d", 1290))
    assert sorted(players(match(waiting, Rules()))) == [("a", "c"), ("d", "b")]


def test_far_apart_players_meet_after_missed_waves() -> None:
    gap = BASE_RANGE + 2 * RANGE_PER_MISS
    assert match([Waiting("a", 1000), Waiting("b", 1000 + gap)], Rules()) == []
    later = [Waiting("a", 1000, misses=2), Waiting("b", 1000 + gap, misses=2)]
    assert players(match(later, Rules())) == [("a", "b")]
    # One player's tolerance is not enough: both must accept the spread.
    one = [Waiting("a", 1000, misses=9), Waiting("b", 1000 + gap, misses=0)]
    assert match(one, Rules()) == []


def test_missed_waves_decide_who_is_seated_when_one_must_wait() -> None:
    # Three players, one table of two: the spread picks the closest pair...
    fresh = [Waiting("a", 1000), Waiting("b", 1050), Waiting("c", 1060)]
    assert players(match(fresh, Rules())) == [("b", "c")]
    # ...unless the one left out has waited waves: their bonus outweighs the distance.
    waited = [Waiting("a", 1000, misses=5), Waiting("b", 1050), Waiting("c", 1060)]
    assert players(match(waited, Rules())) == [("a", "b")]


def test_a_blocked_pair_never_sits_together() -> None:
    waiting = [Waiting("a", 1000, misses=50), Waiting("b", 1001, misses=50)]
    assert match(waiting, Rules(), blocked=[frozenset({"a", "b"})]) == []
    waiting.append(Waiting("c", 1002, misses=50))
    assert players(match(waiting, Rules(), blocked=[frozenset({"a", "b"})])) == [("b", "c")]


def test_tables_of_three_and_four_are_formed_from_compatible_players() -> None:
    three = frozenset({3})
    waiting = [Waiting(f"p{n}", 1000 + 10 * n, sizes=three) for n in range(7)]
    tables = match(waiting, Rules(bot_after=None))
    assert [table.size for table in tables] == [3, 3]
    assert all(table.bots == 0 for table in tables)
    # Someone who accepts any size completes a table of four.
    four = [Waiting(f"q{n}", 1000 + n, sizes=frozenset({4})) for n in range(3)]
    assert match(four, Rules(bot_after=None)) == []
    assert players(match([*four, Waiting("any", 1001.5, sizes=ANY)], Rules())) == [
        ("q0", "q1", "any", "q2")
    ]


def test_a_table_is_refused_when_one_player_is_out_of_range() -> None:
    waiting = [Waiting("a", 1000, sizes=frozenset({3})), Waiting("b", 1010, sizes=frozenset({3}))]
    waiting.append(Waiting("c", 2000, sizes=frozenset({3})))
    assert match(waiting, Rules(bot_after=None)) == []


def test_bots_fill_the_table_of_a_player_who_waited() -> None:
    rules = Rules(bot_after=20)
    alone = Waiting("a", 1000, waited=19, sizes=frozenset({3}))
    assert match([alone], rules) == []
    waited = Waiting("a", 1000, waited=20, sizes=frozenset({3}))
    assert match([waited], rules) == [Table(("a",), bots=2)]
    # Any size: a table of two; no bots wanted: none.
    assert match([Waiting("b", 1000, waited=60, sizes=ANY)], rules) == [Table(("b",), bots=1)]
    assert match([Waiting("c", 1000, waited=60, bots=False)], rules) == []
    assert match([waited], Rules(bot_after=None)) == []


def test_a_full_table_is_seen_at_once() -> None:
    assert not full_table([Waiting("a", 1000, sizes=frozenset({3}))] * 2)
    assert full_table([Waiting("a", 1000, sizes=frozenset({3}))] * 2 + [Waiting("c", 1, sizes=ANY)])
    assert full_table([Waiting("a", 1000), Waiting("b", 3000)])


def test_a_player_twice_in_a_wave_is_refused() -> None:
    with pytest.raises(ValueError, match="each player once"):
        match([Waiting("a", 1000), Waiting("a", 1000)], Rules())


def test_a_large_wave_is_matched_quickly() -> None:
    waiting = [
        Waiting(f"p{n}", 800 + (n * 37) % 900, misses=n % 5, sizes=frozenset({2 + n % 3}))
        for n in range(3000)
    ]
    tables = match(waiting, Rules(bot_after=None))
    seated = [key for table in tables for key in table.players]
    assert len(seated) == len(set(seated)) > 2500


def test_an_open_table_takes_the_nearest_players_who_accept_its_size() -> None:
    waiting = [
        Waiting("far", 1400),
        Waiting("near", 1020, sizes=ANY),
        Waiting("two", 1000),
        Waiting("close", 990, sizes=frozenset({3})),
    ]
    assert fill_open_table(1000, 3, 2, waiting) == ["close", "near"]
    assert fill_open_table(1000, 2, 1, waiting) == ["two"]
    # Far apart: only once the waiting player's tolerance reaches the host.
    assert fill_open_table(1000, 2, 3, [Waiting("far", 1400)]) == []
    assert fill_open_table(1000, 2, 3, [Waiting("far", 1400, misses=5)]) == ["far"]
