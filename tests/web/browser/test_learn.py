"""The tutorial in the browser (/learn): every lesson played through in English and
French, wrong moves explained, a lesson skipped, progress remembered on the device, the
lobby's offer to a first-time visitor, the keyboard and a 360 px phone."""

from __future__ import annotations

from typing import Any

import pytest

from marrakech.lessons import LESSONS
from tests.core.test_lessons import RIGHT, WRONG
from tests.web.browser.helpers import LiveServer

pytestmark = pytest.mark.browser


def verdict(page: Any) -> Any:
    return page.locator("[data-testid=learn-verdict]")


# Every lesson in English by default; in French too under -m slow (CI runs both).
@pytest.mark.parametrize(
    "locale,lang", [("en-GB", "en"), pytest.param("fr-FR", "fr", marks=pytest.mark.slow)]
)
def test_every_lesson_is_played_through(
    server: LiveServer, new_page: Any, locale: str, lang: str
) -> None:
    page = new_page(locale=locale)
    page.goto(server.base + "/learn")
    page.wait_for_selector("[data-testid=learn-lesson]")
    assert page.get_attribute("html", "lang") == lang
    for number, lesson in enumerate(LESSONS, start=1):
        card = page.locator(f"[data-testid=learn-lesson][data-lesson={lesson.id}]")
        card.wait_for()
        rule = page.inner_text("[data-testid=learn-rule]")
        assert all(r in rule for r in lesson.rules)
        assert page.inner_text(".learn-count").startswith(
            f"Lesson {number} of" if lang == "en" else f"Leçon {number} sur"
        )
        token, words = WRONG[lesson.id]
        page.click(f"[data-testid=choice-{token}]")
        assert verdict(page).get_attribute("data-correct") == "0"
        assert words[lang] in verdict(page).inner_text()
        page.click("[data-testid=learn-again]")
        page.click(f"[data-testid=choice-{RIGHT[lesson.id]}]")
        assert verdict(page).get_attribute("data-correct") == "1"
        assert verdict(page).inner_text().startswith("Right!" if lang == "en" else "Bravo !")
        page.click("[data-testid=learn-next]")
    page.wait_for_selector("[data-testid=learn-finished]")
    done = page.evaluate("JSON.parse(localStorage.getItem('marrakech.learn')).done")
    assert sorted(done) == sorted(lesson.id for lesson in LESSONS)


def test_a_refused_move_skip_and_progress_remembered(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/learn")
    page.click("[data-testid=learn-step-cover]")
    # Switching the language keeps the lesson and says it in the other language.
    page.click("[data-testid=lang-fr]")
    page.wait_for_selector("text=Ce qu’on peut recouvrir")
    page.click("[data-testid=lang-en]")
    page.wait_for_selector("[data-lesson=cover] >> text=What may be covered")
    page.click("[data-testid=choice-d5-d6]")  # both halves of one carpet (R16)
    assert "never allowed" in verdict(page).inner_text()
    # A carpet placed on the board as in a game: a square, then its partner.
    page.click("[data-testid=learn-again]")
    page.click("[data-testid=sq-d5]")
    page.click("[data-testid=sq-e5]")
    assert verdict(page).get_attribute("data-correct") == "1"
    page.click("[data-testid=learn-step-cover]")
    page.click("[data-testid=learn-skip]")
    page.wait_for_selector("[data-testid=learn-lesson][data-lesson=dirhams]")
    page.click("[data-testid=choice-L]")
    assert verdict(page).get_attribute("data-correct") == "1"
    # Back on the device later: the first lesson neither done nor skipped comes first,
    # and the lessons done are ticked.
    page.goto(server.base + "/learn")
    page.wait_for_selector("[data-testid=learn-lesson][data-lesson=orient]")
    assert page.inner_text("[data-testid=learn-step-dirhams]").startswith("✓")
    progress = page.evaluate("JSON.parse(localStorage.getItem('marrakech.learn'))")
    assert progress["skipped"] == [] and progress["done"] == ["cover", "dirhams"]


def test_the_lobby_offers_the_tutorial_once(server: LiveServer, new_page: Any) -> None:
    page = new_page(locale="fr-FR")
    page.goto(server.base + "/")
    offer = page.locator("[data-testid=learn-offer]")
    assert "Apprenez les règles" in offer.inner_text()
    page.click("[data-testid=learn-link]")
    page.wait_for_selector("[data-testid=learn-lesson]")
    assert page.inner_text("h1") == "Apprendre à jouer"
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    assert page.locator("[data-testid=learn-offer]").count() == 0
    fresh = new_page()
    fresh.goto(server.base + "/")
    fresh.click("[data-testid=learn-dismiss]")
    assert fresh.locator("[data-testid=learn-offer]").count() == 0
    fresh.reload()
    fresh.wait_for_selector("[data-testid=lobby]")
    assert fresh.locator("[data-testid=learn-offer]").count() == 0
    # Once dismissed, the help dialog still leads to it.
    fresh.click("#help-button")
    fresh.click("[data-testid=help-learn]")
    fresh.wait_for_selector("[data-testid=learn-lesson]")


def test_keyboard_and_a_360_px_phone(server: LiveServer, new_page: Any) -> None:
    page = new_page(width=360, height=740, touch=True)
    page.goto(server.base + "/learn")
    page.wait_for_selector("[data-testid=learn-lesson]")
    overflow = page.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0
    for selector in ("[data-testid=choice-L]", "[data-testid=learn-skip]"):
        box = page.locator(selector).bounding_box()
        assert box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 360
    # Keyboard only: focus the move, Enter answers it, focus moves to Next.
    page.focus("[data-testid=choice-L]")
    page.keyboard.press("Enter")
    assert verdict(page).get_attribute("data-correct") == "1"
    assert page.evaluate("document.activeElement.dataset.testid") == "learn-next"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=learn-lesson][data-lesson=half-turn]")
    assert page.evaluate("document.activeElement.dataset.testid") == "learn-lesson-title"
