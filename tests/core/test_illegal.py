"""One illegal-action error, built by the core for every layer (engine, batches, envs,
web): what was found, where, and the legal actions instead."""

from __future__ import annotations

import pytest

from marrakech import IllegalActionError, State, parse_action


def test_an_action_names_the_phase_seat_and_legal_tokens() -> None:
    state = State.new(players=3)
    with pytest.raises(IllegalActionError) as caught:
        state.apply(parse_action("r3"))
    assert str(caught.value) == (
        "illegal action r3 in the ORIENT phase of seat 0: expected one of L, S, R"
    )
    assert str(state.illegal_action_error(parse_action("r3"))) == str(caught.value)


def test_an_id_lists_ids_with_their_tokens_and_who_asked() -> None:
    state = State.new(players=3)
    assert str(state.illegal_action_error(61, who="game 4")) == (
        "game 4: illegal action id 61 (c3-c4) in the ORIENT phase of seat 0: "
        "expected one of 0 (L), 1 (S), 2 (R)"
    )
    assert str(state.illegal_action_error(-5)).startswith("illegal action id -5 in the ORIENT")


def test_draw_and_end_say_where_they_are() -> None:
    draw = State.new(players=2)
    assert "the DRAW phase of seat 0's pile: expected one of +R, +Y" in str(
        draw.illegal_action_error(parse_action("+B"))
    )
    over = State.from_notation("7/7/7/7/7/7/7 d4N 30,30,30 0,0,0 - - over standard")
    assert str(over.illegal_action_error(parse_action("L"))) == (
        "illegal action L: the game is over"
    )
