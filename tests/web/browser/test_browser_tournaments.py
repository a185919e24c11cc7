"""A tournament in the browser (issue 37, item 3): an account creates an arena of a
minute with a bot from the lobby's form, four signed-in accounts join it from its page
(one from the keyboard), each sees the link of its game as it is paired, the games go
on (their players away, the clocks hand them to stand-ins), and every page shows the
podium once the arena is over and its last games ended; the results are on the
profiles, a public tournament in the lobby (a guest is told to sign in to create one),
and the page fits a 360 px phone in English and French."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from tests.web.browser.helpers import SMALL, LiveServer, page_fits, wait_until
from tests.web.browser.test_browser_ratings import sign_up
from tests.web.test_accounts import CHEAP
from tests.web.test_moderation import admin_ok


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    # A blitz turn of a second: absent players' stand-ins play their games quickly.
    return {"passwords": CHEAP, "tournament_tick": 0.2, "blitz_seconds": 1}


def create_arena(page: Any, base: str) -> str:
    """An arena of a minute with an easy bot, created from the lobby's form."""
    page.goto(base + "/")
    page.click("[data-testid=tournament-create-open]")
    page.fill("[data-testid=tournament-name-input]", "Minute arena")
    page.fill("[data-testid=tournament-length]", "1")
    page.select_option("[data-testid=tournament-bot]", "easy")
    page.click("[data-testid=tournament-create]")
    page.wait_for_url("**/t/**")
    return str(page.url.split("/t/")[1])


@pytest.mark.slow
def test_an_arena_of_four_accounts_and_a_bot_to_its_podium(
    server: LiveServer, new_page: Any
) -> None:
    base = server.base
    pages = [new_page() for _ in range(4)]
    for page, name in zip(pages, ("Ana", "Bo", "Cy", "Di"), strict=True):
        sign_up(page, base, name)
    tid = create_arena(pages[0], base)
    for index, page in enumerate(pages):
        page.goto(f"{base}/t/{tid}")
        join = page.locator("[data-testid=tournament-join]")
        if index == 3:  # from the keyboard
            join.focus()
            page.keyboard.press("Enter")
        else:
            join.click()
        page.wait_for_selector("[data-testid=tournament-withdraw]")
    ana = pages[0]
    # the standings are read again every 3 s
    wait_until(ana, lambda: ana.locator("[data-testid=standing]").count() == 5, "five entrants")
    # Paired at once: two games of two, the fifth entrant waits; a paired page shows
    # its game's link, the others can watch it.
    wait_until(ana, lambda: ana.locator("[data-testid=tournament-watch]").count() == 2, "pairing")
    wait_until(
        ana,
        lambda: sum(page.locator("[data-testid=tournament-play]").count() for page in pages) >= 3,
        "the players' links",
    )

    # The minute passes, the last games end: the podium.
    def podium_on(page: Any) -> bool:
        return bool(page.locator("[data-testid=podium-step]").count() >= 3)

    for page in pages:
        wait_until(page, functools.partial(podium_on, page), "the podium", timeout=240)
    steps = ana.locator("[data-testid=podium-step]").all_inner_texts()
    assert steps[0].startswith("place 1 · ")
    assert ana.get_attribute("[data-testid=tournament-time]", "data-status") == "over"
    assert ana.locator("[data-testid=tournament-join]").count() == 0  # over: nobody joins
    # Its results on the profiles.
    ana.goto(f"{base}/players/Ana")
    ana.wait_for_selector("[data-testid=profile-tournament]")
    assert "Minute arena" in ana.locator("[data-testid=profile-tournament]").inner_text()


def test_the_lobby_lists_public_tournaments_and_the_page_fits_a_phone(
    server: LiveServer, new_page: Any
) -> None:
    said = admin_ok(server.db, "tournament", "create", "Evening arena", "--in", "60")
    tid = said.split("/t/")[1].strip()
    page = new_page(**SMALL)
    page.goto(base_url := server.base + "/")
    page.wait_for_selector("[data-testid=lobby-tournament]")
    assert "Evening arena" in page.locator("[data-testid=lobby-tournaments]").inner_text()
    # a guest may not create one: the form says to sign in
    page.click("[data-testid=tournament-create-open]")
    page.fill("[data-testid=tournament-name-input]", "Mine")
    page.click("[data-testid=tournament-create]")
    refusal = page.locator("[data-testid=tournament-create-error]")
    wait_until(page, refusal.is_visible, "the refusal")
    assert refusal.inner_text() == "Sign in first to play in a tournament."
    page_fits(page)
    page.click("text=Evening arena")
    page.wait_for_url(f"**/t/{tid}")
    page.wait_for_selector("[data-testid=tournament-sign-in]")  # a guest is asked to sign in
    assert page.locator("[data-testid=tournament-time]").inner_text().startswith("Starts ")
    page_fits(page)
    page.click("#lang-switch button[data-lang=fr]")
    wait_until(
        page,
        lambda: "Commence" in page.locator("[data-testid=tournament-time]").inner_text(),
        "French",
    )
    assert "Arène" in page.locator("[data-testid=tournament-line]").inner_text()
    page_fits(page)
    assert base_url
