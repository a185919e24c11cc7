"""The help screen (``?`` or F1 on every screen): the rules summary, with rule numbers,
and the keys, in the player's language."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown

from marrakech.tui.strings import t


class HelpScreen(ModalScreen[None]):
    """The rules summary (with rule numbers) and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,Q,question_mark,f1", "close", show=False),
    ]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            with VerticalScroll(id="help-scroll"):
                yield Markdown(t("help.body", self.lang), id="help-text")
            yield Button(t("help.close", self.lang), id="help-close", compact=True)

    def on_mount(self) -> None:
        # Arrows and page keys scroll the text.
        self.query_one("#help-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def refresh_language(self) -> None:
        self.lang = getattr(self.app, "lang", self.lang)
        self.refresh(recompose=True)

    @on(Button.Pressed, "#help-close")
    def _close(self) -> None:
        self.dismiss(None)
