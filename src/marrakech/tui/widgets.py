"""Small pieces of the game and replay screens: seat panels, the game log, colour chips,
the status line and the prompt.

Everything shown comes from the core: money, carpets, pile tops, scores (R20), ranks
(R21) and the log sentences of :func:`marrakech.i18n.describe_event`::

    >>> from marrakech import State
    >>> from marrakech.tui.session import SeatSpec
    >>> print(seat_text(State.new(players=2), 0, SeatSpec.human(), "en").plain)
    ▶ RY Red-Yellow · human
      score 30 · 30 dirhams · 24 carpets · next ?
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import cast

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog, Static

from marrakech.actions import Action, Orient
from marrakech.bots import LEVELS
from marrakech.bots.analysis import Hint
from marrakech.events import Event
from marrakech.geometry import square_name
from marrakech.i18n import FACINGS, colour_name, describe_event, seat_name
from marrakech.preview import OrientPreview
from marrakech.rules import COLOUR_LETTERS, colours_of
from marrakech.state import State
from marrakech.tui.choice import Choice
from marrakech.tui.palette import CARPET_BG, CARPET_FG
from marrakech.tui.session import SeatSpec
from marrakech.tui.strings import t


def chip(colour: int) -> Text:
    """A colour letter on its colour (readable without colour too)."""
    return Text(
        COLOUR_LETTERS[colour],
        Style(color=CARPET_FG[colour], bgcolor=CARPET_BG[colour], bold=True),
    )


def seat_chips(seat: int, players: int) -> Text:
    text = Text()
    for colour in colours_of(seat, players):
        text.append_text(chip(colour))
    return text


def who(spec: SeatSpec, lang: str) -> str:
    """``human``, ``bot easy`` or ``bot mcts@iterations=300`` in ``lang``."""
    if spec.is_human:
        return t("seat.human", lang)
    level = t(f"level.{spec.spec}", lang) if spec.spec in LEVELS else spec.spec
    return t("seat.bot", lang, level=level)


def to_play(state: State, seat: int) -> bool:
    """Whether it is ``seat``'s turn (the core's ``state.turn``, while the game goes on)."""
    return not state.is_terminal and state.turn == seat


def seat_text(state: State, seat: int, spec: SeatSpec, lang: str) -> Text:
    """Two lines about one seat: who, dirhams, carpets (pile top at 2 players), score."""
    players = state.players
    text = Text()
    text.append("▶ " if to_play(state, seat) else "  ", Style(bold=True))
    text.append_text(seat_chips(seat, players))
    text.append(f" {seat_name(seat, players, lang)}", Style(bold=True))
    text.append(f" · {who(spec, lang)}")
    if not state.is_in(seat):
        text.append(f" · {t('panel.eliminated', lang)}", Style(color="#ff5f5f", bold=True))
    elif seat in state.winners():
        text.append(f" · {t('panel.winner', lang)} ★", Style(color="#ffd700", bold=True))
    text.append("\n  ")
    text.append(f"{t('panel.score', lang)} {state.scores()[seat]}", Style(bold=True))
    text.append(f" · {t('panel.dirhams', lang, count=state.money[seat])}")
    text.append(f" · {t('panel.carpets', lang, count=state.carpets_in_hand(seat))}")
    if players == 2 and state.is_in(seat) and state.carpets_in_hand(seat):
        top = state.pile_top(seat)
        text.append(f" · {t('panel.next', lang)} ")
        text.append_text(chip(top) if top is not None else Text(t("panel.unknown", lang)))
    return text


def game_status(state: State, lang: str) -> Text:
    """The line above the board while playing: players, rules, and whose turn it is."""
    status = Text(t("app.title", lang), style="bold")
    status.append(f" · {t('status.players', lang, players=state.players)}")
    status.append(f" · {t('status.rules', lang, rules=state.rules.token())}")
    if not state.is_terminal:
        status.append(" · ")
        status.append_text(seat_chips(state.turn, state.players))
        status.append(" " + t("status.turn", lang, seat=seat_name(state.turn, state.players, lang)))
    return status


def game_prompt(
    state: State,
    lang: str,
    seats: Sequence[SeatSpec],
    choice: Choice | None,
    status: tuple[str | int, ...],
) -> str:
    """What to do now, under the board: the human's ``choice`` if one is being made,
    else what the game screen's driver is doing (``status``: ``("bot", seat)``,
    ``("walk", seat, steps)`` or ``("wait",)``)."""
    seat = seat_name(state.turn, state.players, lang)
    if state.is_terminal:
        return t("prompt.over", lang)
    if choice is not None and choice.orienting:
        return t("prompt.orient", lang, seat=seat)
    if choice is not None and choice.placing and choice.typed:
        return t("prompt.typed_letter", lang, seat=seat, letter=choice.typed)
    if choice is not None and choice.placing and choice.first is not None:
        square = square_name(choice.first)
        return t("prompt.typed_first", lang, seat=seat, square=square, token=str(choice.preview))
    if choice is not None and choice.placing:
        colour = state.next_carpet(state.turn)
        return t(
            "prompt.place",
            lang,
            seat=seat,
            colour=colour_name(colour, lang).lower() if colour is not None else "?",
            token=str(choice.preview),
            index=choice.index % len(choice.placements) + 1,
            count=len(choice.placements),
        )
    if status[0] == "bot":
        bot = cast(int, status[1])
        return t(
            "prompt.bot", lang, seat=seat_name(bot, state.players, lang), who=who(seats[bot], lang)
        )
    if status[0] == "walk":
        walker, steps = cast(int, status[1]), status[2]
        return t("prompt.walk", lang, seat=seat_name(walker, state.players, lang), steps=steps)
    return t("prompt.wait", lang)


def dirhams(amount: Fraction, lang: str) -> str:
    """An amount of dirhams, to one decimal (a decimal comma in French), its word agreeing."""
    number = f"{float(amount):.1f}".removesuffix(".0")
    if lang == "fr":
        number = number.replace(".", ",")
    count = 1 if amount == 1 else 0 if amount < 2 else 2  # the plural form (strings.plural)
    return t("amount", lang, count=count, amount=number)


def outlook_text(state: State, outlook: OrientPreview, lang: str, title: bool = True) -> Text:
    """What the die would do after the orientation shown (R10-R13): each roll, its
    chance, where Assam stops and what it costs; the expected tithe, the risk of
    elimination. Every figure is the core's (:mod:`marrakech.preview`). Without
    ``title`` (a short terminal) the line naming Assam's facing is left out: the board
    and the prompt show it."""
    players = state.players
    text = Text()
    if title:
        facing = FACINGS[lang][outlook.facing]
        text.append(t("outlook.title", lang, facing=facing), Style(bold=True))
    for roll in outlook.rolls:
        where = square_name(roll.landing)
        text.append(
            ("\n" if text else "")
            + t(
                "outlook.roll",
                lang,
                steps=roll.roll.steps,
                chance=str(roll.probability),
                square=where,
            )
        )
        if roll.payee is None or not roll.due:
            text.append(t("outlook.free", lang))
            continue
        payee = seat_name(roll.payee, players, lang)
        if roll.eliminates:
            out = t("outlook.out", lang, due=roll.due, paid=roll.paid, payee=payee)
            text.append(out, Style(color="#ff5f5f", bold=True))
        else:
            text.append(t("outlook.pay", lang, due=roll.due, payee=payee))
    expected = outlook.expected_tithe
    if expected:
        text.append("\n" + t("outlook.expected", lang, amount=dirhams(expected, lang)))
    else:
        text.append("\n" + t("outlook.nothing", lang))
    if outlook.elimination_chance:
        risk = t("outlook.risk", lang, chance=str(outlook.elimination_chance))
        text.append("\n" + risk, Style(color="#ff5f5f", bold=True))
    return text


#: The names of the turns in a hint (``hint.turn.*``, ``hint.other.*``).
TURN_NAMES = {-1: "left", 0: "straight", 1: "right"}
#: How many runner-up placements a placement hint names after the advised one.
HINT_RUNNERS_UP = 2


def hint_chance(chance: float, lang: str) -> str:
    """A winning chance as a whole percentage: ``54%``, ``54 %`` in French."""
    return t("hint.chance", lang, percent=round(chance * 100))


def _decision_name(action: Action, lang: str, kind: str) -> str:
    if isinstance(action, Orient):
        return t(f"hint.{kind}.{TURN_NAMES[action.turn]}", lang)
    return str(action)


def hint_text(advice: Hint, lang: str) -> Text:
    """The hint line of the side panel: the advised decision and the seat's winning
    chance after it, then the other orientations (or the next best placements) with
    theirs, all from :func:`marrakech.bots.analysis.hint`::

        >>> from marrakech.bots.analysis import Option
        >>> advice = Hint(0, (Option(Orient(-1), 0.54, 0.5), Option(Orient(0), 0.5, 0.3),
        ...                   Option(Orient(1), 0.47, 0.2)))
        >>> hint_text(advice, "en").plain.replace("\\xa0", " ")
        'Hint: turn left – 54% to win (straight 50%, right 47%)'
        >>> hint_text(advice, "fr").plain.replace("\\xa0", " ")
        'Conseil : tourner à gauche – 54 % de chances de gagner (tout droit 50 %, à droite 47 %)'

    (A no-break space, ``\\xa0``, keeps each option with its chance, and the French ``%``
    with its number.)
    """
    best, *others = advice.options
    line = t(
        "hint.line",
        lang,
        decision=_decision_name(best.action, lang, "turn"),
        chance=hint_chance(best.chance, lang),
    )
    named = ", ".join(
        f"{_decision_name(o.action, lang, 'other')}\u00a0{hint_chance(o.chance, lang)}"
        for o in (others if isinstance(best.action, Orient) else others[:HINT_RUNNERS_UP])
    )
    if named and not isinstance(best.action, Orient):
        named = t("hint.then", lang, options=named)
    text = Text(line, Style(bold=True))
    if named:
        text.append(f" ({named})")
    return text


class SeatPanel(Static):
    """One seat's panel; ``-turn`` marks the seat to play, ``-out`` an eliminated one."""

    DEFAULT_CSS = """
    SeatPanel {
        height: auto;
        padding: 0 0;
    }
    SeatPanel.-turn {
        background: $boost;
    }
    SeatPanel.-out {
        text-opacity: 60%;
    }
    """

    def __init__(self, seat: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.seat = seat

    def show(self, state: State, spec: SeatSpec, lang: str) -> None:
        self.update(seat_text(state, self.seat, spec, lang))
        self.set_class(to_play(state, self.seat), "-turn")
        self.set_class(not state.is_in(self.seat), "-out")


def event_head(number: int, event: Event) -> Text:
    """The start of a log entry: the action number and the acting seat's colours."""
    text = Text(f"{number:3d} ", Style(dim=True))
    text.append_text(seat_chips(event.seat, event.before.players))
    return text


def event_text(number: int, event: Event, lang: str) -> Text:
    """One log entry on one line: number, the acting seat's colours, the sentence."""
    return event_head(number, event) + Text(" " + describe_event(event, lang))


def log_entry(number: int, event: Event, lang: str) -> Table:
    """One log entry whose sentence, when it wraps, hangs under its first word."""
    grid = Table.grid(padding=(0, 1, 0, 0), expand=True)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(event_head(number, event), Text(describe_event(event, lang)))
    return grid


class GameLog(RichLog):
    """The game log in words (English or French), rebuilt on undo, load or language,
    and wrapped again when its width changes (a log line is cut to the width it is
    written at)."""

    DEFAULT_CSS = """
    GameLog {
        height: 1fr;
        border: round $primary-darken-2;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, min_width=20)
        self.can_focus = False
        self.lines_written = 0
        #: What the log shows, to write it again at another width.
        self.entries: list[tuple[int, Event, str]] = []
        self.width_written: int | None = None

    def add(self, number: int, event: Event, lang: str) -> None:
        self.entries.append((number, event, lang))
        self.write(log_entry(number, event, lang))
        self.lines_written += 1

    def rebuild(self, events: list[Event], lang: str) -> None:
        self.clear()
        self.lines_written = 0
        self.entries = []
        for number, event in enumerate(events, 1):
            self.add(number, event, lang)

    def on_resize(self, event: Resize) -> None:
        # RichLog's own handler runs too (it writes what waited for a first size).
        width, before = event.size.width, self.width_written
        self.width_written = width
        if width and before is not None and width != before and self.entries:
            entries = self.entries
            self.clear()
            self.lines_written = 0
            self.entries = []
            for number, logged, lang in entries:
                self.add(number, logged, lang)
