"""Modal screens: end of game, confirmation, and the file-name prompt for save and load
(the help screen has its own module, :mod:`marrakech.tui.help_screen`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DirectoryTree, Input, Label, OptionList, Static

from marrakech.i18n import seat_name
from marrakech.rules import colours_of
from marrakech.state import State
from marrakech.tui.strings import t
from marrakech.tui.widgets import seat_chips


def results_table(state: State, lang: str, hints: Sequence[int | None] | None = None) -> Table:
    """Ranks (R21), scores (R20), dirhams and visible squares of every seat; with
    ``hints``, the hints each seat was shown (None: a bot's seat, shown as a dash)."""
    table = Table(expand=False, box=None, padding=(0, 1))
    keys = ["end.rank", "end.seat", "end.score", "end.dirhams", "end.squares"]
    for key in keys + (["end.hints"] if hints is not None else []):
        table.add_column(t(key, lang), justify="left" if key == "end.seat" else "right")
    ranks, scores = state.ranks(), state.scores()
    players = state.players
    for seat in sorted(range(players), key=lambda s: (ranks[s], s)):
        squares = sum(state.visible_squares(c) for c in colours_of(seat, players))
        name = seat_chips(seat, players)
        name.append(" " + seat_name(seat, players, lang))
        if not state.is_in(seat):
            name.append(f" ({t('end.out', lang)})")
        row: list[str | Text] = [
            str(ranks[seat]),
            name,
            str(scores[seat]),
            str(state.money[seat]),
            str(squares),
        ]
        if hints is not None:
            used = hints[seat]
            row.append("–" if used is None else str(used))
        table.add_row(*row)
    return table


def winner_line(state: State, lang: str) -> str:
    winners = state.winners()
    names = [seat_name(s, state.players, lang) for s in winners]
    if not names:
        return t("end.none", lang)
    if len(names) == 1:
        return t("end.winner", lang, seat=names[0])
    return t("end.shared", lang, seats=", ".join(names))


class EndScreen(ModalScreen[str]):
    """The end of the game: winner, ranks and scores (and the hints each human seat was
    shown, when ``hints`` gives them: None for a bot's seat). Dismisses with the chosen
    action: ``new``, ``save``, ``board``, ``undo`` (only when ``undo`` says it would be
    done: U is not offered otherwise) or ``quit``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,N", "choose('new')", show=False),
        Binding("s,S,ctrl+s", "choose('save')", show=False),
        Binding("escape,b,B", "choose('board')", show=False),
        Binding("u,U", "choose('undo')", show=False),
        Binding("q,Q", "choose('quit')", show=False),
    ]

    def __init__(
        self,
        state: State,
        lang: str,
        hints: Sequence[int | None] | None = None,
        undo: bool = True,
    ) -> None:
        super().__init__()
        self.state = state
        self.lang = lang
        self.hints = hints
        self.undo = undo

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # U only when an undo would be done (one human at the table).
        return self.undo or action != "choose" or parameters != ("undo",)

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="end-box"):
            yield Label(t("end.title", lang), id="end-title")
            yield Static(Text(winner_line(self.state, lang)), id="end-winner")
            yield Static(results_table(self.state, lang, self.hints), id="end-table")
            with Horizontal(id="end-buttons"):
                yield Button(f"{t('end.new', lang)} (N)", id="new", variant="primary")
                yield Button(f"{t('end.save', lang)} (S)", id="save")
                yield Button(f"{t('end.board', lang)} ({t('key.escape', lang)})", id="board")
                yield Button(f"{t('end.quit', lang)} (Q)", id="quit", variant="error")

    def on_mount(self) -> None:
        self.query_one("#new", Button).focus()

    def refresh_language(self) -> None:
        self.lang = getattr(self.app, "lang", self.lang)
        self.refresh(recompose=True)
        self.call_after_refresh(lambda: self.query_one("#new", Button).focus())

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or "board")


class ConfirmDialog(ModalScreen[bool]):
    """Ask before something is lost; dismisses with True to go ahead. The safe answer
    has the focus, and Escape gives it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "answer(False)", show=False)]

    def __init__(self, question: str, yes: str, no: str) -> None:
        super().__init__()
        self.question, self.yes, self.no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(self.question, id="confirm-text")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.no, id="confirm-no", variant="primary", compact=True)
                yield Button(self.yes, id="confirm-yes", variant="error", compact=True)

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")


def _shown(path: Path) -> str:
    """A picked path as the player would type it: from the current folder if inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class RecordTree(DirectoryTree):
    """The file picker: folders and game records (``.json``, arena results ``.jsonl``),
    hidden files left out."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [
            path
            for path in paths
            if not path.name.startswith(".")
            and (self._safe_is_dir(path) or path.suffix in (".json", ".jsonl"))
        ]


class PathDialog(ModalScreen[str | None]):
    """Ask for a file: typed, or picked in the folders below the current one. Dismisses
    with the path, or None when cancelled. To open (``save=False``), picking a file opens
    it; to save, picking a folder puts the file name in it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, prompt: str, default: str, lang: str, save: bool = False) -> None:
        super().__init__()
        self.prompt = prompt
        self.default = default
        self.lang = lang
        self.save = save

    def compose(self) -> ComposeResult:
        with Vertical(id="path-box"):
            yield Label(self.prompt, id="path-prompt")
            yield Input(value=self.default, id="path-input")
            yield Label(t("dialog.pick", self.lang), id="path-hint")
            yield RecordTree(".", id="path-tree")
            with Horizontal(id="path-buttons"):
                yield Button(t("dialog.ok", self.lang), id="ok", variant="primary", compact=True)
                yield Button(t("dialog.cancel", self.lang), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(DirectoryTree.FileSelected)
    def _file_picked(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        path = _shown(event.path)
        self.query_one(Input).value = path
        if not self.save:
            self.dismiss(path)

    @on(DirectoryTree.DirectorySelected)
    def _folder_picked(self, event: DirectoryTree.DirectorySelected) -> None:
        event.stop()
        if self.save:
            field = self.query_one(Input)
            name = Path(field.value).name or self.default
            field.value = _shown(event.path / name)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self.dismiss(self.query_one(Input).value.strip() or None)
        else:
            self.dismiss(None)


class GamePicker(ModalScreen[int | None]):
    """Which game of arena results to open: one line a game (its number, bots, length
    and winner). Dismisses with the game's position in the list, or None (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, prompt: str, games: Sequence[str], lang: str) -> None:
        super().__init__()
        self.prompt, self.games, self.lang = prompt, list(games), lang

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Label(self.prompt, id="picker-prompt")
            yield OptionList(*self.games, id="picker-list")
            with Horizontal(id="picker-buttons"):
                yield Button(t("dialog.cancel", self.lang), id="picker-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    @on(Button.Pressed, "#picker-cancel")
    def _cancelled(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)
