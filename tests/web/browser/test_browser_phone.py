"""Phones first: the lobby, the game, the end screen and the replay fit 390 x 844 and a
phone held sideways in English and French (no sideways scrolling, 44 px controls), and a
desktop's 1280 x 800; a whole game played by taps, the last turn kept on the board, the
status in step with the panels, turn signals, a missing game and a big upload explained."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.helpers import (
    DESKTOP,
    PHONE,
    ROOMY,
    SIDEWAYS,
    SMALL,
    LiveServer,
    analysed,
    finished_bot_game,
    mouse_turn,
    page_fits,
    screens_by_language,
    screenshot_path,
    small_controls,
    touch_turn,
    wait_input,
    wait_until,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    """This module makes many games from one address: room for them all."""
    return {"limits": ROOMY}


@pytest.fixture(scope="module")
def finished(server: LiveServer) -> Iterator[str]:
    game_id = finished_bot_game(server)
    analysed(server, game_id)  # its end screen then has every column and the charts
    yield game_id


def new_game(server: LiveServer, players: int = 3, **extra: Any) -> str:
    """A game where seat 0 (a person) starts against easy bots; its seat link."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * (players - 1)
    body = {"players": players, "seats": seats, "first_seat": 0, **extra}
    answer = server.api("POST", "/api/games", body)
    return str(answer["seats"][0]["link"])


def fits_and_taps(page: Any, touch: bool, where: str) -> None:
    page_fits(page)
    if touch:
        assert small_controls(page) == [], f"{where}: controls under 44 px"


@pytest.mark.parametrize(
    ("locale", "size"),
    screens_by_language(
        [PHONE, SMALL, SIDEWAYS, DESKTOP], ["phone", "small", "sideways", "desktop"]
    ),
)
def test_every_page_fits_the_screen(
    server: LiveServer, new_page: Any, finished: str, locale: str, size: dict[str, int]
) -> None:
    touch = size is not DESKTOP
    page = new_page(locale=locale, touch=touch, **size)
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    fits_and_taps(page, touch, "lobby")
    # The form's longest choices stay inside the screen and can be tapped.
    page.check("[data-testid=players-3]")
    page.select_option("[data-testid=seat-kind-1]", "human")
    page.select_option("[data-testid=seat-kind-2]", "open")
    fits_and_taps(page, touch, "lobby with a friend and an open seat")
    page.fill("[data-testid=your-name]", "Ana")
    page.click("[data-testid=create]")
    # After Create the invitations are brought into view (on a phone they are below).
    page.wait_for_selector("[data-testid=created]")
    top = page.evaluate(
        "document.querySelector('[data-testid=created]').getBoundingClientRect().top"
    )
    assert -1 <= top < size["height"], "the invitations are not on the screen after Create"
    fits_and_taps(page, touch, "lobby with invitations")

    page.goto(server.base + new_game(server))
    assert wait_input(page) == "orient"
    fits_and_taps(page, touch, "game")
    # The orient preview's table (each die result) fits too.
    if touch:
        page.tap("[data-testid=orient-R]")
    else:
        page.hover("[data-testid=orient-R]")
    page.wait_for_selector("[data-testid=preview-table]")
    fits_and_taps(page, touch, "game with the orient preview")
    if not touch:
        # At 1280 px the orient buttons hold their labels on one line.
        for choice in "LSR":
            lines = page.eval_on_selector(
                f"[data-testid=orient-{choice}] .orient-label",
                "e => Math.round(e.getBoundingClientRect().height"
                " / parseFloat(getComputedStyle(e).lineHeight))",
            )
            assert lines == 1, f"{choice}: the label wraps"
            overflow = page.eval_on_selector(
                f"[data-testid=orient-{choice}]", "e => e.scrollWidth - e.clientWidth"
            )
            assert overflow <= 0, f"{choice}: the label overflows its button"

    page.goto(f"{server.base}/g/{finished}")
    page.wait_for_selector("[data-testid=end-screen][open] [data-testid=end-charts]")
    fits_and_taps(page, touch, "end screen")
    page.keyboard.press("Escape")

    page.goto(f"{server.base}/r/{finished}")
    page.wait_for_selector("#app[data-position='0']")
    page.keyboard.press("End")
    page.click("[data-testid=replay-result]")
    page.wait_for_selector("[data-testid=end-screen][open]")
    fits_and_taps(page, touch, "replay")

    page.goto(server.base + "/learn")
    page.click("[data-testid=learn-step-cover]")
    page.click("[data-testid=choice-c5-d5]")
    page.wait_for_selector("[data-testid=learn-verdict]")
    fits_and_taps(page, touch, "learn")


