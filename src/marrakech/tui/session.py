"""A game being played in the terminal: seats, history, chance, bots, undo and records.

This module knows nothing of Textual, so the game logic of the interface is tested
directly. It holds no rules: it asks the core for legal actions, applies them, samples
chance outcomes with :func:`marrakech.playout.sample_outcome` from its own seeded
generator, and asks bots (:func:`marrakech.bots.make_bot`) for their decisions::

    >>> from marrakech import State
    >>> session = Session(State.new(players=3), [SeatSpec.human(), SeatSpec.bot("easy"),
    ...                                         SeatSpec.bot("easy")], seed=1)
    >>> session.human_to_move, session.state.phase.name
    (True, 'ORIENT')
    >>> event = session.play(session.state.legal_actions()[0])
    >>> event = session.play(session.sample_chance())
    >>> session.can_undo, session.undo(), len(session.actions)
    (True, 2, 0)

Hints (:func:`marrakech.bots.analysis.hint`) are allowed unless the setup said no; the
session counts those each human seat was shown, and its record keeps the count
(``meta["hints"]``)::

    >>> session.hints, session.count_hint(0), session.hints_used
    (True, 1, [1, 0, 0])
    >>> session.record().meta["hints"]
    {'allowed': True, 'used': [1, 0, 0]}
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from marrakech.actions import Action
from marrakech.bots import BOTS, LEVELS, Bot, check_players, make_bot
from marrakech.bots.base import StopFlag, choose_stoppable
from marrakech.errors import MarrakechError
from marrakech.events import Event
from marrakech.i18n import seat_name
from marrakech.playout import sample_outcome
from marrakech.record import GameRecord
from marrakech.rules import RuleSet
from marrakech.state import State

#: What a human seat may be called on the command line and in records.
HUMAN_WORDS = ("human", "h", "you")


@dataclass(frozen=True)
class SeatSpec:
    """Who sits at a seat: a human, or a bot given by a level (``hard``), a name
    (``mcts``) or a full bot spec (``mcts:0.5``, ``mcts@iterations=300``): whatever
    :func:`marrakech.bots.make_bot` takes, as ``marrakech arena --bots`` does.

    >>> SeatSpec.parse("bot:hard"), SeatSpec.parse("human").token
    (SeatSpec(kind='bot', spec='hard'), 'human')
    >>> SeatSpec.parse("mcts@iterations=300").token
    'bot:mcts@iterations=300'
    """

    kind: str  # "human" or "bot"
    spec: str = ""

    @classmethod
    def human(cls) -> SeatSpec:
        return cls("human")

    @classmethod
    def bot(cls, spec: str = "easy") -> SeatSpec:
        return cls("bot", spec)

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @property
    def token(self) -> str:
        """The seat as stored in a game record: ``human`` or ``bot:SPEC``."""
        return "human" if self.is_human else f"bot:{self.spec}"

    @classmethod
    def parse(cls, text: str) -> SeatSpec:
        """``human``, or a bot level, name or spec, bare or after ``bot:``."""
        cleaned = text.strip().lower()
        if cleaned in HUMAN_WORDS:
            return cls.human()
        spec = cleaned.removeprefix("bot:").strip()
        name = spec.split("@")[0].partition(":")[0].strip()
        if name not in LEVELS and name not in BOTS:
            raise MarrakechError(
                f"expected a seat: human, a bot level ({', '.join(LEVELS)}) or a bot spec "
                f"({', '.join(BOTS)}, with :SECONDS or @KEY=VALUE such as mcts:0.5 "
                f"or mcts@iterations=300); found {text!r}"
            )
        try:
            make_bot(spec)  # the spec, and the values of its budget
        except ValueError as error:
            message = str(error)
            if not message.startswith("bot spec"):
                message = f"bot spec {spec!r}: {message}"
            raise MarrakechError(message) from None
        return cls.bot(spec)


#: The app named in the records it writes (with their seed).
APP = "marrakech play"


class SeatError(MarrakechError):
    """A record (or the command line, ``source``) seats a bot that cannot play here
    (``seat`` from 0, as records count): an unknown bot, or one that refuses the
    player count."""

    def __init__(
        self, seat: int, players: int, token: str, reason: str, source: str = "the record"
    ) -> None:
        self.seat, self.token, self.reason = seat, token, reason
        colour = seat_name(seat, players, "en")
        super().__init__(f"{source} seats {token!r} at seat {seat} ({colour}): {reason}")


def check_seat_players(seats: Sequence[SeatSpec], players: int, source: str) -> None:
    """Refuse (:class:`SeatError`) a bot seat whose bot does not play ``players``-player
    games (a learned policy trained for another count), before any game starts."""
    for seat, spec in enumerate(seats):
        if spec.is_human:
            continue
        try:
            check_players(make_bot(spec.spec), players)
        except ValueError as error:
            raise SeatError(seat, players, spec.token, str(error), source) from None


@dataclass(frozen=True)
class GameSetup:
    """What a new game needs (the setup screen's choices, or the command line's)."""

    players: int
    rules: RuleSet
    seats: tuple[SeatSpec, ...]
    first_seat: int | None  # None: draw at random
    hints: bool = True  # whether a human may ask for a hint (H)


def default_seats(players: int) -> tuple[SeatSpec, ...]:
    """The seats a new game offers: you, then medium bots."""
    return (SeatSpec.human(), *[SeatSpec.bot("medium")] * (players - 1))


class Session:
    """A game in progress: the seats, every state and event so far, and the chance
    outcomes drawn.

    ``seed`` decides the die, the 2-player piles and the bots' random choices, each
    from its own stream: the ``k``-th roll of the game, the ``k``-th draw of a pile, a
    bot's decision at move ``n``. So a seeded game is reproducible, and an undo
    (:meth:`undo`) never re-rolls: every outcome drawn is kept (``drawn``), and the same
    rolls and draws come again in the same order, whatever the human decides anew.
    """

    def __init__(
        self,
        start: State,
        seats: Sequence[SeatSpec],
        *,
        seed: int | None = None,
        actions: Sequence[Action] = (),
        hints: bool = True,
    ) -> None:
        if len(seats) != start.players:
            raise MarrakechError(
                f"expected {start.players} seats for {start.players} players, found {len(seats)}"
            )
        self.start = start
        self.seats = tuple(seats)
        self.seed = seed if seed is not None else random.randrange(2**32)
        self.bots: dict[int, Bot] = {
            seat: make_bot(spec.spec) for seat, spec in enumerate(self.seats) if not spec.is_human
        }
        for seat, bot in self.bots.items():
            # A bot that refuses this player count (a learned policy) says so now, not
            # at its first decision in the middle of the game.
            try:
                check_players(bot, start.players)
            except ValueError as error:
                raise SeatError(seat, start.players, self.seats[seat].token, str(error)) from None
        #: Seats a resumed record did not name (humans play them).
        self.unnamed: tuple[int, ...] = ()
        #: Every chance outcome drawn, by stream (``roll``, ``pile0``, ``pile1``) and number.
        self.drawn: dict[tuple[str, int], Action] = {}
        #: What each undo took back, for the record: actions kept, and those taken back.
        self.undone: list[dict[str, Any]] = []
        #: Whether the humans may ask for hints, and how many each seat was shown.
        self.hints = hints
        self.hints_used = [0] * start.players
        #: Whether a human decided or took back since the game was saved or loaded.
        self.unsaved = False
        self.states: list[State] = [start]
        self.events: list[Event] = []
        self._streams: list[tuple[str, int] | None] = []  # each event's chance stream
        for action in actions:
            self.play(action)
        self.unsaved = False

    # -- where the game stands ---------------------------------------------------

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def actions(self) -> list[Action]:
        return [event.action for event in self.events]

    @property
    def players(self) -> int:
        return self.start.players

    @property
    def humans(self) -> tuple[int, ...]:
        return tuple(s for s, spec in enumerate(self.seats) if spec.is_human)

    @property
    def to_move(self) -> int | None:
        """The seat that must decide now, or None at a chance node or the end."""
        seat = self.state.to_move
        return seat if seat >= 0 else None

    @property
    def human_to_move(self) -> bool:
        seat = self.to_move
        return seat is not None and self.seats[seat].is_human

    @property
    def bot_to_move(self) -> bool:
        seat = self.to_move
        return seat is not None and not self.seats[seat].is_human

    # -- moving on ---------------------------------------------------------------

    @property
    def at_stake(self) -> bool:
        """Whether leaving now loses something: a game in progress where a human decided
        (or took back) since it was last saved or loaded."""
        return self.unsaved and not self.state.is_terminal

    def play(self, action: Action) -> Event:
        """Apply a legal action (raises :class:`IllegalActionError` otherwise)."""
        stream = self._stream() if self.state.is_chance else None
        event = self.state.describe(action)
        if self.human_to_move:
            self.unsaved = True
        if stream is not None:
            self.drawn[stream] = action
        self._streams.append(stream)
        self.events.append(event)
        self.states.append(event.after)
        return event

    def _stream(self) -> tuple[str, int]:
        """The chance outcome due now: its stream (the die, or a pile, R7) and number."""
        pile = self.state.draw_pile
        kind = "roll" if pile is None else f"pile{pile}"
        return kind, sum(1 for stream in self._streams if stream and stream[0] == kind)

    def sample_chance(self) -> Action:
        """The roll or draw due now: the one drawn before if an undo took it back,
        else a new one from its stream (:func:`marrakech.playout.sample_outcome`)."""
        stream = self._stream()
        known = self.drawn.get(stream)
        if known is not None and known in self.state.legal_actions():
            return known
        return sample_outcome(self.state, random.Random(f"{self.seed}/{stream[0]}/{stream[1]}"))

    def bot_choice(self, state: State | None = None, stop: StopFlag | None = None) -> Action:
        """The bot's decision for ``state`` (the current one by default).

        Safe to call from a worker thread: it reads only the immutable state. The bot's
        random choices come from the seed, the seat and the move number. Once ``stop``
        is set (the player quits, takes back or leaves the game), a searching bot ends
        its search at once (:func:`marrakech.bots.base.choose_stoppable`).
        """
        state = state if state is not None else self.state
        seat = state.to_move
        if seat < 0 or seat not in self.bots:
            raise MarrakechError(f"no bot decides here (seat to move: {seat})")
        rng = random.Random(f"{self.seed}/seat{seat}/{len(self.events)}")
        if stop is None:
            return self.bots[seat].choose(state, rng)
        return choose_stoppable(self.bots[seat], state, rng, stop)

    # -- undo ----------------------------------------------------------------------

    @property
    def undo_allowed(self) -> bool:
        """Undo is offered when exactly one seat is human (no other human is wronged)."""
        return len(self.humans) == 1

    def undo_target(self) -> int | None:
        """How many actions remain after an undo: the human's previous decision point."""
        if not self.undo_allowed:
            return None
        human = self.humans[0]
        for index in range(len(self.events) - 1, -1, -1):
            if self.states[index].to_move == human:
                return index
        return None

    @property
    def can_undo(self) -> bool:
        return self.undo_target() is not None

    def undo(self) -> int:
        """Take back to the human's previous decision; return how many actions went.

        The rolls and draws taken back stay drawn (:meth:`sample_chance`), and the
        record keeps what was taken back (``meta["undone"]``)."""
        target = self.undo_target()
        if target is None:
            return 0
        taken = [str(action) for action in self.actions[target:]]
        self.undone.append({"kept": target, "actions": taken})
        self.truncate(target)
        self.unsaved = True
        return len(taken)

    def truncate(self, length: int) -> None:
        """Keep only the first ``length`` actions (the outcomes drawn stay drawn)."""
        del self.events[length:]
        del self.states[length + 1 :]
        del self._streams[length:]

    # -- hints -------------------------------------------------------------------

    def count_hint(self, seat: int) -> int:
        """Count a hint shown to ``seat``; how many it was shown so far."""
        if not self.hints:
            raise MarrakechError("expected a game with hints allowed, found hints off")
        if not 0 <= seat < self.players or not self.seats[seat].is_human:
            raise MarrakechError(f"expected a human seat, found seat {seat}")
        self.hints_used[seat] += 1
        return self.hints_used[seat]

    @property
    def human_hints(self) -> list[int | None]:
        """The hints each seat was shown: a count for a human's seat, None for a bot's."""
        return [
            used if spec.is_human else None
            for used, spec in zip(self.hints_used, self.seats, strict=True)
        ]

    # -- records -------------------------------------------------------------------

    def record(self, meta: dict[str, Any] | None = None) -> GameRecord:
        """The game as a :class:`GameRecord` (the core's JSON format), with the seed,
        what undo took back and the hints each seat was shown (unless hints were allowed
        and none was asked) in its ``meta``."""
        data: dict[str, Any] = {"app": APP, "seed": self.seed}
        if self.undone:
            data["undone"] = self.undone
        if not self.hints or any(self.hints_used):
            data["hints"] = {"allowed": self.hints, "used": list(self.hints_used)}
        data.update(meta or {})
        return GameRecord.from_actions(
            self.start, self.actions, seats=[spec.token for spec in self.seats], meta=data
        )

    @classmethod
    def from_record(
        cls,
        record: GameRecord,
        seats: Sequence[SeatSpec] | None = None,
        seed: int | None = None,
        hints: bool = True,
    ) -> Session:
        """Resume a recorded game; seats come from the record unless given
        (:func:`record_seats`). A record this app saved keeps its seed, so resuming
        it never re-rolls what an undo took back; ``seed`` serves the others. Hints
        are allowed if ``hints`` and the record did not play without them; the hints
        it counts stay counted."""
        if seats is None:
            seats = record_seats(record)
        meta = record.meta
        own = meta.get("seed") if meta.get("app") == APP else None
        if isinstance(own, int) and not isinstance(own, bool):
            seed = own
        counted = meta.get("hints")
        counted = counted if isinstance(counted, dict) else {}
        allowed = hints and counted.get("allowed") is not False
        session = cls(
            record.initial_state(), seats, seed=seed, actions=record.actions, hints=allowed
        )
        session.unnamed = unnamed_seats(record)
        session.unsaved = False
        undone = meta.get("undone")
        if isinstance(undone, list):
            session.undone = list(undone)
        used = counted.get("used")
        if isinstance(used, list) and len(used) == record.players:
            session.hints_used = [n if isinstance(n, int) and n > 0 else 0 for n in used]
        return session


