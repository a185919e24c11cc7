"""``marrakech learn``: the tutorial in the terminal, the same lessons as ``/learn`` on
the web (:mod:`marrakech.lessons`: each a position built with the engine; the engine
judges every move).

One lesson at a time: its rule numbers, the prompt, the board, the moves offered as
buttons (Tab moves between them, Enter plays one), the engine's verdict, then the next
lesson; any lesson can be skipped. Progress is remembered in ``lessons.json`` in the
user's data directory (platformdirs), so the setup screen of ``marrakech play`` offers
the tutorial only to a first-time user.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, HorizontalGroup, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Label, Static

from marrakech.errors import MarrakechError
from marrakech.lesson_words import FRAME, lesson_words
from marrakech.lessons import LESSONS, Lesson, Verdict, answer
from marrakech.tui.board import BoardView, BoardWidget
from marrakech.tui.screen_base import walk_frames
from marrakech.tui.strings import LANGUAGE_NAMES

#: The words of the tutorial that only the terminal shows.
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "offer": "New to Marrakech? Learn to play first: marrakech learn",
        "quit": "Quit",
        "keys": "Tab: next button · Enter: play it · Esc: quit",
        "L": "Left",
        "S": "Straight",
        "R": "Right",
        "roll": "Roll {n}",
    },
    "fr": {
        "offer": "Nouveau à Marrakech ? Apprenez d’abord à jouer : marrakech learn",
        "quit": "Quitter",
        "keys": "Tab : bouton suivant · Entrée : le jouer · Échap : quitter",
        "L": "Gauche",
        "S": "Tout droit",
        "R": "Droite",
        "roll": "Dé {n}",
    },
}


def progress_path() -> Path:
    """``lessons.json`` in the user's data directory (platformdirs)."""
    from platformdirs import user_data_path

    return user_data_path("marrakech", appauthor=False) / "lessons.json"


@dataclass
class Progress:
    """The lessons done and skipped, kept in a small JSON file."""

    path: Path
    done: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Progress:
        """The progress saved at ``path``; none yet (or unreadable) starts afresh."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(path, [str(s) for s in data["done"]], [str(s) for s in data["skipped"]])
        except (OSError, ValueError, KeyError, TypeError):
            return cls(path)

    def mark(self, lesson_id: str, done: bool) -> None:
        """Remember a lesson done (or skipped, unless done before) and save."""
        if lesson_id in self.skipped:
            self.skipped.remove(lesson_id)
        if done and lesson_id not in self.done:
            self.done.append(lesson_id)
        elif not done and lesson_id not in self.done:
            self.skipped.append(lesson_id)
        self.save()

    def save(self) -> None:
        """Write the file (a failure to write only loses the progress, never the lesson)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            data = {"done": self.done, "skipped": self.skipped}
            self.path.write_text(json.dumps(data), encoding="utf-8")
        except OSError:
            pass

    def first_open(self) -> int:
        """The index of the first lesson neither done nor skipped (0 if all are)."""
        for index, lesson in enumerate(LESSONS):
            if lesson.id not in self.done and lesson.id not in self.skipped:
                return index
        return 0


def first_time(path: Path | None = None) -> bool:
    """Whether this user has never opened the tutorial (no progress file)."""
    try:
        return not (path or progress_path()).exists()
    except Exception:  # no data directory at all: nothing to offer then
        return False


def offer_text(lang: str) -> str:
    """The setup screen's line offering the tutorial to a first-time user."""
    return _WORDS.get(lang, _WORDS["en"])["offer"]


def _choice_label(token: str, lang: str) -> str:
    """A move's button: the orient words (the prompts name them with their letters: they
    must fit a third of the side at 80 columns), the die face, or the two squares."""
    words = _WORDS.get(lang, _WORDS["en"])
    if token in ("L", "S", "R"):
        return words[token]
    if token.startswith("r") and token[1:].isdigit():
        return words["roll"].format(n=token[1:])
    return token.replace("-", "–")


def _choice_id(token: str) -> str:
    return f"choice-{token}"


