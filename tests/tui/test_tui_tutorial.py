"""``marrakech learn``: every lesson played through in the terminal with Textual's pilot,
in both languages; a skip, progress remembered in its file; the setup screen's offer."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Label, Static

from marrakech.cli import build_parser
from marrakech.lessons import LESSONS
from marrakech.tui import tutorial
from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.screen_base import Timing
from marrakech.tui.tutorial import LearnApp, Progress, TutorialScreen
from tests.core.test_lessons import RIGHT, WRONG

from .conftest import SIZE

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


def verdict_text(screen: TutorialScreen) -> str:
    return str(screen.query_one("#learn-verdict", Static).render())


async def press(pilot, selector: str) -> None:  # type: ignore[no-untyped-def]
    """Focus a button and press Enter on it, as a keyboard user does."""
    screen = pilot.app.screen
    button = screen.query_one(selector, Button)
    # The lesson gives its first choice the focus after a refresh, which under load may
    # come after this button took it (an Enter then went to the first choice): focus it
    # again until it keeps the focus over two pauses.
    for _ in range(50):
        if pilot.app.focused is not button:
            button.focus()
        await pilot.pause()
        if pilot.app.focused is button:
            await pilot.pause()
            if pilot.app.focused is button:
                break
    assert pilot.app.focused is button, f"{selector} did not keep the focus"
    await pilot.press("enter")
    await pilot.pause()


# Every lesson, in both languages, under -m slow (CI runs them; 13 s each): make test
# plays them in the browser (tests/web/browser/test_learn.py) and one lesson here below.
@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_every_lesson_is_played_through(tmp_path: Path, lang: str) -> None:
    progress = Progress(tmp_path / "lessons.json")
    app = LearnApp(lang, progress)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TutorialScreen)
        for number, lesson in enumerate(LESSONS, start=1):
            assert screen.lesson is lesson
            head = str(screen.query_one("#learn-head", Static).render())
            assert f" {number} " in head and all(rule in head for rule in lesson.rules)
            token, words = WRONG[lesson.id]
            await press(pilot, f"#choice-{token}")
            assert screen.verdict is not None and not screen.verdict.correct
            assert words[lang] in verdict_text(screen)
            await press(pilot, "#learn-again")
            await press(pilot, f"#choice-{RIGHT[lesson.id]}")
            assert screen.verdict is not None and screen.verdict.correct
            assert verdict_text(screen).startswith("Right!" if lang == "en" else "Bravo !")
            assert app.focused is not None and app.focused.id == "learn-next"
            await pilot.press("enter")
            await pilot.pause()
        assert screen.lesson is None
        await press(pilot, "#learn-quit")
    assert sorted(Progress.load(progress.path).done) == sorted(RIGHT)


async def test_a_refused_move_a_skip_and_progress_remembered(tmp_path: Path) -> None:
    path = tmp_path / "data" / "lessons.json"
    app = LearnApp("en", Progress.load(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TutorialScreen)
        await screen.go(8)  # cover: d5-d6 lies exactly on one carpet (R16)
        await pilot.pause()
        await press(pilot, "#choice-d5-d6")
        assert screen.verdict is not None and not screen.verdict.legal
        assert "never allowed" in verdict_text(screen)
        await press(pilot, "#learn-skip")
        assert screen.lesson is not None and screen.lesson.id == "dirhams"
    saved = Progress.load(path)
    assert saved.skipped == ["cover"] and saved.done == []
    assert saved.first_open() == 0
    # The next time, the lessons neither done nor skipped come first.
    saved.done = [lesson.id for lesson in LESSONS[:3]]
    assert Progress(path, saved.done, []).first_open() == 3


async def test_the_setup_screen_offers_the_tutorial_to_a_first_time_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lessons.json"
    monkeypatch.setattr(tutorial, "progress_path", lambda: path)
    app = MarrakechApp(PlayOptions(players=3, lang="fr", timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        offer = app.screen.query_one("#learn-offer", Label)
        assert "marrakech learn" in str(offer.render()) and "Apprenez" in str(offer.render())
        app.set_language("en")
        await pilot.pause()
        assert "Learn to play first" in str(offer.render())
    Progress.load(path).save()  # the tutorial was opened once
    app = MarrakechApp(PlayOptions(players=3, timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.screen.query("#learn-offer")


async def test_the_learn_subcommand_is_registered() -> None:
    args = build_parser().parse_args(["learn", "--lang", "fr"])
    assert args.lang == "fr" and args.run is tutorial.run
