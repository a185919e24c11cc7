"""One scenario per rule of docs/rules.md (R1..R40), named after it."""

from __future__ import annotations

from fractions import Fraction

import pytest

from marrakech import (
    BGA,
    CHANCE,
    STANDARD,
    TERMINAL,
    IllegalActionError,
    Phase,
    RuleSet,
    State,
    parse_action,
    parse_square,
    square_name,
)
from marrakech.geometry import CANDIDATES, E, N, S, W, walk
from tests.core.conftest import play, random_states


def at(text: str) -> State:
    return State.from_notation(text)


def legal(state: State) -> list[str]:
    return [str(a) for a in state.legal_actions()]


# -- Board and names ---------------------------------------------------------------


def test_r1_board_squares_are_named_like_chess() -> None:
    assert [square_name(s) for s in (0, 6, 24, 42, 48)] == ["a1", "g1", "d4", "a7", "g7"]
    assert parse_square("d4") == 24
    # North is towards rank 7: one step North from d4 reaches d5.
    assert square_name(walk(parse_square("d4"), N, 1)[-1].square) == "d5"
    assert square_name(walk(parse_square("d4"), E, 1)[-1].square) == "e4"


# All 28 border exits: (square, facing leaving) -> (square, facing after the step).
BORDER_EXITS = {
    ("a7", N): ("b7", S), ("b7", N): ("a7", S), ("c7", N): ("d7", S), ("d7", N): ("c7", S),
    ("e7", N): ("f7", S), ("f7", N): ("e7", S), ("g7", N): ("g7", W),
    ("g7", E): ("g7", S), ("g6", E): ("g5", W), ("g5", E): ("g6", W), ("g4", E): ("g3", W),
    ("g3", E): ("g4", W), ("g2", E): ("g1", W), ("g1", E): ("g2", W),
    ("a1", S): ("a1", E), ("b1", S): ("c1", N), ("c1", S): ("b1", N), ("d1", S): ("e1", N),
    ("e1", S): ("d1", N), ("f1", S): ("g1", N), ("g1", S): ("f1", N),
    ("a1", W): ("a1", N), ("a2", W): ("a3", E), ("a3", W): ("a2", E), ("a4", W): ("a5", E),
    ("a5", W): ("a4", E), ("a6", W): ("a7", E), ("a7", W): ("a6", E),
}  # fmt: skip


@pytest.mark.parametrize(("start", "end"), list(BORDER_EXITS.items()))
def test_r2_every_border_exit_follows_its_arc(start: tuple[str, int], end: tuple[str, int]) -> None:
    (step,) = walk(parse_square(start[0]), start[1], 1)
    assert (square_name(step.square), step.facing) == end
    assert step.arc


def test_r2_there_are_28_border_exits() -> None:
    assert len(BORDER_EXITS) == 28


def test_r2_worked_example_a1_west_roll_3() -> None:
    path = walk(parse_square("a1"), W, 3)
    assert [(square_name(s.square), s.facing) for s in path] == [("a1", N), ("a2", N), ("a3", N)]
    assert [s.arc for s in path] == [True, False, False]


def test_r2_several_crossings_in_one_move() -> None:
    # g7 facing North: the loop turns him West, then on along rank 7.
    path = walk(parse_square("g7"), N, 4)
    assert [square_name(s.square) for s in path] == ["g7", "f7", "e7", "d7"]
    # a2 facing West: across to a3, then back East.
    path = walk(parse_square("a2"), W, 2)
    assert [(square_name(s.square), s.facing) for s in path] == [("a3", E), ("b3", E)]


def test_r2_crossing_an_arc_is_one_ordinary_step_in_a_game() -> None:
    state = at("7/7/7/7/7/7/7 a1W 30,30,30 10,10,10 - - roll:0 standard")
    after = state.apply(parse_action("r3"))
    assert (square_name(after.assam_square), after.assam_facing) == ("a3", N)


def test_r3_die_has_faces_1_2_2_3_3_4() -> None:
    state = State.new(3).apply(parse_action("S"))
    outcomes = {str(a): p for a, p in state.chance_outcomes()}
    assert outcomes == {
        "r1": Fraction(1, 6),
        "r2": Fraction(1, 3),
        "r3": Fraction(1, 3),
        "r4": Fraction(1, 6),
    }
    assert state.to_move == CHANCE


