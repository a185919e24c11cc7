"""What a player saw cut or hidden on a phone (issue 36): "Se connecter" whole in the top
bar at 360 and 390 px, the end screen's actions in view at 360 x 740 with the charts
above them, every lesson of /learn opening with its board and first move in view at
360 x 740 and its whole board at 1366 x 768. Each box is measured against the window as
the page stands, not scrolled by the test."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from marrakech.lessons import LESSONS
from tests.web.browser.helpers import SMALL, LiveServer, analysed, off_screen

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}


@pytest.mark.parametrize("locale,words", [("fr-FR", "Se connecter"), ("en-GB", "Sign in")])
@pytest.mark.parametrize("width", [360, 390])
def test_the_sign_in_button_shows_its_words_whole(
    server: LiveServer, new_page: Any, locale: str, words: str, width: int
) -> None:
    page = new_page(locale=locale, width=width, height=800, touch=True)
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    button = page.locator("[data-testid=account-button]")
    assert button.inner_text() == words
    # An ellipsis is drawn when the text is wider than the button's inside.
    cut = button.evaluate("b => b.scrollWidth - b.clientWidth")
    assert cut <= 0, f"{words!r} cut by {cut} px at {width} px"
    # Still one line: the language buttons beside it, nothing wrapped under the bar.
    tops = page.eval_on_selector_all(
        ".topnav button", "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert max(tops) - min(tops) <= 4, tops
    assert off_screen(page, ["account-button", "lang-en", "lang-fr"]) == []


@pytest.fixture(scope="module")
def resigned_game(server: LiveServer, browser: Any) -> Iterator[tuple[str, str]]:
    """(game id, seat 0's link) of a finished, analysed game where seat 0 (a person who
    resigned at once) may ask for a rematch; two easy bots played it out."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 2
    answer = server.api("POST", "/api/games", {"players": 3, "seats": seats, "first_seat": 0})
    game_id, link = str(answer["game_id"]), str(answer["seats"][0]["link"])
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.base + link)
    page.click("[data-testid=resign-0]")
    page.click("[data-testid=resign-confirm]")
    context.close()
    deadline = time.monotonic() + 60
    while server.api("GET", f"/api/games/{game_id}")["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish their game"
        time.sleep(0.2)
    analysed(server, game_id)
    yield game_id, link


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_the_end_screen_actions_are_above_the_fold(
    server: LiveServer, new_page: Any, resigned_game: tuple[str, str], locale: str
) -> None:
    page = new_page(locale=locale, touch=True, **SMALL)
    page.goto(server.base + resigned_game[1])
    page.wait_for_selector("[data-testid=end-screen][open] [data-testid=end-charts]")
    page.wait_for_selector("[data-testid=end-screen][open] [data-testid=rematch]")
    actions = ["end-close", "end-replay", "end-new", "rematch"]
    assert off_screen(page, actions) == []
    # Inside the dialog's visible part too (the dialog scrolls, not the page), and on top.
    hidden = page.evaluate(
        """(ids) => {
          const dialog = document.querySelector('[data-testid=end-screen]').getBoundingClientRect();
          return ids.filter((id) => {
            const r = document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const hit = document.elementFromPoint(x, y);
            return r.top < dialog.top || r.bottom > dialog.bottom
              || !hit || !hit.closest(`[data-testid=${id}]`);
          });
        }""",
        actions,
    )
    assert hidden == []
    # The download is the button without a test id: in the same row of actions.
    row = page.locator("[data-testid=end-screen] .dialog-actions")
    assert row.locator("button").count() == 5


def lesson_in_view(page: Any, lesson: str) -> list[str]:
    """What of the lesson shown is outside the window: its board, its first move."""
    size = page.viewport_size
    out = []
    for selector in (".learn-board", ".learn-choices .btn"):
        box = page.locator(f"[data-lesson={lesson}] {selector}").first.bounding_box()
        if box["y"] < -0.5 or box["y"] + box["height"] > size["height"] + 0.5:
            out.append(f"{lesson}: {selector} at {box['y']:.0f}-{box['y'] + box['height']:.0f}")
    return out


@pytest.mark.parametrize(
    "locale,size",
    [("en-GB", SMALL), ("fr-FR", SMALL), ("fr-FR", LAPTOP)],
    ids=["360-en", "360-fr", "1366-fr"],
)
def test_every_lesson_opens_with_its_board_and_first_move_in_view(
    server: LiveServer, new_page: Any, locale: str, size: dict[str, int]
) -> None:
    page = new_page(locale=locale, touch=size is SMALL, **size)
    page.goto(server.base + "/learn")
    page.wait_for_selector("[data-testid=learn-lesson]")
    wrong: list[str] = []
    for number, lesson in enumerate(LESSONS, start=1):
        if number > 1:  # the next lesson from its step button, as a player goes
            page.click(f"[data-testid=learn-step-{lesson.id}]")
            page.wait_for_selector(f"[data-testid=learn-lesson][data-lesson={lesson.id}]")
            wrong += lesson_in_view(page, lesson.id)
        # And as the page opens on it (the first lesson not done comes first).
        page.evaluate("scrollTo(0, 0)")
        wrong += lesson_in_view(page, lesson.id)
    assert wrong == []
