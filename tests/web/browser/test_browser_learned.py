"""The lobby offers the learned bot (the shipped policy of the player count) at the
player counts it plays, 2 and 4, in the page's language; at three it is not offered."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.browser.helpers import LiveServer, wait_input

pytestmark = pytest.mark.browser


def level_options(page: Any, seat: int) -> dict[str, str]:
    """The levels a seat's choice offers: value -> words shown."""
    options = page.locator(f"[data-testid=seat-level-{seat}] option")
    values = options.evaluate_all("(nodes) => nodes.map((o) => [o.value, o.textContent])")
    return dict(values)


def test_the_lobby_offers_the_learned_bot_where_it_plays(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    page.check("[data-testid=players-2]")
    offered = level_options(page, 1)
    assert list(offered) == ["easy", "learned", "medium", "hard", "expert"]
    assert offered["learned"] == "learned (neural network)"
    page.select_option("[data-testid=seat-level-1]", "learned")
    page.check("[data-testid=players-3]")  # not at three: the seat goes back to medium
    assert "learned" not in level_options(page, 1)
    assert page.input_value("[data-testid=seat-level-1]") == "medium"
    page.check("[data-testid=players-4]")
    assert "learned" in level_options(page, 3)
    page.check("[data-testid=players-2]")
    page.select_option("[data-testid=seat-level-1]", "learned")
    page.select_option("[data-testid=first-seat]", "0")
    page.click("[data-testid=create]")
    page.wait_for_url("**/g/*#t=*")
    assert "learned (neural network)" in page.inner_text("[data-testid=panel-1]")
    assert wait_input(page) == "orient"  # the game is on, the learned bot seated


def test_the_learned_bot_in_french(server: LiveServer, new_page: Any) -> None:
    page = new_page(locale="fr-FR")
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    page.check("[data-testid=players-4]")
    assert level_options(page, 2)["learned"] == "appris (réseau de neurones)"
    page.check("[data-testid=players-3]")
    assert "learned" not in level_options(page, 2)