# -- Setup -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r4_players_and_first_seat(players: int) -> None:
    for first in range(players):
        state = State.new(players, first_seat=first)
        while state.is_chance:
            state = state.apply(state.legal_actions()[0])
        assert state.to_move == first
    with pytest.raises(ValueError, match="2, 3 or 4"):
        State.new(5)
    with pytest.raises(ValueError, match="first_seat"):
        State.new(3, first_seat=3)


def test_r4_play_passes_clockwise() -> None:
    state = State.new(4, first_seat=2)
    order: list[int] = []
    while len(order) < 6:
        if state.phase == Phase.ORIENT:
            order.append(state.turn)
        action = state.legal_actions()[1] if state.phase == Phase.ORIENT else None
        state = state.apply(action or state.legal_actions()[0])
    assert order == [2, 3, 0, 1, 2, 3]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r5_everyone_starts_with_30_dirhams(players: int) -> None:
    assert State.new(players).money == (30,) * players


def test_r6_carpets_at_3_and_4_players() -> None:
    assert State.new(3).hand == (10, 10, 10)
    assert State.new(4).hand == (12, 12, 12, 12)
    assert State.new(3, BGA).hand == (15, 15, 15)


def test_r7_two_players_own_two_colours_of_12() -> None:
    state = State.new(2)
    assert state.hand == (12, 12, 12, 12)
    assert state.carpets_in_hand(0) == 24
    # The opening reveals seat 0's top carpet, then seat 1's.
    assert state.phase == Phase.DRAW and state.draw_pile == 0
    assert {str(a): p for a, p in state.chance_outcomes()} == {
        "+R": Fraction(1, 2),
        "+Y": Fraction(1, 2),
    }
    state = state.apply(parse_action("+Y"))
    assert state.draw_pile == 1 and legal(state) == ["+B", "+P"]
    state = state.apply(parse_action("+B"))
    assert state.phase == Phase.ORIENT and state.pile_top(0) == 2 and state.pile_top(1) == 1


def test_r7_a_pile_must_place_its_top_and_reveals_the_next() -> None:
    state = play(State.new(2), "+Y", "+B", "S", "r1")
    event = state.describe(state.legal_actions()[0])
    assert event.placed_colour == 2  # yellow, the revealed top
    state = event.after
    assert state.phase == Phase.DRAW and state.draw_pile == 0
    # 12 red and 11 yellow remain in seat 0's pile.
    assert dict((str(a), p) for a, p in state.chance_outcomes()) == {
        "+R": Fraction(12, 23),
        "+Y": Fraction(11, 23),
    }


def test_r7_a_pile_of_one_colour_still_draws_with_probability_1() -> None:
    state = at("7/7/7/7/7/7/7 d4N 30,30 0,5,3,5 -,B - draw:0:1 standard")
    assert [(str(a), p) for a, p in state.chance_outcomes()] == [("+Y", Fraction(1))]


def test_r8_assam_starts_on_d4_facing_north() -> None:
    state = State.new(4)
    assert (square_name(state.assam_square), state.assam_facing) == ("d4", N)


# -- A turn ------------------------------------------------------------------------


def test_r9_orient_keeps_or_turns_a_quarter_never_a_half() -> None:
    state = State.new(3)
    assert legal(state) == ["L", "S", "R"]
    facings = [state.apply(parse_action(t)).assam_facing for t in ("L", "S", "R")]
    assert facings == [W, N, E]


def test_r10_roll_moves_exactly_that_many_steps() -> None:
    for steps, square in ((1, "d5"), (2, "d6"), (3, "d7"), (4, "c7")):
        state = play(State.new(3), "S", f"r{steps}")
        assert square_name(state.assam_square) == square
    assert play(State.new(3), "S", "r4").assam_facing == S  # crossed the c7-d7 arc


