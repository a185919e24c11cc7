"""Deciding on a phone (issue 26): at 390 x 844, 360 x 740 and 844 x 390, in English and
French, the board, the choices, the preview of each roll and the confirm button are on
one screen with nothing scrolled; the end screen opens on its title and ranking."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from marrakech import State, random_game
from marrakech.record import GameRecord
from tests.web.browser.helpers import (
    PHONE,
    ROOMY,
    SIDEWAYS,
    SMALL,
    LiveServer,
    analysed,
    choose_carpet,
    finished_bot_game,
    off_screen,
    page_fits,
    screens_by_language,
    small_controls,
    version,
    wait_input,
    wait_version_above,
)

pytestmark = pytest.mark.browser

SIZES = [PHONE, SMALL, SIDEWAYS]
SIZE_IDS = ["phone", "small", "sideways"]


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"limits": ROOMY}


@pytest.fixture(scope="module")
def finished(server: LiveServer) -> Iterator[str]:
    yield finished_bot_game(server)


def my_game(server: LiveServer) -> str:
    """Seat 0, a person, starts against two easy bots: its seat link."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 2
    answer = server.api("POST", "/api/games", {"players": 3, "seats": seats, "first_seat": 0})
    return str(answer["seats"][0]["link"])


def on_one_screen(page: Any, testids: list[str], where: str) -> None:
    assert off_screen(page, ["board", *testids]) == [], f"{where}: scrolling needed"
    page_fits(page)
    assert small_controls(page) == [], f"{where}: controls under 44 px"


@pytest.mark.parametrize(("locale", "size"), screens_by_language(SIZES, SIZE_IDS))
def test_a_turn_is_decided_on_one_screen(
    server: LiveServer, new_page: Any, locale: str, size: dict[str, int]
) -> None:
    page = new_page(locale=locale, touch=True, **size)
    page.goto(server.base + my_game(server))
    assert wait_input(page) == "orient"
    on_one_screen(page, ["orient-L", "orient-S", "orient-R"], "orient")
    # Every label inside its button ("Tourner à gauche" was clipped sideways).
    for choice in "LSR":
        overflow = page.eval_on_selector(
            f"[data-testid=orient-{choice}]", "e => e.scrollWidth - e.clientWidth"
        )
        assert overflow <= 0, f"{choice}: the label overflows its button"
    # A tap shows what each roll would do: chance, square, tithe; then the confirm.
    page.tap("[data-testid=orient-R]")
    page.wait_for_selector("[data-testid=preview-table]")
    page.wait_for_selector("[data-testid=orient-confirm]")
    on_one_screen(
        page, ["orient-L", "orient-S", "orient-R", "preview-table", "orient-confirm"], "preview"
    )
    before = version(page)
    page.tap("[data-testid=orient-confirm]")
    wait_version_above(page, before)
    assert wait_input(page) == "roll"
    on_one_screen(page, ["roll"], "roll")
    before = version(page)
    page.tap("[data-testid=roll]")
    wait_version_above(page, before)
    assert wait_input(page) == "place"
    choose_carpet(page, random.Random(3), page.tap)
    on_one_screen(page, ["place-hint", "place-confirm"], "place")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_the_end_screen_opens_on_the_result(
    server: LiveServer, new_page: Any, finished: str, size: dict[str, int]
) -> None:
    page = new_page(locale="fr-FR", touch=True, **size)
    page.goto(f"{server.base}/g/{finished}")
    page.wait_for_selector("[data-testid=end-screen][open]")
    assert page.eval_on_selector("[data-testid=end-screen]", "d => d.scrollTop") == 0
    for part in ("#end-title", "[data-testid=result]", "[data-testid=ranking]"):
        box = page.eval_on_selector(part, "e => e.getBoundingClientRect().toJSON()")
        assert box["top"] >= 0 and box["bottom"] <= size["height"], f"{part} off screen"


def test_the_end_screen_says_what_the_board_shows(
    server: LiveServer, new_page: Any, finished: str, tmp_path: Path
) -> None:
    analysed(server, finished)
    page = new_page()
    page.goto(f"{server.base}/g/{finished}")
    page.wait_for_selector("[data-testid=end-screen][open] [data-testid=end-charts]")
    # Hints were allowed and nobody asked: no "0 hints" badge.
    assert page.locator("[data-testid^=end-hints-]").count() == 0
    # The score axis goes by round steps (10, 20...), not "12, 23, 35".
    labels = page.eval_on_selector_all(
        "[data-testid=chart-scores] .chart-axis[text-anchor=end]",
        "els => els.map(e => Number(e.textContent))",
    )
    steps = {b - a for a, b in pairwise(labels)}
    assert len(steps) == 1 and steps.pop() in {1, 2, 5, 10, 20, 50}, labels
    # A tie on score broken by dirhams (R21) is said in the result: seed 7 ends with Red
    # and Blue on 48, Red with more dirhams.
    _, actions = random_game(State.new(players=3), random.Random(7))
    saved = tmp_path / "tie.json"
    saved.write_text(GameRecord.from_actions(State.new(players=3), actions).to_json())
    page.goto(server.base + "/")
    page.set_input_files("[data-testid=upload-file]", str(saved))
    page.click("[data-testid=upload-go]")
    page.wait_for_url("**/r/upload")
    page.wait_for_selector("#app[data-position='0']")
    page.keyboard.press("End")
    page.click("[data-testid=replay-result]")
    assert page.inner_text("[data-testid=result]") == "Red wins on dirhams!"