class TutorialScreen(Screen[None]):
    """The lessons, one at a time (see the module's docstring)."""

    DEFAULT_CSS = """
    TutorialScreen { layout: vertical; }
    #learn-head { height: auto; text-style: bold; padding: 0 1; }
    #learn-body { height: 1fr; }
    #learn-board { width: 1fr; min-width: 36; }
    #learn-side { width: 1fr; min-width: 42; padding: 0 1; }
    #learn-prompt, #learn-verdict { height: auto; margin-bottom: 1; }
    .learn-row {
        layout: grid; grid-size: 3; grid-columns: 1fr 1fr 1fr; grid-rows: 1;
        grid-gutter: 0 1; height: auto; margin-bottom: 1;
    }
    .learn-row Button { width: 100%; min-width: 8; }
    #learn-keys { height: 1; dock: bottom; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "quit_tutorial", show=False),
    ]

    def __init__(self, lang: str = "en", progress: Progress | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.progress = progress or Progress.load(progress_path())
        self.progress.save()  # opening the tutorial answers the setup screen's offer
        self.index = self.progress.first_open()
        self.verdict: Verdict | None = None

    @property
    def lesson(self) -> Lesson | None:
        """The lesson shown (None after the last one)."""
        return LESSONS[self.index] if self.index < len(LESSONS) else None

    def words(self, key: str, **values: object) -> str:
        return FRAME[self.lang][key].format(**values)

    def compose(self) -> ComposeResult:
        yield Static(id="learn-head")
        with Horizontal(id="learn-body"):
            yield BoardWidget(BoardView(LESSONS[0].state()), id="learn-board")
            with VerticalScroll(id="learn-side"):
                yield Static(id="learn-prompt")
                yield HorizontalGroup(classes="learn-row", id="learn-choices")
                yield Static(id="learn-verdict")
                yield HorizontalGroup(classes="learn-row", id="learn-actions")
        yield Label(_WORDS[self.lang]["keys"], id="learn-keys")

    async def on_mount(self) -> None:
        await self.show_lesson()

    async def show_lesson(self) -> None:
        """Draw the current lesson (or the end of the tutorial) and its buttons."""
        lesson, verdict, total = self.lesson, self.verdict, len(LESSONS)
        head = self.query_one("#learn-head", Static)
        prompt = self.query_one("#learn-prompt", Static)
        choices = self.query_one("#learn-choices", HorizontalGroup)
        actions = self.query_one("#learn-actions", HorizontalGroup)
        await choices.remove_children()
        await actions.remove_children()
        self.query_one("#learn-verdict", Static).update(verdict.message if verdict else "")
        if lesson is None:
            head.update(self.words("title"))
            prompt.update(self.words("finished"))
            await actions.mount(Button(_WORDS[self.lang]["quit"], id="learn-quit", compact=True))
            actions.query_one(Button).focus()
            return
        where = self.words("lesson", n=self.index + 1, total=total)
        rules = self.words("rule", rules=", ".join(lesson.rules))
        head.update(f"{self.words('title')} — {where} · {rules}")
        words = lesson_prompt(lesson, self.lang)
        prompt.update(f"[b]{words[0]}[/b]\n{words[1]}")
        board = self.query_one("#learn-board", BoardWidget)
        board.show(self._board_view(lesson))
        solved = verdict is not None and verdict.correct
        for token in lesson.offered():
            # The widget's name carries the move token as the lesson gives it.
            button = Button(
                _choice_label(token, self.lang), id=_choice_id(token), name=token, compact=True
            )
            button.add_class("learn-choice")
            button.disabled = solved
            choices.mount(button)
        if solved:
            last = self.index == total - 1
            label = self.words("done") if last else self.words("next")
            actions.mount(Button(label, id="learn-next", variant="primary", compact=True))
        else:
            if verdict is not None:
                actions.mount(Button(self.words("again"), id="learn-again", compact=True))
            actions.mount(Button(self.words("skip"), id="learn-skip", compact=True))
        actions.mount(Button(_WORDS[self.lang]["quit"], id="learn-quit", compact=True))
        self.call_after_refresh(self._focus_first)

    def _focus_first(self) -> None:
        target = "#learn-next" if self.verdict and self.verdict.correct else "#learn-choices Button"
        for button in self.query(target).results(Button):
            if not button.disabled:
                button.focus()
                return

    def _board_view(self, lesson: Lesson) -> BoardView:
        event = self.verdict.event if self.verdict is not None else None
        if event is None:
            return BoardView(lesson.state())
        if event.path:
            last = walk_frames(event)[-1]
            return BoardView(event.after, trail=last.trail, arcs=last.arcs, region=last.region)
        return BoardView(event.after)

    async def play(self, token: str) -> None:
        """Answer the lesson with the move ``token`` (the engine judges it)."""
        lesson = self.lesson
        if lesson is None:
            return
        self.verdict = answer(lesson, token, self.lang)
        if self.verdict.correct:
            self.progress.mark(lesson.id, True)
        await self.show_lesson()

    async def go(self, index: int) -> None:
        self.index = index
        self.verdict = None
        await self.show_lesson()

    @on(Button.Pressed)
    async def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button
        if button.has_class("learn-choice") and button.name:
            await self.play(button.name)
        elif button.id == "learn-next":
            await self.go(self.index + 1)
        elif button.id == "learn-again":
            await self.go(self.index)
        elif button.id == "learn-skip" and self.lesson is not None:
            self.progress.mark(self.lesson.id, False)
            await self.go(self.index + 1)
        elif button.id == "learn-quit":
            self.action_quit_tutorial()

    def action_quit_tutorial(self) -> None:
        if isinstance(self.app, LearnApp):
            self.app.exit()
        else:
            self.dismiss()


def lesson_prompt(lesson: Lesson, lang: str) -> tuple[str, str]:
    """A lesson's title and prompt in ``lang``."""
    words = lesson_words(lesson.id, lang)
    return words["title"], words["prompt"]


class LearnApp(App[None]):
    """The tutorial on its own (``marrakech learn``)."""

    TITLE = "Marrakech"

    def __init__(self, lang: str = "en", progress: Progress | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.progress = progress

    def on_mount(self) -> None:
        self.push_screen(TutorialScreen(self.lang, self.progress))


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``learn`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "learn",
        help="learn to play: short lessons in the terminal",
        description=(
            "Learn Marrakech in the terminal: short lessons on positions built with the "
            "engine, each citing its rule; make the move asked and the engine checks it. "
            "Progress is remembered in the user's data directory."
        ),
    )
    parser.add_argument(
        "--lang", choices=sorted(LANGUAGE_NAMES), default="en", help="en (default) or fr"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise MarrakechError(
            "expected a terminal on standard input and output, found a file or a pipe"
        )
    LearnApp(args.lang).run()
    return 0


__all__: Sequence[str] = [
    "LearnApp",
    "Progress",
    "TutorialScreen",
    "add_parser",
    "first_time",
    "offer_text",
    "progress_path",
]