def test_r11_tithe_counts_the_connected_region_of_that_colour() -> None:
    # Blue d5 (its other half covered) joins the blue carpet d6-e6; c7 touches only diagonally.
    board = "2Bx4/3BeBw2/3Bx3/7/7/7/7"
    state = at(f"{board} d3N 30,30,30 10,7,10 - - roll:0 standard")
    region = state.region_at(parse_square("d5"))
    assert sorted(square_name(s) for s in region) == ["d5", "d6", "e6"]
    event = state.describe(parse_action("r2"))  # d3 -> d5: seat 0 pays blue 3
    assert event.after.money == (27, 33, 30)
    assert event.tithe is not None and (event.tithe.payee, event.tithe.due) == (1, 3)


def test_r11_region_is_by_colour_not_by_carpet_and_ignores_diagonals() -> None:
    board = "7/7/7/2BeBwBx2/5Bx1/7/7"  # c4-d4 carpet, e4 another blue, f3 diagonal
    state = at(f"{board} c2N 30,30,30 10,7,10 - - roll:0 standard")
    after = state.apply(parse_action("r2"))  # lands on c4: region c4, d4, e4
    assert after.money == (27, 33, 30)


def test_r11_two_players_each_colour_is_its_own_region() -> None:
    board = "7/7/7/2BxPx3/7/7/7"  # blue c4 touches purple d4: both seat 1's, separate regions
    state = at(f"{board} c2N 30,30 12,11,12,11 R,B - roll:0 standard")
    after = state.apply(parse_action("r2"))
    assert after.money == (29, 31)


def test_r12_no_tithe_on_empty_own_or_eliminated_colour() -> None:
    empty = at("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - roll:0 standard")
    assert empty.apply(parse_action("r1")).money == (30, 30, 30)
    own = at("7/7/7/3Rx3/7/7/7 d3N 30,30,30 9,10,10 - - roll:0 standard")
    assert own.apply(parse_action("r1")).money == (30, 30, 30)
    two = at("7/7/7/3Yx3/7/7/7 d3N 30,30 12,12,11,12 R,B - roll:0 standard")
    assert two.apply(parse_action("r1")).money == (30, 30)  # yellow is seat 0's too
    out = at("7/7/7/3Bx3/7/7/7 d3N 30,0,60 10,0,10 - 1 roll:0 standard")
    assert out.apply(parse_action("r1")).money == (30, 0, 60)


def test_r13_cannot_pay_eliminates() -> None:
    state = at("7/7/7/2BeBw3/7/7/7 d2N 1,58,31 10,8,10 - - roll:0 standard")
    event = state.describe(parse_action("r2"))
    after = event.after
    assert after.money == (0, 59, 31)
    assert after.eliminated == (0,)
    assert after.carpets_in_hand(0) == 0
    assert after.phase == Phase.ORIENT and after.turn == 1  # no placement, next seat
    assert event.eliminated == 0 and event.tithe is not None and event.tithe.paid == 1
    # His carpets stay on the board and still count for his score.
    with_red = at("7/7/7/2BeBw3/7/5Rx1/7 d2N 1,58,31 9,8,10 - - roll:0 standard")
    out = with_red.apply(parse_action("r2"))
    assert out.scores()[0] == 1 and out.ranks()[0] == 3


def test_r13_paying_exactly_all_keeps_the_player_in() -> None:
    state = at("7/7/7/2BeBw3/7/7/7 d2N 2,58,30 10,8,10 - - roll:0 standard")
    after = state.apply(parse_action("r2"))
    assert after.money == (0, 60, 30) and after.eliminated == () and after.phase == Phase.PLACE


def test_r14_placement_touches_assams_square() -> None:
    state = play(State.new(3), "S", "r1")  # Assam on d5
    assam = state.assam_square
    for action in state.legal_actions():
        a, b = action.squares  # type: ignore[attr-defined]
        near = [sq for sq in (a, b) if abs(sq - assam) in (1, 7)]
        assert near, str(action)
    assert len(state.legal_actions()) == 12


def test_r15_never_under_assam() -> None:
    state = play(State.new(3), "S", "r1")
    assert all(state.assam_square not in a.squares for a in state.legal_actions())  # type: ignore[attr-defined]
    with pytest.raises(IllegalActionError, match="expected one of"):
        state.apply(parse_action("d5-d6"))


