"""The Textual app: ``marrakech play``.

    >>> app = MarrakechApp(PlayOptions(players=3, lang="fr"))
    >>> app.lang, app.options.players
    ('fr', 3)

Run it with ``marrakech play`` or ``MarrakechApp().run()``; tests drive it with
``App.run_test`` (see ``tests/tui``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.filter import Monochrome, NoColor
from textual.notifications import SeverityLevel

from marrakech.arena import GameResult, is_results_file, read_game, read_results
from marrakech.errors import MarrakechError
from marrakech.i18n import seat_name
from marrakech.record import GameRecord
from marrakech.rules import STANDARD, RuleSet
from marrakech.state import State
from marrakech.tui.dialogs import GamePicker, PathDialog
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.replay_screen import ReplayScreen
from marrakech.tui.session import GameSetup, SeatError, SeatSpec, Session, default_seats
from marrakech.tui.setup_screen import SetupScreen
from marrakech.tui.strings import LANGUAGE_NAMES, os_reason, t
from marrakech.tui.timing import SPEEDS, Timing


@dataclass
class PlayOptions:
    """How the app starts.

    With ``seats`` the setup screen is skipped and the game starts at once; with
    ``replay`` the app opens that record in the replay screen; with ``load`` it resumes
    that record. ``seed`` makes the die, the piles and the bots reproducible. ``speed``
    names the animation speed (:data:`~marrakech.tui.screen_base.SPEEDS`); ``timing``, if given,
    sets the pauses exactly instead (tests use :meth:`Timing.instant`). ``hints``: whether
    the humans may ask for a hint (H); a loaded record played without hints stays so.
    """

    players: int = 4
    rules: RuleSet = STANDARD
    lang: str = "en"
    seed: int | None = None
    seats: tuple[SeatSpec, ...] | None = None
    first_seat: int | None = None
    replay: GameRecord | None = None
    load: GameRecord | None = None
    speed: str = "normal"
    timing: Timing | None = None
    hints: bool = True


def _file(path: str) -> Path:
    """The file a player typed (``~`` is their home); ValueError if it cannot be one."""
    try:
        return Path(path).expanduser()
    except RuntimeError as error:  # ~user of no such user
        raise ValueError(str(error)) from None


def default_record_name() -> str:
    """The file name offered when saving: the date and time."""
    return datetime.now().strftime("marrakech-%Y%m%d-%H%M%S.json")


class MarrakechApp(App[None]):
    """Marrakech in the terminal: setup, play against bots or friends, save, replay."""

    CSS_PATH = "marrakech.tcss"
    TITLE = "Marrakech"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", show=False, priority=True),
        Binding("ctrl+l", "toggle_language", show=False, priority=True),
    ]

    def __init__(self, options: PlayOptions | None = None) -> None:
        super().__init__()
        if self.no_color:
            # NO_COLOR (no-color.org): no colour codes at all. Textual's own answer to it
            # draws in shades of grey, which are colour codes still.
            self._filters = [f for f in self._filters if not isinstance(f, Monochrome)]
            self._filters.append(NoColor())
        self.options = options or PlayOptions()
        if self.options.lang not in LANGUAGE_NAMES:
            raise MarrakechError(
                f"expected a language among {', '.join(LANGUAGE_NAMES)}, "
                f"found {self.options.lang!r}"
            )
        self.lang = self.options.lang
        if self.options.speed not in SPEEDS:
            raise MarrakechError(
                f"expected a speed among {', '.join(SPEEDS)}, found {self.options.speed!r}"
            )
        self.speed = self.options.speed
        self.timing = self.options.timing or SPEEDS[self.speed]
        self.rng = random.Random(self.options.seed)
        self.entered_by_replay = self.options.replay is not None
        #: The last choices of the setup screen (or the command line's), offered again.
        self.last_setup = GameSetup(
            self.options.players,
            self.options.rules,
            self.options.seats or default_seats(self.options.players),
            self.options.first_seat,
            self.options.hints,
        )
        self.notices: list[str] = []

    def on_mount(self) -> None:
        options = self.options
        if options.replay is not None:
            self.push_screen(ReplayScreen(self, options.replay, self.timing))
        elif options.load is not None:
            self.resume(options.load, options.seats)
        elif options.seats is not None:
            self.start_game(
                GameSetup(
                    options.players, options.rules, options.seats, options.first_seat, options.hints
                ),
                push=True,
            )
        else:
            self.push_screen(SetupScreen(self, self.last_setup))

    def _seed(self) -> int:
        return self.rng.randrange(2**32)

    # -- moving between screens -----------------------------------------------------

    def _show(self, screen: SetupScreen | GameScreen | ReplayScreen, push: bool = False) -> None:
        # Close modal dialogs first so the new screen replaces the main one.
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if push or len(self.screen_stack) < 2:
            self.push_screen(screen)
        else:
            self.switch_screen(screen)

    def start_game(self, setup: GameSetup, push: bool = False) -> None:
        """Start a new game from the setup's choices (random first seat if not given)."""
        self.last_setup = setup
        first = setup.first_seat
        if first is None:
            first = self.rng.randrange(setup.players)
        state = State.new(setup.players, setup.rules, first)
        session = Session(state, setup.seats, seed=self._seed(), hints=setup.hints)
        self._show(GameScreen(self, session, self.timing), push)

    def start_session(self, session: Session) -> None:
        self._show(GameScreen(self, session, self.timing))

    def show_setup(self) -> None:
        self._show(SetupScreen(self, self.last_setup))

    def exit(self, *args: Any, **kwargs: Any) -> None:
        """Quit: first tell every bot thinking to stop its search (its thread would
        otherwise hold the exit until its budget is spent)."""
        for screen in self.screen_stack:
            if isinstance(screen, GameScreen):
                screen.stop_driver()
        super().exit(*args, **kwargs)

    def action_help_quit(self) -> None:
        """Ctrl+C: say, in the player's language, that Ctrl+Q quits (Textual's own
        words are English)."""
        self._say("notice.quit_keys")

    def action_quit(self) -> None:  # type: ignore[override]
        """Ctrl+Q: quit, once the player said so if a game in progress is not saved."""
        games = [screen for screen in self.screen_stack if isinstance(screen, GameScreen)]
        if games:
            games[-1].confirm_leave("confirm.quit", self.exit)
        else:
            self.exit()

    def leave_replay(self) -> None:
        if self.entered_by_replay:
            self.exit()
        else:
            self.show_setup()

    # -- language and speed ---------------------------------------------------------

    def set_speed(self, speed: str) -> None:
        """Animate at ``speed`` from now on, in every screen."""
        self.speed, self.timing = speed, SPEEDS[speed]
        for screen in self.screen_stack:
            if isinstance(screen, (GameScreen, ReplayScreen)):
                screen.timing = self.timing

    def set_language(self, lang: str) -> None:
        self.lang = lang
        for screen in self.screen_stack:
            refresh = getattr(screen, "refresh_language", None)
            if refresh is not None and screen.is_mounted:
                refresh()

    def action_toggle_language(self) -> None:
        codes = list(LANGUAGE_NAMES)
        self.set_language(codes[(codes.index(self.lang) + 1) % len(codes)])

    # -- files ----------------------------------------------------------------------

    def ask_save(self, session: Session) -> None:
        def save(path: str | None) -> None:
            if path:
                self.save_record(session, path)

        dialog = PathDialog(t("dialog.save", self.lang), default_record_name(), self.lang, True)
        self.push_screen(dialog, save)

    def save_record(self, session: Session, path: str) -> bool:
        """Write the game as a JSON record; tell the player how it went."""
        text = session.record({"lang": self.lang}).to_json(indent=1)
        try:
            _file(path).write_text(text + "\n", encoding="utf-8")
        except (OSError, ValueError) as error:
            self._error("error.save", path=path, reason=self._reason(error, path))
            return False
        session.unsaved = False
        self._say("notice.saved", path=path)
        return True

    def read_games(self, path: str) -> list[tuple[str, GameRecord]] | None:
        """The games in ``path``: its one game record, or every game of arena results
        (each with its line for the game picker); None after telling the player why the
        file cannot be opened, in their language."""
        try:
            text = _file(path).read_bytes().decode("utf-8")
            if not is_results_file(text):
                return [("", read_game(_file(path)))]
            _, results = read_results(_file(path))
        except (OSError, ValueError, MarrakechError) as error:
            self._error("error.open", path=path, reason=self._reason(error, path))
            return None
        if not results:
            self._error("error.open", path=path, reason=t("reason.no_games", self.lang))
            return None
        return [(self._game_line(result), result.record) for result in results]

    def _game_line(self, result: GameResult) -> str:
        """One game of arena results in the picker: its number, bots, length, winner."""
        players = result.record.players
        winners = ", ".join(
            f"{seat_name(seat, players, self.lang)} ({result.seats[seat]})"
            for seat in result.winners
        )
        return t(
            "picker.game",
            self.lang,
            index=result.index,
            bots=", ".join(result.seats),
            count=len(result.record.actions),
            winners=winners,
        )

    def read_record(self, path: str) -> GameRecord | None:
        """The record in ``path`` (a game record, or arena results holding one game), or
        None after telling the player why it cannot be opened, in their language."""
        games = self.read_games(path)
        if games is None:
            return None
        if len(games) > 1:
            reason = t("reason.several_games", self.lang, count=len(games))
            self._error("error.open", path=path, reason=reason)
            return None
        return games[0][1]

    def open_record(self, path: str, then: Callable[[GameRecord], bool]) -> bool:
        """Open ``path`` and hand its game to ``then``: a game record at once, a game of
        arena results once the player picked it (:class:`GamePicker`). False when the
        file cannot be opened or ``then`` refused the game."""
        games = self.read_games(path)
        if games is None:
            return False
        if len(games) == 1:
            return then(games[0][1])

        def picked(index: int | None) -> None:
            if index is not None:
                then(games[index][1])

        prompt = t("dialog.pick_game", self.lang, path=path, count=len(games))
        lines = [line for line, _ in games]
        self.push_screen(GamePicker(prompt, lines, self.lang), picked)
        return True

    def _reason(self, error: Exception, path: str) -> str:
        """Why ``path`` could not be read or written, in the player's language (what is
        wrong inside a record is the core's own words)."""
        if isinstance(error, UnicodeDecodeError):
            byte = error.object[error.start]
            return t("reason.utf8", self.lang, byte=byte, position=error.start)
        if isinstance(error, OSError):
            return os_reason(error, self.lang)
        if isinstance(error, MarrakechError):
            if self.lang != "en":  # the core's words are English: say what it means
                return t("reason.record", self.lang)
            return str(error).removeprefix(f"{_file(path)}: ")
        return t("reason.name", self.lang)

    def ask_load(self) -> None:
        def load(path: str | None) -> None:
            if path:
                self.load_record(path)

        self.push_screen(PathDialog(t("dialog.load", self.lang), "", self.lang), load)

    def load_record(self, path: str) -> bool:
        """Play on from the game in ``path`` (picked among arena results)."""

        def load(record: GameRecord) -> bool:
            if not self.resume(record):
                return False
            self._say("notice.loaded", path=path, count=len(record.actions))
            return True

        return self.open_record(path, load)

    def resume(self, record: GameRecord, seats: tuple[SeatSpec, ...] | None = None) -> bool:
        """Play on from a record, with its seats (or ``seats``); say which seats it does
        not name, and refuse a bot this version cannot play. Hints follow the last
        setup (and stay off for a record played without them)."""
        try:
            session = Session.from_record(
                record, seats, seed=self._seed(), hints=self.last_setup.hints
            )
        except SeatError as error:
            seat = seat_name(error.seat, record.players, self.lang)
            bot = error.token.strip()[4:]
            # The core's reason is English: other languages say what it means.
            reason = error.reason if self.lang == "en" else t("reason.bot", self.lang)
            self._error("error.seat", bot=bot, seat=seat, reason=reason)
            return False
        self.start_session(session)
        if session.unnamed:
            names = ", ".join(seat_name(s, record.players, self.lang) for s in session.unnamed)
            self._say("notice.unnamed", count=len(session.unnamed), seats=names)
        return True

    def replay_record(self, path: str) -> bool:
        """Watch the game in ``path`` (picked among arena results)."""

        def replay(record: GameRecord) -> bool:
            self._show(ReplayScreen(self, record, self.timing))
            return True

        return self.open_record(path, replay)

    def ask_replay(self) -> None:
        def replay(path: str | None) -> None:
            if path:
                self.replay_record(path)

        self.push_screen(PathDialog(t("dialog.replay", self.lang), "", self.lang), replay)

    def _say(self, key: str, **values: object) -> None:
        self._tell(t(key, self.lang, **values), "information", 4)

    def _error(self, key: str, **values: object) -> None:
        self._tell(t(key, self.lang, **values), "error", 8)

    def _tell(self, message: str, severity: SeverityLevel, timeout: float) -> None:
        self.notices.append(message)
        self.notify(message, severity=severity, timeout=timeout)

    @property
    def last_notice(self) -> str:
        """The last notice the app gave (``notices`` holds them all, for tests)."""
        return self.notices[-1] if self.notices else ""
