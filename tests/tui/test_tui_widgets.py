"""The words of the game screen's panels, from the core's figures."""

from __future__ import annotations

from marrakech.actions import parse_action
from marrakech.position import Phase
from marrakech.preview import preview_orientations
from marrakech.rules import parse_rules
from marrakech.state import State
from marrakech.tui.session import SeatSpec
from marrakech.tui.widgets import outlook_text, seat_text
from marrakech.views import state_view


def test_the_outlook_tells_the_tithe_and_the_risk_of_elimination_R11_R13() -> None:
    # Red (1 dirham) faces Blue's carpet on d5-d6: a roll of 1 or 2 costs 2 (R11) and,
    # Red paying the 1 dirham it has, puts it out (R13).
    state = State.from_notation("7/3Bs3/3Bn3/7/7/7/7 d4N 1,30,30 10,9,10 - - orient:0 standard")
    straight = next(p for p in preview_orientations(state) if p.facing == 0)
    english = outlook_text(state, straight, "en").plain.split("\n")
    assert english == [
        "Assam facing North, the die:",
        "1 (1/6) → d5: you owe 2 to Blue, pay your 1 and are out (R13)",
        "2 (1/3) → d6: you owe 2 to Blue, pay your 1 and are out (R13)",
        "3 (1/3) → d7: nothing to pay",
        "4 (1/6) → c7: nothing to pay",
        "Expected tithe: 0.5 dirhams.",
        "Risk of elimination: 1/2.",
    ]
    french = outlook_text(state, straight, "fr").plain.split("\n")
    assert french[0] == "Assam tourné au nord, le dé :"
    assert french[1] == "1 (1/6) → d5 : vous devez 2 à Bleu, payez vos 1 et êtes éliminé (R13)"
    assert french[-2:] == ["Tribut attendu : 0,5 dirham.", "Risque d’élimination : 1/2."]


def test_r32_the_seat_panel_shows_the_placers_next_carpet_while_he_orients() -> None:
    # Two players orient last (R32): the placer's pile reveals his next carpet (R7)
    # before he orients, and his panel shows it then, as Board Game Arena does.
    state = State.new(2, parse_rules("standard+orient-last"), first_seat=1)
    for token in ["+R", "+B", "r2", "d5-e5", "+P"]:
        state = state.apply(parse_action(token))
    assert state.phase is Phase.ORIENT and state.turn == 1
    for lang, word in (("en", "next"), ("fr", "suivant")):
        panel = seat_text(state, 1, SeatSpec("human"), lang).plain
        assert panel.startswith("▶ ") and panel.endswith(f"{word} P")  # not "?"
    assert state_view(state)["seats"][1]["pile_top"] == "P"  # what the page's panel shows