def test_r16_no_full_cover_of_one_carpet() -> None:
    # A whole blue carpet d5-d6 beside Assam on d4: red may not cover exactly it.
    state = at("7/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 10,9,10 - - place:0 standard")
    assert "d5-d6" not in legal(state)
    with pytest.raises(IllegalActionError):
        state.apply(parse_action("d5-d6"))
    # Half of it, or halves of two carpets, are fine.
    assert "d5-e5" in legal(state) and "c5-d5" in legal(state)


def test_r16_halves_of_two_carpets_even_of_one_colour() -> None:
    board = "7/7/3BxBx2/7/7/7/7"  # d5 and e5 blue, but of two different carpets
    state = at(f"{board} d4N 30,30,30 10,8,10 - - place:0 standard")
    assert "d5-e5" in legal(state)


def test_r16_own_carpet_cannot_be_fully_covered_in_standard() -> None:
    state = at("7/3Rs3/3Rn3/7/7/7/7 d4N 30,30,30 9,10,10 - - place:0 standard")
    assert "d5-d6" not in legal(state)


def test_r17_new_carpet_is_on_top_and_half_covered_carpet_unlinks() -> None:
    state = at("7/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 10,9,10 - - place:0 standard")
    after = state.apply(parse_action("d5-e5"))
    d5, d6, e5 = (parse_square(s) for s in ("d5", "d6", "e5"))
    assert after.colour_at(d5) == 0 and after.colour_at(e5) == 0
    assert after.other_half(d5) == e5
    assert after.colour_at(d6) == 1 and after.other_half(d6) is None
    # The blue half on d6 can now be covered together with a new square (R16 allows).
    event = state.describe(parse_action("d5-e5"))
    assert [(square_name(c.square), c.colour) for c in event.covered] == [("d5", 1)]


def test_r18_there_is_always_a_legal_placement_and_at_most_12() -> None:
    assert max(len(c) for c in CANDIDATES) == 12
    for players, rules in ((2, STANDARD), (3, STANDARD), (4, BGA)):
        for state in random_states(players, rules, games=6, seed=players):
            if state.phase == Phase.PLACE:
                assert 1 <= len(state.legal_actions()) <= 12


def test_r19_game_ends_after_the_last_placement() -> None:
    state = at("7/7/7/7/7/7/7 d4N 30,30,30 0,0,1 - - place:2 standard")
    after = state.apply(state.legal_actions()[0])
    assert after.is_terminal and after.to_move == TERMINAL and after.legal_actions() == ()


def test_r19_game_ends_when_one_player_is_left() -> None:
    state = at("7/7/7/2BeBw3/7/7/7 d2N 1,59 11,10,12,12 R,B - roll:0 standard")
    after = state.apply(parse_action("r2"))
    assert after.is_terminal and after.winners() == (1,)


def test_r19_elimination_of_the_last_seat_holding_carpets_ends_the_game() -> None:
    state = at("7/7/7/2BeBw3/7/7/7 d2N 30,30,0 0,0,1 - - roll:2 standard")
    after = state.apply(parse_action("r2"))
    assert after.eliminated == (2,) and after.is_terminal


def test_r19_play_passes_to_the_next_seat_still_in() -> None:
    state = at("7/7/7/7/7/7/7 d4N 30,0,60,30 5,0,5,5 - 1 place:0 standard")
    after = state.apply(state.legal_actions()[0])
    assert after.turn == 2


def test_r20_score_is_dirhams_plus_visible_squares() -> None:
    state = at("7/7/7/2BeBwRx2/7/7/7 d2N 25,30,35 9,9,10 - - orient:0 standard")
    assert state.scores() == (26, 32, 35)


def test_r21_ranking_tie_break_on_dirhams_and_shared_wins() -> None:
    # Scores: seat 0 = 20 + 2, seat 1 = 22 + 0 -> tie on 22, seat 1 has more dirhams.
    over = at("7/7/7/2ReRw3/7/7/7 d2N 20,22,48 0,0,0 - - over standard")
    assert over.scores() == (22, 22, 48)
    assert over.ranks() == (3, 2, 1)
    shared = at("7/7/7/7/7/7/7 d2N 45,45 0,0,0,0 -,- - over standard")
    assert shared.ranks() == (1, 1) and shared.winners() == (0, 1)


