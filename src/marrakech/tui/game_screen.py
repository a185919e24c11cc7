"""The game screen: a game being played, with board, seat panels, log, prompt, buttons.

It is a thin driver around :class:`~marrakech.tui.session.Session`: an async Textual
worker moves the game on (samples rolls and draws, asks bots for decisions in a thread
worker, animates Assam's walk) and stops whenever a human must decide; keys, buttons and
mouse clicks then send that human's action. Nothing here decides what is legal: the
choices offered are ``state.legal_actions()``, and the facing each orientation leaves
Assam in is the one ``state.describe`` tells (R9). A hint (H) is the core's advice
(:func:`marrakech.bots.analysis.hint`), searched in a thread worker and selected the way
keys would select it; the player still confirms.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import Callable
from functools import partial
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.geometry import Size
from textual.widgets import Button, Static
from textual.worker import WorkerCancelled, WorkerFailed

from marrakech.actions import Action, Orient, Place, Roll
from marrakech.bots import make_bot
from marrakech.bots.analysis import Hint, hint, seat_strengths
from marrakech.events import Event
from marrakech.geometry import NEIGHBOURS, direction, square_name
from marrakech.i18n import seat_name
from marrakech.state import State
from marrakech.tui.board import BoardView, BoardWidget
from marrakech.tui.choice import Choice
from marrakech.tui.dialogs import ConfirmDialog, EndScreen
from marrakech.tui.screen_base import Host, Overlay, TableScreen, Timing, walk_frames
from marrakech.tui.session import Session
from marrakech.tui.strings import t
from marrakech.tui.timing import SPEEDS
from marrakech.tui.widgets import GameLog, game_prompt, game_status, hint_text, outlook_text

#: The buttons under the prompt: those shown while orienting (with the turn each gives),
#: then those shown while placing.
TURN_BUTTONS = {"left": -1, "straight": 0, "right": 1}
ORIENT_BUTTONS = (*TURN_BUTTONS, "roll")
PLACE_BUTTONS = ("prev", "next", "place")
#: The orientation keys and the turn each asks for: L S R (left, straight, right) and
#: the French G T D (gauche, tout droit, droite), in either language.
TURN_KEYS = {"l": -1, "s": 0, "r": 1, "g": -1, "t": 0, "d": 1}
#: What each key is for (``role.*`` in the string tables), to say so when it is pressed
#: in another phase.
KEY_ROLES = {
    **{
        key: ("turn_left", "turn_straight", "turn_right")[turn + 1]
        for key, turn in TURN_KEYS.items()
    },
    "space": "roll",
    "n": "next",
    "tab": "next",
    "p": "prev",
    "shift+tab": "prev",
    "e": "end",
    "q": "quit",
    **{key: "square" for key in "abcf1234567"},
}
#: What names squares, typed while placing (``b3``, ``b3-c3``: :meth:`Choice.type_char`).
SQUARE_KEYS = "abcdefg1234567-"
#: The keys the game screen reads as characters (:meth:`GameScreen.action_letter`).
LETTERS = "abcdefglsrtnpq1234567"


def keys_of(letter: str) -> str:
    """A letter key and its capital, as a binding's keys (``"r,R"``; ``"1"``)."""
    return f"{letter},{letter.upper()}" if letter.isalpha() else letter


