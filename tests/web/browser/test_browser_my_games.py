"""The "My games" page (issue 25): this device's games, the ones where it is your turn
first with the time left, the count in the tab's title and on the app's icon, in English
and French, on a 360 px phone and with the keyboard."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from tests.web.browser.helpers import LiveServer, wait_until

pytestmark = pytest.mark.browser

#: Records what the page asks of the app's icon (Chromium has the API on a secure
#: origin, but no installed app to show it on).
BADGE_SPY = """
window.__badges = [];
if (navigator.setAppBadge) {
  navigator.setAppBadge = (n) => { window.__badges.push(n); return Promise.resolve(); };
  navigator.clearAppBadge = () => { window.__badges.push(0); return Promise.resolve(); };
}
"""


def create(server: LiveServer, clock: str, first: int) -> dict[str, Any]:
    spec = {
        "players": 2,
        "seats": [{"kind": "human"}, {"kind": "human"}],
        "clock": clock,
        "first_seat": first,
    }
    request = urllib.request.Request(
        server.base + "/api/games", json.dumps(spec).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        created: dict[str, Any] = json.loads(reply.read())
    return created


def remember(page: Any, games: list[dict[str, Any]]) -> None:
    """This device holds seat 0 of each game (as the lobby remembers them)."""
    entries = [
        {"id": g["game_id"], "tokens": [g["seats"][0]["token"]], "seats": [0], "players": 2}
        for g in games
    ]
    page.evaluate(f"localStorage.setItem('marrakech.games', JSON.stringify({json.dumps(entries)}))")


def test_my_games_puts_your_turn_first_and_counts_it_in_the_title(
    server: LiveServer, new_page: Any
) -> None:
    theirs = create(server, "turn_1d", first=1)
    yours = create(server, "turn_3d", first=0)
    page = new_page(width=360, height=740, touch=True)
    page.context.add_init_script(BADGE_SPY)
    page.goto(server.base + "/")
    remember(page, [theirs, yours])
    page.goto(server.base + "/my-games")
    page.wait_for_selector("[data-testid=my-games-yourturn] li")
    wait_until(page, lambda: page.title().startswith("(1) My games"), "the count in the title")
    first = page.locator("[data-testid=my-games-yourturn] li").first
    assert first.get_attribute("data-game") == yours["game_id"]
    left = page.text_content(f"[data-testid=left-{yours['game_id']}]") or ""
    assert "left" in left and " d" in left  # "2 d 23 h left": a move's 3 days...
    waiting = page.locator("[data-testid=my-games-waiting] li")
    assert waiting.count() == 1 and waiting.first.get_attribute("data-game") == theirs["game_id"]
    wait_until(page, lambda: 1 in page.evaluate("window.__badges || []"), "the app's badge")
    # It fits a 360 px phone: nothing wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # French, all of it.
    page.click("[data-testid=lang-fr]")
    wait_until(page, lambda: page.title().startswith("(1) Mes parties"), "the French title")
    assert "À vous de jouer" in (page.text_content("[data-testid=my-games-page]") or "")
    assert "il reste" in (page.text_content(f"[data-testid=left-{yours['game_id']}]") or "")
    page.click("[data-testid=lang-en]")
    # With the keyboard: Tab to "Play" of the game where it is your turn, Enter opens it.
    play = f"[data-testid=play-{yours['game_id']}]"
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.dataset.testid") == (
            f"play-{yours['game_id']}"
        ):
            break
    else:
        raise AssertionError("Tab never reached the game's Play link")
    assert page.get_attribute(play, "href", timeout=1000)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/g/{yours['game_id']}**")


def test_the_installed_app_opens_to_my_games(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/")
    manifest = page.evaluate("fetch('/manifest.webmanifest').then((r) => r.json())")
    assert manifest["start_url"].startswith("/my-games")
    page.goto(server.base + manifest["start_url"])
    page.wait_for_selector("[data-testid=my-games-empty]")
    assert page.title() == "My games — Marrakech"
    page.click("[data-testid=my-games-lobby]")
    page.wait_for_selector("[data-testid=my-games-link]")