@pytest.mark.slow  # among the longest: in make test-slow, which CI runs too
def test_a_whole_game_by_taps_on_a_phone(server: LiveServer, new_page: Any, tmp_path: Path) -> None:
    page = new_page(touch=True, speed="fast", **PHONE)
    page.goto(server.base + new_game(server))
    rng = random.Random(13)
    placed = 0
    shot = False
    while True:
        kind = wait_input(page)
        if kind == "over":
            break
        # Settled on this page's turn: the status and the panels agree on whose it is.
        assert page.inner_text("[data-testid=status]").startswith("Your turn")
        assert "to-move" in (page.get_attribute("[data-testid=panel-0]", "class") or "")
        if kind == "orient" and placed:
            # The bots' last turn is still drawn: its carpet outlined, Assam's walk.
            assert page.locator("[data-testid=last-move] .last-placed").count() == 1
            assert page.locator("[data-testid=last-trail]").count() == 1
            if page.locator("[data-testid=since] li").count():
                assert "Since your last turn" in page.inner_text("[data-testid=since]")
        if kind == "place":
            placed += 1
        if kind == "orient" and placed == 3 and not shot:
            # The picture for the README: a facing previewed, before it is confirmed.
            choice = "R" if page.locator("[data-testid=orient-R]").count() else "S"
            page.tap(f"[data-testid=orient-{choice}]")
            page.wait_for_selector("[data-testid=preview-table]")
            page_fits(page)
            assert small_controls(page) == []
            page.screenshot(path=str(screenshot_path("screenshot-phone.png", tmp_path)))
            page.tap("[data-testid=orient-confirm]")
            shot = True
            watch_status_until_my_turn(page)
            continue
        page_fits(page)
        touch_turn(page, rng)
        watch_status_until_my_turn(page)
    # 10 carpets each at 3 players (R6), unless Red could not pay (R13).
    assert placed == 10 or "out" in page.inner_text("[data-testid=panel-0]").lower()
    page.wait_for_selector("[data-testid=end-screen][open]")
    # The game looked back on: each seat's dice luck (summing to zero) and the charts.
    page.wait_for_selector("[data-testid=end-charts]", timeout=60_000)
    luck = [
        float(page.inner_text(f"[data-testid=luck-{seat}]").replace("−", "-").replace("+", ""))
        for seat in range(3)
    ]
    assert abs(sum(luck)) < 0.2
    assert page.locator("[data-testid=chart-scores] .chart-line").count() == 3
    page_fits(page)
    assert small_controls(page) == []
    # A rematch: the same seats in a new game, this page's seat ready for it.
    old = page.url
    page.tap("[data-testid=rematch]")
    page.tap("[data-testid=rematch-open]")
    page.wait_for_url(lambda url: url != old and "#t=" in url)
    assert wait_input(page) == "orient"
    assert "you" in page.inner_text("[data-testid=panel-0]").lower()


def watch_status_until_my_turn(page: Any) -> None:
    """While the bots play, the status never says "Your turn" beside a panel that gives
    the move to someone else (it follows the panels at once)."""

    # Read at one instant: read one by one, a new update may start between two reads.
    read = """() => [
        document.querySelector("[data-testid=status]").innerText,
        document.querySelector("[data-testid=panel-0]").className,
        document.querySelector("#app").dataset.busy || "",
    ]"""

    def consistent() -> bool:
        status, panel, busy = page.evaluate(read)
        mine = "to-move" in panel
        assert not status.startswith("Your turn") or mine, (
            f"status {status!r} beside another's panel"
        )
        # ... and waits for the last animation (the bot's carpet landing).
        assert not status.startswith("Your turn") or busy != "1", "Your turn while animating"
        return page.get_attribute("#app", "data-input") not in {None, "wait"}

    wait_until(page, consistent, "this page's turn again", timeout=30)


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_last_move_stays_until_the_next(server: LiveServer, new_page: Any) -> None:
    page = new_page(speed="normal")
    page.goto(server.base + new_game(server, players=2))
    rng = random.Random(21)
    for expected in ("orient", "roll", "place"):
        assert wait_input(page) == expected
        mouse_turn(page, rng)
    # The bot's turn comes and goes; the outline of its carpet stays, not ~350 ms.
    assert wait_input(page) == "orient"
    outline = "[data-testid=last-move] .last-placed"
    page.wait_for_selector(outline)
    squares = page.get_attribute(outline, "data-squares")
    page.wait_for_timeout(1500)
    assert page.get_attribute(outline, "data-squares") == squares
    carpets = page.eval_on_selector_all(
        "[data-testid=board] .carpets .carpet", "els => els.map(e => e.dataset.squares)"
    )
    assert squares in carpets
    # What the bot did is summed up for this seat's turn ...
    assert page.locator("[data-testid=since] li").count() == 1
    assert "Blue-Purple: rolled" in page.inner_text("[data-testid=since] li")
    trail = "[data-testid=last-trail]"
    walked = page.get_attribute(trail, "d")
    # ... and still there after a reload: the server's welcome brings both, Assam's walk
    # drawn the same way, arcs included.
    page.reload()
    assert wait_input(page) == "orient"
    assert page.get_attribute(outline, "data-squares") == squares
    assert page.get_attribute(trail, "d") == walked
    assert "Blue-Purple: rolled" in page.inner_text("[data-testid=since] li")


