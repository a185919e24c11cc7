"""The setup screen: seats (human, or a bot level), rule set and rule options, who
starts, language, animation speed and whether hints are allowed.

The player counts, the rule sets and the yes/no rule options are the core's declaration
(:data:`~marrakech.rules.PLAYER_COUNTS`, :data:`~marrakech.rules.NAMED_RULE_SETS`,
:data:`~marrakech.rules.RULE_OPTIONS`) and their words are :mod:`marrakech.i18n`'s, so a
new rule set or option appears here with no code in this file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Label, Select, Static

from marrakech.bots import LEVEL_PLAYERS, LEVELS, check_players, make_bot
from marrakech.i18n import rule_option_words, rule_set_words, seat_name
from marrakech.rules import NAMED_RULE_SETS, PLAYER_COUNTS, RULE_OPTIONS, STANDARD, RuleSet
from marrakech.tui.screen_base import AppScreen, Host
from marrakech.tui.session import GameSetup, SeatSpec, default_seats
from marrakech.tui.strings import LANGUAGE_NAMES, t
from marrakech.tui.timing import SPEEDS
from marrakech.tui.tutorial import first_time, offer_text
from marrakech.tui.widgets import seat_chips


class SetupScreen(AppScreen):
    """Seats, human or bot (level) per seat, rule set and options, who starts,
    language, speed, hints."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", show=False),
        Binding("escape", "app.quit", show=False),
    ]
    KEYS = "keys.setup"

    def __init__(self, host: Host, setup: GameSetup | None = None) -> None:
        super().__init__(host)
        self.initial = setup or GameSetup(4, STANDARD, default_seats(4), None)
        self.initial_rules = self.initial.rules
        # A rule set is chosen by the name of its base (every option off), or "custom"
        # for house rules given on the command line; the options are switches of their own.
        base = self.initial_rules.base
        self.initial_base = base.name if base.name in NAMED_RULE_SETS else _CUSTOM
        # Every seat's first choice: the setup's, then the defaults; and the bot specs
        # that are not levels (from the command line) among the choices.
        given = self.initial.seats
        self.initial_seats = (*given, *default_seats(max(PLAYER_COUNTS))[len(given) :])
        self.extra_bots = tuple(
            dict.fromkeys(s.spec for s in given if not s.is_human and s.spec not in LEVELS)
        )

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        yield Static(id="keys")
        with Vertical(id="setup-box"):
            yield Label(id="setup-title")
            with Horizontal(classes="setup-row"):
                yield Label(id="players-label", classes="setup-label")
                yield Select(
                    [(str(n), n) for n in PLAYER_COUNTS],
                    value=self.initial.players,
                    allow_blank=False,
                    id="players",
                    compact=True,
                )
            for seat in range(max(PLAYER_COUNTS)):
                with Horizontal(classes="setup-row", id=f"seat-row-{seat}"):
                    yield Label(id=f"seat-label-{seat}", classes="setup-label")
                    yield Select(
                        self._seat_options(self.initial.players),
                        value=self.initial_seats[seat].token,
                        allow_blank=False,
                        id=f"seat-{seat}",
                        compact=True,
                    )
            with Horizontal(classes="setup-row"):
                yield Label(id="rules-label", classes="setup-label")
                yield Select(
                    self._rules_options(),
                    value=self.initial_base,
                    allow_blank=False,
                    id="rules",
                    compact=True,
                )
            yield Label(id="rules-help", classes="setup-help")
            chosen = self.initial_rules.options()
            for option in RULE_OPTIONS:
                with Horizontal(classes="setup-row"):
                    yield Label("", classes="setup-label")
                    yield Checkbox(
                        value=chosen[option.field], id=_option_id(option.field), compact=True
                    )
                yield Label(id=f"{_option_id(option.field)}-help", classes="setup-help")
            yield Label(id="first-label")
            with Horizontal(classes="setup-row"):
                yield Label("", classes="setup-label")
                yield Select(
                    self._first_options(self.initial.players),
                    value=-1 if self.initial.first_seat is None else self.initial.first_seat,
                    allow_blank=False,
                    id="first",
                    compact=True,
                )
            with Horizontal(classes="setup-row", id="lang-row"):
                yield Label(id="lang-label", classes="setup-label")
                yield Select(
                    [(name, code) for code, name in LANGUAGE_NAMES.items()],
                    value=self.lang,
                    allow_blank=False,
                    id="lang",
                    compact=True,
                )
            with Horizontal(classes="setup-row"):
                yield Label(id="speed-label", classes="setup-label")
                yield Select(
                    self._speed_options(),
                    value=self.host.speed,
                    allow_blank=False,
                    id="speed",
                    compact=True,
                )
            with Horizontal(classes="setup-row"):
                yield Label(id="hints-label", classes="setup-label")
                yield Select(
                    self._hints_options(),
                    value="on" if self.initial.hints else "off",
                    allow_blank=False,
                    id="hints",
                    compact=True,
                )
            if first_time():  # the tutorial, offered until it is first opened (in view at 80x24)
                yield Label(offer_text(self.lang), id="learn-offer")
            with Horizontal(id="setup-buttons"):
                yield Button(id="start", variant="primary")
                yield Button(id="load")
                yield Button(id="replay")
                yield Button(id="quit", variant="error")

    def on_mount(self) -> None:
        self.refresh_language()
        self._show_seats(self.initial.players)
        self.query_one("#start", Button).focus()

    def _seat_options(self, players: int) -> list[tuple[str, str]]:
        """Human, the levels that play ``players``-player games (``learned``: 2 and 4),
        and the command line's bot specs that do."""
        options = [(t("setup.human", self.lang), "human")]
        options += [
            (t("setup.bot", self.lang, level=_level_words(level, self.lang)), f"bot:{level}")
            for level in LEVELS
            if players in LEVEL_PLAYERS[level]
        ]
        options += [
            (t("setup.bot", self.lang, level=spec), f"bot:{spec}")
            for spec in self.extra_bots
            if _plays(spec, players)
        ]
        return options

    def _rules_options(self) -> list[tuple[str, str]]:
        options = [(rule_set_words(name, self.lang).label, name) for name in NAMED_RULE_SETS]
        if self.initial_base == _CUSTOM:
            token = self.initial_rules.base.token()
            options.append((t("setup.rules.custom", self.lang, token=token), _CUSTOM))
        return options

    def _show_rules_help(self) -> None:
        name = self.query_one("#rules", Select).value
        help_text = rule_set_words(name, self.lang).help if name in NAMED_RULE_SETS else ""
        self.query_one("#rules-help", Label).update(help_text)

    def _speed_options(self) -> list[tuple[str, str]]:
        return [(t(f"speed.{speed}", self.lang), speed) for speed in SPEEDS]

    def _hints_options(self) -> list[tuple[str, str]]:
        return [(t(f"setup.hints.{value}", self.lang), value) for value in ("on", "off")]

    def _first_options(self, players: int) -> list[tuple[str, int]]:
        options = [(t("setup.random", self.lang), -1)]
        options += [(seat_name(s, players, self.lang), s) for s in range(players)]
        return options

    @property
    def players(self) -> int:
        return cast(int, self.query_one("#players", Select).value)

    def refresh_language(self) -> None:
        lang = self.lang
        self.fit(self.size)
        self.query_one("#setup-title", Label).update(t("setup.title", lang))
        for offer in self.query("#learn-offer").results(Label):
            offer.update(offer_text(lang))
        self.query_one("#players-label", Label).update(t("setup.players", lang))
        self.query_one("#rules-label", Label).update(t("setup.rules", lang))
        self.query_one("#first-label", Label).update(t("setup.first", lang))
        self.query_one("#lang-label", Label).update(t("setup.lang", lang))
        self.query_one("#speed-label", Label).update(t("setup.speed", lang))
        _reset_options(self.query_one("#speed", Select), self._speed_options())
        self.query_one("#hints-label", Label).update(t("setup.hints", lang))
        _reset_options(self.query_one("#hints", Select), self._hints_options())
        for key in ("start", "load", "replay", "quit"):
            self.query_one(f"#{key}", Button).label = t(f"setup.{key}", lang)
        _reset_options(self.query_one("#rules", Select), self._rules_options())
        self._show_rules_help()
        for option in RULE_OPTIONS:
            words = rule_option_words(option.field, lang)
            self.query_one(f"#{_option_id(option.field)}", Checkbox).label = words.label
            self.query_one(f"#{_option_id(option.field)}-help", Label).update(words.help)
        lang_select = self.query_one("#lang", Select)
        if lang_select.value != lang:
            lang_select.value = lang
        self._show_seats(self.players)

    def _show_seats(self, players: int) -> None:
        """The seat rows of ``players``, each offering what plays at that count: a seat
        whose bot does not (``learned`` at three) goes back to the default bot."""
        options = self._seat_options(players)
        fallback = default_seats(2)[1].token
        for seat in range(max(PLAYER_COUNTS)):
            _reset_options(self.query_one(f"#seat-{seat}", Select), options, fallback)
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

    @on(Select.Changed, "#rules")
    def _rules_changed(self) -> None:
        self._show_rules_help()

    @on(Select.Changed, "#speed")
    def _speed_changed(self, event: Select.Changed) -> None:
        if event.value != self.host.speed and isinstance(event.value, str):
            self.host.set_speed(event.value)

    @on(Select.Changed, "#lang")
    def _lang_changed(self, event: Select.Changed) -> None:
        if event.value != self.lang and isinstance(event.value, str):
            self.host.set_language(event.value)

    def setup(self) -> GameSetup:
        """The choices on screen as a :class:`GameSetup`."""
        players = self.players
        seats = tuple(
            SeatSpec.parse(cast(str, self.query_one(f"#seat-{s}", Select).value))
            for s in range(players)
        )
        rules = self.rules()
        first = cast(int, self.query_one("#first", Select).value)
        hints = self.query_one("#hints", Select).value == "on"
        return GameSetup(players, rules, seats, None if first < 0 else first, hints)

    def rules(self) -> RuleSet:
        """The rule set on screen: the chosen set with each option switched on or off."""
        name = cast(str, self.query_one("#rules", Select).value)
        base = NAMED_RULE_SETS.get(name, self.initial_rules.base)
        flags = {
            option.field: self.query_one(f"#{_option_id(option.field)}", Checkbox).value
            for option in RULE_OPTIONS
        }
        return base.with_options(**flags)

    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        self.host.start_game(self.setup())

    @on(Button.Pressed, "#load")
    def _load(self) -> None:
        self.host.ask_load()

    @on(Button.Pressed, "#replay")
    def _replay(self) -> None:
        self.host.ask_replay()

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.app.exit()


#: The rule-set choice standing for house rules given on the command line.
_CUSTOM = "custom"


def _option_id(field: str) -> str:
    """The id of a rule option's checkbox (``option-orient_last``)."""
    return f"option-{field}"


def _level_words(level: str, lang: str) -> str:
    """A level as the setup offers it: its name, and what it is when the name alone does
    not say (``learned (neural network)``)."""
    try:
        return t(f"setup.level.{level}", lang)
    except KeyError:
        return t(f"level.{level}", lang)


def _plays(spec: str, players: int) -> bool:
    """Whether the bot of ``spec`` plays ``players``-player games."""
    try:
        check_players(make_bot(spec), players)
    except ValueError:
        return False
    return True


def _reset_options(
    select: Select[Any], options: Sequence[tuple[str, object]], fallback: object = None
) -> None:
    """Replace a select's options (new words), keeping its value when still offered,
    else taking ``fallback`` (when given)."""
    value = select.value
    select.set_options(options)
    if any(v == value for _, v in options):
        select.value = value
    elif fallback is not None:
        select.value = fallback


__all__ = ["SetupScreen"]
