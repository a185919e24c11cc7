"""Rated games in the browser (issue 24): a signed-in player creates a rated 3-player
game with a bot from the lobby, a guest is refused its open seat (in French), another
signed-in player takes it, both play it to the end, and the ratings move: each profile
shows its rating, its chart and the game's replay link, and the leaderboard lists both.
The profile and the leaderboard fit a 360 px phone, in English and French."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.web.browser.helpers import (
    SMALL,
    LiveServer,
    lobby_form,
    mouse_turn,
    page_fits,
    small_controls,
    wait_until,
)
from tests.web.test_accounts import CHEAP, PASSWORD


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"passwords": CHEAP, "leaderboard_min_games": 1}


def sign_up(page: Any, base: str, name: str) -> None:
    """Sign up with a password from the page (its cookie is the page's session)."""
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready='1']")
    status = page.evaluate(
        """([name, password]) => fetch('/api/account/signup', {
             method: 'POST', headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({name, password})}).then(r => r.status)""",
        [name, PASSWORD],
    )
    assert status == 201
    page.reload()
    page.wait_for_selector("[data-testid=account-button][data-signed-in='1']")


def input_of(page: Any) -> str:
    return str(page.get_attribute("#app", "data-input") or "")


@pytest.mark.slow
def test_a_rated_game_with_a_bot_moves_both_ratings(server: LiveServer, new_page: Any) -> None:
    base = server.base
    ana, bo = new_page(), new_page()
    guest = new_page(locale="fr-FR")
    sign_up(ana, base, "Ana")
    sign_up(bo, base, "Bo")

    # Ana creates a rated game from the lobby: her seat, an open one, an easy bot.
    lobby_form(ana, base, 3, {0: "here", 1: "open", 2: "bot"})
    ana.select_option("[data-testid=seat-level-2]", "easy")
    ana.fill("[data-testid=your-name]", "Ana")
    ana.check("[data-testid=rated]")
    ana.click("[data-testid=create]")
    ana.wait_for_url("**/g/**")
    game_id = ana.url.split("/g/")[1].split("#")[0]
    summary = server.api("GET", f"/api/games/{game_id}")
    assert summary["rated"] is True and summary["status"] == "waiting"

    # A guest may not take the open seat: the lobby says why, in French.
    guest.goto(base + "/")
    guest.click(f"[data-testid=join-{game_id}-1]")
    guest.fill("[data-testid=join-name]", "Invité")
    guest.click("[data-testid=join-go]")
    refusal = guest.locator("[data-testid=join-error]").inner_text()
    assert refusal.startswith("Une partie classée est réservée aux joueurs connectés")

    # Bo, signed in, takes it; the game starts.
    bo.goto(base + "/")
    bo.click(f"[data-testid=join-{game_id}-1]")
    bo.fill("[data-testid=join-name]", "Bo")
    bo.click("[data-testid=join-go]")
    bo.wait_for_url(f"**/g/{game_id}**")

    # The game says it is rated, with a link to its leaderboard.
    assert bo.get_attribute("[data-testid=rated-game]", "href") == "/leaderboard?players=3"
    # Both play to the end (the bot plays its own seat).
    rng = random.Random(24)
    pages = [ana, bo]
    for page in pages:
        page.wait_for_selector("#app[data-input]")
    turns = 0
    while not any(input_of(page) == "over" for page in pages):
        moved = False
        for page in pages:
            if input_of(page) not in ("", "wait", "over"):
                mouse_turn(page, rng)
                moved = True
                turns += 1
        if not moved:
            page.wait_for_timeout(30)
        assert turns < 400, "the game did not end"
    over = lambda: server.api("GET", f"/api/games/{game_id}")["status"] == "over"  # noqa: E731
    wait_until(ana, over, "the end")

    # The ratings moved: each profile shows its rating after one rated game of three.
    board = server.api("GET", "/api/leaderboard?players=3")
    ratings = {leader["name"]: leader["rating"] for leader in board["leaders"]}
    assert set(ratings) == {"Ana", "Bo"} and ratings != {"Ana": 1000, "Bo": 1000}
    easy = next(bot for bot in board["bots"] if bot["level"] == "easy")
    assert easy["games"] == 1
    ana.goto(base + "/")
    ana.click("[data-testid=account-button]")
    ana.click("[data-testid=account-profile]")
    ana.wait_for_selector("[data-testid=profile-rating-3]")
    assert ana.inner_text("[data-testid=profile-name]") == "Ana"
    assert ana.inner_text("[data-testid=profile-rating-3]") == str(ratings["Ana"])
    assert ana.locator("[data-testid=rating-chart] circle").count() == 1
    assert ana.inner_text("[data-testid=plays-like]").startswith("You play like the")
    replay = ana.locator(f"[data-testid=last-game][data-game='{game_id}']")
    assert replay.get_attribute("href") == f"/r/{game_id}"
    # From the profile to the leaderboard, where both stand with the same numbers.
    ana.click("[data-testid=leaderboard-link]")
    ana.click("[data-testid=leaderboard-3]")
    wait_until(ana, lambda: ana.locator("[data-testid=leader]").count() == 2, "two leaders")
    shown = ana.locator("[data-testid=leader-rating]").all_inner_texts()
    assert sorted(int(text) for text in shown) == sorted(ratings.values())
    # Bo's profile, opened from the leaderboard, links the same replay.
    ana.click("[data-testid=profile-link] >> text=Bo")
    ana.wait_for_selector(f"[data-testid=last-game][data-game='{game_id}']")
    assert ana.inner_text("[data-testid=plays-like]").startswith("Plays like the")


