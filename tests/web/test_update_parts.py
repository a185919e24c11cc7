"""The parts of an update a room keeps or writes the short way (issue 36, capacity) are
the same as those made the long way, on every position of random games."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from marrakech import random_action
from marrakech.events import Event
from marrakech.i18n import describe_event
from marrakech.player_turns import extend_turns, finished
from marrakech.rules import parse_rules
from marrakech.state import State
from marrakech.views import board_view, state_view
from marrakech.web.protocol import TurnSummary, view_changes
from marrakech.web.room.turn_summaries import summary, summary_data


def games(players: int, rules: str, count: int = 4) -> list[list[Event]]:
    """The events of a few random games, game by game."""
    rng = random.Random(players)
    played = []
    for _ in range(count):
        state = State.new(players, parse_rules(rules), first_seat=rng.randrange(players))
        events = []
        while not state.is_terminal:
            events.append(state.describe(random_action(state, rng)))
            state = events[-1].after
        played.append(events)
    return played


@pytest.mark.parametrize(("players", "rules"), [(2, "standard"), (3, "bga"), (4, "standard")])
def test_views_sharing_a_kept_board_are_the_views(players: int, rules: str) -> None:
    """A room keeps a board's part of the view while the board stays (Updates.view):
    each view, and each change from the one before, is what a fresh view gives."""
    for events in games(players, rules):
        game = [events[0].before, *(event.after for event in events)]
        kept: tuple[tuple[int, ...], dict[str, Any]] | None = None
        shared, fresh = [], []
        for state in game:
            if kept is None or kept[0] != state.board:
                kept = (state.board, board_view(state))
            shared.append(state_view(state, kept[1]))
            fresh.append(state_view(state))
        assert any(a["board"] is b["board"] for a, b in itertools.pairwise(shared))
        assert json.dumps(shared) == json.dumps(fresh)
        for n in range(1, len(game)):
            assert view_changes(shared[n - 1], shared[n]) == view_changes(fresh[n - 1], fresh[n])


@pytest.mark.parametrize(("players", "rules"), [(2, "standard"), (3, "bga"), (4, "standard")])
def test_turn_summaries_as_data_are_the_models(players: int, rules: str) -> None:
    """An update's last turn is written as plain data, without the model: the same
    data and JSON as the model's, for every turn of random games (with their log)."""
    for events in games(players, rules, count=2):
        log = [describe_event(event, "fr") for event in events]
        spans = extend_turns([], events)
        done = finished(spans, events[-1].after)
        assert len(done) > 10
        for number, span in enumerate(done, 1):
            data = summary_data(number, span, events, log)
            model = TurnSummary(**data)
            assert data == model.model_dump()
            assert summary(number, span, events, log) == model
