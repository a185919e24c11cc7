"""The game's chat seen from two browsers (issue 24): a message typed with the keyboard
and a quick reaction shown in each reader's language, HTML shown as text, a mute kept
on the device, a report, a refusal worded in French, a 360 px phone; and a game whose
host turned the chat off."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.browser.helpers import ROOMY, LiveServer, page_fits, wait_until

pytestmark = pytest.mark.browser

PHONE_360 = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"limits": ROOMY}


def create(server: LiveServer, **extra: Any) -> dict[str, Any]:
    body = {"players": 2, "seats": [{"kind": "human"}] * 2, "first_seat": 0, **extra}
    return dict(server.api("POST", "/api/games", body))


def lines(page: Any) -> list[str]:
    texts: list[str] = page.locator("[data-testid=chat-line] .chat-text").all_inner_texts()
    return texts


def wait_line(page: Any, text: str) -> None:
    wait_until(page, lambda: text in lines(page), f"the chat line {text!r}")


def test_two_players_chat_react_mute_and_report(server: LiveServer, new_page: Any) -> None:
    game = create(server)
    red = new_page()
    red.goto(server.base + game["seats"][0]["link"])
    blue = new_page(locale="fr-FR", touch=True, **PHONE_360)
    blue.goto(server.base + game["seats"][1]["link"])
    blue.tap("[data-testid=lang-fr]")  # chosen: the game's English does not override it
    red.wait_for_selector("[data-testid=chat] [data-testid=chat-input]")
    # On a phone the chat is folded behind its summary: open it by touch.
    blue.wait_for_selector("[data-testid=chat-toggle]")
    assert not blue.locator("[data-testid=chat-input]").is_visible()
    blue.tap("[data-testid=chat-toggle]")
    blue.wait_for_selector("[data-testid=chat-input]", state="visible")

    # Red types with the keyboard only: the page's keys do not steal the letters.
    red.focus("[data-testid=chat-input]")
    red.keyboard.type("Hello <b>Blue</b> d4?")
    red.keyboard.press("Enter")
    wait_line(blue, "Hello <b>Blue</b> d4?")
    assert blue.locator("[data-testid=chat-lines] b").count() == 0  # text, not HTML
    wait_line(red, "Hello <b>Blue</b> d4?")
    assert red.get_attribute("#app", "data-input") != "place"  # no key reached the game

    # A quick reaction, in each reader's language.
    blue.tap("[data-testid=react-gg]")
    wait_line(blue, "Bonne partie")
    wait_line(red, "Good game")

    # A refusal comes worded in the reader's language (a direction override).
    blue.fill("[data-testid=chat-input]", "abc\u202edef")
    blue.press("[data-testid=chat-input]", "Enter")
    status = blue.locator("[data-testid=chat-status]")
    wait_until(blue, lambda: "caractères interdits" in status.inner_text(), "the refusal")

    # Red mutes Blue: Blue's next line does not show on Red's page. (Once Blue sees it,
    # the server has sent it to every page it goes to; Red's own next line comes after.)
    red.click("[data-testid=mute-1]")
    red.wait_for_selector("[data-testid=mute-1][aria-pressed=true]")
    blue.fill("[data-testid=chat-input]", "you cannot read me")
    blue.press("[data-testid=chat-input]", "Enter")
    wait_line(blue, "you cannot read me")
    red.fill("[data-testid=chat-input]", "still here")
    red.press("[data-testid=chat-input]", "Enter")
    wait_line(red, "still here")
    assert "you cannot read me" not in lines(red)
    # The mute is remembered on this device: still on after a reload.
    red.reload()
    red.wait_for_selector("[data-testid=mute-1][aria-pressed=true]")
    wait_line(red, "still here")  # the chat so far came back...
    assert "you cannot read me" not in lines(red)  # ...without the muted seat's lines
    red.focus("[data-testid=mute-1]")
    red.keyboard.press("Enter")  # the keyboard unmutes
    red.wait_for_selector("[data-testid=mute-1][aria-pressed=false]")
    blue.fill("[data-testid=chat-input]", "now you can")
    blue.press("[data-testid=chat-input]", "Enter")
    wait_line(red, "now you can")

    # Blue reports Red's line: gone from Blue's page, kept on Red's and in the replay
    # (one player's report hides it from that player alone: issue 36).
    first = blue.locator("[data-testid=chat-line]", has_text="Hello <b>Blue</b> d4?")
    first.locator("[data-testid=chat-report]").tap()
    wait_until(blue, lambda: "Hello <b>Blue</b> d4?" not in lines(blue), "the reported line gone")
    assert "Signalé" in status.inner_text()
    assert "Hello <b>Blue</b> d4?" in lines(red)  # the operator has not hidden it
    replay = server.api("GET", f"/api/games/{game['game_id']}/replay")
    assert [line["text"] for line in replay["chat"]] == [
        "Hello <b>Blue</b> d4?",
        "gg",
        "you cannot read me",
        "still here",
        "now you can",
    ]
    page_fits(blue)
    # The replay page shows the chat it keeps, reactions in its reader's language.
    red.goto(server.base + f"/r/{game['game_id']}")
    red.wait_for_selector("[data-testid=replay-chat-line]")
    shown = red.locator("[data-testid=replay-chat-line] .chat-text").all_inner_texts()
    assert shown == [
        "Hello <b>Blue</b> d4?",
        "Good game",
        "you cannot read me",
        "still here",
        "now you can",
    ]


def test_a_game_without_chat_says_so(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=allow-chat]:checked")  # the lobby's form offers it
    game = create(server, chat=False)
    page.goto(server.base + game["seats"][0]["link"])
    page.wait_for_selector("[data-testid=chat-off]", state="visible")
    assert not page.locator("[data-testid=chat-input]").is_visible()


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_line_the_operator_hides_leaves_an_open_page(server: LiveServer, new_page: Any) -> None:
    """``marrakech admin hide-message``, run as its own process on the server's SQLite
    file, takes the line away from a page left open, which says why (issue 36)."""
    from tests.web.test_moderation import admin_ok

    game = create(server)
    red = new_page()
    red.goto(server.base + game["seats"][0]["link"])
    red.wait_for_selector("#app[data-phase]")  # welcomed: a line typed sooner is not sent
    red.fill("[data-testid=chat-input]", "to be hidden")
    red.press("[data-testid=chat-input]", "Enter")
    red.fill("[data-testid=chat-input]", "to be kept")
    red.press("[data-testid=chat-input]", "Enter")
    wait_line(red, "to be kept")
    (line,) = [
        line["id"]
        for line in server.api("GET", f"/api/games/{game['game_id']}/replay")["chat"]
        if line["text"] == "to be hidden"
    ]
    admin_ok(server.db, "hide-message", game["game_id"], str(line))
    wait_until(red, lambda: "to be hidden" not in lines(red), "the hidden line gone")
    assert lines(red) == ["to be kept"]
    status = red.locator("[data-testid=chat-status]").inner_text()
    assert "removed by the server’s operator" in status
