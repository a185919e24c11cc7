"""The three main screens: setting up a game, playing it, and stepping through a record.

The game screen is a thin driver around :class:`~marrakech.tui.session.Session`: an async
Textual worker moves the game on (samples rolls and draws, asks bots for decisions in a
thread worker, animates Assam's walk) and stops whenever a human must decide; keys,
buttons and mouse clicks then send that human's action. Nothing here decides what is
legal: the choices offered are ``state.legal_actions()``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Label, Select, Static
from textual.worker import WorkerCancelled, WorkerFailed

from marrakech.actions import Action, Orient, Place, Roll
from marrakech.bots import LEVELS, make_bot
from marrakech.events import Event
from marrakech.geometry import NEIGHBOURS, direction, square_name
from marrakech.i18n import colour_name, seat_name
from marrakech.record import GameRecord
from marrakech.rules import BGA, STANDARD, RuleSet
from marrakech.state import Phase, State
from marrakech.tui.board import BoardView, BoardWidget
from marrakech.tui.dialogs import EndScreen, HelpScreen
from marrakech.tui.session import SeatSpec, Session
from marrakech.tui.strings import LANGUAGE_NAMES, t
from marrakech.tui.widgets import GameLog, SeatPanel, event_text, seat_chips, who

if TYPE_CHECKING:
    from marrakech.tui.app import MarrakechApp


class _AppScreen(Screen[None]):
    """A screen of :class:`MarrakechApp` (typed access to the app and its language)."""

    @property
    def mapp(self) -> MarrakechApp:
        return cast("MarrakechApp", self.app)

    @property
    def lang(self) -> str:
        return self.mapp.lang

    def refresh_language(self) -> None:
        """Redraw every word after the language changed."""

    def notice(self, key: str, severity: SeverityLevel = "information", **values: object) -> None:
        """Tell the player something; the last notice is kept for tests."""
        message = t(key, self.lang, **values)
        self.last_notice = message
        self.notify(message, severity=severity, timeout=4)

    last_notice: str = ""


# -- setup ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GameSetup:
    """What the setup screen decided."""

    players: int
    rules: RuleSet
    seats: tuple[SeatSpec, ...]
    first_seat: int | None  # None: draw at random


class SetupScreen(_AppScreen):
    """Seats, human or bot (level) per seat, rule set, who starts, language."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", show=False),
        Binding("escape", "app.quit", show=False),
    ]

    def __init__(self, players: int = 4, rules: RuleSet = STANDARD) -> None:
        super().__init__()
        self.initial_players = players
        self.initial_rules = rules

    def compose(self) -> ComposeResult:
        with Vertical(id="setup-box"):
            yield Label(id="setup-title")
            with Horizontal(classes="setup-row"):
                yield Label(id="players-label", classes="setup-label")
                yield Select(
                    [(str(n), n) for n in (2, 3, 4)],
                    value=self.initial_players,
                    allow_blank=False,
                    id="players",
                    compact=True,
                )
            for seat in range(4):
                with Horizontal(classes="setup-row", id=f"seat-row-{seat}"):
                    yield Label(id=f"seat-label-{seat}", classes="setup-label")
                    yield Select(
                        self._seat_options(),
                        value="human" if seat == 0 else "bot:medium",
                        allow_blank=False,
                        id=f"seat-{seat}",
                        compact=True,
                    )
            with Horizontal(classes="setup-row"):
                yield Label(id="rules-label", classes="setup-label")
                yield Select(
                    self._rules_options(),
                    value=self.initial_rules.token(),
                    allow_blank=False,
                    id="rules",
                    compact=True,
                )
            yield Label(id="first-label")
            with Horizontal(classes="setup-row"):
                yield Label("", classes="setup-label")
                yield Select(
                    self._first_options(self.initial_players),
                    value=-1,
                    allow_blank=False,
                    id="first",
                    compact=True,
                )
            with Horizontal(classes="setup-row"):
                yield Label(id="lang-label", classes="setup-label")
                yield Select(
                    [(name, code) for code, name in LANGUAGE_NAMES.items()],
                    value=self.lang,
                    allow_blank=False,
                    id="lang",
                    compact=True,
                )
            with Horizontal(id="setup-buttons"):
                yield Button(id="start", variant="primary")
                yield Button(id="load")
                yield Button(id="replay")
                yield Button(id="quit", variant="error")

    def on_mount(self) -> None:
        self.refresh_language()
        self._show_seats(self.initial_players)
        self.query_one("#start", Button).focus()

    def _seat_options(self) -> list[tuple[str, str]]:
        options = [(t("setup.human", self.lang), "human")]
        options += [
            (t("setup.bot", self.lang, level=t(f"level.{level}", self.lang)), f"bot:{level}")
            for level in LEVELS
        ]
        return options

    def _rules_options(self) -> list[tuple[str, str]]:
        options = [
            (t("setup.rules.standard", self.lang), STANDARD.token()),
            (t("setup.rules.bga", self.lang), BGA.token()),
        ]
        if self.initial_rules not in (STANDARD, BGA):
            token = self.initial_rules.token()
            options.append((t("setup.rules.custom", self.lang, token=token), token))
        return options

    def _first_options(self, players: int) -> list[tuple[str, int]]:
        options = [(t("setup.random", self.lang), -1)]
        options += [(seat_name(s, players, self.lang), s) for s in range(players)]
        return options

    @property
    def players(self) -> int:
        return cast(int, self.query_one("#players", Select).value)

    def refresh_language(self) -> None:
        lang = self.lang
        self.query_one("#setup-title", Label).update(t("setup.title", lang))
        self.query_one("#players-label", Label).update(t("setup.players", lang))
        self.query_one("#rules-label", Label).update(t("setup.rules", lang))
        self.query_one("#first-label", Label).update(t("setup.first", lang))
        self.query_one("#lang-label", Label).update(t("setup.lang", lang))
        for key in ("start", "load", "replay", "quit"):
            self.query_one(f"#{key}", Button).label = t(f"setup.{key}", lang)
        for seat in range(4):
            _reset_options(self.query_one(f"#seat-{seat}", Select), self._seat_options())
        _reset_options(self.query_one("#rules", Select), self._rules_options())
        lang_select = self.query_one("#lang", Select)
        if lang_select.value != lang:
            lang_select.value = lang
        self._show_seats(self.players)

    def _show_seats(self, players: int) -> None:
        for seat in range(4):
            row = self.query_one(f"#seat-row-{seat}")
            row.display = seat < players
            if seat < players:
                label = Text(t("setup.seat", self.lang, n=seat + 1) + " ")
                label.append_text(seat_chips(seat, players))
                label.append(" " + seat_name(seat, players, self.lang))
                self.query_one(f"#seat-label-{seat}", Label).update(label)
        _reset_options(self.query_one("#first", Select), self._first_options(players))

    @on(Select.Changed, "#players")
    def _players_changed(self, event: Select.Changed) -> None:
        self._show_seats(cast(int, event.value))

    @on(Select.Changed, "#lang")
    def _lang_changed(self, event: Select.Changed) -> None:
        if event.value != self.lang and isinstance(event.value, str):
            self.mapp.set_language(event.value)

    def setup(self) -> GameSetup:
        """The choices on screen as a :class:`GameSetup`."""
        players = self.players
        seats = tuple(
            SeatSpec.parse(cast(str, self.query_one(f"#seat-{s}", Select).value))
            for s in range(players)
        )
        token = cast(str, self.query_one("#rules", Select).value)
        rules = next(r for r in (STANDARD, BGA, self.initial_rules) if r.token() == token)
        first = cast(int, self.query_one("#first", Select).value)
        return GameSetup(players, rules, seats, None if first < 0 else first)

    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        self.mapp.start_game(self.setup())

    @on(Button.Pressed, "#load")
    def _load(self) -> None:
        self.mapp.ask_load()

    @on(Button.Pressed, "#replay")
    def _replay(self) -> None:
        self.mapp.ask_replay()

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.app.exit()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.lang))


