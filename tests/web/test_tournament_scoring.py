"""A tournament's points, standings and pairings (issue 37, item 3): pure functions of
the games' places, with R21's shared places."""

from __future__ import annotations

import itertools
import random

import pytest

from marrakech.web.tournaments.matching import _group, _rematches, arena_pairs, swiss_round
from marrakech.web.tournaments.scoring import GameResult, place_points, podium, standings


def test_r21_a_shared_win_of_two_players_is_a_draw_worth_half_the_points() -> None:
    assert place_points(1, 1, 2) == 2 and place_points(2, 1, 2) == 0
    assert place_points(1, 2, 2) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r21_every_way_of_sharing_places_gives_the_game_the_same_points(players: int) -> None:
    # R21's places: competition ranking, (1, 1, 3) when two share the win
    def sharings(left: int) -> list[list[int]]:
        if left == 0:
            return [[]]
        return [[size, *rest] for size in range(1, left + 1) for rest in sharings(left - size)]

    for sizes in sharings(players):
        place, total = 1, 0
        for size in sizes:
            total += size * place_points(place, size, players)
            place += size
        assert total == players * (players - 1), sizes


def test_four_players_points_by_place() -> None:
    assert [place_points(k, 1, 4) for k in (1, 2, 3, 4)] == [6, 4, 2, 0]
    assert place_points(1, 3, 4) == 4  # three share the win: positions 1-3, 6+4+2
    assert place_points(2, 2, 3) == 1  # two share second of three: 2+0


def test_impossible_places_are_refused_with_what_was_expected() -> None:
    with pytest.raises(ValueError, match="expected 2 to 4, found 5"):
        place_points(1, 1, 5)
    with pytest.raises(ValueError, match="found 3 by 2"):
        place_points(3, 2, 3)


def test_arena_streak_two_wins_then_double_until_a_game_is_not_a_win() -> None:
    games = [
        GameResult(("a", "b"), (1, 2), order=1),
        GameResult(("a", "b"), (1, 2), order=2),
        GameResult(("a", "b"), (1, 2), order=3),  # on fire: 4
        GameResult(("a", "b"), (1, 1), order=4),  # on fire, a draw: 2, streak over
        GameResult(("a", "b"), (1, 2), order=5),  # 2 again
    ]
    table = standings(["a", "b"], games, players=2, streaks=True)
    a = table[0]
    assert a.entrant == "a" and a.sheet == [
        (2, False),
        (2, False),
        (4, True),
        (2, True),
        (2, False),
    ]
    assert a.score == 12 and a.wins == 4 and not a.on_fire
    assert table[1].score == 1
    # a shared win (R21) is not a win: it does not start a streak
    shared = [GameResult(("a", "b"), (1, 1), order=n) for n in range(4)]
    assert standings(["a", "b"], shared, players=2, streaks=True)[0].score == 4


def test_swiss_has_no_streak_byes_are_a_win_and_buchholz_breaks_ties() -> None:
    games = [
        GameResult(("a", "b"), (1, 2), round=1),
        GameResult(("c",), None, round=1, bye=True),
        GameResult(("a", "c"), (1, 2), round=2),
        GameResult(("b",), None, round=2, bye=True),
        GameResult(("a", "b"), (1, 2), round=3),
    ]
    table = standings(["a", "b", "c"], games, players=2, streaks=False)
    assert [(line.entrant, line.score) for line in table] == [("a", 6), ("b", 2), ("c", 2)]
    # b met a three times (twice counted), c once: b's Buchholz is higher
    assert table[1].tiebreak == 12 and table[2].tiebreak == 6
    assert [line.rank for line in table] == [1, 2, 3]


def test_standings_list_newcomers_share_ranks_and_mark_games_under_way() -> None:
    games = [GameResult(("a", "b", "c"), (1, 1, 3), order=1), GameResult(("d", "a", "b"), None)]
    table = standings(["a", "b", "c", "d", "e"], games, players=3, streaks=True)
    ranks = {line.entrant: (line.rank, line.score, line.playing) for line in table}
    assert ranks == {
        "a": (1, 3, True),
        "b": (1, 3, True),
        "c": (3, 0, False),
        "d": (3, 0, True),
        "e": (3, 0, False),
    }
    assert [line.entrant for line in podium(table)] == ["a", "b", "c"]