def test_the_profile_and_the_leaderboard_fit_a_phone_in_both_languages(
    server: LiveServer, new_page: Any
) -> None:
    server.api("POST", "/api/account/signup", {"name": "Téléphone", "password": PASSWORD})
    for locale, title in (("en-GB", "Leaderboard"), ("fr-FR", "Classement")):
        page = new_page(locale=locale, **SMALL, touch=True)
        page.goto(server.base + "/leaderboard?players=4")
        page.wait_for_selector("[data-testid=leaderboard-page][aria-busy=false]")
        assert page.inner_text("#ratings-title") == title
        assert page.get_attribute("[data-testid=leaderboard-4]", "aria-pressed") == "true"
        page.wait_for_selector("[data-testid=bot-ratings]")
        page_fits(page)
        assert not small_controls(page), small_controls(page)
        # The keyboard reaches the player counts and keeps its place after a choice.
        page.focus("[data-testid=leaderboard-2]")
        page.keyboard.press("Enter")
        page.wait_for_selector("[data-testid=leaderboard-2][aria-pressed=true]")
        page.wait_for_selector("[data-testid=leaderboard-page][aria-busy=false]")
        assert page.evaluate("document.activeElement.dataset.testid") == "leaderboard-2"
        page.goto(server.base + "/players/t%C3%A9l%C3%A9phone")
        page.wait_for_selector("[data-testid=profile-page][aria-busy=false]")
        assert page.inner_text("[data-testid=profile-name]") == "Téléphone"
        none = "No bot beaten yet." if locale == "en-GB" else "Aucun bot battu pour l’instant."
        assert page.inner_text("[data-testid=bots-beaten-none]") == none
        page_fits(page)
        assert not small_controls(page), small_controls(page)
    missing = new_page(locale="fr-FR", **SMALL)
    missing.goto(server.base + "/players/personne")
    missing.wait_for_selector("[data-testid=profile-page][aria-busy=false]")
    assert missing.inner_text("[role=alert]") == "Aucun joueur ne porte ce nom."


def test_the_lobby_says_why_a_rated_game_is_refused(server: LiveServer, new_page: Any) -> None:
    page = new_page(locale="fr-FR")
    # Two seats on this screen: refused by the page before asking the server.
    lobby_form(page, server.base, 3, {0: "here", 1: "here", 2: "bot"})
    page.check("[data-testid=rated]")
    page.click("[data-testid=create]")
    error = page.locator("form .notice.error[role=alert]")
    assert error.inner_text().startswith("Une partie classée a au plus un joueur sur cet écran")
    # A guest's rated game: the server refuses it, and the page says why in French.
    page.select_option("[data-testid=seat-kind-1]", "bot")
    page.click("[data-testid=create]")
    wait_until(page, lambda: "connectés" in error.inner_text(), "the refusal")
    assert error.inner_text().startswith("Une partie classée est réservée aux joueurs connectés")
    assert "/g/" not in page.url
