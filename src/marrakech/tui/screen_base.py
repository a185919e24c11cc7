"""What the main screens share: the app they ask for things, their base classes, the
table they show a game on, animation pacing, and Assam's walk as board overlays.

The screens never import the app (:mod:`marrakech.tui.app` imports them): each is handed
its :class:`Host`, the few things it asks of the app, which the app provides. An overlay
of a roll is read off the core's event, Assam's path with its arc flags (R2, R10) and the
tithe region (R11)::

    >>> from marrakech import State, parse_action
    >>> state = State.new(players=3).apply(parse_action("L"))   # Assam on d4 faces West
    >>> frames = walk_frames(state.describe(parse_action("r4")))
    >>> [frame.assam for frame in frames[:-1]]                  # c4, b4, a4, then a5 (arc)
    [(23, 3), (22, 3), (21, 3), (28, 1)]
    >>> frames[-1].trail, frames[-1].arcs
    ((24, 23, 22, 21), ((21, 3),))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from marrakech.events import Event
from marrakech.record import GameRecord
from marrakech.state import State
from marrakech.tui.board import BoardView, BoardWidget
from marrakech.tui.help_screen import HelpScreen
from marrakech.tui.session import GameSetup, SeatSpec, Session
from marrakech.tui.strings import t
from marrakech.tui.timing import SPEEDS, Timing
from marrakech.tui.widgets import GameLog, SeatPanel


class Host(Protocol):
    """What the main screens ask of the app (:class:`~marrakech.tui.app.MarrakechApp`)."""

    @property
    def lang(self) -> str: ...

    def set_language(self, lang: str) -> None: ...

    def start_game(self, setup: GameSetup, push: bool = False) -> None: ...

    def start_session(self, session: Session) -> None: ...

    def resume(self, record: GameRecord, seats: tuple[SeatSpec, ...] | None = None) -> bool: ...

    def show_setup(self) -> None: ...

    def leave_replay(self) -> None: ...

    def ask_save(self, session: Session) -> None: ...

    def ask_load(self) -> None: ...

    def ask_replay(self) -> None: ...

    @property
    def speed(self) -> str: ...

    @property
    def timing(self) -> Timing: ...

    def set_speed(self, speed: str) -> None: ...


class AppScreen(Screen[None]):
    """A main screen: its host, the language, notices and the help page."""

    def __init__(self, host: Host) -> None:
        super().__init__()
        self.host = host
        self.notices: list[str] = []

    @property
    def last_notice(self) -> str:
        """The last notice given (``notices`` holds them all, for tests)."""
        return self.notices[-1] if self.notices else ""

    @property
    def lang(self) -> str:
        return self.host.lang

    def refresh_language(self) -> None:
        """Redraw every word after the language changed."""

    def notice(self, key: str, severity: SeverityLevel = "information", **values: object) -> None:
        """Tell the player something; the last notice is kept for tests."""
        message = t(key, self.lang, **values)
        self.notices.append(message)
        self.notify(message, severity=severity, timeout=4)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.lang))

    #: The string-table key of the keys bar: ``|``-separated entries, the most useful first.
    KEYS = "keys.game"

    def keys_entries(self) -> str:
        """The keys bar's entries now (:data:`KEYS`, in the screen's language)."""
        return t(self.KEYS, self.lang)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Show the screen, or (below :data:`MIN_SIZE`) a notice that the terminal is
        too small, with the size it needs and the size it has; the keys bar for the
        width, and the classes of a narrow or short terminal."""
        (width, height), (need_width, need_height) = size, MIN_SIZE
        small = width < need_width or height < need_height
        self.set_class(small, "-too-small")
        self.set_class(width < NARROW_WIDTH, "-narrow")
        self.set_class(height < SHORT_HEIGHT, "-short")
        notice = t(
            "notice.too_small",
            self.lang,
            need=f"{need_width}×{need_height}",
            have=f"{width}×{height}",
        )
        self.query_one("#too-small", Static).update(notice)
        self.show_keys(width)

    def show_keys(self, width: int | None = None) -> None:
        """Write the keys bar for ``width`` columns (the screen's by default), again
        whenever what is offered changes."""
        columns = (width if width is not None else self.size.width) - 2
        self.query_one("#keys", Static).update(keys_bar(self.keys_entries(), columns))