def seat_from_token(token: str) -> SeatSpec:
    """A record's seat name as a :class:`SeatSpec`: a bot (``bot:SPEC``, which must be
    one this version can play: :class:`ValueError` otherwise) or any other name
    (``human``, a web player's, ``open``), which is a human's."""
    if not token.strip().lower().startswith("bot:"):
        return SeatSpec.human()
    spec = token.strip()[4:].strip().lower()
    try:
        make_bot(spec)
    except ValueError as error:
        raise ValueError(str(error).removeprefix(f"bot spec {spec!r}: ")) from None
    return SeatSpec.bot(spec)


def record_seats(record: GameRecord, strict: bool = True) -> tuple[SeatSpec, ...]:
    """The seats of a record (:func:`seat_from_token`); the seats it does not name are
    humans' (:func:`unnamed_seats`). ``strict``: a bot this version cannot play raises
    :class:`SeatError`; otherwise (to show a replay) it is kept as named."""
    seats: list[SeatSpec] = []
    for seat in range(record.players):
        token = record.seats[seat] if seat < len(record.seats) else "human"
        try:
            seats.append(seat_from_token(token))
        except ValueError as error:
            if strict:
                raise SeatError(seat, record.players, token, str(error)) from None
            seats.append(SeatSpec.bot(token.strip()[4:].strip()))
    return tuple(seats)


def unnamed_seats(record: GameRecord) -> tuple[int, ...]:
    """The seats a record does not name (played by humans when it is resumed)."""
    return tuple(
        seat
        for seat in range(record.players)
        if seat >= len(record.seats) or not record.seats[seat].strip()
    )
