"""Self-checks of the naive reference implementation against docs/rules.md.

These test the reference itself (not the engine), so that when the engine and
the reference disagree we have some confidence the reference is the right one.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from .naive import ALL_SQUARES, NaiveGame, perft

STANDARD = {2: (12, 30, False), 3: (10, 30, False), 4: (12, 30, False)}
BGA = {2: (12, 30, True), 3: (15, 30, True), 4: (12, 30, True)}


def new_game(
    players: int, rules: tuple[int, int, bool] | None = None, first_seat: int = 0
) -> NaiveGame:
    carpets, money, own_cover = rules if rules is not None else STANDARD[players]
    return NaiveGame(players, carpets, money, own_cover, first_seat)


def move_assam(game: NaiveGame, square: str, facing: str, roll: int) -> None:
    """Put Assam on `square` facing `facing`, keep the facing and roll."""
    assert game.phase() == "orient"
    game.assam_square = square
    game.facing = facing
    game.play("S")
    game.play(f"r{roll}")


# ---------------------------------------------------------------------------
# R1, R8: board and start
# ---------------------------------------------------------------------------


def test_r1_board_has_49_named_squares() -> None:
    game = new_game(3)
    colours = game.top_colours()
    assert len(colours) == 49
    assert set(colours) == {f + r for f in "abcdefg" for r in "1234567"}
    assert all(v is None for v in colours.values())


def test_r8_assam_starts_on_d4_facing_north() -> None:
    assert new_game(4).assam() == ("d4", "N")


# ---------------------------------------------------------------------------
# R2: border arcs, all 28 ways off the board
# ---------------------------------------------------------------------------

BORDER_CASES: list[tuple[str, str, str, str]] = [
    # top edge, leaving North
    ("a7", "N", "b7", "S"),
    ("b7", "N", "a7", "S"),
    ("c7", "N", "d7", "S"),
    ("d7", "N", "c7", "S"),
    ("e7", "N", "f7", "S"),
    ("f7", "N", "e7", "S"),
    ("g7", "N", "g7", "W"),
    # right edge, leaving East
    ("g7", "E", "g7", "S"),
    ("g6", "E", "g5", "W"),
    ("g5", "E", "g6", "W"),
    ("g4", "E", "g3", "W"),
    ("g3", "E", "g4", "W"),
    ("g2", "E", "g1", "W"),
    ("g1", "E", "g2", "W"),
    # bottom edge, leaving South
    ("a1", "S", "a1", "E"),
    ("b1", "S", "c1", "N"),
    ("c1", "S", "b1", "N"),
    ("d1", "S", "e1", "N"),
    ("e1", "S", "d1", "N"),
    ("f1", "S", "g1", "N"),
    ("g1", "S", "f1", "N"),
    # left edge, leaving West
    ("a7", "W", "a6", "E"),
    ("a6", "W", "a7", "E"),
    ("a5", "W", "a4", "E"),
    ("a4", "W", "a5", "E"),
    ("a3", "W", "a2", "E"),
    ("a2", "W", "a3", "E"),
    ("a1", "W", "a1", "N"),
]


def test_r2_there_are_28_border_exits() -> None:
    assert len(BORDER_CASES) == 28
    assert len({(sq, f) for sq, f, _, _ in BORDER_CASES}) == 28


@pytest.mark.parametrize(("start", "facing", "end", "end_facing"), BORDER_CASES)
def test_r2_border_exit(start: str, facing: str, end: str, end_facing: str) -> None:
    game = new_game(3)
    move_assam(game, start, facing, 1)
    assert game.assam() == (end, end_facing)


def test_r2_worked_example_a1_west_roll_3() -> None:
    game = new_game(3)
    move_assam(game, "a1", "W", 3)
    assert game.assam() == ("a3", "N")


def test_r2_several_crossings_in_one_move() -> None:
    # g7 facing N, roll 2: g7 W (loop), then f7.
    game = new_game(3)
    move_assam(game, "g7", "N", 2)
    assert game.assam() == ("f7", "W")
    # a7 facing N, roll 4: b7 S, b6, b5, b4.
    game = new_game(3)
    move_assam(game, "a7", "N", 4)
    assert game.assam() == ("b4", "S")


def test_r2_interior_moves_are_straight() -> None:
    game = new_game(3)
    move_assam(game, "d4", "E", 2)
    assert game.assam() == ("f4", "E")


# ---------------------------------------------------------------------------
# R3, R9, R10: die, orientation
# ---------------------------------------------------------------------------


def test_r3_die_probabilities() -> None:
    game = new_game(3)
    game.play("S")
    assert game.phase() == "roll"
    chances = game.chances()
    assert chances == {
        "r1": Fraction(1, 6),
        "r2": Fraction(1, 3),
        "r3": Fraction(1, 3),
        "r4": Fraction(1, 6),
    }
    assert sum(chances.values()) == 1
    assert game.legal() == ["r1", "r2", "r3", "r4"]


@pytest.mark.parametrize(("token", "facing"), [("L", "W"), ("S", "N"), ("R", "E")])
def test_r9_orient_quarter_turns(token: str, facing: str) -> None:
    game = new_game(3)
    assert game.phase() == "orient"
    assert sorted(game.legal()) == ["L", "R", "S"]
    game.play(token)
    assert game.assam() == ("d4", facing)


def test_r10_roll_moves_exactly_that_many_steps() -> None:
    for roll, square in [(1, "d5"), (2, "d6"), (3, "d7"), (4, "c7")]:
        game = new_game(3)
        game.play("S")
        game.play(f"r{roll}")
        assert game.assam()[0] == square


# ---------------------------------------------------------------------------
# R11, R12, R13: tithe and elimination
# ---------------------------------------------------------------------------


def test_r11_tithe_is_colour_region_not_carpet() -> None:
    game = new_game(3)  # seat 0 to play
    # Blue (seat 1) region: two touching carpets -> 4 squares; plus a blue
    # square touching only diagonally (not counted) and a red square between.
    game.lay(1, "d5", "d6")
    game.lay(1, "e6", "e7")
    game.lay(1, "c7", "b7")  # c7 touches d7? d7 is empty -> separate region
    game.lay(0, "c5", "c6")  # red, not counted
    game.lay(1, "e4", "f4")  # e4 diagonal to d5 only -> separate region
    move_assam(game, "d4", "N", 1)  # lands on d5
    # region: d5, d6, e6, e7 = 4
    assert game.money == [26, 34, 30]
    assert game.phase() == "place"


def test_r11_two_player_regions_are_per_colour() -> None:
    game = new_game(2)
    game.play("+R")
    game.play("+B")
    # seat 0 to play; blue and purple are both seat 1's colours but separate regions
    game.lay(1, "d5", "d6")
    game.lay(3, "e5", "e6")
    move_assam(game, "d4", "N", 1)
    assert game.money == [28, 32]


def test_r12_no_tithe_on_own_colour_or_empty() -> None:
    game = new_game(2)
    game.play("+R")
    game.play("+B")
    game.lay(2, "d5", "d6")  # yellow belongs to seat 0
    move_assam(game, "d4", "N", 1)
    assert game.money == [30, 30]
    game = new_game(3)
    move_assam(game, "d4", "N", 1)
    assert game.money == [30, 30, 30]


def test_r12_no_tithe_on_eliminated_players_colour() -> None:
    game = new_game(3, (10, 3, False))
    game.lay(1, "d5", "d6")
    game.eliminated.append(1)
    move_assam(game, "d4", "N", 1)
    assert game.money == [3, 3, 3]


def test_r13_elimination_pays_all_and_passes_turn() -> None:
    game = new_game(3, (10, 3, False))
    game.lay(1, "d5", "d6")
    game.lay(1, "d7", "c7")  # region of 4 > 3 dirhams
    move_assam(game, "d4", "N", 1)
    assert game.eliminated == [0]
    assert game.money == [0, 6, 3]
    assert game.carpets_left == [0, 10, 10, 0]
    assert game.phase() == "orient" and game.seat() == 1
    assert sum(game.money) == 9
    # seat 2 plays after seat 1, then seat 1 again (seat 0 skipped)
    move_assam(game, "a1", "N", 1)  # empty a2
    game.play(game.legal()[0])
    assert game.seat() == 2
    move_assam(game, "g1", "N", 1)  # empty g2
    game.play(game.legal()[0])
    assert game.seat() == 1


def test_r13_paying_exactly_all_keeps_player_in() -> None:
    game = new_game(3, (10, 2, False))
    game.lay(1, "d5", "d6")
    move_assam(game, "d4", "N", 1)
    assert game.eliminated == []
    assert game.money == [0, 4, 2]
    assert game.phase() == "place"


def test_r13_r19_two_player_elimination_ends_game() -> None:
    game = new_game(2, (12, 1, False))
    game.play("+R")
    game.play("+B")
    game.lay(1, "d5", "d6")
    move_assam(game, "d4", "N", 1)
    assert game.eliminated == [0]
    assert game.phase() == "over"
    assert game.seat() is None
    assert game.legal() == []
    assert game.ranks() == [2, 1]


# ---------------------------------------------------------------------------
# R14, R15, R16, R17, R31: placement
# ---------------------------------------------------------------------------


def test_r14_r15_placements_on_empty_board_from_centre() -> None:
    game = new_game(3)
    move_assam(game, "d4", "W", 4)  # d4 -> c4 b4 a4 -> a5 facing E
    assert game.assam() == ("a5", "E")
    # neighbours a6 (a7, b6), a4 (a3, b4), b5 (c5, b6, b4)
    assert sorted(game.legal()) == sorted(
        ["a6-a7", "a6-b6", "a3-a4", "a4-b4", "b5-c5", "b5-b6", "b4-b5"]
    )


def test_r14_token_lists_lower_left_square_first() -> None:
    game = new_game(3)
    move_assam(game, "d4", "N", 1)  # on d5
    legal = game.legal()
    assert len(legal) == 12
    assert "d3-d4" in legal and "c5-c6" in legal and "b5-c5" in legal
    assert all("d5" not in token for token in legal)


def test_r16_no_exact_full_cover() -> None:
    game = new_game(3)
    game.lay(1, "d6", "d7")
    game.lay(0, "c5", "c6")  # seat 0's own carpet is protected too in standard
    move_assam(game, "d4", "N", 1)
    legal = game.legal()
    assert "d6-d7" not in legal
    assert "c5-c6" not in legal
    assert "c6-d6" in legal  # halves of two different carpets
    assert "d6-e6" in legal  # one half and an empty square


def test_r16_half_covered_carpet_may_be_covered_on_its_visible_half() -> None:
    game = new_game(3)
    game.lay(1, "d6", "d7")
    game.lay(2, "d7", "e7")  # covers the d7 half of the blue carpet
    move_assam(game, "d4", "N", 1)
    assert "d6-d7" in game.legal()  # blue d6 + yellow d7: two different carpets
    assert "d7-e7" not in game.legal()  # both halves of the yellow carpet


def test_r31_own_cover_allows_only_own_colour() -> None:
    game = new_game(3, BGA[3])
    game.lay(1, "d6", "d7")
    game.lay(0, "c5", "c6")
    move_assam(game, "d4", "N", 1)
    legal = game.legal()
    assert "c5-c6" in legal
    assert "d6-d7" not in legal


def test_r31_own_cover_two_players_either_own_colour() -> None:
    game = new_game(2, BGA[2])
    game.play("+R")
    game.play("+B")
    game.lay(2, "c5", "c6")  # yellow, seat 0's second colour
    game.lay(3, "d6", "d7")  # purple, seat 1's
    move_assam(game, "d4", "N", 1)
    legal = game.legal()
    assert "c5-c6" in legal
    assert "d6-d7" not in legal


def test_r17_new_carpet_is_on_top() -> None:
    game = new_game(3)
    game.lay(1, "d6", "d7")
    move_assam(game, "d4", "N", 1)
    game.play("d6-e6")
    tops = game.top_colours()
    assert tops["d6"] == "R" and tops["e6"] == "R" and tops["d7"] == "B"
    assert game.carpets_left == [9, 10, 10, 0]
    assert game.seat() == 1 and game.phase() == "orient"


def test_illegal_token_raises() -> None:
    game = new_game(3)
    with pytest.raises(ValueError):
        game.play("r1")
    game.play("S")
    with pytest.raises(ValueError):
        game.play("L")
    game.play("r1")
    with pytest.raises(ValueError):
        game.play("d4-d5")  # R15: d5 is Assam's square
    with pytest.raises(ValueError):
        game.play("a1-a2")


# ---------------------------------------------------------------------------
# R7: two-player piles
# ---------------------------------------------------------------------------


def test_r7_two_player_opening_draws_then_first_seat() -> None:
    game = new_game(2, first_seat=1)
    assert game.phase() == "draw" and game.seat() == 0
    assert game.chances() == {"+R": Fraction(1, 2), "+Y": Fraction(1, 2)}
    game.play("+Y")
    assert game.phase() == "draw" and game.seat() == 1
    assert game.legal() == ["+B", "+P"]
    game.play("+P")
    assert game.pile_top(0) == "Y" and game.pile_top(1) == "P"
    assert game.phase() == "orient" and game.seat() == 1


def test_r7_place_top_colour_then_reveal_next() -> None:
    game = new_game(2, (2, 30, False))
    game.play("+R")
    game.play("+B")
    game.play("S")
    game.play("r1")
    game.play("c5-c6")
    assert game.top_colours()["c5"] == "R"
    assert game.carpets_left == [1, 2, 2, 2]
    assert game.pile_top(0) is None
    assert game.phase() == "draw" and game.seat() == 0
    assert game.chances() == {"+R": Fraction(1, 3), "+Y": Fraction(2, 3)}
    game.play("+R")
    assert game.phase() == "orient" and game.seat() == 1
    game.play("S")
    game.play("r1")
    game.play(game.legal()[0])
    game.play("+B")
    # seat 0's last red: only yellow left -> one outcome of probability 1
    game.play("S")
    game.play("r1")
    game.play(game.legal()[0])
    assert game.carpets_left == [0, 1, 2, 2]
    assert game.chances() == {"+Y": Fraction(1)}


def test_r7_r19_two_player_game_ends_after_last_placement_without_draw() -> None:
    game = new_game(2, (1, 30, False))
    # each seat has 2 carpets: R, Y and B, P
    tokens = []
    while game.phase() != "over":
        legal = game.legal()
        tokens.append(legal[0])
        game.play(legal[0])
    assert game.carpets_left == [0, 0, 0, 0]
    # opening 2 draws, 4 turns of orient/roll/place, 2 mid-game draws
    assert len(tokens) == 2 + 4 * 3 + 2


# ---------------------------------------------------------------------------
# R19, R20, R21: end and scoring
# ---------------------------------------------------------------------------


def test_r19_game_ends_after_last_carpet() -> None:
    game = new_game(3, (1, 30, False), first_seat=2)
    seats = []
    while game.phase() != "over":
        if game.phase() == "orient":
            seats.append(game.seat())
        game.play(game.legal()[0])
    assert seats == [2, 0, 1]
    assert game.carpets_left == [0, 0, 0, 0]


def test_r20_score_is_money_plus_visible_squares() -> None:
    game = new_game(4)
    game.lay(0, "a1", "a2")
    game.lay(0, "a2", "a3")  # a2 covered by another red: red shows 3
    game.lay(1, "g7", "g6")
    game.money = [30, 25, 30, 35]
    assert game.scores() == [33, 27, 30, 35]


def test_r21_ranks_competition_with_money_tiebreak() -> None:
    game = new_game(4)
    game.lay(0, "a1", "a2")
    game.money = [30, 32, 32, 20]
    # scores 32, 32, 32, 20; money tie-break: seat 1 and 2 share first
    assert game.ranks() == [3, 1, 1, 4]


def test_r21_eliminated_rank_below_last_eliminated_highest() -> None:
    game = new_game(4)
    game.eliminated = [2, 0]
    game.money = [0, 10, 0, 50]
    game.lay(2, "a1", "a2")  # an eliminated seat's squares do not help it win
    # still in: seat 3 (50) first, seat 1 (10) second; then seat 0 (eliminated
    # last), then seat 2 (eliminated first)
    assert game.ranks() == [3, 2, 4, 1]


# ---------------------------------------------------------------------------
# perft
# ---------------------------------------------------------------------------


def test_perft_three_players_small_depths() -> None:
    game = new_game(3)
    assert perft(game, 0) == 1
    assert perft(game, 1) == 3
    assert perft(game, 2) == 12
    # per facing, placements after rolls 1..4: 12 + 11 + 7 + 7
    assert perft(game, 3) == 3 * 37


def test_perft_two_players_counts_draws() -> None:
    game = new_game(2)
    assert perft(game, 1) == 2
    assert perft(game, 2) == 4
    assert perft(game, 5) == 4 * 3 * 37


def test_perft_finished_game_is_a_leaf() -> None:
    game = new_game(3, (0, 30, False))
    assert game.phase() == "over"
    assert perft(game, 3) == 1


# ---------------------------------------------------------------------------
# Full random games
# ---------------------------------------------------------------------------


def play_random(game: NaiveGame, rng: random.Random) -> int:
    plies = 0
    while game.phase() != "over":
        phase = game.phase()
        if phase in ("roll", "draw"):
            chances = game.chances()
            assert sum(chances.values()) == 1
            tokens = list(chances)
            token = rng.choices(tokens, weights=[float(chances[t]) for t in tokens])[0]
        else:
            legal = game.legal()
            assert legal, "R18: there is always a legal placement"
            token = rng.choice(legal)
        game.play(token)
        plies += 1
    return plies


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules_name", ["standard", "bga"])
def test_r19_random_games_finish_and_conserve_money(players: int, rules_name: str) -> None:
    rules = (STANDARD if rules_name == "standard" else BGA)[players]
    rng = random.Random(1000 * players + len(rules_name))
    for _ in range(5):
        game = new_game(players, rules, first_seat=rng.randrange(players))
        play_random(game, rng)
        assert game.phase() == "over"
        assert sum(game.money) == 30 * players
        for seat in game.eliminated:
            assert game.money[seat] == 0
        ranks = game.ranks()
        seats_in = [s for s in range(players) if s not in game.eliminated]
        assert seats_in
        assert 1 in ranks and all(1 <= r <= players for r in ranks)
        for seat in game.eliminated:
            assert all(ranks[seat] > ranks[other] for other in seats_in)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r13_random_games_with_little_money_eliminate(players: int) -> None:
    rng = random.Random(players)
    saw_elimination = False
    for _ in range(20):
        carpets = 12 if players != 3 else 10
        game = new_game(players, (carpets, 3, False))
        play_random(game, rng)
        assert sum(game.money) == 3 * players
        for seat in game.eliminated:
            assert game.money[seat] == 0
            assert all(
                game.carpets_left[c] == 0 for c in ([seat, seat + 2] if players == 2 else [seat])
            )
        if game.eliminated:
            saw_elimination = True
            if len(game.eliminated) == players - 1:
                winner = next(s for s in range(players) if s not in game.eliminated)
                assert game.ranks()[winner] == 1
    assert saw_elimination


def test_all_squares_constant() -> None:
    assert len(ALL_SQUARES) == 49
