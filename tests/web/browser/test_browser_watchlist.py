"""The lobby's games to watch in the browser (issue 37, item 5): a live game of bots is
in the card after the tournaments', its Watch link (from the keyboard) opens the
game's spectator view, a waiting game is not there, and the card fits a 360 px phone in
French, a long name included."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.browser.helpers import SMALL, LiveServer, page_fits, wait_until

#: A name of the longest kind, without a space to break it at.
LONG_NAME = "Abcdefghijklmnopqrstuvwxyzabcdefghijklmn"


@pytest.fixture(scope="module")
def server(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # Bots a second apart: their game stays live for the whole test.
    live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3", bot_delay=1.0)
    live.start()
    try:
        yield live
    finally:
        live.stop()


def test_a_live_bot_game_is_watched_from_the_lobby(server: LiveServer, new_page: Any) -> None:
    bots = {"players": 2, "seats": [{"kind": "bot", "level": "easy"}] * 2}
    game_id = server.api("POST", "/api/games", bots)["game_id"]
    waiting = server.api(
        "POST",
        "/api/games",
        {"players": 2, "seats": [{"kind": "human"}, {"kind": "open"}], "name": "Host"},
    )["game_id"]
    page = new_page()
    page.goto(server.base + "/")
    link = page.locator(f"[data-testid=watch-{game_id}]")
    link.wait_for()
    card = page.locator("[data-testid=lobby-watchlist]")
    assert "Games to watch" in card.inner_text()
    assert "Bot (easy) vs Bot (easy)" in card.inner_text()
    assert page.locator(f"[data-testid=lobby-watchlist] [data-game='{waiting}']").count() == 0
    # Right after the tournaments' card.
    after = page.evaluate(
        "document.querySelector('[data-testid=lobby-tournaments]').nextElementSibling"
        ".querySelector('[data-testid=lobby-watchlist]') !== null"
    )
    assert after
    assert link.get_attribute("aria-label") == "Watch Bot (easy) vs Bot (easy)"
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/g/{game_id}")
    assert "#t=" not in page.url
    page.wait_for_selector("#app[data-input='wait']")
    # The spectator's view: the board and panels, no control, no seat of one's own.
    assert page.locator("[data-testid=panel-0]").count() == 1
    assert page.locator("[data-testid=orient-L], [data-testid=roll]").count() == 0
    assert "you" not in page.inner_text("[data-testid=panels]").lower()


def test_the_card_fits_a_small_phone_in_french(server: LiveServer, new_page: Any) -> None:
    person = {
        "players": 2,
        "first_seat": 0,
        "seats": [{"kind": "human", "name": LONG_NAME}, {"kind": "bot", "level": "hard"}],
    }
    game_id = server.api("POST", "/api/games", person)["game_id"]
    page = new_page(locale="fr-FR", width=SMALL["width"], height=SMALL["height"])
    page.goto(server.base + "/")
    link = page.locator(f"[data-testid=watch-{game_id}]")
    link.wait_for()
    card = page.locator("[data-testid=lobby-watchlist]")
    wait_until(page, lambda: "Parties à regarder" in card.inner_text(), "the French card")
    assert f"{LONG_NAME} contre Robot (difficile)" in card.inner_text()
    assert link.inner_text() == "Regarder"
    link.scroll_into_view_if_needed()
    box = card.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SMALL["width"]
    link_box = link.bounding_box()
    assert link_box is not None and link_box["x"] + link_box["width"] <= SMALL["width"]
    page_fits(page)
