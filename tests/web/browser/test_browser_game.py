"""Whole games in a real browser: against three bots by mouse, by keyboard only, with a
reload in the middle, a server restart, and the end screen (R19–R21)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from marrakech.views import rim_view
from tests.web.browser.helpers import (
    LiveServer,
    keyboard_turn,
    legal_squares,
    mouse_turn,
    panel_numbers,
    screenshot_path,
    version,
    wait_input,
)

pytestmark = pytest.mark.browser


def tab_to(page: Any, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector`` (keyboard-only use)."""
    for _ in range(limit):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def check_end_screen(page: Any, players: int) -> None:
    """The end screen ranks every seat with the scores the panels show (R20, R21)."""
    page.wait_for_selector("[data-testid=end-screen][open]")
    rows = page.locator("[data-testid=ranking] tbody tr")
    assert rows.count() == players
    finals = {}
    for seat in range(players):
        finals[seat] = int(page.inner_text(f"[data-testid=final-score-{seat}]"))
        assert finals[seat] == panel_numbers(page, seat)[2]
        assert (
            panel_numbers(page, seat)[1] == 0
            or "out" in page.inner_text(f"[data-testid=panel-{seat}]").lower()
        )
    medals = [int(x) for x in page.locator("[data-testid=ranking] .rank-medal").all_inner_texts()]
    assert medals == sorted(medals) and medals[0] == 1
    assert page.inner_text("[data-testid=result]").strip()


@pytest.mark.slow  # among the longest: in make test-slow, which CI runs too
def test_mouse_game_against_three_bots_with_reload(
    server: LiveServer, new_page: Any, tmp_path: Path
) -> None:
    page = new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    for seat in (1, 2, 3):
        page.select_option(f"[data-testid=seat-kind-{seat}]", "bot")
        page.select_option(f"[data-testid=seat-level-{seat}]", "easy")
    page.select_option("[data-testid=first-seat]", "0")
    page.click("[data-testid=create]")
    page.wait_for_url("**/g/*#t=*")
    url = page.url
    assert "you" in page.inner_text("[data-testid=panel-0]").lower()
    # The board draws the rim the server sent: one woven track per arc (R2).
    assert page.locator("[data-testid=board] .frame .rim").count() == len(rim_view())

    rng = random.Random(1)
    turns = 0
    reloaded = shot = False
    while True:
        kind = wait_input(page)
        if kind == "over":
            break
        if kind == "place":
            turns += 1
            if turns == 4 and not reloaded:
                # Reloading returns to the same seat at the same point of the game.
                before = version(page)
                page.reload()
                assert wait_input(page) == "place"
                assert version(page) == before
                assert page.url == url
                assert "you" in page.inner_text("[data-testid=panel-0]").lower()
                reloaded = True
            if turns == 7 and not shot:
                # Mid-game picture for the docs: legal squares and a placement preview.
                squares = legal_squares(page)
                page.click(f"[data-testid=sq-{squares[len(squares) // 2]}]")
                if page.is_disabled("[data-testid=place-confirm]"):
                    page.click(f"[data-testid=sq-{legal_squares(page)[0]}]")
                page.screenshot(path=str(screenshot_path("screenshot-game.png", tmp_path)))
                page.click("[data-testid=place-confirm]")
                shot = True
                continue
        mouse_turn(page, rng)
    assert reloaded and shot
    # 12 carpets each at 4 players (R6): 12 placements unless Red was eliminated (R13).
    assert turns == 12 or "out" in page.inner_text("[data-testid=panel-0]").lower()
    check_end_screen(page, 4)
    # The picture shows the analysis too: luck per seat, score and chance charts.
    page.wait_for_selector("[data-testid=end-charts]", timeout=60_000)
    page.screenshot(path=str(screenshot_path("screenshot-end.png", tmp_path)))
    # The log tells the whole game in words.
    lines = page.locator("[data-testid=log] li").all_inner_texts()
    assert any("Red turned Assam" in line or "Red kept Assam" in line for line in lines)
    assert lines[-1].endswith("The game is over.")
    page.click("[data-testid=end-replay]")
    page.wait_for_selector("[data-testid=replay]")


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_keyboard_only_game(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    # The whole lobby form works from the keyboard: 3 players, two easy bots.
    tab_to(page, "[data-testid=players-4]")
    page.keyboard.press("ArrowLeft")
    assert page.is_checked("[data-testid=players-3]")
    for seat in (1, 2):
        tab_to(page, f"[data-testid=seat-level-{seat}]")
        page.keyboard.press("ArrowUp")  # medium -> easy
        assert page.input_value(f"[data-testid=seat-level-{seat}]") == "easy"
    tab_to(page, "[data-testid=create]")
    page.keyboard.press("Enter")
    page.wait_for_url("**/g/*#t=*")

    rng = random.Random(2)
    placed = 0
    while (kind := wait_input(page)) != "over":
        if kind == "place":
            placed += 1
        keyboard_turn(page, rng)
    assert placed == 10  # 10 carpets each at 3 players, standard rules (R6)
    check_end_screen(page, 3)
    page.keyboard.press("Escape")  # closes the end screen; the board stays
    page.wait_for_selector("[data-testid=end-screen]", state="detached")
    tab_to(page, "[data-testid=show-result]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=end-screen][open]")


def test_server_restart_loses_nothing(server: LiveServer, new_page: Any) -> None:
    page = new_page(speed="fast")
    answer = server.api(
        "POST",
        "/api/games",
        {
            "players": 3,
            "seats": [
                {"kind": "human"},
                {"kind": "bot", "level": "easy"},
                {"kind": "bot", "level": "easy"},
            ],
            "first_seat": 0,
        },
    )
    page.goto(server.base + answer["seats"][0]["link"])
    rng = random.Random(3)
    assert wait_input(page) == "orient"
    mouse_turn(page, rng)
    assert wait_input(page) == "roll"
    before = version(page)
    log_before = page.locator("[data-testid=log] li").count()
    assert page.get_attribute("#app", "data-welcomes") == "1"
    server.restart()
    # The page notices, reconnects by itself and finds the game where it was.
    page.wait_for_selector("#app[data-welcomes='2']")
    assert version(page) == before
    assert wait_input(page) == "roll"
    mouse_turn(page, rng)
    assert version(page) > before
    assert page.locator("[data-testid=log] li").count() > log_before
    assert page.get_attribute("[data-testid=die]", "data-value") in {"1", "2", "3", "4"}
