"""Previews of the die (R9-R13): every figure is the rules applied, never re-derived."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

import pytest

from marrakech import RuleSet, State, parse_action, random_action, square_name
from marrakech.position import Phase
from marrakech.preview import preview_orientations, preview_rolls


def test_r10_r11_each_orientation_lists_every_roll_with_its_cost() -> None:
    # A blue carpet on d5-d6; seat 0 (red) orients on d4 facing North.
    state = State.from_notation("7/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 10,9,10 - - orient:0 standard")
    options = preview_orientations(state)
    assert [str(o.orient) for o in options] == ["L", "S", "R"]
    straight = options[1]
    assert [(square_name(r.landing), r.due, r.payee) for r in straight.rolls] == [
        ("d5", 2, 1), ("d6", 2, 1), ("d7", 0, None), ("c7", 0, None),
    ]  # fmt: skip
    assert straight.expected_tithe == Fraction(1)  # 2 x (1/6 + 1/3)
    assert options[0].expected_tithe == options[2].expected_tithe == 0


def test_r13_a_seat_that_cannot_pay_sees_its_chance_of_elimination() -> None:
    state = State.from_notation("7/3Bs3/3Bn3/7/7/7/7 d4N 1,30,30 10,9,10 - - orient:0 standard")
    straight = preview_orientations(state)[1]
    assert [r.eliminates for r in straight.rolls] == [True, True, False, False]
    assert [r.paid for r in straight.rolls] == [1, 1, 0, 0]
    assert straight.elimination_chance == Fraction(1, 2)


def test_previews_are_the_rules_applied() -> None:
    rng = random.Random(5)
    for players in (2, 3, 4):
        state = State.new(players)
        while not state.is_terminal:
            if state.phase.name == "ORIENT":
                for option in preview_orientations(state):
                    turned = state.apply(option.orient)
                    assert option.facing == turned.assam_facing
                    assert sum(r.probability for r in option.rolls) == 1
                    for roll in option.rolls:
                        assert roll.event.after == turned.apply(roll.roll)
                        assert roll.probability == dict(turned.chance_outcomes())[roll.roll]
            state = state.apply(random_action(state, rng))


def test_previews_are_asked_for_in_their_phase() -> None:
    with pytest.raises(ValueError, match="expected a position to orient, found phase ROLL"):
        preview_orientations(State.new(3).apply(parse_action("S")))
    with pytest.raises(ValueError, match="expected a position about to roll, found phase ORIENT"):
        preview_rolls(State.new(3))


def test_r32_orient_last_previews_the_next_seats_roll_with_the_placers_top_shown() -> None:
    # Two players orient last (R32): the placer's pile has revealed its next carpet (R7)
    # before he orients, as Board Game Arena shows it; the orientation's preview is the
    # next seat's roll, straight after it.
    rng = random.Random(3)
    rules = dataclasses.replace(RuleSet(), orient_last=True)
    state = State.new(2, rules)
    seen = 0
    while not state.is_terminal:
        if state.phase is Phase.ORIENT and state.hand != (0, 0, 0, 0):
            placer = state.turn
            if state.carpets_in_hand(placer):
                assert state.pile_top(placer) is not None  # drawn and shown (R7)
                seen += 1
            for option in preview_orientations(state):
                turned = state.apply(option.orient)
                assert option.facing == turned.assam_facing
                assert turned.phase is Phase.ROLL and turned.turn == 1 - placer
                assert option.rolls == preview_rolls(turned)
        state = state.apply(random_action(state, rng))
    assert seen > 20
