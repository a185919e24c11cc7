"""R32 at two players in the page, as Board Game Arena shows it: while the placer turns
Assam for the next player, his panel already shows his next carpet (R7), the one the
engine drew after his placement. The page renders the state; the core decides."""

from __future__ import annotations

import random
from typing import Any

import pytest

from marrakech.position import Phase
from marrakech.record import GameRecord
from tests.web.browser.helpers import LiveServer, mouse_turn, wait_input

pytestmark = pytest.mark.browser


def test_r32_the_placers_next_carpet_shows_while_he_orients(
    server: LiveServer, new_page: Any
) -> None:
    body = {
        "players": 2,
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
        "first_seat": 0,
        "options": {"orient_last": True},
    }
    answer = dict(server.api("POST", "/api/games", body))
    page = new_page()
    page.goto(server.base + answer["seats"][0]["link"])
    rng = random.Random(5)
    seen = 0
    while seen < 2:
        if wait_input(page) == "orient":  # after his placement (R32)
            record = GameRecord.from_dict(
                server.api("GET", f"/api/games/{answer['game_id']}/record")
            )
            state = record.final_state()
            assert record.rules.orient_last and state.phase is Phase.ORIENT
            top = state.pile_top(0)
            assert top is not None  # drawn before the orientation
            assert str(record.actions[-1]).startswith("+")  # the reveal came last
            letter = "RBYP"[top]
            panel = page.locator("[data-testid=panel-0] .pile")
            assert "top of pile:" in panel.inner_text()
            shown = panel.locator(".swatch").last.get_attribute("data-colour")
            assert shown == letter
            seen += 1
        mouse_turn(page, rng)
