"""Challenges and friends in the browser (issue 37, item 2): Ana follows Bo from the
lobby's friends panel, challenges him from his profile; Bo, on a 360 px phone in
French, sees the challenge and accepts it with the keyboard; both browsers end in the
game, each seated in its own seat."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.browser.helpers import SMALL, LiveServer, page_fits, wait_until
from tests.web.browser.test_browser_ratings import sign_up
from tests.web.test_accounts import CHEAP


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"passwords": CHEAP}


def test_a_challenge_accepted_seats_both_browsers_in_the_game(
    server: LiveServer, new_page: Any
) -> None:
    base = server.base
    ana = new_page()
    bo = new_page(locale="fr-FR", **SMALL)
    sign_up(ana, base, "Ana")
    sign_up(bo, base, "Bo")

    # Ana follows Bo from the lobby's friends panel: Bo is listed, online (his page).
    ana.goto(base + "/")
    ana.wait_for_selector("[data-testid=friends] form")
    ana.fill("[data-testid=follow-name]", "bo")
    ana.press("[data-testid=follow-name]", "Enter")
    friend = ana.locator("[data-testid=friend][data-name=Bo]")
    friend.wait_for()
    assert friend.locator("[data-testid=friend-status]").inner_text() == "online"

    # Ana challenges Bo from his profile.
    ana.goto(base + "/players/Bo")
    ana.click("[data-testid=profile-actions] [data-testid=challenge-button]")
    said = ana.locator("[data-testid=profile-actions] [data-testid=challenge-said]")
    wait_until(ana, lambda: "Challenge sent to Bo" in said.inner_text(), "the challenge sent")
    ana.locator("[data-testid=challenge-out][data-status=open]").wait_for()

    # Bo opens the lobby on his phone: the challenge is there, in French, and fits.
    bo.goto(base + "/")
    incoming = bo.locator("[data-testid=challenge-in]")
    incoming.wait_for()
    assert incoming.inner_text().startswith("Ana vous défie")
    page_fits(bo)
    # Accepted with the keyboard: Bo goes to the game, and Ana's page follows.
    bo.focus("[data-testid=challenge-accept]")
    bo.keyboard.press("Enter")
    bo.wait_for_url("**/g/**")
    game_id = bo.url.split("/g/")[1].split("#")[0]
    ana.wait_for_url(f"**/g/{game_id}**")
    for page in (ana, bo):
        page.wait_for_selector("body[data-ready='1']")
    summary = server.api("GET", f"/api/games/{game_id}")
    assert [seat["name"] for seat in summary["seats"]] == ["Ana", "Bo"]

    def both_seated() -> bool:
        seats = server.api("GET", f"/api/games/{game_id}")["seats"]
        return [seat["presence"] for seat in seats] == ["connected", "connected"]

    wait_until(ana, both_seated, "both players seated in the game")
    # Each page holds its own seat: the game page says whose seat it plays.
    for page, seat in ((ana, 0), (bo, 1)):

        def holds(page: Any = page, seat: int = seat) -> bool:
            games = page.evaluate("JSON.parse(localStorage.getItem('marrakech.games') || '[]')")
            return any(g["id"] == game_id and g["seats"] == [seat] for g in games)

        wait_until(page, holds, f"seat {seat} held by its page")
    # The answered challenge is gone from both pages.
    assert ana.locator("[data-testid=challenge-in], [data-testid=challenge-out]").count() == 0
    page_fits(bo)
