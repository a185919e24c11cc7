"""Hints in the page: asked by click, by the H key and by taps; the advised choice
previewed on the board as hovering or tapping it would, with its winning chance; the
player confirms it and the move is played; the count shown to everyone and on the end
screen; a game without hints has no button; phones still fit."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.web.browser.helpers import (
    PHONE,
    ROOMY,
    SIDEWAYS,
    SMALL,
    LiveServer,
    lobby_form,
    page_fits,
    small_controls,
    version,
    wait_input,
    wait_until,
    wait_version_above,
)

pytestmark = pytest.mark.browser

ORIENT_LINE = re.compile(
    r"Hint: (turn left|keep straight|turn right) — [\d.]+% to win \(\w+ [\d.]+%, \w+ [\d.]+%\)"
)
PLACE_LINE = re.compile(r"Hint: [a-g][1-7]-[a-g][1-7] — [\d.]+% to win")


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"limits": ROOMY}


def against_a_bot(server: LiveServer, **extra: Any) -> tuple[str, str]:
    """A 2-player game, seat 0 a person who moves first, seat 1 an easy bot: its id and
    seat 0's link."""
    seats = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "easy"}]
    body = {"players": 2, "seats": seats, "first_seat": 0, **extra}
    answer = server.api("POST", "/api/games", body)
    return str(answer["game_id"]), str(answer["seats"][0]["link"])


def actions(server: LiveServer, game_id: str) -> list[str]:
    return list(server.api("GET", f"/api/games/{game_id}/record")["actions"])


def advised(page: Any) -> str:
    return str(page.evaluate("window.marrakechGame.hint.options[0].action"))


def test_a_hint_by_click_and_by_key_then_confirmed(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    lobby_form(page, server.base, 2, {1: "bot"})
    assert page.is_checked("[data-testid=allow-hints]")  # on by default
    page.click("[data-testid=create]")
    page.wait_for_url("**/g/*#t=*")
    game_id = page.url.split("/g/")[1].split("#")[0]
    assert wait_input(page) == "orient"
    # Orient: a click asks; the advised facing is previewed, nothing is sent.
    before = version(page)
    page.click("[data-testid=hint]")
    page.wait_for_selector("[data-testid=hint-text]")
    assert ORIENT_LINE.fullmatch(page.inner_text("[data-testid=hint-text]"))
    best = advised(page)
    button = f"[data-testid=orient-{best}]"
    assert page.get_attribute(button, "aria-pressed") == "true"
    assert "advised" in (page.get_attribute(button, "class") or "")
    assert page.get_attribute("[data-testid=facing-preview]", "visibility") == "visible"
    page.wait_for_selector("[data-testid=preview-table]")
    assert version(page) == before
    # Everyone sees the hint counted, this page too.
    page.wait_for_selector("[data-testid=hints-0]")
    assert page.text_content("[data-testid=hints-0]") == "1 hint"
    page.click("[data-testid=orient-confirm]")
    wait_version_above(page, before)
    assert wait_input(page) == "roll"
    assert actions(server, game_id)[-1] == best
    # The advice went with its position; there is none to ask at a roll.
    assert page.locator("[data-testid=hint-text]").count() == 0
    assert page.locator("[data-testid=hint]").count() == 0
    page.keyboard.press("Enter")
    assert wait_input(page) == "place"
    # Place: the H key asks; the advised carpet is outlined on the board.
    before = version(page)
    page.keyboard.press("h")
    page.wait_for_selector("[data-testid=hint-text]")
    assert PLACE_LINE.fullmatch(page.inner_text("[data-testid=hint-text]"))
    best = advised(page)
    assert page.get_attribute("[data-testid=preview] .carpet", "data-squares") == best
    assert best.split("-")[0] in page.inner_text("[data-testid=place-hint]")
    page.keyboard.press("Enter")
    wait_version_above(page, before)
    assert best in actions(server, game_id)
    wait_until(
        page, lambda: page.text_content("[data-testid=hints-0]") == "2 hints", "the second hint"
    )
    # The help lists the key.
    page.keyboard.press("?")
    page.wait_for_selector("[data-testid=help-dialog][open]")
    assert "H — ask for a hint" in page.inner_text("[data-testid=help-keys]")


@pytest.mark.parametrize(
    ("size", "locale"),
    [(PHONE, "en-GB"), (SMALL, "fr-FR"), (SIDEWAYS, "fr-FR")],
    ids=["phone", "small-fr", "sideways-fr"],
)
def test_a_hint_by_taps_on_a_phone(
    server: LiveServer, new_page: Any, size: dict[str, int], locale: str
) -> None:
    game_id, link = against_a_bot(server, lang=locale[:2])
    page = new_page(locale=locale, touch=True, **size)
    page.goto(server.base + link)
    assert wait_input(page) == "orient"
    before = version(page)
    page.tap("[data-testid=hint]")
    page.wait_for_selector("[data-testid=hint-text]")
    line = page.inner_text("[data-testid=hint-text]")
    assert line.startswith("Hint: " if locale == "en-GB" else "Conseil : "), line
    page_fits(page)
    assert small_controls(page) == []
    best = advised(page)
    # The advice is previewed as a first tap would: one more tap on it plays it.
    assert page.get_attribute(f"[data-testid=orient-{best}]", "aria-pressed") == "true"
    assert version(page) == before
    page.tap(f"[data-testid=orient-{best}]")
    wait_version_above(page, before)
    assert actions(server, game_id)[-1] == best
    # The end screen says who used hints.
    page.tap("[data-testid=resign-0]")
    page.tap("[data-testid=resign-confirm]")
    page.wait_for_selector("[data-testid=end-screen][open]")
    one = "1 hint" if locale == "en-GB" else "1 conseil"
    assert page.text_content("[data-testid=end-hints-0]") == one
    # The bot asked none: no "0 hints" badge beside it.
    assert page.locator("[data-testid=end-hints-1]").count() == 0
    page_fits(page)


def test_a_game_without_hints_has_no_hint_button(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    lobby_form(page, server.base, 2, {1: "bot"})
    page.uncheck("[data-testid=allow-hints]")
    page.click("[data-testid=create]")
    page.wait_for_url("**/g/*#t=*")
    game_id = page.url.split("/g/")[1].split("#")[0]
    assert server.api("GET", f"/api/games/{game_id}")["hints"] is False
    assert wait_input(page) == "orient"
    assert page.locator("[data-testid=orient-S]").count() == 1
    assert page.locator("[data-testid=hint]").count() == 0
    page.keyboard.press("h")
    page.wait_for_timeout(300)
    assert page.locator("[data-testid=hint-text]").count() == 0
    assert page.locator("[data-testid=notice]:visible").count() == 0
    # The lobby says so for games that list it.
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")

    def listed() -> bool:  # the lists come from the server after the lobby is drawn
        return "no hints" in page.inner_text("[data-testid=lobby]")

    wait_until(page, listed, "the game listed with no hints")
