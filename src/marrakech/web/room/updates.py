"""What a room sends its connections: the ``welcome``, each ``update``, and the pieces
they carry (the log in each language, the state view and what changed in it, the
preview of each roll, the last turn and those since a seat's last), each computed once
per version (or per turn) and language, however many connections there are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from marrakech.events import Event
from marrakech.i18n import describe_event
from marrakech.player_turns import TurnSpan, finished
from marrakech.state import Phase, State
from marrakech.views import board_view, event_view, preview_view, state_view
from marrakech.web.connection import Client
from marrakech.web.protocol import (
    Analysis,
    Clock,
    GameMeta,
    Legal,
    NeedView,
    PreviewView,
    StateView,
    TurnSummary,
    Update,
    Welcome,
    view_changes,
)
from marrakech.web.room.status import mover_kind
from marrakech.web.room.turn_summaries import summary, summary_data
from marrakech.web.store import SeatRow

#: At most this many turns in a welcome's "since your last turn".
MAX_SINCE = 12


class UpdatedRoom(Protocol):
    """What the updates are made of."""

    state: State
    events: list[Event]
    spans: list[TurnSpan]
    seats: list[SeatRow]
    clients: set[Client]
    analysis: Analysis | None

    @property
    def version(self) -> int: ...

    def meta(self) -> GameMeta: ...

    def legal_map(self, client: Client) -> Legal: ...

    def clock_view(self) -> Clock: ...


class Updates:
    """One room's caches of what it sends."""

    def __init__(self) -> None:
        self._logs: dict[str, list[str]] = {}
        self._clear()

    def _clear(self) -> None:
        self._logs = {}
        #: The players' names the logs were written with (a seat taken later, or a
        #: player kicked, writes them again: the log names players as the panels do).
        self._log_names: tuple[str, ...] = ()
        #: The state view the connections have (None: none is computed yet).
        self._view: StateView | None = None
        #: The board the last view was made of, and its part of the view: shared by
        #: the views of the versions that keep it (most do: a board changes only when
        #: a carpet is placed), so it is neither made again nor compared by the diff.
        self._board: tuple[tuple[int, ...], dict[str, Any]] | None = None
        #: The last clock sent and its plain data: a clock with no turn running is one
        #: object (made once), written once rather than at every update.
        self._clock: tuple[Clock | None, dict[str, Any]] = (None, {})
        self._preview: tuple[int, PreviewView | None] = (-1, None)
        #: By language: the number of finished turns and the last one's summary as
        #: plain data (an update writes it: once a turn, not once an action).
        self._last_moves: dict[str, tuple[int, dict[str, Any] | None]] = {}
        #: The finished turns the connections have been told of: an update carries the
        #: last move only when a turn ends (the page keeps it until the next one).
        self._turns_told = 0
        #: The welcome of a spectator (no seat) by language, as JSON, with what it was
        #: made from: spectators of a popular game (or a flood of them) cost one each.
        self._spectator_welcomes: dict[str, tuple[tuple[Any, ...], str]] = {}

    def reset(self, room: UpdatedRoom) -> None:
        """Forget everything: the room's game was read again from the store."""
        self._clear()
        self._turns_told = len(finished(room.spans, room.state))

    def forget_view(self) -> None:
        self._view = None

    def log(self, room: UpdatedRoom, lang: str) -> list[str]:
        """The game log in ``lang``, one entry per action (cached), players named as
        the panels name them: "Amir (Blue)"."""
        names = tuple(row.name or "" for row in room.seats)
        if names != self._log_names:
            self._logs, self._last_moves, self._log_names = {}, {}, names
        lines = self._logs.setdefault(lang, [])
        for event in room.events[len(lines) :]:
            lines.append(describe_event(event, lang, names))
        return lines

    def view(self, room: UpdatedRoom) -> StateView:
        """The state view of the current position (computed once per version)."""
        if self._view is None:
            state = room.state
            cells, kept = self._board if self._board is not None else ((), None)
            if kept is None or (cells is not state.board and cells != state.board):
                kept = board_view(state)
                self._board = (state.board, kept)
            self._view = state_view(state, kept)
        return self._view

    def preview(self, room: UpdatedRoom) -> PreviewView | None:
        """The core's preview of each orientation while a player orients (else None:
        a bot needs none, and it costs a third of a millisecond)."""
        version, preview = self._preview
        if version != room.version:
            state = room.state
            preview = None
            if state.phase is Phase.ORIENT and mover_kind(state, room.seats) == "human":
                preview = preview_view(state)
            self._preview = (room.version, preview)
        return preview

    def last_move(self, room: UpdatedRoom, lang: str) -> TurnSummary | None:
        """The last finished turn (for a welcome)."""
        data = self._last_move_data(room, lang)
        return None if data is None else TurnSummary.model_validate(data)

    def _last_move_data(self, room: UpdatedRoom, lang: str) -> dict[str, Any] | None:
        """The last finished turn as plain data (made once per turn and language)."""
        log = self.log(room, lang)  # first: new names forget the summaries made before
        done = finished(room.spans, room.state)
        cached = self._last_moves.get(lang)
        if cached is not None and cached[0] == len(done):
            return cached[1]
        last = summary_data(len(done), done[-1], room.events, log) if done else None
        self._last_moves[lang] = (len(done), last)
        return last

    def since(self, room: UpdatedRoom, seats: frozenset[int], lang: str) -> list[TurnSummary]:
        """The finished turns after the last finished turn of one of ``seats``."""
        if not seats:
            return []
        done = finished(room.spans, room.state)
        first = 0
        for index in range(len(done) - 1, -1, -1):
            if done[index].seat in seats:
                first = index + 1
                break
        first = max(first, len(done) - MAX_SINCE)
        log = self.log(room, lang)
        return [summary(n + 1, done[n], room.events, log) for n in range(first, len(done))]

    def welcome(self, room: UpdatedRoom, client: Client) -> Welcome:
        return Welcome(
            game=room.meta(),
            you=sorted(client.seats),
            version=room.version,
            state=self.view(room),
            log=self.log(room, client.lang),
            legal=room.legal_map(client),
            preview=self.preview(room),
            last_move=self.last_move(room, client.lang),
            since=self.since(room, client.seats, client.lang),
            analysis=room.analysis,
        )

    def welcome_json(self, room: UpdatedRoom, client: Client) -> str:
        """The ``welcome`` as sent; a spectator's made once per version, language, game
        setting (names, presence, status) and analysis."""
        if client.seats:
            return self.welcome(room, client).model_dump_json()
        meta = room.meta()
        made_from = (room.version, meta, room.analysis is not None)
        cached = self._spectator_welcomes.get(client.lang)
        if cached is not None and cached[0] == made_from:
            return cached[1]
        text = self.welcome(room, client).model_dump_json()
        self._spectator_welcomes[client.lang] = (made_from, text)
        return text

    def broadcast(self, room: UpdatedRoom, events: Sequence[Event]) -> None:
        """Send every connection the update after ``events`` (already applied): the
        events, their log lines, what changed in the view (or the view), legal tokens."""
        before = self._view
        self._view = None
        after = self.view(room)
        changes: StateView | None = None
        if before is not None:
            try:
                changes = view_changes(before, after)
            except NeedView:
                changes = None
        views = [event_view(event) for event in events]
        preview = self.preview(room)
        clock = room.clock_view()
        if self._clock[0] is not clock:  # models are frozen: the same object, the same data
            self._clock = (clock, clock.model_dump())
        clock_data = self._clock[1]
        turns = len(finished(room.spans, room.state))
        turn_ended, self._turns_told = turns != self._turns_told, turns
        shared: dict[str, str] = {}  # by language: the update but for each one's legal tokens
        # By language and seats: the whole update (spectators share one text).
        whole: dict[tuple[str, frozenset[int]], str] = {}
        for client in list(room.clients):
            sent = whole.get((client.lang, client.seats))
            if sent is not None:
                client.send(sent)
                continue
            text = shared.get(client.lang)
            if text is None:
                lines = self.log(room, client.lang)[room.version - len(events) :]
                text = shared[client.lang] = Update.shared_json(
                    version=room.version,
                    events=views,
                    log=lines,
                    changes=changes,
                    state=after if changes is None else None,
                    preview=preview,
                    last_move=self._last_move_data(room, client.lang) if turn_ended else None,
                    clock=clock_data,
                )
            sent = whole[client.lang, client.seats] = Update.json_with_legal(
                text, room.legal_map(client)
            )
            client.send(sent)
