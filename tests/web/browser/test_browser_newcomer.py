"""What a new player read on a phone (issue 36): My games' cards name the opponents and
whose turn it is, "your turn" first; a leaderboard where nobody has the minimum of rated
games shows the provisional ratings, marked so, the minimum stated; a profile after one
loss to the ``easy`` bot says the bot level its rating reaches, with the numbers the
leaderboard shows, not ``medium``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from marrakech.web.store import ActionRow, GameEnd, SeatRow, StoredGame, hash_token
from marrakech.web.store.queries import AccountQueries
from marrakech.web.store.sqlite import SQLiteStore
from tests.web.browser.helpers import SMALL, LiveServer, page_fits, wait_until
from tests.web.test_accounts import CHEAP, PASSWORD

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"passwords": CHEAP}


def sign_up(server: LiveServer, page: Any, name: str) -> str:
    """Sign up from the page (its cookie is the browser's); the account's id."""
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    body = json.dumps({"name": name, "password": PASSWORD})
    answer = page.evaluate(
        "body => fetch('/api/account/signup', {method: 'POST',"
        " headers: {'Content-Type': 'application/json'}, body}).then((r) => r.json())",
        body,
    )
    return str(answer["account"]["id"])


@pytest.fixture(scope="module")
def newcomer(server: LiveServer, browser: Any) -> Iterator[str]:
    """Nia: one rated two-player game, lost to the ``easy`` bot (a rating below the
    leaderboard's minimum of games)."""
    context = browser.new_context()
    account = sign_up(server, context.new_page(), "Nia")
    context.close()
    store = SQLiteStore(server.db)
    seats = (
        SeatRow(0, "human", name="Nia", token_hash=hash_token("nia-0")),
        SeatRow(1, "bot", level="easy"),
    )
    store.create_game(
        StoredGame(
            id="lostToEasy01",
            players=2,
            rules="standard",
            first_seat=0,
            lang="en",
            seats=seats,
            status="running",
            rated=True,
            created=1000.0,
        )
    )
    link = AccountQueries("sqlite").link_seat
    values = {"game_id": "lostToEasy01", "token_hash": seats[0].token_hash, "account_id": account}
    store.transact([(link.sql, link.params(values))])
    store.append_actions("lostToEasy01", 0, [ActionRow("L", 0)], "over", False, 1, GameEnd((2, 1)))
    store.close()
    yield "Nia"


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_the_profile_says_what_the_leaderboard_numbers_say(
    server: LiveServer, new_page: Any, newcomer: str, locale: str
) -> None:
    board = server.api("GET", "/api/leaderboard?players=2")
    bots = {bot["level"]: bot["rating"] for bot in board["bots"]}
    profile = server.api("GET", f"/api/players/{newcomer}")
    mine = profile["ratings"][0]["rating"]
    like = profile["plays_like"]
    # The strongest level the player's number reaches: easy here, never medium.
    assert like == max((lv for lv in bots if bots[lv] <= mine), key=lambda lv: bots[lv])
    assert bots["medium"] > mine and like != "medium"
    page = new_page(locale=locale, touch=True, **SMALL)
    page.goto(f"{server.base}/players/{newcomer}")
    sentence = page.locator("[data-testid=plays-like]").inner_text()
    level = {"en-GB": "easy", "fr-FR": "facile"}[locale]
    start = {"en-GB": f"Plays like the {level} bot", "fr-FR": f"Joue comme le bot {level}"}
    assert sentence.startswith(start[locale])
    # The two numbers it compares are the leaderboard's.
    assert str(mine) in sentence and str(bots[like]) in sentence
    assert page.inner_text("[data-testid=profile-rating-2]") == str(mine)
    page_fits(page)


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_the_leaderboard_shows_provisional_ratings_while_nobody_has_enough_games(
    server: LiveServer, new_page: Any, newcomer: str, locale: str
) -> None:
    board = server.api("GET", "/api/leaderboard?players=2")
    assert board["leaders"] == [] and board["min_games"] == 5
    assert [(one["name"], one["games"]) for one in board["provisional"]] == [(newcomer, 1)]
    page = new_page(locale=locale, touch=True, **SMALL)
    page.goto(f"{server.base}/leaderboard?players=2")
    row = page.locator("[data-testid=provisional-leader]")
    row.wait_for()
    assert row.count() == 1 and newcomer in row.inner_text()
    rating = page.locator("[data-testid=provisional-leader] [data-testid=leader-rating]")
    badge = {"en-GB": "provisional", "fr-FR": "provisoire"}[locale]
    assert rating.text_content() == f"{board['provisional'][0]['rating']} {badge}"
    empty = page.inner_text("[data-testid=leaderboard-empty]")
    assert "5" in empty and ("provisional" in empty or "provisoires" in empty)
    assert "5" in page.inner_text("[data-testid=leaderboard-page]")
    page_fits(page)
    # Every column of the table on the screen: none scrolled out of it sideways.
    for table in ("leaderboard-provisional", "bot-ratings"):
        wider = page.eval_on_selector(
            f"[data-testid={table}]",
            "t => t.parentElement.scrollWidth - t.parentElement.clientWidth",
        )
        assert wider <= 0, f"{table}: {wider} px beyond the screen"


def test_my_games_cards_name_the_opponents_and_whose_turn(
    server: LiveServer, new_page: Any
) -> None:
    def create(first: int, second: dict[str, Any]) -> dict[str, Any]:
        seats = [{"kind": "human", "name": "Ana"}, second, {"kind": "bot", "level": "easy"}]
        spec = {"players": 3, "seats": seats, "first_seat": first, "clock": "turn_1d"}
        answer: dict[str, Any] = server.api("POST", "/api/games", spec)
        return answer

    yours = create(0, {"kind": "human", "name": "Bo"})
    theirs = create(1, {"kind": "human", "name": "Cy"})
    page = new_page(touch=True, **SMALL)
    page.goto(server.base + "/")
    entries = [
        {"id": g["game_id"], "tokens": [g["seats"][0]["token"]], "seats": [0], "players": 3}
        for g in (theirs, yours)
    ]
    page.evaluate(f"localStorage.setItem('marrakech.games', JSON.stringify({json.dumps(entries)}))")
    page.goto(server.base + "/my-games")
    page.wait_for_selector("[data-testid=my-games-waiting] li")
    first = page.locator("[data-testid=my-games-yourturn] li").first
    assert first.get_attribute("data-game") == yours["game_id"]
    # "Your turn" is the card's first line; then who the opponents are.
    assert first.locator(".meta > *").first.inner_text() == "Your turn"
    against = page.inner_text(f"[data-testid=against-{yours['game_id']}]")
    assert against == "Against Bo (Blue), the easy bot (Yellow)"
    assert page.inner_text(f"[data-testid=turn-{theirs['game_id']}]") == "Cy (Blue) to play"
    assert "Cy (Blue)" in page.inner_text(f"[data-testid=against-{theirs['game_id']}]")
    page.click("[data-testid=lang-fr]")
    french = f"[data-testid=turn-{theirs['game_id']}]"
    wait_until(page, lambda: page.inner_text(french) == "À Cy (Bleu) de jouer", "French")
    assert page.inner_text(f"[data-testid=turn-{yours['game_id']}]") == "À vous de jouer"
    assert page.inner_text(f"[data-testid=against-{yours['game_id']}]") == (
        "Contre Bo (Bleu), le robot facile (Jaune)"
    )
    page_fits(page)