def test_r21_eliminated_rank_below_in_reverse_order_of_elimination() -> None:
    over = at("7/7/7/7/7/7/7 d2N 0,0,60,60 0,0,0,0 - 1,0 over standard")
    assert over.ranks() == (3, 4, 1, 1)
    assert over.winners() == (2, 3)


# -- Rule sets ---------------------------------------------------------------------


def test_r30_standard_is_the_default() -> None:
    assert State.new(3).rules == STANDARD and STANDARD.name == "standard"
    assert not STANDARD.own_cover


def test_r31_bga_lets_a_player_cover_his_own_whole_carpet() -> None:
    own = at("7/3Rs3/3Rn3/7/7/7/7 d4N 30,30,30 14,15,15 - - place:0 bga")
    assert "d5-d6" in legal(own)
    theirs = at("7/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 15,14,15 - - place:0 bga")
    assert "d5-d6" not in legal(theirs)
    # At 2 players, either of his colours.
    two = at("7/3Ys3/3Yn3/7/7/7/7 d4N 30,30 12,12,11,12 R,B - place:0 bga")
    assert "d5-d6" in legal(two)
    # An eliminated player's carpet stays protected.
    out = at("7/3Bs3/3Bn3/7/7/7/7 d4N 30,0,60 14,0,15 - 1 place:0 bga")
    assert "d5-d6" not in legal(out)


def test_r31_bga_has_15_carpets_at_3_players_otherwise_standard_counts() -> None:
    assert [BGA.carpets_per_colour(p) for p in (2, 3, 4)] == [12, 15, 12]
    assert [STANDARD.carpets_per_colour(p) for p in (2, 3, 4)] == [12, 10, 12]


# -- What is public ----------------------------------------------------------------


def test_r40_the_position_string_holds_only_public_information() -> None:
    state = State.new(2)
    state = play(state, "+Y", "+B")
    fields = state.notation().split(" ")
    assert fields[4] == "Y,B"  # the two pile tops are public, the order below is not stored
    assert fields[3] == "12,12,12,12"


@pytest.mark.slow
def test_r18_over_many_random_positions() -> None:
    for players in (2, 3, 4):
        for rules in (STANDARD, BGA):
            for state in random_states(players, rules, games=300, seed=17 * players):
                if state.phase == Phase.PLACE:
                    assert 1 <= len(state.legal_actions()) <= 12


def test_r22_a_resigning_seat_leaves_like_an_eliminated_one() -> None:
    from marrakech import Resign
    from marrakech.record import GameRecord

    state = State.new(players=3).apply(parse_action("R")).apply(parse_action("r2"))
    assert state.phase == Phase.PLACE and state.turn == 0
    other = state.apply(Resign(2))  # another seat resigns: seat 0 goes on placing
    assert other.eliminated == (2,) and other.money == (30, 30, 0) and other.hand[2] == 0
    assert other.phase == Phase.PLACE and other.turn == 0
    mine = other.apply(Resign(0))  # the seat to play resigns: the turn passes (R19)
    assert mine.is_terminal and mine.winners() == (1,)
    assert mine.ranks() == (2, 1, 3)  # below every seat in, last out highest (R21)
    event = other.describe(Resign(0))
    assert str(event) == "Red resigns and leaves the game. The game is over."
    tokens = ["R", "r2", "resign:2", "resign:0"]
    record = GameRecord.from_actions(State.new(3), [parse_action(t) for t in tokens])
    assert record.to_dict()["actions"] == tokens
    assert GameRecord.from_json(record.to_json()).final_state() == mine


def test_r22_resignation_is_refused_where_it_cannot_be() -> None:
    from marrakech import Resign

    state = State.new(players=3)
    assert Resign(1) not in state.legal_actions()  # offered by interfaces, not a move
    with pytest.raises(IllegalActionError, match="resign:1: a seat resigns while a seat"):
        state.apply(parse_action("S")).apply(Resign(1))  # at the ROLL chance node
    out = state.apply(Resign(1))
    with pytest.raises(IllegalActionError, match="expected one of the seats still in: 0, 2"):
        out.apply(Resign(1))
    with pytest.raises(IllegalActionError, match="seats still in: 0, 1, 2"):
        state.apply(Resign(3))


