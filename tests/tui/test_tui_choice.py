"""The human's decision on the game screen: legal facings and placements, from the core."""

from __future__ import annotations

import pytest

from marrakech.actions import Orient, Place, parse_action
from marrakech.geometry import parse_square
from marrakech.state import State
from marrakech.tui.choice import Choice


def played(*tokens: str) -> State:
    state = State.new(players=3)
    for token in tokens:
        state = state.apply(parse_action(token))
    return state


@pytest.mark.parametrize("turn", [-1, 0, 1])
def test_each_orientation_shows_the_facing_the_core_describes(turn: int) -> None:
    state = played("R", "r1", "e5-e6", "S", "r2", "f3-g3")  # Yellow, Assam East
    choice = Choice(state)
    assert choice.orienting and not choice.placing and choice.facing == state.assam_facing
    facing = choice.facing_of(Orient(turn))
    assert facing == state.describe(Orient(turn)).facing_after
    assert choice.face(facing) and choice.decision() == Orient(turn)


def test_a_half_turn_is_never_offered() -> None:
    choice = Choice(State.new(players=3))  # facing North
    assert not choice.face(2) and choice.facing == 0
    assert not choice.face(None) and choice.decision() == Orient(0)
    assert choice.facing_of(Orient(1)) == 1 and choice.facing_of(Orient(-1)) == 3


def test_placements_cycle_and_follow_clicks() -> None:
    state = played("S", "r1")  # Assam on d5, Red to place
    choice = Choice(state)
    assert choice.placing and not choice.orienting and choice.facing is None
    assert choice.placements == list(state.legal_actions())
    assert choice.preview == choice.placements[0] == choice.decision()
    choice.cycle(-1)
    assert choice.preview == choice.placements[-1]
    square = parse_square("d6")
    covering = [a for a in choice.placements if square in a.squares]
    seen = []
    for _ in covering:
        assert choice.point(square)
        seen.append(choice.preview)
    assert sorted(seen, key=lambda a: a.id) == covering
    before = choice.index
    assert not choice.point(parse_square("a1")) and choice.index == before


def test_nothing_to_decide_at_a_chance_node() -> None:
    choice = Choice(played("S"))  # the die is to roll
    assert not choice.orienting and not choice.placing and choice.preview is None
    with pytest.raises(ValueError, match="nothing to decide in the ROLL phase"):
        choice.decision()
    assert isinstance(Choice(played("S", "r2")).decision(), Place)


def type_text(choice: Choice, text: str) -> list[str]:
    return [choice.type_char(char) for char in text]


def test_typed_squares_choose_a_legal_placement_R14_R15_R16() -> None:
    state = played("S", "r1")  # Red, Assam on d5 facing North: place beside him
    legal = {str(a) for a in state.legal_actions()}
    choice = Choice(state)
    assert type_text(choice, "d6") == ["letter", "first"]
    assert choice.first == parse_square("d6") and parse_square("d6") in choice.preview.squares  # type: ignore[union-attr]
    assert type_text(choice, "-d7") == ["ignored", "letter", "chosen"]
    assert str(choice.preview) == "d6-d7" and "d6-d7" in legal and choice.first is None
    assert type_text(choice, "e4e5") == ["letter", "first", "letter", "chosen"]
    assert str(choice.decision()) == "e4-e5"


def test_typed_squares_the_core_refuses_say_why() -> None:
    state = played("S", "r1")
    choice = Choice(state)
    assert type_text(choice, "d5") == ["letter", "uncovered"]  # under Assam (R15)
    assert type_text(choice, "a1") == ["letter", "uncovered"]  # nowhere near him (R14)
    assert type_text(choice, "d6f6") == ["letter", "first", "letter", "not_adjacent"]
    assert type_text(choice, "d6c7") == ["letter", "first", "letter", "not_adjacent"]
    assert type_text(choice, "c4b4") == ["letter", "first", "letter", "not_legal"]
    assert choice.legal_on(parse_square("c4")) == ["c4-d4", "c4-c5"]
    assert type_text(choice, "3") == ["number_first"]
    assert type_text(choice, "bc4") == ["letter", "letter", "first"]  # a letter typed again
    assert choice.first == parse_square("c4") and str(choice.preview) == "c4-c5"  # the next