def _reset_options(select: Select[Any], options: Sequence[tuple[str, object]]) -> None:
    """Replace a select's options (new words), keeping its value when still offered."""
    value = select.value
    select.set_options(options)
    if any(v == value for _, v in options):
        select.value = value


# -- playing -------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """Animation and pacing in seconds (all ~0 in tests).

    ``step``: each of Assam's steps; ``tithe``: how long a tithe region flashes before
    play goes on; ``bot``: a pause before each bot decision so humans can follow;
    ``replay``: between actions when a replay plays by itself.
    """

    step: float = 0.16
    tithe: float = 0.7
    bot: float = 0.45
    replay: float = 0.7

    @classmethod
    def instant(cls) -> Timing:
        return cls(0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Overlay:
    """What the last roll left on the board: Assam's trail, arcs followed, tithe region."""

    assam: tuple[int, int] | None = None
    trail: tuple[int, ...] = ()
    arcs: tuple[tuple[int, int], ...] = ()
    region: tuple[int, ...] = ()


class GameScreen(_AppScreen):
    """A game being played: board, seat panels, log, prompt, buttons."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "arrow(0)", show=False),
        Binding("right", "arrow(1)", show=False),
        Binding("down", "arrow(2)", show=False),
        Binding("left", "arrow(3)", show=False),
        Binding("l", "turn(-1)", show=False),
        Binding("s", "turn(0)", show=False),
        Binding("r", "turn(1)", show=False),
        Binding("space", "roll", show=False),
        Binding("enter", "confirm", show=False),
        Binding("tab,n", "cycle(1)", show=False, priority=True),
        Binding("shift+tab,p", "cycle(-1)", show=False, priority=True),
        Binding("u,ctrl+z", "undo", show=False),
        Binding("ctrl+s", "save", show=False),
        Binding("ctrl+o", "load", show=False),
        Binding("ctrl+n", "new_game", show=False),
        Binding("question_mark,f1", "help", show=False),
        Binding("e", "show_end", show=False),
    ]

    def __init__(self, session: Session, timing: Timing | None = None) -> None:
        super().__init__()
        self.session = session
        self.timing = timing or Timing()
        self.pending_facing: int | None = None
        self.preview_index = 0
        self.overlay = Overlay()
        self.busy = False
        self.generation = 0
        self.end_shown = False
        # What the driver is doing, for the prompt: ("bot", seat), ("walk", seat, steps).
        self.status: tuple[str | int, ...] = ("wait",)

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardWidget(BoardView(self.session.state), id="board")
                yield Static(id="prompt")
                with Horizontal(id="buttons"):
                    for key in ("left", "straight", "right", "roll", "prev", "next", "place"):
                        button = Button(id=f"do-{key}", compact=True, classes="action")
                        button.can_focus = False
                        yield button
            with Vertical(id="side"):
                with Vertical(id="seats"):
                    for seat in range(self.session.players):
                        yield SeatPanel(seat, id=f"seat-{seat}")
                yield GameLog(id="log")
        yield Static(id="keys")

    def on_mount(self) -> None:
        self.refresh_language()
        self.advance()

    def refresh_language(self) -> None:
        lang = self.lang
        for key in ("left", "straight", "right", "roll", "prev", "next", "place"):
            self.query_one(f"#do-{key}", Button).label = t(f"button.{key}", lang)
        self.query_one("#keys", Static).update(Text.from_markup(t("keys.game", lang)))
        self.query_one(GameLog).rebuild(self.session.events, lang)
        self.refresh_view()

    # -- showing the game ---------------------------------------------------------------

    @property
    def state(self) -> State:
        return self.session.state

    def placements(self) -> list[Action]:
        return list(self.state.legal_actions()) if self.can_place else []

    @property
    def can_orient(self) -> bool:
        return not self.busy and self.session.human_to_move and self.state.phase == Phase.ORIENT

    @property
    def can_place(self) -> bool:
        return not self.busy and self.session.human_to_move and self.state.phase == Phase.PLACE

    @property
    def preview(self) -> Action | None:
        placements = self.placements()
        if not placements:
            return None
        return placements[self.preview_index % len(placements)]

    def board_view(self) -> BoardView:
        state = self.state
        preview = self.preview
        return BoardView(
            state,
            assam=self.overlay.assam,
            pending_facing=self.pending_facing if self.can_orient else None,
            preview=preview.squares if isinstance(preview, Place) else None,
            preview_colour=state.next_carpet(state.turn) if preview is not None else None,
            region=self.overlay.region,
            trail=self.overlay.trail,
            arcs=self.overlay.arcs,
        )

    def refresh_view(self) -> None:
        """Redraw board, panels, prompt, buttons and status from the session."""
        state, session, lang = self.state, self.session, self.lang
        self.query_one(BoardWidget).show(self.board_view())
        for panel in self.query(SeatPanel):
            panel.show(state, session.seats[panel.seat], lang)
        self._update_prompt()
        orient, place = self.can_orient, self.can_place
        for key in ("left", "straight", "right", "roll"):
            self.query_one(f"#do-{key}", Button).display = orient
        for key in ("prev", "next", "place"):
            self.query_one(f"#do-{key}", Button).display = place
        status = Text(t("app.title", lang), style="bold")
        status.append(f" · {t('status.players', lang, players=state.players)}")
        status.append(f" · {t('status.rules', lang, rules=state.rules.token())}")
        if not state.is_terminal:
            status.append(" · ")
            status.append_text(seat_chips(state.turn, state.players))
            status.append(
                " " + t("status.turn", lang, seat=seat_name(state.turn, state.players, lang))
            )
        self.query_one("#status", Static).update(status)

    def _update_prompt(self) -> None:
        state, lang = self.state, self.lang
        seat = seat_name(state.turn, state.players, lang)
        if state.is_terminal:
            text = t("prompt.over", lang)
        elif self.can_orient:
            text = t("prompt.orient", lang, seat=seat)
        elif self.can_place:
            placements = self.placements()
            preview = self.preview
            colour = state.next_carpet(state.turn)
            text = t(
                "prompt.place",
                lang,
                seat=seat,
                colour=colour_name(colour, lang).lower() if colour is not None else "?",
                token=str(preview),
                index=self.preview_index % len(placements) + 1,
                count=len(placements),
            )
        elif self.status[0] == "bot":
            bot = cast(int, self.status[1])
            text = t(
                "prompt.bot",
                lang,
                seat=seat_name(bot, state.players, lang),
                who=who(self.session.seats[bot], lang),
            )
        elif self.status[0] == "walk":
            walker, steps = cast(int, self.status[1]), self.status[2]
            text = t("prompt.walk", lang, seat=seat_name(walker, state.players, lang), steps=steps)
        else:
            text = t("prompt.wait", lang)
        self.query_one("#prompt", Static).update(text)

    def set_status(self, *status: str | int) -> None:
        self.status = status
        self._update_prompt()

    # -- the driver: chance, bots, animation --------------------------------------------

    def advance(self) -> None:
        """(Re)start the driver that plays until a human must decide."""
        self.generation += 1
        self.busy = True
        self.run_worker(self._drive(self.generation), group="driver", exclusive=True)

    def stop_driver(self) -> None:
        self.generation += 1
        self.workers.cancel_group(self, "driver")
        self.busy = False

    async def _drive(self, generation: int) -> None:
        session = self.session
        while generation == self.generation:
            state = session.state
            if state.is_terminal:
                self.busy = False
                self.refresh_view()
                if not self.end_shown:
                    self.end_shown = True
                    self.show_end()
                return
            if state.is_chance:
                await self._perform(session.sample_chance(), generation)
                continue
            seat = state.to_move
            if session.bot_to_move:
                self.set_status("bot", seat)
                self.refresh_view()
                if self.timing.bot:
                    await asyncio.sleep(self.timing.bot)
                action = await self._bot_decision(state)
                if generation != self.generation or session.state is not state:
                    return
                await self._perform(action, generation)
                continue
            # A human decides: stop here until a key, button or click sends the action.
            self.busy = False
            self.pending_facing = state.assam_facing
            self.preview_index = 0
            self.refresh_view()
            return

    async def _bot_decision(self, state: State) -> Action:
        worker = self.run_worker(
            partial(self.session.bot_choice, state),
            name="bot",
            group="bot",
            thread=True,
            exit_on_error=False,
        )
        try:
            return await worker.wait()
        except WorkerCancelled:
            # The driver itself was cancelled (undo, load, new game) while the bot thought.
            raise asyncio.CancelledError from None
        except WorkerFailed as failure:
            self.notice(
                "notice.bot_error",
                "error",
                seat=seat_name(state.to_move, state.players, self.lang),
                error=failure.error,
            )
            return make_bot("random").choose(state, random.Random(self.session.seed))

    async def _perform(self, action: Action, generation: int) -> None:
        """Apply an action, log it and animate it."""
        event = self.session.play(action)
        self.query_one(GameLog).add(len(self.session.events), event, self.lang)
        if isinstance(action, Orient):
            self.overlay = Overlay()
        elif isinstance(action, Roll):
            await self._walk(event, generation)
        elif isinstance(action, Place):
            self.overlay = Overlay()
        self.refresh_view()

    async def _walk(self, event: Event, generation: int) -> None:
        before = event.before
        square, facing = before.assam_square, before.assam_facing
        trail: list[int] = [square]
        arcs: list[tuple[int, int]] = []
        self.set_status("walk", event.seat, len(event.path))
        for step in event.path:
            if step.arc:
                arcs.append((square, facing))
            square, facing = step.square, step.facing
            if self.timing.step:
                self.overlay = Overlay((square, facing), tuple(trail), tuple(arcs))
                self.query_one(BoardWidget).show(self.board_view())
                await asyncio.sleep(self.timing.step)
                if generation != self.generation:
                    return
            trail.append(square)
        region = event.tithe.region if event.tithe is not None else ()
        self.overlay = Overlay(None, tuple(trail[:-1]), tuple(arcs), region)
        self.refresh_view()
        if region and self.timing.tithe:
            await asyncio.sleep(self.timing.tithe)

    def show_end(self) -> None:
        self.app.push_screen(EndScreen(self.state, self.lang), callback=self._end_choice)

    def _end_choice(self, choice: str | None) -> None:
        if choice == "new":
            self.action_new_game()
        elif choice == "save":
            self.action_save()
        elif choice == "undo":
            self.action_undo()
        elif choice == "quit":
            self.app.exit()

    # -- human actions --------------------------------------------------------------

    def _refuse(self) -> None:
        if self.busy:
            self.notice("notice.busy" if not self.session.bot_to_move else "notice.not_your_turn")
        elif not self.state.is_terminal:
            self.notice("notice.not_your_turn")

    def play_human(self, action: Action) -> None:
        """Send a human decision (it must be one of the legal actions)."""
        if self.busy or not self.session.human_to_move:
            self._refuse()
            return
        if action not in self.state.legal_actions():
            return
        event = self.session.play(action)
        self.query_one(GameLog).add(len(self.session.events), event, self.lang)
        if isinstance(action, Place):
            self.overlay = Overlay()
        self.pending_facing = None
        self.preview_index = 0
        self.advance()
        self.refresh_view()

    def orientations(self) -> dict[int, Orient]:
        """The facings the human may give Assam now, each with the core's action that
        gives it: the legal actions and the facing each leaves him in (R9)."""
        if not self.can_orient:
            return {}
        state = self.state
        return {
            cast(int, state.describe(action).facing_after): action
            for action in state.legal_actions()
            if isinstance(action, Orient)
        }

    def set_facing(self, facing: int | None) -> None:
        """Show Assam facing ``facing``, if a legal orientation gives it."""
        if not self.can_orient:
            self._refuse()
            return
        if facing not in self.orientations():
            self.notice("notice.bad_facing")
            return
        self.pending_facing = facing
        self.refresh_view()

    def action_arrow(self, facing: int) -> None:
        if self.can_place:
            self.action_cycle(1 if facing in (1, 2) else -1)
        else:
            self.set_facing(facing)

    def action_turn(self, turn: int) -> None:
        """L, S, R and their buttons: the facing the core's ``Orient(turn)`` gives."""
        facings = {action: facing for facing, action in self.orientations().items()}
        self.set_facing(facings.get(Orient(turn)))

    def action_roll(self) -> None:
        """Orient Assam as chosen, then roll (the driver samples the die)."""
        if not self.can_orient:
            self._refuse()
            return
        facing = self.pending_facing
        self.play_human(
            self.orientations()[facing if facing is not None else self.state.assam_facing]
        )

    def action_confirm(self) -> None:
        if self.can_orient:
            self.action_roll()
        elif self.can_place and self.preview is not None:
            self.play_human(self.preview)
        else:
            self._refuse()

    def action_cycle(self, delta: int) -> None:
        if not self.can_place:
            self._refuse()
            return
        self.preview_index = (self.preview_index + delta) % len(self.placements())
        self.refresh_view()

    @on(BoardWidget.SquareClicked)
    def _clicked(self, message: BoardWidget.SquareClicked) -> None:
        square = message.square
        state = self.state
        if self.can_orient:
            if square == state.assam_square:
                self.action_roll()
                return
            if square in NEIGHBOURS[state.assam_square]:
                self.set_facing(direction(state.assam_square, square))
                return
        elif self.can_place:
            placements = self.placements()
            covering = [i for i, a in enumerate(placements) if square in cast(Place, a).squares]
            if not covering:
                self.notice("notice.no_click", square=square_name(square))
                return
            current = self.preview_index % len(placements)
            if current in covering:
                self.preview_index = covering[(covering.index(current) + 1) % len(covering)]
            else:
                self.preview_index = covering[0]
            self.refresh_view()
        else:
            self._refuse()

    @on(Button.Pressed, ".action")
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        key = (event.button.id or "").removeprefix("do-")
        if key in ("left", "straight", "right"):
            self.action_turn({"left": -1, "straight": 0, "right": 1}[key])
        elif key == "roll":
            self.action_roll()
        elif key in ("prev", "next"):
            self.action_cycle(1 if key == "next" else -1)
        elif key == "place":
            self.action_confirm()

    def action_undo(self) -> None:
        session = self.session
        if not session.undo_allowed:
            self.notice("notice.undo_humans", "warning")
            return
        if not session.can_undo:
            self.notice("notice.undo_nothing")
            return
        self.stop_driver()
        removed = session.undo()
        self.overlay = Overlay()
        self.end_shown = False
        self.query_one(GameLog).rebuild(session.events, self.lang)
        self.notice("notice.undone", count=removed)
        self.advance()

    def action_save(self) -> None:
        self.mapp.ask_save(self.session)

    def action_load(self) -> None:
        self.mapp.ask_load()

    def action_new_game(self) -> None:
        self.stop_driver()
        self.mapp.show_setup()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.lang))

    def action_show_end(self) -> None:
        if self.state.is_terminal:
            self.show_end()


