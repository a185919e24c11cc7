"""The words of the game screen's panels, from the core's figures."""

from __future__ import annotations

from marrakech.preview import preview_orientations
from marrakech.state import State
from marrakech.tui.widgets import outlook_text


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
