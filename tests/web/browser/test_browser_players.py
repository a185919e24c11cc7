"""Several people: two browsers playing each other through invitation links, a
spectator, an open seat joined from the lobby, and same-screen play with a handover."""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest

from tests.web.browser.helpers import (
    LiveServer,
    lobby_form,
    mouse_turn,
    version,
    wait_input,
    wait_until,
)

pytestmark = pytest.mark.browser


def at_version(final: int, page: Any) -> bool:
    """Whether ``page`` shows the game at version ``final``."""
    return version(page) == final


def log_lines(page: Any) -> list[str]:
    return list(page.locator("[data-testid=log] li").all_inner_texts())


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_two_browsers_play_through_invite_links(server: LiveServer, new_page: Any) -> None:
    host = new_page(speed="fast")
    host.goto(server.base + "/")
    host.wait_for_selector("[data-testid=lobby]")
    host.check("[data-testid=players-2]")
    host.select_option("[data-testid=seat-kind-1]", "human")
    host.fill("[data-testid=seat-name-1]", "Bea")
    host.select_option("[data-testid=first-seat]", "0")
    host.click("[data-testid=create]")
    host.wait_for_selector("[data-testid=created]")
    invite = host.input_value("[data-testid=invite-1]")
    spectator_link = host.input_value("[data-testid=spectator-link]")
    assert "#t=" in invite and "#t=" not in spectator_link
    host.click("[data-testid=open-created]")
    host.wait_for_url("**/g/*#t=*")

    guest = new_page(speed="fast")
    guest.goto(invite)
    guest.wait_for_selector("#app[data-welcomes='1'][data-input='wait']")
    assert "you" in guest.inner_text("[data-testid=panel-1]").lower()
    assert "Bea" in guest.inner_text("[data-testid=panel-1]")
    watcher = new_page(speed="off")
    watcher.goto(spectator_link)
    watcher.wait_for_selector("#app[data-input='wait']")

    rng = random.Random(4)
    for _ in range(2):  # two whole turns each: orient, roll, place (+ the pile draw, R7)
        for page in (host, guest):
            for expected in ("orient", "roll", "place"):
                assert wait_input(page) == expected
                mouse_turn(page, rng)
    # The host's page has the guest's last turn once it is the host's turn again.
    assert wait_input(host) == "orient"
    final = version(host)
    for page in (guest, watcher):
        wait_until(page, partial(at_version, final, page), "the same version everywhere")
    assert log_lines(host) == log_lines(guest) == log_lines(watcher)
    assert any(
        line.startswith("Red-Yellow turned") or line.startswith("Red-Yellow kept")
        for line in log_lines(guest)
    )
    # The spectator sees everything and controls nothing.
    assert watcher.locator("[data-testid=orient-L], [data-testid=roll]").count() == 0
    assert "you" not in watcher.inner_text("[data-testid=panels]").lower()
    # Two-player panels show the carpets of both colours and the pile tops (R7, R40).
    assert watcher.locator("[data-testid=panel-0] .pile svg").count() >= 2


def test_open_seat_joined_from_the_lobby(server: LiveServer, new_page: Any) -> None:
    answer = server.api(
        "POST",
        "/api/games",
        {
            "players": 2,
            "seats": [{"kind": "bot", "level": "easy"}, {"kind": "open"}],
            "first_seat": 1,
            "lang": "fr",
        },
    )
    game_id = answer["game_id"]
    # A browser that speaks neither English nor French follows the game's language.
    page = new_page(locale="de-DE")
    page.goto(server.base + "/")
    page.click(f"[data-testid=join-{game_id}-1]")
    # A seat is taken with a name: without one the lobby asks for it.
    page.fill("[data-testid=join-name]", "  ")
    page.click("[data-testid=join-go]")
    assert "name" in page.inner_text("[data-testid=join-error]").lower()
    page.fill("[data-testid=join-name]", "Zoé")
    page.click("[data-testid=join-go]")
    page.wait_for_url(f"**/g/{game_id}#t=*")
    assert wait_input(page) == "orient"
    # Someone who never chose a language, on a browser in neither of the page's
    # languages, sees the game in the one it was created in.
    page.wait_for_selector("html[lang=fr]")
    assert page.inner_text("[data-testid=status]").startswith("À vous")
    mouse_turn(page, random.Random(5))
    assert "Assam" in page.locator("[data-testid=log] li").last.inner_text()
    # The log names the player as the panels do.
    assert page.locator("[data-testid=log] li").last.inner_text().startswith("Zoé (Bleu-Violet) a")
    # The lobby now lists it under "your games", with a link back to the seat.
    page.goto(server.base + "/")
    page.wait_for_selector(f"[data-testid=my-games] li[data-game='{game_id}']")
    assert page.locator(f"[data-testid=join-{game_id}-1]").count() == 0


def test_same_screen_hands_the_turn_over(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    lobby_form(page, server.base, 3, {1: "here", 2: "bot"})
    page.select_option("[data-testid=seat-level-2]", "easy")
    page.click("[data-testid=create]")
    page.wait_for_url("**/g/*#t=*,*")
    page.wait_for_selector("#app[data-welcomes]")
    panels = page.inner_text("[data-testid=panels]").lower()
    assert panels.count("you") == 2
    rng = random.Random(6)
    seen: list[str] = []
    while len(seen) < 2:
        kind = wait_input(page)
        if kind == "handover":
            seen.append(page.inner_text("[data-testid=handover] h2"))
            # The board's controls wait behind the handover until the next player is there.
            assert page.locator("[data-testid=orient-L]").count() == 0
        mouse_turn(page, rng)
    assert "Blue" in seen[0] and "Red" in seen[1]