def test_r32_options_round_trip_through_the_rule_word() -> None:
    import pytest

    from marrakech.errors import NotationError
    from marrakech.rules import BGA, RULE_OPTIONS, RuleOption, parse_rules

    fields = [o.field for o in RULE_OPTIONS]  # the shipped ones first, then any added
    assert fields[0] == "orient_last" and len(set(fields)) == len(fields)
    assert all(isinstance(o, RuleOption) and o.rule.startswith("R") for o in RULE_OPTIONS)
    assert all(getattr(BGA, field) is False for field in fields)  # off in the named sets
    rules = BGA.with_options(orient_last=True)
    assert rules.token() == "bga+orient-last" and parse_rules(rules.token()) == rules
    assert rules.base == BGA and rules.options() == {f: f == "orient_last" for f in fields}
    with pytest.raises(NotationError, match="at most once"):
        parse_rules("bga+orient-last+orient-last")
    with pytest.raises(NotationError, match=r"found \+fast"):
        parse_rules("standard+fast")
    with pytest.raises(ValueError, match="expected rule options among orient_last"):
        BGA.with_options(fast=True)


def _play(state: State, tokens: str) -> list[str]:
    """Apply ``tokens``; the phase after each, as the notation writes it."""
    phases = []
    for token in tokens.split():
        state = state.apply(parse_action(token))
        phases.append(state.notation().split()[6])
    return phases


def test_r32_two_players_the_placers_next_carpet_is_drawn_before_he_orients() -> None:
    # Board Game Arena's order (R32, R7): roll, place, the placer's pile shows his next
    # carpet, then he turns Assam for the next seat, who rolls at once.
    state = State.new(2, STANDARD.with_options(orient_last=True), first_seat=1)
    tokens = "+R +B r2 d5-e5 +P L r3"
    assert _play(state, tokens) == [
        "draw:1:1",
        "roll:1",  # the first player rolls without orienting
        "place:1",
        "draw:1:1",  # seat 1 placed; his pile reveals while it is still his turn
        "orient:1",
        "roll:0",
        "place:0",
    ]
    for token in tokens.split()[:4]:
        state = state.apply(parse_action(token))
    assert state.to_move == CHANCE and state.draw_pile == 1 and state.turn == 1
    shown = state.apply(parse_action("+P"))
    assert shown.to_move == 1 and shown.pile_top(1) == 3  # P, shown during the orientation
    assert [str(a) for a in shown.legal_actions()] == ["L", "S", "R"]
    with pytest.raises(IllegalActionError, match=r"DRAW phase of seat 1's pile: expected one"):
        state.apply(parse_action("L"))  # the old order: orient before the reveal


def test_r32_the_placers_last_carpet_is_followed_by_his_orientation_alone() -> None:
    # R32 with an empty pile: nothing to reveal (R7), the placer orients at once; the
    # placement that ends the game is followed by nobody's orientation (R19).
    state = State.new(2, RuleSet(carpets=(1, 1, 1), orient_last=True))
    for token in ["+R", "+B", "r2", "d5-e5", "+Y", "L", "r1", "c7-d7", "+P", "S", "r1"]:
        state = state.apply(parse_action(token))
    assert (state.phase, state.turn, state.pile_top(0)) == (Phase.PLACE, 0, 2)
    state = state.apply(state.legal_actions()[0])  # seat 0's last carpet
    assert (state.phase, state.turn, state.carpets_in_hand(0)) == (Phase.ORIENT, 0, 0)
    state = state.apply(parse_action("S")).apply(parse_action("r1"))
    assert (state.phase, state.turn) == (Phase.PLACE, 1)
    assert state.apply(state.legal_actions()[0]).is_terminal


@pytest.mark.parametrize("players", [3, 4])
def test_r32_other_player_counts_keep_their_order(players: int) -> None:
    state = State.new(players, STANDARD.with_options(orient_last=True))
    assert _play(state, "r2 d5-e5 L r1") == ["place:0", "orient:0", "roll:1", "place:1"]