def test_turn_signals(server: LiveServer, new_page: Any) -> None:
    answer = server.api(
        "POST",
        "/api/games",
        {
            "players": 2,
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
            "first_seat": 1,
        },
    )
    # A browser never asked: the page offers notifications and asks nothing by itself.
    fresh = new_page()
    fresh.goto(server.base + answer["seats"][0]["link"])
    fresh.wait_for_selector("[data-testid=notify-toggle]")
    assert fresh.inner_text("[data-testid=notify-toggle]") == "Notify me on my turn"
    assert fresh.evaluate("Notification.permission") == "default"
    fresh.close()
    page = new_page(speed="fast")
    page.context.grant_permissions(["notifications"], origin=server.base)
    page.goto(server.base + answer["seats"][0]["link"])
    assert wait_input(page) == "orient"
    # It became this page's turn: the tab's title and icon say so.
    assert page.title().startswith("●")
    assert page.get_attribute("link[rel=icon]", "data-turn") == "1"
    assert "favicon-turn" in (page.get_attribute("link[rel=icon]", "href") or "")
    # The chime is off until turned on, and the choice is remembered.
    assert page.get_attribute("[data-testid=sound-toggle]", "aria-pressed") == "false"
    page.click("[data-testid=sound-toggle]")
    assert page.get_attribute("[data-testid=sound-toggle]", "aria-pressed") == "true"
    # The browser allows notifications here (a player said yes before): they are on,
    # and the player can turn them off and on again; both choices are remembered.
    assert page.get_attribute("[data-testid=notify-toggle]", "aria-pressed") == "true"
    page.click("[data-testid=notify-toggle]")
    page.wait_for_selector("[data-testid=notify-toggle][aria-pressed=false]")
    page.reload()
    assert wait_input(page) == "orient"
    assert page.get_attribute("[data-testid=sound-toggle]", "aria-pressed") == "true"
    assert page.get_attribute("[data-testid=notify-toggle]", "aria-pressed") == "false"
    page.click("[data-testid=notify-toggle]")
    page.wait_for_selector("[data-testid=notify-toggle][aria-pressed=true]")
    before = page.evaluate("window.marrakechGame.signals")
    # The player looks at another tab (the page is hidden) while the bot plays.
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => true})"
    )
    rng = random.Random(8)
    for _ in range(3):  # orient, roll, place; then the bot's turn
        mouse_turn(page, rng)
    # Back to this page's turn: one signal, its chime, and a notification (page hidden).
    assert wait_input(page) == "orient"
    after = page.evaluate("window.marrakechGame.signals")
    assert after["turns"] == before["turns"] + 1
    assert after["chimes"] == before["chimes"] + 1
    assert after["notices"] == before["notices"] + 1
    assert page.title().startswith("●")


def test_a_missing_game_says_so_once(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/g/no-such-game")
    page.wait_for_selector("[data-testid=fatal]")
    text = page.inner_text("#app")
    assert text.count("does not exist") == 1
    assert "Connecting" not in page.inner_text("body")
    page.click("[data-testid=fatal-home]")
    page.wait_for_selector("[data-testid=lobby]")


@pytest.mark.parametrize(("locale", "words"), [("en-GB", "5.5 MB"), ("fr-FR", "5,5 Mo")])
def test_an_upload_over_5_mb_is_explained(
    server: LiveServer, new_page: Any, tmp_path: Path, locale: str, words: str
) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * int(5.5 * 1024 * 1024))
    page = new_page(locale=locale)
    page.goto(server.base + "/")
    page.set_input_files("[data-testid=upload-file]", str(big))
    page.click("[data-testid=upload-go]")
    error = page.inner_text("[data-testid=upload-error]")
    assert words in error and "5" in error
    assert page.url == server.base + "/"
