"""Position strings and action tokens: round trips, clear errors, fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marrakech import (
    BGA,
    InvalidStateError,
    NotationError,
    RuleSet,
    State,
    parse_action,
    parse_rules,
)
from tests.core.conftest import random_states

OPENING_3 = "7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - orient:0 standard"


def test_opening_notation() -> None:
    assert State.new(3).notation() == OPENING_3
    assert State.new(2).notation() == "7/7/7/7/7/7/7 d4N 30,30 12,12,12,12 -,- - draw:0:0 standard"
    assert State.new(4, BGA, first_seat=3).notation().endswith("orient:3 bga")


@pytest.mark.parametrize(("players", "rules"), [(2, "standard"), (3, "bga"), (4, "standard")])
def test_every_reachable_position_round_trips(players: int, rules: str) -> None:
    for state in random_states(players, parse_rules(rules), games=4, seed=11):
        text = state.notation()
        assert State.from_notation(text) == state
        assert State.from_notation(text).notation() == text


def test_custom_rule_sets_round_trip() -> None:
    house = RuleSet(carpets=(5, 6, 7), money=12, own_cover=True)
    assert parse_rules(house.token()) == house
    assert house.token() == "custom:5/6/7:12:own"
    state = State.new(3, house)
    assert State.from_notation(state.notation()) == state


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "8 fields"),
        ("7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - orient:0 standard", "7 ranks"),
        ("7/7/7/7/7/7/6 d4N 30,30,30 10,10,10 - - orient:0 standard", "expected 7 squares"),
        ("7/7/7/7/7/7/8 d4N 30,30,30 10,10,10 - - orient:0 standard", "digit 1-7"),
        ("7/7/7/7/7/7/Rq6 d4N 30,30,30 10,10,10 - - orient:0 standard", "link letter"),
        ("7/7/7/7/7/7/7 h4N 30,30,30 10,10,10 - - orient:0 standard", "a1 to g7"),
        ("7/7/7/7/7/7/7 d4Q 30,30,30 10,10,10 - - orient:0 standard", "facing"),
        ("7/7/7/7/7/7/7 d4N 30,x,30 10,10,10 - - orient:0 standard", "whole numbers"),
        ("7/7/7/7/7/7/7 d4N 30 10 - - orient:0 standard", "2 to 4 seats"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10 - - orient:0 standard", "3 counts"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 R - orient:0 standard", "only at 2 players"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - dance:0 standard", "orient:S"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - orient:5 standard", "seat numbers"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - orient:0 chess", "rule set"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - orient:0 custom:1/2:3:own", "three"),
        ("7/7/7/7/7/7/7  d4N 30,30,30 10,10,10 - - orient:0 standard", "8 fields"),
        ("7/7/7/7/7/7/7 d4N 30,30,30,30 12,12,12,12 - - place:0 custom:12/10/0:30:own", "1..99"),
    ],
)
def test_malformed_positions_say_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        State.from_notation(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7/7/7/7/7/7/Rn6 d4N 30,30,30 9,10,10 - - orient:0 standard", "does not show"),
        ("Rn6/7/7/7/7/7/7 d4N 30,30,30 9,10,10 - - orient:0 standard", "off the board"),
        ("7/7/7/7/7/7/ReRwReRwRx2 d4N 30,30,30 9,10,10 - - orient:0 standard", "visible"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 11,10,10 - - orient:0 standard", "more than"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - 1 orient:0 standard", "eliminated seat 1"),
        ("7/7/7/7/7/7/7 d4N 30,0,30 10,0,10 - 1 orient:1 standard", "was eliminated"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 0,0,0 - - orient:0 standard", "game is over"),
        ("7/7/7/7/7/7/7 d4N 30,30 12,12,12,12 B,B - orient:0 standard", "pile top"),
        ("7/7/7/7/7/7/7 d4N 30,30 12,12,12,12 -,B - orient:0 standard", "not revealed"),
        ("7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - draw:0:0 standard", "only at 2 players"),
    ],
)
def test_impossible_positions_are_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidStateError, match=message):
        State.from_notation(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Positions of the order before record version 2 (marrakech 1245eaa): the placer
        # oriented with his pile's next top still hidden, then the pile revealed it.
        (
            "7/7/3BeBw2/7/7/7/7 d6N 30,30 12,11,12,12 R,- - orient:1 standard+orient-last",
            r"seat 1's pile top is not revealed outside a draw \(under orient-last, R32, the "
            r"placer's pile reveals its next top before he orients",
        ),
        (
            "7/7/3BeBw2/7/7/7/7 d6W 30,30 12,11,12,12 R,- - draw:1:0 standard+orient-last",
            r"expected draw:1:1, found draw:1:0",
        ),
    ],
)
def test_r32_positions_of_the_old_order_are_refused_saying_what_changed(
    text: str, message: str
) -> None:
    with pytest.raises(InvalidStateError, match=message):
        State.from_notation(text)
    today = (
        text.replace("orient:1", "draw:1:1").replace("d6W", "d6N").replace("draw:1:0", "draw:1:1")
    )
    assert State.from_notation(today).draw_pile == 1  # the same moment in today's order


@pytest.mark.parametrize(
    "text",
    [
        "7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - over standard",  # everyone holds carpets
        "7/7/7/7/7/7/7 d4N 30,30,30 0,0,1 - - over standard",  # seat 2 still has one
        "7/7/7/7/7/7/7 d4N 30,30 0,12,0,0 Y,- - over standard",  # seat 0's pile is not empty
        "7/7/7/7/7/7/7 d4N 30,0,30 0,0,3 - 1 over standard",  # two seats in, one holds carpets
    ],
)
def test_r19_over_is_refused_while_play_goes_on(text: str) -> None:
    with pytest.raises(InvalidStateError, match="the phase is 'over' but the game goes on"):
        State.from_notation(text)


@pytest.mark.parametrize(
    "text",
    [
        "7/7/7/7/7/7/7 d4N 30,30,30 0,0,0 - - over standard",  # no carpet left
        "7/7/7/7/7/7/7 d4N 30,0,0 10,0,0 - 1,2 over standard",  # one seat still in
        "7/7/7/7/7/7/7 d4N 30,0,30 0,0,0 - 1 over standard",  # the seats in hold none
        "7/7/7/7/7/7/7 d4N 60,0 12,0,12,0 R,- 1 over standard",  # seat 1 out at 2 players
    ],
)
def test_r19_over_is_read_exactly_when_the_game_is_over(text: str) -> None:
    state = State.from_notation(text)
    assert state.is_terminal and state.legal_actions() == ()
    assert state.notation() == text


def test_position_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        State.from_notation("nonsense")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="1234567/ RBYPnesx wd4N,0-:abcdefgorientplace", max_size=70))
def test_fuzz_position_parser(text: str) -> None:
    try:
        state = State.from_notation(text)
    except (NotationError, InvalidStateError):
        return
    assert State.from_notation(state.notation()) == state


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 100), st.data())
def test_fuzz_mutated_real_positions(index: int, data: st.DataObject) -> None:
    positions = [s.notation() for s in random_states(3, games=1, seed=5)]
    text = positions[index % len(positions)]
    at = data.draw(st.integers(0, len(text) - 1))
    char = data.draw(st.sampled_from("0123456789RBYPnesxwNESW,-:/ "))
    mutated = text[:at] + char + text[at + 1 :]
    try:
        state = State.from_notation(mutated)
    except (NotationError, InvalidStateError):
        return
    assert State.from_notation(state.notation()) == state


@pytest.mark.parametrize(
    ("token", "canonical"),
    [("L", "L"), ("left", "L"), ("RIGHT", "R"), ("c3c4", "c3-c4"), ("c4-c3", "c3-c4"),
     ("C3-C4", "c3-c4"), (" r3 ", "r3"), ("+Y", "+Y")],
)  # fmt: skip
def test_action_tokens_parse_leniently_and_print_canonically(token: str, canonical: str) -> None:
    assert str(parse_action(token)) == canonical


@pytest.mark.parametrize("token", ["", "X", "r5", "r0", "c3-c5", "c3-d4", "+G", "h1-h2", "c3"])
def test_bad_action_tokens_are_refused(token: str) -> None:
    with pytest.raises(NotationError, match="expected an action token"):
        parse_action(token)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=8))
def test_fuzz_action_tokens(text: str) -> None:
    try:
        action = parse_action(text)
    except NotationError:
        return
    assert parse_action(str(action)) == action