def test_standings_refuse_places_that_do_not_match_the_seats() -> None:
    with pytest.raises(ValueError, match="expected 2, found 3"):
        standings(["a", "b"], [GameResult(("a", "b"), (1, 2, 3))], players=2, streaks=True)


def test_arena_pairs_by_score_and_avoids_the_last_opponent() -> None:
    ranking = ["a", "b", "c", "d", "e"]
    assert arena_pairs(["e", "c", "a", "b", "d"], 2, ranking=ranking, last_opponents={}) == [
        ("a", "b"),
        ("c", "d"),
    ]
    again = arena_pairs(["a", "b", "c"], 2, ranking=ranking, last_opponents={"a": ["b"]})
    assert again == [("a", "c")]
    # alone with the last opponent: they play again rather than wait
    assert arena_pairs(["a", "b"], 2, ranking=ranking, last_opponents={"a": ["b"]}) == [("a", "b")]
    # 3-player games, a newcomer (not ranked yet) last
    assert arena_pairs(["z", "b", "a", "c"], 3, ranking=ranking, last_opponents={}) == [
        ("a", "b", "c")
    ]


def test_swiss_round_gives_byes_to_the_lowest_without_one_and_avoids_rematches() -> None:
    games, byes = swiss_round(["a", "b", "c", "d", "e"], 2, met={}, byes={})
    assert games == [("a", "b"), ("c", "d")] and byes == ["e"]
    met = {"a": {"b": 1}, "b": {"a": 1}, "c": {"d": 1}, "d": {"c": 1}}
    games, byes = swiss_round(["a", "b", "c", "d", "e"], 2, met=met, byes={"e": 1})
    assert byes == ["d"] and games == [("a", "c"), ("b", "e")]
    games, byes = swiss_round(list("abcdefg"), 3, met={}, byes={})
    assert games == [("a", "b", "c"), ("d", "e", "f")] and byes == ["g"]
    games, byes = swiss_round(list("abcdefgh"), 4, met={}, byes={})
    assert byes == [] and len(games) == 2


def _groupings(pool: list[str], players: int) -> list[list[tuple[str, ...]]]:
    """Every way of splitting ``pool`` into games of ``players`` (for a brute force)."""
    if not pool:
        return [[]]
    first, rest = pool[0], pool[1:]
    found = []
    for others in itertools.combinations(rest, players - 1):
        left = [entrant for entrant in rest if entrant not in others]
        found += [[(first, *others), *more] for more in _groupings(left, players)]
    return found


@pytest.mark.parametrize("players", [2, 3])
def test_swiss_round_has_the_fewest_rematches_of_any_grouping(players: int) -> None:
    """Against a brute force over every grouping of six: a Swiss round's games repeat
    as few meetings as possible (the top-down grouping alone could leave the last ones
    only past opponents), and with none forced it is the top-down grouping."""
    rng = random.Random(players)
    pool = list("abcdef")
    forced = 0
    for _ in range(300):
        met: dict[str, dict[str, int]] = {entrant: {} for entrant in pool}
        for one, other in itertools.combinations(pool, 2):
            if rng.random() < 0.4:
                met[one][other] = met[other][one] = rng.choice([1, 1, 2])
        games, byes = swiss_round(pool, players, met=met, byes={})
        assert byes == [] and sorted(e for game in games for e in game) == pool
        fewest = min(
            sum(_rematches(game, met) for game in grouping)
            for grouping in _groupings(pool, players)
        )
        assert sum(_rematches(game, met) for game in games) == fewest
        top_down = _group(pool, players, met)
        if sum(_rematches(game, met) for game in top_down) > fewest:
            forced += 1
        elif fewest == 0:
            assert games == top_down
    assert forced > 10  # the cases the top-down grouping got wrong were met


def test_swiss_round_in_a_large_field_of_old_opponents_still_pairs_everyone() -> None:
    """60 entrants at four a game who all met each other: no grouping avoids rematches,
    and the bounded search still returns every entrant in a game."""
    pool = [f"p{i:02d}" for i in range(60)]
    met = {one: {other: 1 for other in pool if other != one} for one in pool}
    games, byes = swiss_round(pool, 4, met=met, byes={})
    assert byes == [] and len(games) == 15
    assert sorted(e for game in games for e in game) == pool