def default_record_name() -> str:
    return datetime.now().strftime("marrakech-%Y%m%d-%H%M%S.json")


# -- replay --------------------------------------------------------------------------


class ReplayScreen(_AppScreen):
    """Step through a game record: every position, with the log up to it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,down,l", "step(1)", show=False),
        Binding("left,up,h", "step(-1)", show=False),
        Binding("pagedown", "step(10)", show=False),
        Binding("pageup", "step(-10)", show=False),
        Binding("home", "jump(0)", show=False),
        Binding("end", "jump(-1)", show=False),
        Binding("space", "autoplay", show=False),
        Binding("p", "play_from_here", show=False),
        Binding("question_mark,f1", "help", show=False),
        Binding("q,escape", "leave", show=False),
    ]

    def __init__(self, record: GameRecord, timing: Timing | None = None) -> None:
        super().__init__()
        self.record = record
        self.timing = timing or Timing()
        self.states = list(record.states())
        self.events = [
            state.describe(action)
            for state, action in zip(self.states, record.actions, strict=False)
        ]
        self.index = 0
        self.timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardWidget(BoardView(self.states[0]), id="board")
                yield Static(id="prompt")
            with Vertical(id="side"):
                with Vertical(id="seats"):
                    for seat in range(self.record.players):
                        yield SeatPanel(seat, id=f"seat-{seat}")
                yield GameLog(id="log")
        yield Static(id="keys")

    def on_mount(self) -> None:
        self.refresh_language()

    @property
    def seats(self) -> tuple[SeatSpec, ...]:
        from marrakech.tui.session import seat_from_token

        tokens = list(self.record.seats) + ["human"] * self.record.players
        return tuple(seat_from_token(token) for token in tokens[: self.record.players])

    def refresh_language(self) -> None:
        self.query_one("#keys", Static).update(Text.from_markup(t("keys.replay", self.lang)))
        self.query_one(GameLog).rebuild(self.events[: self.index], self.lang)
        self.show()

    def show(self) -> None:
        lang = self.lang
        state = self.states[self.index]
        view = BoardView(state)
        event = self.events[self.index - 1] if self.index else None
        if event is not None and isinstance(event.action, Roll):
            square, facing = event.before.assam_square, event.before.assam_facing
            trail, arcs = [], []
            for step in event.path:
                if step.arc:
                    arcs.append((square, facing))
                trail.append(square)
                square, facing = step.square, step.facing
            region = event.tithe.region if event.tithe else ()
            view = BoardView(state, trail=tuple(trail), arcs=tuple(arcs), region=region)
        self.query_one(BoardWidget).show(view)
        seats = self.seats
        for panel in self.query(SeatPanel):
            panel.show(state, seats[panel.seat], lang)
        status = Text(t("app.title", lang), style="bold")
        status.append(" · " + t("replay.title", lang, position=self.index, count=len(self.events)))
        status.append(f" · {t('status.rules', lang, rules=state.rules.token())}")
        self.query_one("#status", Static).update(status)
        prompt = (
            event_text(self.index, event, lang)
            if event is not None
            else Text(t("replay.start", lang))
        )
        self.query_one("#prompt", Static).update(prompt)

    def action_step(self, delta: int) -> None:
        target = max(0, min(len(self.events), self.index + delta))
        log = self.query_one(GameLog)
        if target == self.index + 1:
            self.index = target
            log.add(target, self.events[target - 1], self.lang)
        elif target != self.index:
            self.index = target
            log.rebuild(self.events[:target], self.lang)
        self.show()
        if self.index == len(self.events) and self.timer is not None:
            self.timer.stop()
            self.timer = None

    def action_jump(self, where: int) -> None:
        self.action_step((len(self.events) if where < 0 else 0) - self.index)

    def action_autoplay(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
            return
        if self.index == len(self.events):
            self.action_jump(0)
        self.timer = self.set_interval(max(self.timing.replay, 0.02), partial(self.action_step, 1))

    def action_play_from_here(self) -> None:
        session = Session(
            self.record.initial_state(),
            self.seats,
            actions=self.record.actions[: self.index],
        )
        self.mapp.start_session(session)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.lang))

    def action_leave(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.mapp.leave_replay()


__all__ = [
    "GameScreen",
    "GameSetup",
    "Overlay",
    "ReplayScreen",
    "SetupScreen",
    "Timing",
    "default_record_name",
]
