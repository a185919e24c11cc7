"""Quick pairing in Chromium (issue 37): "Play now" first on the landing page, in view on
a 360 x 740 phone in English and French; two browsers paired in a wave, each on its
seat of one game; a 3-player pool filled with bots after the wait, chosen from the
keyboard; Cancel leaves the pool."""

from __future__ import annotations

from typing import Any

import pytest

from marrakech.web.pools import PoolSettings
from tests.web.browser.helpers import SMALL, LiveServer, off_screen, wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    # Bots after 3 s: long enough for the two browsers to meet first, short for a test.
    pools = PoolSettings(wave=0.3, tick=0.1, bot_after=3.0, joins_per_minute=1e6, join_burst=100)
    return {"pools": pools}


def game_id(page: Any) -> str:
    return str(page.url.split("/g/")[1].split("#")[0])


@pytest.mark.parametrize("locale,words", [("en-GB", "Play now"), ("fr-FR", "Jouer maintenant")])
def test_play_now_is_in_view_on_a_phone(
    server: LiveServer, new_page: Any, locale: str, words: str
) -> None:
    page = new_page(locale=locale, touch=True, **SMALL)
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=play-now-go]")
    assert page.inner_text("[data-testid=play-now-go]") == words
    assert off_screen(page, ["play-now-go", "play-now-settings", "pool-summary"]) == []
    summary = page.inner_text("[data-testid=pool-summary]")
    assert summary == (
        "2 players · casual · relaxed clock"
        if locale == "en-GB"
        else "2 joueurs · amicale · pendule tranquille"
    )


def test_two_browsers_are_paired_in_a_wave(server: LiveServer, new_page: Any) -> None:
    pages = [new_page(), new_page(locale="fr-FR", **SMALL)]
    for page in pages:
        page.goto(server.base + "/")
        page.click("[data-testid=play-now-settings]")
        page.click("[data-testid=pool-bots]")  # people only: the two must meet
        page.click("[data-testid=play-now-go]")
        page.wait_for_selector("[data-testid=pool-waiting]")
    for page in pages:
        page.wait_for_url("**/g/**")
    assert game_id(pages[0]) == game_id(pages[1])

    # Each browser holds its own seat: one of them is to move, the other waits.
    def inputs() -> list[str | None]:
        return [page.get_attribute("#app", "data-input") for page in pages]

    wait_until(
        pages[0],
        lambda: sorted(map(str, inputs())) in (["orient", "wait"], ["roll", "wait"]),
        "one seat to move",
    )
    summary = server.api("GET", f"/api/games/{game_id(pages[0])}")
    assert [seat["kind"] for seat in summary["seats"]] == ["human", "human"]


def test_a_three_player_pool_is_filled_with_bots_after_the_wait(
    server: LiveServer, new_page: Any
) -> None:
    page = new_page()
    page.goto(server.base + "/")
    # From the keyboard: the settings, three players, then Play now.
    page.focus("[data-testid=play-now-settings]")
    page.keyboard.press("Enter")
    page.focus("[data-testid=pool-players-3]")
    page.keyboard.press("Space")
    assert page.is_checked("[data-testid=pool-players-3]")
    assert page.is_checked("[data-testid=pool-bots]")  # the default
    page.focus("[data-testid=play-now-go]")
    page.keyboard.press("Enter")
    note = page.wait_for_selector("[data-testid=pool-bots-note]")
    assert "easy" in note.inner_text() and "3 s" in note.inner_text()
    page.wait_for_url("**/g/**")
    summary = server.api("GET", f"/api/games/{game_id(page)}")
    assert sorted(seat["kind"] for seat in summary["seats"]) == ["bot", "bot", "human"]
    # The settings are remembered: one tap next time asks for the same table.
    page.goto(server.base + "/")
    assert page.inner_text("[data-testid=pool-summary]").startswith("3 players")


def test_cancel_leaves_the_pool(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/")
    page.click("[data-testid=play-now-settings]")
    page.click("[data-testid=pool-players-4]")
    page.click("[data-testid=pool-bots]")
    page.click("[data-testid=play-now-go]")
    page.wait_for_selector("[data-testid=pool-waiting]")
    page.keyboard.press("Enter")  # the focus moved to Cancel
    page.wait_for_selector("[data-testid=play-now-go]")
    wait_until(
        page,
        lambda: server.api("GET", "/api/health")["status"] == "ok" and waiting(server) == 0,
        "the wait deleted",
    )


def waiting(server: LiveServer) -> int:
    import sqlite3

    with sqlite3.connect(server.db) as db:
        return int(db.execute("SELECT count(*) FROM pool_entries").fetchone()[0])
