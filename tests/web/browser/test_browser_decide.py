"""Deciding on a phone (issue 26): at 390 x 844, 360 x 740 and 844 x 390, in English and
French, the board, the choices, the preview of each roll and the confirm button are on
one screen with nothing scrolled; the end screen opens on its title and ranking."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.browser.helpers import (
    PHONE,
    ROOMY,
    SIDEWAYS,
    SMALL,
    LiveServer,
    choose_carpet,
    finished_bot_game,
    off_screen,
    page_fits,
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


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
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
