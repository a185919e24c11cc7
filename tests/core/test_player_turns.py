"""Player turns (marrakech.player_turns): what people count, not actions (R9-R17, R7, R22,
R32)."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from marrakech import RuleSet, State, random_action
from marrakech.actions import Place, Resign, Roll
from marrakech.events import Event
from marrakech.player_turns import TurnSpan, extend_turns, finished, turn_number
from marrakech.position import Phase


def random_events(players: int, rules: RuleSet, seed: int) -> list[Event]:
    rng = random.Random(seed)
    state, events = State.new(players, rules), []
    while not state.is_terminal:
        events.append(state.describe(random_action(state, rng)))
        state = events[-1].after
    return events


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("orient_last", [False, True])
def test_r10_each_player_turn_holds_one_roll_and_the_turns_cover_the_game(
    players: int, orient_last: bool
) -> None:
    rules = dataclasses.replace(RuleSet(), orient_last=orient_last)
    for seed in range(5):
        events = random_events(players, rules, seed)
        spans = extend_turns([], events)
        assert spans[0].start == 0 and spans[-1].end == len(events)
        for before, after in itertools.pairwise(spans):
            assert before.end == after.start and before.seat != after.seat
        for number, span in enumerate(spans):
            turn = events[span.start : span.end]
            assert sum(isinstance(event.action, Roll) for event in turn) == 1
            for index, event in enumerate(turn):
                if event.before.phase is Phase.DRAW:
                    # R7: a reveal ends the turn of the seat that placed from that pile;
                    # the opening's two begin the first turn.
                    placed = any(isinstance(e.action, Place) for e in turn[:index])
                    assert placed or (number == 0 and index < 2)
                else:
                    assert event.before.turn == span.seat
        final = events[-1].after
        assert turn_number(spans, final, waiting=False) == len(spans)
        assert list(finished(spans, final)) == spans


def test_turns_grow_as_events_come_and_count_the_turn_being_played() -> None:
    events = random_events(3, RuleSet(), seed=7)
    whole = extend_turns([], events)
    growing: list[TurnSpan] = []
    for index in range(len(events)):
        extend_turns(growing, events[: index + 1])
        state = events[index].after
        assert turn_number(growing, state, waiting=False) == turn_number(
            [], state, waiting=False, more=events[: index + 1]
        )
    assert [(s.seat, s.start, s.end) for s in growing] == [(s.seat, s.start, s.end) for s in whole]
    assert turn_number([], State.new(3), waiting=True) == 0  # seats still open


def test_r22_a_resignation_during_a_turn_belongs_to_that_turn() -> None:
    rng, state, events = random.Random(1), State.new(3), []
    for _ in range(2):  # seat 0 orients and rolls
        events.append(state.describe(random_action(state, rng)))
        state = events[-1].after
    events.append(state.describe(Resign(2)))  # seat 2 leaves while seat 0 places
    spans = extend_turns([], events)
    assert [(s.seat, s.start, s.end) for s in spans] == [(0, 0, 3)]


@pytest.mark.parametrize("orient_last", [False, True])
def test_r7_r32_a_two_player_reveal_belongs_to_the_placers_turn_until_it_comes(
    orient_last: bool,
) -> None:
    # The docstring's promise at every step of 2-player games: while the placer's pile is
    # about to reveal its next top (R7; under R32 before he orients), his turn is not
    # finished and is the turn counted; it is once the next seat's turn begins.
    rules = dataclasses.replace(RuleSet(), orient_last=orient_last)
    reveals = 0
    for seed in range(4):
        events = random_events(2, rules, seed)
        spans: list[TurnSpan] = []
        for index, event in enumerate(events):
            extend_turns(spans, events[: index + 1])
            state = event.after
            done = finished(spans, state)
            if isinstance(event.action, Place) and state.phase is Phase.DRAW:
                reveals += 1
                assert spans[-1].seat == state.draw_pile == event.before.turn
                assert list(done) == spans[:-1]
                assert turn_number(spans, state, waiting=False) == len(spans)
            elif not state.is_terminal and state.turn != spans[-1].seat:
                assert list(done) == spans  # the next seat's turn has begun
                assert turn_number(spans, state, waiting=False) == len(spans) + 1
    assert reveals > 50
