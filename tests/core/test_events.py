"""What happened: events, their words in English and French, and the JSON views."""

from __future__ import annotations

import json

import pytest

from marrakech import IllegalActionError, State, parse_action, square_name
from marrakech.i18n import describe_event
from marrakech.views import event_view, state_view
from tests.core.conftest import random_states


def test_orient_event() -> None:
    event = State.new(3).describe(parse_action("R"))
    assert (event.facing_before, event.facing_after, event.seat) == (0, 1, 0)
    assert describe_event(event, "en") == "Red turned Assam right, to face East."
    assert describe_event(event, "fr") == "Rouge a tourné Assam à droite, face à l’est."


def test_roll_event_with_arc_tithe_and_elimination() -> None:
    state = State.from_notation(
        "7/7/7/7/7/7/BeBwBx4 b2S 2,50,38 10,7,10 - - roll:0 standard"
    )  # Assam on b2 facing South; a1-b1 carpet and c1 are blue
    event = state.describe(parse_action("r3"))
    assert [(square_name(s.square), s.arc) for s in event.path] == [
        ("b1", False), ("c1", True), ("c2", False),
    ]  # fmt: skip
    assert event.landing == state.assam_square + 1  # c2
    state2 = State.from_notation("7/7/7/7/7/7/BeBwBx4 a3S 2,50,38 10,7,10 - - roll:0 standard")
    event = state2.describe(parse_action("r2"))  # a2, a1: blue region a1, b1, c1 = 3 > 2 dirhams
    assert event.tithe is not None
    assert (event.tithe.payer, event.tithe.payee, event.tithe.due, event.tithe.paid) == (0, 1, 3, 2)
    assert sorted(square_name(s) for s in event.tithe.region) == ["a1", "b1", "c1"]
    assert event.eliminated == 0
    words = describe_event(event, "en")
    assert "paid 2 dirhams to Blue" in words and "out of the game" in words
    assert "ne peut pas payer 3" in describe_event(event, "fr")


def test_place_event_lists_covered_halves() -> None:
    state = State.from_notation("7/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 10,9,10 - - place:0 standard")
    event = state.describe(parse_action("d5-e5"))
    assert event.placed == (parse_square("d5"), parse_square("e5"))
    assert [square_name(c.square) for c in event.covered] == ["d5"]
    assert "covers d5 (blue)" in describe_event(event)


def parse_square(name: str) -> int:
    from marrakech import parse_square as parse

    return parse(name)


def test_draw_and_game_over_events() -> None:
    event = State.new(2).describe(parse_action("+Y"))
    assert event.drawn_colour == 2 and event.seat == 0
    assert "yellow carpet" in describe_event(event)
    last = State.from_notation("7/7/7/7/7/7/7 d4N 30,30,30 0,0,1 - - place:2 standard")
    event = last.describe(last.legal_actions()[0])
    assert event.game_over and describe_event(event).endswith("The game is over.")
    assert describe_event(event, "fr").endswith("La partie est terminée.")


def test_describe_refuses_illegal_actions() -> None:
    with pytest.raises(IllegalActionError):
        State.new(3).describe(parse_action("r1"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_views_are_json_and_consistent_with_the_state(players: int) -> None:
    for state in random_states(players, games=1, seed=players):
        view = state_view(state)
        json.dumps(view)
        assert view["notation"] == state.notation()
        assert len(view["board"]) == sum(1 for c in state.board if c)
        assert [s["score"] for s in view["seats"]] == list(state.scores())
        if not state.is_terminal:
            action = state.legal_actions()[0]
            event = state.describe(action)
            json.dumps(event_view(event))
            assert event.after == state.apply(action)
            assert describe_event(event, "en") and describe_event(event, "fr")


def test_a_corner_loop_is_said_as_one() -> None:
    """R2's corner loop leaves a1 and comes back to it: said so, not "walks a1, a1"."""
    state = State.from_notation("7/7/7/7/7/7/7 c1W 30,30,30 10,10,10 - - roll:0 standard")
    event = state.describe(parse_action("r3"))
    assert describe_event(event, "en") == (
        "Red rolled 3: Assam walks b1, a1 and loops back to a1, facing North."
    )
    assert describe_event(event, "fr") == (
        "Rouge a fait 3 : Assam passe par b1, a1 et revient sur a1 par la boucle du coin,"
        " face au nord."
    )
    event = state.describe(parse_action("r4"))
    assert describe_event(event, "en") == (
        "Red rolled 4: Assam walks b1, a1 and loops back to a1, then walks a2 and stops"
        " on a2, facing North."
    )
    corner = State.from_notation("7/7/7/7/7/7/7 g7E 30,30,30 10,10,10 - - roll:0 standard")
    assert describe_event(corner.describe(parse_action("r1")), "en") == (
        "Red rolled 1: Assam loops back to g7, facing South."
    )
    # An arc between two squares keeps its words.
    edge = State.from_notation("7/7/7/7/7/7/7 a3W 30,30,30 10,10,10 - - roll:0 standard")
    assert "(along the border arc)" in describe_event(edge.describe(parse_action("r1")), "en")


def test_the_log_names_players_as_the_panels_do() -> None:
    state = State.new(players=3).apply(parse_action("L"))
    event = state.describe(parse_action("r3"))
    names = ("Amir", "", "Zoé")
    assert describe_event(event, "en", names).startswith("Amir (Red) rolled 3")
    assert describe_event(event, "fr", names).startswith("Amir (Rouge) a fait 3")
    assert describe_event(event, "en").startswith("Red rolled 3")