#: The smallest terminal (columns, rows) that shows the whole table in either language:
#: below it, a notice says so instead of a table with its prompt or buttons cut off.
MIN_SIZE = (80, 24)


#: Below these sizes (columns, rows) the table is laid out compactly: a narrower board
#: column and a wider side panel, and (short) seat panels and the log with less frame.
NARROW_WIDTH = 100
SHORT_HEIGHT = 30


def keys_bar(entries: str, width: int) -> Text:
    """The keys bar: the ``|``-separated entries (markup), the most useful first, on as
    many lines of ``width`` columns as they need (never cut off); the help page (``?``)
    says more about each.

    >>> print(keys_bar("[b]?[/] help|[b]u[/] undo|[b]^q[/] quit", 16).plain)
    ? help  u undo
    ^q quit
    """
    bar = Text()
    line = 0  # columns used on the current line
    for entry in entries.split("|"):
        shown = Text.from_markup(entry)
        if line and line + 2 + shown.cell_len > width:
            bar.append("\n")
            line = 0
        elif line:
            bar.append("  ")
            line += 2
        bar.append_text(shown)
        line += shown.cell_len
    return bar


class TableScreen(AppScreen):
    """A screen that shows a game: status line, board, prompt, seat panels, log, keys."""

    def compose_table(
        self, start: State, controls: Iterable[Widget] = (), side: Iterable[Widget] = ()
    ) -> ComposeResult:
        """The layout, with the board showing ``start``, ``controls`` under the prompt and
        ``side`` under the outlook."""
        yield Static(id="too-small")
        yield Static(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardWidget(BoardView(start), id="board")
                yield Static(id="prompt")
                yield from controls
            with Vertical(id="side"):
                with Vertical(id="seats"):
                    for seat in range(start.players):
                        yield SeatPanel(seat, id=f"seat-{seat}")
                yield Static(id="outlook")
                yield from side
                yield GameLog(id="log")
        yield Static(id="keys")

    def show_table(self, view: BoardView, seats: Sequence[SeatSpec]) -> None:
        """Show ``view`` on the board and its state in the seat panels."""
        self.query_one(BoardWidget).show(view)
        for panel in self.query(SeatPanel):
            panel.show(view.state, seats[panel.seat], self.lang)


@dataclass(frozen=True)
class Overlay:
    """What a roll leaves on the board: Assam's trail, arcs followed, tithe region.

    ``assam`` places Assam during his walk; ``trail`` holds the squares he left and
    ``arcs`` the rim arcs he followed, as (square left, facing left by).
    """

    assam: tuple[int, int] | None = None
    trail: tuple[int, ...] = ()
    arcs: tuple[tuple[int, int], ...] = ()
    region: tuple[int, ...] = ()


def walk_frames(event: Event) -> list[Overlay]:
    """A roll's walk as overlays: one per step, Assam on the square it reached, then what
    stays on the board after it (the trail, the arcs and the tithe region)."""
    square, facing = event.before.assam_square, event.before.assam_facing
    trail: list[int] = []
    arcs: list[tuple[int, int]] = []
    frames: list[Overlay] = []
    for step in event.path:
        if step.arc:
            arcs.append((square, facing))
        trail.append(square)
        square, facing = step.square, step.facing
        frames.append(Overlay((square, facing), tuple(trail), tuple(arcs)))
    region = event.tithe.region if event.tithe is not None else ()
    frames.append(Overlay(None, tuple(trail), tuple(arcs), region))
    return frames


__all__ = [
    "MIN_SIZE",
    "SPEEDS",
    "AppScreen",
    "Host",
    "Overlay",
    "TableScreen",
    "Timing",
    "walk_frames",
]