class GameScreen(TableScreen):
    """A game being played: board, seat panels, log, prompt, buttons."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "arrow(0)", show=False),
        Binding("right", "arrow(1)", show=False),
        Binding("down", "arrow(2)", show=False),
        Binding("left", "arrow(3)", show=False),
        Binding("space", "roll", show=False),
        Binding("enter", "confirm", show=False),
        Binding("tab", "cycle(1, 'tab')", show=False, priority=True),
        Binding("shift+tab", "cycle(-1, 'shift+tab')", show=False, priority=True),
        Binding("u,U,ctrl+z", "undo", show=False),
        Binding("ctrl+s", "save", show=False),
        Binding("ctrl+o", "load", show=False),
        Binding("ctrl+n", "new_game", show=False),
        Binding("question_mark,f1", "help", show=False),
        Binding("escape", "skip", show=False),
        Binding("f2", "speed", show=False),
        Binding("h,H", "hint", show=False),
        # Capitals do what their letters do: the help and the docs name keys in capitals.
        *(Binding(keys_of(letter), f"letter('{letter}')", show=False) for letter in LETTERS),
        Binding("minus", "letter('-')", show=False),
    ]

    def __init__(self, host: Host, session: Session, timing: Timing | None = None) -> None:
        super().__init__(host)
        self.session = session
        self.timing = timing or Timing()
        self._choice: Choice | None = None
        self.overlay = Overlay()
        self.busy = False
        self.skipping = asyncio.Event()  # set: no pauses until a human decides
        self.generation = 0
        self.end_shown = False
        # What the driver is doing, for the prompt: ("bot", seat), ("walk", seat, steps).
        self.status: tuple[str | int, ...] = ("wait",)
        # The position a hint is being searched for (None: no search under way).
        self.hint_asked: State | None = None
        # The flag of the bot decision under way: set, its search ends at once.
        self.bot_stop: threading.Event | None = None

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        buttons = [
            Button(id=f"do-{key}", compact=True, classes="action")
            for key in (*ORIENT_BUTTONS, *PLACE_BUTTONS)
        ]
        for button in buttons:
            button.can_focus = False
        yield from self.compose_table(
            self.state, [Horizontal(*buttons, id="buttons")], [Static(id="hint")]
        )

    def on_mount(self) -> None:
        self.refresh_language()
        self.advance()

    def refresh_language(self) -> None:
        self.fit(self.size)
        self.query_one(GameLog).rebuild(self.session.events, self.lang)
        self.refresh_view()

    def label_buttons(self) -> None:
        """The buttons' words; on a narrow terminal without their symbols (``⟲``,
        ``▶``...), so that the four orientation buttons fit under the board."""
        narrow = self.has_class("-narrow")
        for key in (*ORIENT_BUTTONS, *PLACE_BUTTONS):
            words = t(f"button.{key}", self.lang)
            if narrow:
                words = " ".join(w for w in words.split(" ") if len(w) > 1 or w.isalnum())
            button = self.query_one(f"#do-{key}", Button)
            if str(button.label) != words:
                button.label = words
                button.refresh(layout=True)  # new words, new width

    # -- showing the game ---------------------------------------------------------------

    @property
    def state(self) -> State:
        return self.session.state

    @property
    def choice(self) -> Choice | None:
        """The decision the human to move is making, or None while no human decides
        (a new one for each position: the driver drops it whenever it moves on)."""
        if self.busy or not self.session.human_to_move:
            return None
        if self._choice is None or self._choice.state is not self.state:
            self._choice = Choice(self.state)
        return self._choice

    @property
    def can_orient(self) -> bool:
        choice = self.choice
        return choice is not None and choice.orienting

    @property
    def can_place(self) -> bool:
        choice = self.choice
        return choice is not None and choice.placing

    @property
    def pending_facing(self) -> int | None:
        """The facing the human is showing Assam in, while orienting."""
        choice = self.choice
        return choice.facing if choice is not None else None

    @property
    def preview(self) -> Place | None:
        """The placement the human is previewing, while placing."""
        choice = self.choice
        return choice.preview if choice is not None else None

    def board_view(self) -> BoardView:
        state, preview, choice = self.state, self.preview, self.choice
        outlook = choice.outlook if choice is not None else None
        landings: dict[int, str] = {}
        for roll in outlook.rolls if outlook is not None else ():
            landings[roll.landing] = landings.get(roll.landing, "") + str(roll.roll.steps)
        return BoardView(
            state,
            assam=self.overlay.assam,
            pending_facing=self.pending_facing,
            preview=preview.squares if preview is not None else None,
            preview_colour=state.next_carpet(state.turn) if preview is not None else None,
            region=self.overlay.region,
            trail=self.overlay.trail,
            arcs=self.overlay.arcs,
            marks=tuple(landings.items()),
        )

    def refresh_view(self) -> None:
        """Redraw board, panels, prompt, buttons, status and keys from the session."""
        self.show_table(self.board_view(), self.session.seats)
        self.show_keys()
        self._update_prompt()
        orient, place = self.can_orient, self.can_place
        for key in ORIENT_BUTTONS:
            self.query_one(f"#do-{key}", Button).display = orient
        for key in PLACE_BUTTONS:
            self.query_one(f"#do-{key}", Button).display = place
        self.query_one("#status", Static).update(game_status(self.state, self.lang))
        choice = self.choice
        outlook = choice.outlook if choice is not None else None
        panel = self.query_one("#outlook", Static)
        panel.display = outlook is not None
        if outlook is not None:
            short = self.has_class("-short")
            panel.update(outlook_text(self.state, outlook, self.lang, title=not short))
        advice = choice.hint if choice is not None else None
        thinking = choice is not None and self.hint_asked is self.state
        line = self.query_one("#hint", Static)
        line.display = advice is not None or thinking
        if advice is not None:
            line.update(hint_text(advice, self.lang))
        elif thinking:
            line.update(t("hint.thinking", self.lang))

    def keys_entries(self) -> str:
        """The keys bar: after the help key, H for a hint when hints are allowed and U
        when an undo would be done (one human at the table, and something to take
        back): a key that would only be refused is not offered."""
        first, _, rest = super().keys_entries().partition("|")
        offered = [first]
        if self.session.hints:
            offered.append(t("keys.hint", self.lang))
        if self.session.can_undo:
            offered.append(t("keys.undo", self.lang))
        return "|".join([*offered, rest])

    def fit(self, size: Size) -> None:
        super().fit(size)
        self.label_buttons()
        self.refresh_view()  # the side panel's outlook is shorter on a short terminal

    def _update_prompt(self) -> None:
        text = game_prompt(self.state, self.lang, self.session.seats, self.choice, self.status)
        self.query_one("#prompt", Static).update(text)

    def set_status(self, *status: str | int) -> None:
        self.status = status
        self._update_prompt()

    # -- the driver: chance, bots, animation --------------------------------------------

    def advance(self) -> None:
        """(Re)start the driver that plays until a human must decide."""
        self.generation += 1
        self.busy = True
        self._choice = None
        self.run_worker(self._drive(self.generation), group="driver", exclusive=True)

    def stop_driver(self) -> None:
        """Stop moving the game on: the driver, and the search of a bot thinking (a
        thread cannot be cancelled, but the search looks at its stop flag)."""
        self.generation += 1
        self.workers.cancel_group(self, "driver")
        self.busy = False
        if self.bot_stop is not None:
            self.bot_stop.set()

    def on_unmount(self) -> None:
        # Quitting or leaving the game: no bot may go on thinking (and hold the exit).
        self.stop_driver()

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
                action = await self._bot_decision(state)
                if generation != self.generation or session.state is not state:
                    return
                await self._perform(action, generation)
                continue
            # A human decides: stop here until a key, button or click sends the action.
            self.busy = False
            self.skipping.clear()
            self.refresh_view()
            return

    async def _bot_decision(self, state: State) -> Action:
        """The bot's decision, thought in a thread while the pause before it runs (the
        players see it at the end of whichever is longer)."""
        self.bot_stop = stop = threading.Event()
        worker = self.run_worker(
            partial(self.session.bot_choice, state, stop),
            name="bot",
            group="bot",
            thread=True,
            exit_on_error=False,
        )
        await self.pause(self.timing.bot)
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
        if isinstance(action, Roll):
            await self._walk(event, generation)
        elif isinstance(action, (Orient, Place)):
            self.overlay = Overlay()
        self.refresh_view()

    async def _walk(self, event: Event, generation: int) -> None:
        frames = walk_frames(event)
        self.set_status("walk", event.seat, len(event.path))
        if self.timing.step and not self.skipping.is_set():
            for frame in frames[:-1]:
                self.overlay = frame
                self.query_one(BoardWidget).show(self.board_view())
                await self.pause(self.timing.step)
                if generation != self.generation or self.skipping.is_set():
                    break
        if generation != self.generation:
            return
        self.overlay = frames[-1]
        self.refresh_view()
        if self.overlay.region:
            await self.pause(self.timing.tithe)

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds`` (for the players to follow), unless the player skips."""
        if seconds and not self.skipping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.skipping.wait(), seconds)

    def show_end(self) -> None:
        hints = self.session.human_hints if self.session.hints else None
        screen = EndScreen(self.state, self.lang, hints, undo=self.session.can_undo)
        self.app.push_screen(screen, callback=self._end_choice)

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

    def _refuse(self, key: str | None = None) -> None:
        """Say why ``key`` (or a click) does nothing now: not the human's turn, or a key
        of another phase (what it is for, and what is expected now)."""
        choice = self.choice
        if self.busy:
            self.notice("notice.busy" if not self.session.bot_to_move else "notice.not_your_turn")
        elif self.state.is_terminal:
            return
        elif choice is None:
            self.notice("notice.not_your_turn")
        elif key is not None and key in KEY_ROLES:
            name = t(f"key.{key}", self.lang) if len(key) > 1 else key.upper()
            expected = t("expect.orient" if choice.orienting else "expect.place", self.lang)
            if self.session.hints:
                expected += " " + t("expect.hint", self.lang)
            self.notice(
                "notice.wrong_key",
                role=t(f"role.{KEY_ROLES[key]}", self.lang, name=name),
                expected=expected,
            )

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
        self.advance()
        self.refresh_view()

    def set_facing(self, facing: int | None) -> None:
        """Show Assam facing ``facing``, if a legal orientation gives it (R9)."""
        choice = self.choice
        if choice is None or not choice.orienting:
            self._refuse()
        elif choice.face(facing):
            self.refresh_view()
        else:
            self.notice("notice.bad_facing")

    def action_arrow(self, facing: int) -> None:
        if self.can_place:
            self.action_cycle(1 if facing in (1, 2) else -1)
        else:
            self.set_facing(facing)

    def action_turn(self, turn: int) -> None:
        """L, S, R and their buttons: the facing the core's ``Orient(turn)`` gives."""
        choice = self.choice
        self.set_facing(choice.facing_of(Orient(turn)) if choice is not None else None)

    def action_roll(self) -> None:
        """Orient Assam as chosen, then roll (the driver samples the die)."""
        choice = self.choice
        if choice is None or not choice.orienting:
            self._refuse("space")
            return
        self.play_human(choice.decision())

    def action_confirm(self) -> None:
        choice = self.choice
        if choice is None:
            self._refuse()
            return
        self.play_human(choice.decision())

    def action_cycle(self, delta: int, key: str | None = None) -> None:
        choice = self.choice
        if choice is None or not choice.placing:
            self._refuse(key)
            return
        choice.cycle(delta)
        self.refresh_view()

    @on(BoardWidget.SquareClicked)
    def _clicked(self, message: BoardWidget.SquareClicked) -> None:
        square, choice, assam = message.square, self.choice, self.state.assam_square
        if choice is None:
            self._refuse()
        elif choice.orienting:
            if square == assam:
                self.action_roll()
            elif square in NEIGHBOURS[assam]:
                self.set_facing(direction(assam, square))
        elif choice.point(square):
            self.refresh_view()
        else:
            self.notice("notice.no_click", square=square_name(square))

    @on(Button.Pressed, ".action")
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        key = (event.button.id or "").removeprefix("do-")
        if key in TURN_BUTTONS:
            self.action_turn(TURN_BUTTONS[key])
        elif key == "roll":
            self.action_roll()
        elif key in ("prev", "next"):
            self.action_cycle(1 if key == "next" else -1)
        elif key == "place":
            self.action_confirm()

    def action_skip(self) -> None:
        """Escape: no more animation or pauses until a human decides (what is typed of a
        square is dropped, while placing)."""
        choice = self.choice
        if choice is not None:
            choice.typed, choice.first = "", None
            self.refresh_view()
        elif self.busy:
            self.skipping.set()

    def action_speed(self) -> None:
        """F2: the next animation speed (after the fastest, the slowest)."""
        speeds = list(SPEEDS)
        speed = speeds[(speeds.index(self.host.speed) + 1) % len(speeds)]
        self.host.set_speed(speed)
        self.notice("notice.speed", speed=t(f"speed.{speed}", self.lang))

    def action_letter(self, letter: str) -> None:
        """A letter key: what it does depends on the phase (:data:`KEY_ROLES`)."""
        if self.state.is_terminal:
            after_the_end = {
                "n": self.action_new_game,
                "s": self.action_save,
                "e": self.action_show_end,
                "q": self.app.exit,
            }
            if letter in after_the_end:
                after_the_end[letter]()
            return
        choice = self.choice
        if choice is not None and choice.placing and letter in SQUARE_KEYS:
            self.type_char(letter)
        elif choice is not None and choice.orienting and letter in TURN_KEYS:
            self.action_turn(TURN_KEYS[letter])
        elif choice is not None and choice.placing and letter in "np":
            self.action_cycle(1 if letter == "n" else -1)
        else:
            self._refuse(letter)

    def type_char(self, char: str) -> None:
        """A character of a square typed while placing; the core's legal placements
        decide what it may choose, and a notice says why when it chooses nothing."""
        choice = self.choice
        if choice is None:
            return
        outcome = choice.type_char(char)
        names = [square_name(square) for square in choice.attempt]
        if outcome == "uncovered":
            self.notice("notice.no_click", square=names[0])
        elif outcome == "not_adjacent":
            self.notice("notice.not_adjacent", first=names[0], second=names[1])
        elif outcome == "not_legal":
            legal = ", ".join(choice.legal_on(choice.attempt[0]))
            self.notice("notice.not_legal", token="-".join(names), first=names[0], legal=legal)
        elif outcome == "number_first":
            self.notice("notice.number_first")
        self.refresh_view()

    # -- hints ----------------------------------------------------------------------

    def action_hint(self) -> None:
        """H: the decision a short search advises, searched off the interface's thread,
        then selected (:meth:`show_hint`); refused with a notice when hints are off,
        at another seat's turn or once the game is over."""
        choice = self.choice
        if not self.session.hints:
            self.notice("notice.hint_off", "warning")
        elif self.state.is_terminal:
            self.notice("notice.hint_over")
        elif choice is None:
            self.notice("notice.hint_not_yours")
        elif choice.hint is not None:
            self.show_hint(choice.hint)  # selected again, not counted again
        elif self.hint_asked is not self.state:
            self.hint_asked = self.state
            self.refresh_view()
            self.run_worker(self._search_hint(self.state), group="hint", exclusive=True)

    async def _search_hint(self, state: State) -> None:
        worker = self.run_worker(
            # The bots' levels are known: the chances are for this table's strengths.
            partial(hint, state, strengths=self._strengths(state)),
            name="hint",
            group="hint-search",
            thread=True,
            exit_on_error=False,
        )
        try:
            advice = await worker.wait()
        except WorkerCancelled:
            return
        except WorkerFailed as failure:
            advice = None
            self.notice("notice.hint_error", "error", error=failure.error)
        if self.hint_asked is state:
            self.hint_asked = None
        choice = self.choice
        # Only for the position it was asked for: the game may have moved on meanwhile.
        if advice is None or choice is None or choice.state is not state:
            self.refresh_view()
            return
        self.session.count_hint(advice.seat)
        self.show_hint(advice)

    def _strengths(self, state: State) -> tuple[float, ...] | None:
        tokens = tuple(spec.token for spec in self.session.seats)
        return seat_strengths(tokens, state.players)

    def show_hint(self, advice: Hint) -> None:
        """Show ``advice`` in the side panel and select its decision as keys would (the
        orientation shown, or the placement previewed): Enter plays it."""
        choice = self.choice
        if choice is None or choice.state.to_move != advice.seat:
            return
        choice.hint = advice
        choice.select(advice.best)
        self.refresh_view()

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
        self.host.ask_save(self.session)

    def action_load(self) -> None:
        self.confirm_leave("confirm.load", self.host.ask_load)

    def action_new_game(self) -> None:
        self.confirm_leave("confirm.new", self._new_game)

    def _new_game(self) -> None:
        self.stop_driver()
        self.host.show_setup()

    def confirm_leave(self, question: str, leave: Callable[[], object]) -> None:
        """``leave`` the game, once the player said so if it is not saved (``question``)."""
        if not self.session.at_stake:
            leave()
            return
        if isinstance(self.app.screen, ConfirmDialog):
            return  # already asking
        lang = self.lang

        def answered(yes: bool | None) -> None:
            if yes:
                leave()

        dialog = ConfirmDialog(t(question, lang), t("confirm.yes", lang), t("confirm.no", lang))
        self.app.push_screen(dialog, answered)

    def action_show_end(self) -> None:
        if self.state.is_terminal:
            self.show_end()


__all__ = ["GameScreen"]
