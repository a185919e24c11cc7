"""One live game: its state, its connections, the checks, the store, the broadcast.

A :class:`Room` is one game in memory, rebuilt from the store's action log when it is
first needed. It accepts an action only from a connection holding the seat's token, for
the current version, when the seat is to move and the core says the action is legal; it
writes the action to the store, and only then broadcasts what changed. The server rolls
the die (a seeded ``random.Random`` per room) and reveals 2-player pile tops; bots choose
through the server's scheduler (:mod:`marrakech.web.bot_workers`) after a short visible
pause, so the event loop never blocks. The rooms of a server are kept by
:class:`~marrakech.web.rooms.RoomManager`.

Around the game the room keeps who is here (each seat's connections, here and on other
instances: its ``presence``), the turn clock (when a human's time runs out, a bot of
the game's stand-in level plays for the seat until the player takes it back), the
host's commands (start, replace, kick), resignations (R22), the rematch, the
finished game's analysis (:mod:`marrakech.web.analysis`) and the players' hints (one
search per position, in a bot worker, cached; each seat's hints counted for all to see).

When several instances share a database (:mod:`marrakech.web.cluster`), a room is its
game's **owner** (it applies, stores and broadcasts actions, runs the bots) or a
**follower**: it checks its clients' actions the same way, forwards them to the owner,
and applies what the owner stored (:meth:`Room.follow`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections import Counter
from collections.abc import Coroutine, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from marrakech.actions import Action, Resign, parse_action
from marrakech.bots import Bot
from marrakech.errors import MarrakechError, NotationError
from marrakech.events import Event
from marrakech.i18n import describe_event, seat_name
from marrakech.playout import sample_outcome
from marrakech.rules import parse_rules
from marrakech.state import Phase, State
from marrakech.turns import TurnSpan, extend_turns, finished, turn_number
from marrakech.views import event_view, preview_view, state_view
from marrakech.web.analysis import advise
from marrakech.web.client import Client
from marrakech.web.protocol import (
    DEFAULT_LEVEL,
    Analysis,
    AnalysisReady,
    BotsBusy,
    ChangeReason,
    Clock,
    ErrorMessage,
    GameChanged,
    GameMeta,
    HintAdvice,
    HintOption,
    KickMessage,
    Legal,
    NeedView,
    Presence,
    PreviewView,
    ProtocolError,
    RematchMessage,
    RematchReady,
    RematchSeat,
    ReplaceMessage,
    ResignMessage,
    SeatInfo,
    SeatMessage,
    StartMessage,
    StateView,
    TakeBackMessage,
    TurnSummary,
    Update,
    Welcome,
    iso_time,
    play_status,
    seat_link,
    view_changes,
)
from marrakech.web.store import (
    ActionRow,
    GameStatus,
    SeatRow,
    StoreConflict,
    StoredGame,
    hash_token,
)
from marrakech.web.turns import summary

if TYPE_CHECKING:
    from marrakech.web.rooms import RoomManager

log = logging.getLogger("marrakech.web")


#: The ``version`` of a forwarded command (resign, start...): not an action at a
#: version, so a follower never takes a later update for its answer.
COMMAND = 2**31 - 1
#: At most this many turns in a welcome's "since your last turn".
MAX_SINCE = 12
#: A turn resumed after a restart or a takeover keeps its stored deadline, but gets at
#: least this long (or its whole time, if shorter) for its player to reconnect.
RESUME_SECONDS = 30.0


def rematch_token(token: str, rematch_id: str) -> str:
    """The token of a seat in the rematch ``rematch_id``, for the holder of ``token``,
    the seat's token in the finished game: only its holder can compute it, and any
    server instance can, so nothing secret is stored (the rematch's seat keeps only its
    hash, set when its holder first comes back, :meth:`GameStore.activate_seat`).

    >>> one = rematch_token("secret", "g2")
    >>> len(one), one == rematch_token("secret", "g2"), one == rematch_token("other", "g2")
    (32, True, False)
    """
    digest = hmac.new(token.encode(), f"rematch {rematch_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


class Room:
    """One game being played: state, log, connections, bot turns, clock, presence.

    All changes happen on the event loop under :attr:`lock`; a change is stored (awaited
    in the store's thread) before it is applied in memory and broadcast.
    """

    def __init__(self, manager: RoomManager, game: StoredGame, owner: bool = True) -> None:
        self.manager = manager
        #: Whether this instance owns the game (see the module's docstring).
        self.owner = owner
        self.game_id = game.id
        self.players = game.players
        self.rules = parse_rules(game.rules)
        self.first_seat = game.first_seat
        self.lang = game.lang
        self.created = game.created
        self.clock_mode = game.clock
        self.clock_seconds = game.clock_seconds
        self.stand_in_level = game.stand_in_level
        #: Whether players may ask for hints (a setting of the game, stored with it).
        self.hints = game.hints
        self.seats: list[SeatRow] = []
        self.start = State.new(self.players, self.rules, self.first_seat)
        self.events: list[Event] = []
        self.state = self.start
        self.rematch: str | None = None
        self.analysis: Analysis | None = None
        self._load(game)
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        #: Connections per seat on this instance, and the seats other instances hold.
        self._here: Counter[int] = Counter()
        self._counted: set[Client] = set()
        self.remote: dict[str, frozenset[int]] = {}
        self.die = manager.rng(game.id, "die", self.version)
        self.bot_rng = manager.rng(game.id, "bots", self.version)
        self._bots: dict[tuple[int, str], Bot] = {}
        self._bot_task: asyncio.Task[None] | None = None
        #: The running turn's clock: (seat, turn number, deadline in epoch seconds); the
        #: stored one, if it is still this turn's (see :meth:`_update_deadline`).
        self._deadline: tuple[int, int, float] | None = _resumed(game)
        self._timer: asyncio.TimerHandle | None = None
        #: Seats that resigned while another seat's roll was awaited (R22 applies at a
        #: decision): resigned at the next one (stored, so a restart keeps them).
        self._pending_resigns: set[int] = (
            set(game.pending_resigns) - self.resigned - set(self.state.eliminated)
        )
        #: The turn clock and pending resignations as last stored (or being stored).
        self._stored_turn = (game.turn_clock, game.pending_resigns)
        self._tasks: set[asyncio.Task[None]] = set()
        #: The hint of the current position, being computed or done (version, task): a
        #: second ask for the same position costs nothing.
        self._hint: tuple[int, asyncio.Task[HintAdvice]] | None = None
        #: The seats counted as having used a hint for the position at this version.
        self._hinted: tuple[int, set[int]] = (-1, set())
        self.closed = False
        self._update_deadline()

    def _load(self, game: StoredGame) -> None:
        """Take the seats and replay the action log of a stored game."""
        events = []
        state = self.start
        for number, row in enumerate(game.actions, 1):
            try:
                event = state.describe(parse_action(row.token))
            except MarrakechError as error:
                raise MarrakechError(f"game {game.id}, stored action {number}: {error}") from None
            events.append(event)
            state = event.after
        self.seats = list(game.seats)
        self.events = events
        self.state = state
        self.rematch = game.rematch
        if game.analysis is not None:
            self.analysis = Analysis.model_validate_json(game.analysis)
        self.spans: list[TurnSpan] = extend_turns([], events)
        self.resigned: set[int] = {
            event.action.seat for event in events if isinstance(event.action, Resign)
        }
        self._logs: dict[str, list[str]] = {}
        #: The state view the connections have (None: none is computed yet).
        self._view: StateView | None = None
        self._preview: tuple[int, PreviewView | None] = (-1, None)
        #: By language: the number of finished turns, the last one's summary, and that
        #: as plain data (an update writes it: once a turn, not once an action).
        self._last_moves: dict[str, tuple[int, TurnSummary | None, dict[str, Any] | None]] = {}
        self._legal: tuple[int, list[str]] = (-1, [])
        #: The finished turns the connections have been told of: an update carries the
        #: last move only when a turn ends (the page keeps it until the next one).
        self._turns_told = len(finished(self.spans, self.state))

    # -- what the game is -------------------------------------------------------------

    @property
    def version(self) -> int:
        """Accepted actions so far (rolls and draws included)."""
        return len(self.events)

    @property
    def status(self) -> GameStatus:
        return game_status(self.state, self.seats)

    @property
    def has_bots(self) -> bool:
        return any(seat.kind == "bot" or seat.stand_in for seat in self.seats)

    @property
    def host(self) -> int | None:
        """The host's seat (None: nobody hosts yet)."""
        return next((seat.seat for seat in self.seats if seat.host), None)

    def mover(self) -> int | None:
        """The seat that must send something now (``roll`` at its ROLL), or None."""
        return seat_to_move(self.state)

    def bot_to_move(self) -> bool:
        return bot_to_move(self.state, self.seats)

    def turn_number(self) -> int:
        """The player-turn number (turns, not actions; 0 before the start)."""
        return turn_number(self.spans, self.state, self.status == "waiting")

    def legal_for(self, seat: int) -> list[str]:
        if self.mover() != seat or self.status == "waiting" or self.seats[seat].stand_in:
            return []
        version, tokens = self._legal
        if version != self.version:  # once per version, for every connection
            state = self.state
            tokens = (
                ["roll"]
                if state.phase is Phase.ROLL
                else [str(action) for action in state.legal_actions()]
            )
            self._legal = (self.version, tokens)
        return tokens

    def legal_map(self, client: Client) -> Legal:
        return {str(seat): self.legal_for(seat) for seat in sorted(client.seats)}

    def presence(self, seat: int) -> Presence:
        row = self.seats[seat]
        if row.kind == "open":
            return "open"
        if row.kind == "bot" or self._here[seat] or any(seat in s for s in self.remote.values()):
            return "connected"
        return "away"

    def local_seats(self) -> frozenset[int]:
        """The seats with a connection on this instance."""
        return frozenset(seat for seat, count in self._here.items() if count)

    def seat_info(self, seat: SeatRow) -> SeatInfo:
        return SeatInfo(
            seat=seat.seat,
            kind=seat.kind,
            level=seat.level,
            name=seat.name,
            presence=self.presence(seat.seat),
            stand_in=seat.stand_in,
            resigned=seat.seat in self.resigned,
            host=seat.host,
            hints=seat.hints,
        )

    def clock(self) -> Clock:
        """The clock as the pages see it now (the running turn's deadline, if any)."""
        seconds = self.clock_seconds if self.clock_mode != "none" else None
        clock = Clock(mode=self.clock_mode, seconds=seconds, stand_in_level=self.stand_in_level)  # type: ignore[arg-type]
        if self._deadline is None:
            return clock
        seat, _, deadline = self._deadline
        remaining = max(0.0, deadline - time.time())
        moment = datetime.fromtimestamp(deadline, UTC).isoformat(timespec="milliseconds")
        return clock.model_copy(
            update={
                "seat": seat,
                "deadline": moment.replace("+00:00", "Z"),
                "remaining": round(remaining, 3),
            }
        )

    def meta(self) -> GameMeta:
        return GameMeta(
            game_id=self.game_id,
            players=self.players,
            rules=self.rules.token(),
            seats=[self.seat_info(seat) for seat in self.seats],
            first_seat=self.first_seat,
            lang=self.lang,
            created=iso_time(self.created),
            status=play_status(self.status),
            clock=self.clock(),
            hints=self.hints,
            rematch=self.rematch,
        )

    def log(self, lang: str) -> list[str]:
        """The game log in ``lang``, one entry per action (cached)."""
        lines = self._logs.setdefault(lang, [])
        for event in self.events[len(lines) :]:
            lines.append(describe_event(event, lang))
        return lines

    def preview(self) -> PreviewView | None:
        """The core's preview of each orientation while a player orients (else None:
        a bot needs none, and it costs a third of a millisecond)."""
        version, preview = self._preview
        if version != self.version:
            state = self.state
            preview = None
            if state.phase is Phase.ORIENT and mover_kind(state, self.seats) == "human":
                preview = preview_view(state)
            self._preview = (self.version, preview)
        return preview

    def turn_summaries(self, lang: str) -> list[TurnSummary]:
        """Every finished player turn, oldest first (not cached: welcomes only)."""
        log = self.log(lang)
        done = finished(self.spans, self.state)
        return [summary(n, span, self.events, log) for n, span in enumerate(done, 1)]

    def last_move(self, lang: str) -> TurnSummary | None:
        """The last finished turn (made once per turn and language)."""
        done = finished(self.spans, self.state)
        cached = self._last_moves.get(lang)
        if cached is not None and cached[0] == len(done):
            return cached[1]
        last = summary(len(done), done[-1], self.events, self.log(lang)) if done else None
        self._last_moves[lang] = (len(done), last, None if last is None else last.model_dump())
        return last

    def _last_move_data(self, lang: str) -> dict[str, Any] | None:
        self.last_move(lang)
        return self._last_moves[lang][2]

    def since(self, seats: frozenset[int], lang: str) -> list[TurnSummary]:
        """The finished turns after the last finished turn of one of ``seats``."""
        if not seats:
            return []
        done = finished(self.spans, self.state)
        first = 0
        for index in range(len(done) - 1, -1, -1):
            if done[index].seat in seats:
                first = index + 1
                break
        first = max(first, len(done) - MAX_SINCE)
        log = self.log(lang)
        return [summary(n + 1, done[n], self.events, log) for n in range(first, len(done))]

    def awaits_tokens(self) -> bool:
        """Whether a human seat has no token yet (a rematch's, until its player comes
        back to the finished game)."""
        return any(seat.kind == "human" and seat.token_hash is None for seat in self.seats)

    def seats_for(self, tokens: Sequence[str]) -> tuple[dict[int, str], int]:
        """The seats these tokens open (each with its token), and how many tokens
        matched no seat."""
        seats: dict[int, str] = {}
        unknown = 0
        for token in tokens:
            digest = hash_token(token)
            found = [
                seat.seat
                for seat in self.seats
                if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest)
            ]
            seats.update((seat, token) for seat in found)
            unknown += not found
        return seats, unknown

    # -- connections ------------------------------------------------------------------

    def attach(self, client: Client) -> None:
        """Register a connection and queue its ``welcome`` (atomically: no update can
        come between the welcome and the connection's registration)."""
        before = self._presences()
        self.clients.add(client)
        if client not in self._counted:
            self._counted.add(client)
            self._here.update(client.seats)
        self._send_welcome(client)
        self._presence_changed(before, skip=client)

    def _send_welcome(self, client: Client) -> None:
        welcome = Welcome(
            game=self.meta(),
            you=sorted(client.seats),
            version=self.version,
            state=self.view(),
            log=self.log(client.lang),
            legal=self.legal_map(client),
            preview=self.preview(),
            last_move=self.last_move(client.lang),
            since=self.since(client.seats, client.lang),
            analysis=self.analysis,
        )
        client.send(welcome.model_dump_json())
        if self.has_bots and self.manager.bots.busy:
            client.send(BotsBusy(busy=True).model_dump_json())
        if self.rematch is not None:
            self._later(self._send_rematch(client))

    def _presences(self) -> list[Presence]:
        return [self.presence(seat) for seat in range(self.players)]

    def _presence_changed(self, before: list[Presence], skip: Client | None = None) -> None:
        """Tell the connections (but ``skip``, just welcomed) and the other instances
        of seats that came or left."""
        if self._tell_presence(before, skip):
            self.manager.cluster.presence(self.game_id, self.local_seats())

    def set_remote(self, instance: str, seats: frozenset[int]) -> None:
        """Another instance says which of this game's seats its connections hold."""
        before = self._presences()
        if seats:
            self.remote[instance] = seats
        else:
            self.remote.pop(instance, None)
        self._tell_presence(before)

    def keep_remote(self, living: set[str]) -> None:
        """Forget the connections of instances that are gone (killed: they could not
        say their pages closed)."""
        if self.remote.keys() - living:
            before = self._presences()
            for instance in self.remote.keys() - living:
                del self.remote[instance]
            self._tell_presence(before)

    def _tell_presence(self, before: list[Presence], skip: Client | None = None) -> bool:
        """Tell the connections (but ``skip``) of the seats whose presence changed
        since ``before``; whether any did."""
        after = self._presences()
        changed = False
        for seat in range(self.players):
            if before[seat] != after[seat]:
                reason: ChangeReason = "connected" if after[seat] == "connected" else "away"
                self.broadcast_meta(reason, seat, skip)
                changed = True
        return changed

    def view(self) -> StateView:
        """The state view of the current position (computed once per version)."""
        if self._view is None:
            self._view = state_view(self.state)
        return self._view

    async def _resync(self) -> None:
        game = await self.manager.store.load_game(self.game_id)
        if game is None:
            self.manager.forget(self)
            return
        self._load(game)
        for client in list(self.clients):
            self._send_welcome(client)

    def detach(self, client: Client) -> None:
        before = self._presences()
        self.clients.discard(client)
        if client in self._counted:
            self._counted.discard(client)
            self._here.subtract(client.seats)
        self._presence_changed(before)
        self.manager.release(self)

    def _broadcast(self, events: Sequence[Event]) -> None:
        """Send every connection the update after ``events`` (already applied): the
        events, their log lines, what changed in the view (or the view), legal tokens."""
        before = self._view
        self._view = None
        if not self.clients:
            return  # nobody to tell: the view waits until someone connects
        after = self.view()
        changes: StateView | None = None
        if before is not None:
            try:
                changes = view_changes(before, after)
            except NeedView:
                changes = None
        views = [event_view(event) for event in events]
        preview = self.preview()
        clock = self.clock()
        turns = len(finished(self.spans, self.state))
        turn_ended, self._turns_told = turns != self._turns_told, turns
        shared: dict[str, str] = {}  # by language: the update but for each one's legal tokens
        for client in list(self.clients):
            text = shared.get(client.lang)
            if text is None:
                lines = self.log(client.lang)[self.version - len(events) :]
                update = Update.model_construct(
                    version=self.version,
                    events=views,
                    log=lines,
                    changes=changes,
                    state=after if changes is None else None,
                    preview=preview,
                    last_move=self._last_move_data(client.lang) if turn_ended else None,
                    clock=clock,
                    legal={},
                )
                text = shared[client.lang] = update.json_without_legal()
            client.send(Update.json_with_legal(text, self.legal_map(client)))

    def tell_bots_busy(self, busy: bool) -> None:
        """Say to this game's connections whether the server's bots are busy."""
        if self.has_bots and self.clients:
            text = BotsBusy(busy=busy).model_dump_json()
            for client in list(self.clients):
                client.send(text)

    def broadcast_meta(
        self, reason: ChangeReason, seat: int | None = None, skip: Client | None = None
    ) -> None:
        if not self.clients:
            return
        text = GameChanged(game=self.meta(), reason=reason, seat=seat).model_dump_json()
        for client in list(self.clients):
            if client is not skip:
                client.send(text)

    def close_clients(self) -> None:
        for client in list(self.clients):
            client.close()
        self.clients.clear()

    def _later(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run a coroutine of this room in the background (kept until it ends)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- actions ----------------------------------------------------------------------

    async def act(self, client: Client, seat: int, version: int, token: str) -> None:
        """Apply a client's action or raise :class:`ProtocolError` (nothing changed)."""
        self._check_holder(client, seat)
        await self.submit(seat, version, token)

    def _check_holder(self, client: Client, seat: int) -> None:
        if seat not in client.seats:
            if not client.seats:
                raise ProtocolError("not_your_seat", "spectators cannot act")
            held = ", ".join(str(s) for s in sorted(client.seats))
            raise ProtocolError(
                "not_your_seat",
                f"this connection holds a token for seat {held}, not for seat {seat}",
            )

    # -- hints ------------------------------------------------------------------------

    def ask_hint(self, client: Client, seat: int | None) -> None:
        """Send ``client`` (only) advice for its seat's decision, computed in a bot
        worker in the background (or the position's cached advice), or raise
        :class:`ProtocolError` saying why not. Advice the game moved past while it was
        computed is dropped."""
        seat = self._check_hint(client, seat)
        version = self.version
        if self._hint is None or self._hint[0] != version:
            task = asyncio.get_running_loop().create_task(
                self._advise(version, self.state), name=f"hint for game {self.game_id}"
            )
            self._hint = (version, task)
        self._later(self._send_hint(client, seat, version, self._hint[1]))

    def _check_hint(self, client: Client, seat: int | None) -> int:
        """The seat to advise, or :class:`ProtocolError` saying why no hint is given."""
        if not self.hints:
            raise ProtocolError(
                "hints_off", "this game does not allow hints (its creator turned them off)"
            )
        if not client.seats:
            raise ProtocolError("not_your_seat", "spectators cannot ask for hints")
        mover = self.mover()
        if seat is None:
            seat = mover if mover in client.seats else min(client.seats)
        self._check_holder(client, seat)
        state = self.state
        self._check_playing("the game is over: there is nothing to advise")
        self._check_mover(seat, "a hint is for your own decision: ")
        if state.phase not in (Phase.ORIENT, Phase.PLACE):
            raise ProtocolError(
                "not_your_turn",
                "a hint is for a decision (orient or place), found the"
                f" {state.phase.name.lower()} phase: roll the die first",
            )
        return seat

    async def _advise(self, version: int, state: State) -> HintAdvice:
        """The hint of ``state`` (at ``version``), from a bot worker (decisions first)."""
        options = await self.manager.bots.run(advise, state.notation())
        return HintAdvice(
            version=version,
            seat=state.to_move,
            options=[HintOption(action=a, chance=c, share=s) for a, c, s in options],
        )

    async def _send_hint(
        self, client: Client, seat: int, version: int, task: asyncio.Task[HintAdvice]
    ) -> None:
        try:
            advice = await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the hint of game %s at version %d failed", self.game_id, version)
            if self._hint is not None and self._hint[1] is task:
                self._hint = None  # the next ask tries again
            error = ProtocolError("server_error", "the server could not compute the hint")
            client.send(_error_json(error, self.version))
            return
        if self.closed or self.version != version or client not in self.clients:
            return  # the position moved on: this advice is for one nobody sees any more
        await self._count_hint(seat, version)
        if self.version == version:
            client.send(advice.model_dump_json())

    async def _count_hint(self, seat: int, version: int) -> None:
        """Count ``seat``'s hint (once per position: here, and in the store for a room
        reloaded or owned by another instance since), store it and tell everyone."""
        counted_at, seats = self._hinted
        if counted_at != version:
            seats = set()
            self._hinted = (version, seats)
        if seat in seats:
            return
        seats.add(seat)
        count = self.seats[seat].hints + 1
        try:
            # The store counts once per seat and version, across reloads and instances.
            count = await self.manager.store.count_hint(self.game_id, seat, version)
        except Exception:  # the advice is still given; the count lives in memory
            log.exception("could not store a hint of game %s", self.game_id)
        if count == self.seats[seat].hints:
            return  # counted for this position before this room was loaded
        self.seats[seat] = replace(self.seats[seat], hints=count)
        self.broadcast_meta("hint", seat)
        self.manager.cluster.seats_changed(self.game_id, "hint", seat)

    async def command(self, client: Client, message: SeatMessage) -> None:
        """Apply a seat's or the host's message (resign, start, replace, kick,
        take_back, rematch) or raise :class:`ProtocolError` (nothing changed)."""
        if isinstance(message, ResignMessage | TakeBackMessage):
            self._check_holder(client, message.seat)
            name = "resign" if isinstance(message, ResignMessage) else "take_back"
            await self.submit(message.seat, COMMAND, f"{name}:{message.seat}")
            return
        if isinstance(message, RematchMessage):
            if not client.seats:
                raise ProtocolError("not_your_seat", "spectators cannot ask for a rematch")
            await self.submit(min(client.seats), COMMAND, "rematch")
            return
        host = self.host
        if host is None or host not in client.seats:
            who = "this game has no host yet" if host is None else f"the host is seat {host}"
            raise ProtocolError("not_host", f"only the host may do this: {who}")
        if isinstance(message, StartMessage):
            token = f"start:{message.level or DEFAULT_LEVEL}"
        elif isinstance(message, ReplaceMessage):
            token = f"replace:{message.seat}:{message.level or self.stand_in_level}"
        elif isinstance(message, KickMessage):
            token = f"kick:{message.seat}"
        await self.submit(host, COMMAND, token)

    async def submit(self, seat: int, version: int, token: str) -> None:
        """Apply the action (or, at version :data:`COMMAND`, the command) of a seat
        whose token was checked (here, or by the instance that forwarded it), or raise
        :class:`ProtocolError` (nothing changed)."""
        for _ in range(3):
            async with self.lock:
                if version == COMMAND:
                    self._check_command(seat, token)
                    if self.owner:
                        await self._apply_command(seat, token)
                        return
                else:
                    self._check(seat, version, token)
                    if self.owner:
                        state = self.state
                        if state.phase is Phase.ROLL:
                            action = sample_outcome(state, self.die)
                        else:
                            action = parse_action(token)
                        await self._accept(action)
                        return
            # A follower: the owner applies it (the update then comes from the store).
            if await self.manager.cluster.forward(self, seat, version, token):
                return
            await self.promote()  # the owner was gone: this instance owns the game now
        raise ProtocolError("server_error", "the game's server changed; try again")

    def _check(self, seat: int, version: int, token: str) -> None:
        """Refuse an action that cannot be applied now (call with :attr:`lock` held)."""
        self._check_playing("the game is over")
        if version != self.version:
            raise ProtocolError(
                "stale_version",
                f"expected version {self.version} (the current one), found "
                f"{version}: apply the latest update first",
            )
        self._check_mover(seat)
        legal = self.legal_for(seat)
        if token not in legal:
            raise ProtocolError("illegal_action", self._illegal(seat, token, legal))

    def _check_playing(self, over: str) -> None:
        """Refuse anything but play: the game is over (``over`` says so) or waits."""
        if self.state.is_terminal:
            raise ProtocolError("game_over", over)
        if self.status == "waiting":
            raise ProtocolError(
                "not_started", "the game waits for its open seats (or for the host to start)"
            )

    def _check_mover(self, seat: int, prefix: str = "") -> None:
        """Refuse unless ``seat``'s player is the one the game waits for."""
        mover = self.mover()
        if mover != seat:
            whose = "nobody's" if mover is None else f"seat {mover}'s"
            raise ProtocolError(
                "not_your_turn",
                f"{prefix}it is {whose} turn ({self._who(mover)}), not seat {seat}'s",
            )
        if self.seats[seat].stand_in:
            raise ProtocolError(
                "not_your_turn",
                f"a bot plays for seat {seat} ({self._who(seat)}): take the seat back first",
            )

    def _check_seat(self, seat: int) -> SeatRow:
        if not 0 <= seat < self.players:
            raise ProtocolError(
                "no_such_seat", f"expected a seat 0..{self.players - 1}, found {seat}"
            )
        return self.seats[seat]

    def _check_command(self, seat: int, token: str) -> None:
        """Refuse a command that cannot be applied now (call with :attr:`lock` held)."""
        name, *args = token.split(":")
        state = self.state
        waiting = self.status == "waiting"
        if name == "rematch":
            if not state.is_terminal:
                raise ProtocolError(
                    "not_over", "the game is not over: a rematch comes after the end"
                )
            return
        if name == "start":
            if not waiting:
                raise ProtocolError("already_started", "the game has already started")
            return
        target = self._check_seat(int(args[0]))
        if name == "kick":
            if not waiting:
                raise ProtocolError(
                    "already_started", "the game has started: seats can no longer be opened"
                )
            if target.kind != "human" or not target.joined or target.host:
                raise ProtocolError(
                    "not_human",
                    f"seat {target.seat} is not a seat taken from the lobby: only those"
                    " can be opened again",
                )
            self._check_away(target)
            return
        if name == "take_back":
            if target.stand_in is None:
                raise ProtocolError("no_stand_in", f"no bot stands in for seat {target.seat}")
            return
        # resign, replace: during play only
        if state.is_terminal:
            raise ProtocolError("game_over", "the game is over")
        if waiting:
            raise ProtocolError(
                "not_started", "the game waits for its open seats (or for the host to start)"
            )
        if target.seat in self.resigned or target.seat in self._pending_resigns:
            raise ProtocolError("already_resigned", f"seat {target.seat} has already resigned")
        if target.seat in state.eliminated:
            raise ProtocolError("already_resigned", f"seat {target.seat} is out of the game (R13)")
        if name == "replace":
            if target.kind != "human":
                raise ProtocolError(
                    "not_human",
                    f"seat {target.seat} is {'a bot' if target.kind == 'bot' else 'open'}:"
                    " only a player's seat can be given to a bot",
                )
            self._check_away(target)

    def _check_away(self, target: SeatRow) -> None:
        if self.presence(target.seat) == "connected":
            raise ProtocolError(
                "seat_connected",
                f"seat {target.seat}'s player is here: only an absent player's seat can be"
                " given away",
            )

    async def _apply_command(self, seat: int, token: str) -> None:
        """Apply a checked command (call with :attr:`lock` held, as the owner)."""
        name, *args = token.split(":")
        if name == "rematch":
            await self._make_rematch()
            return
        if name == "resign":
            await self._resign(int(args[0]))
            return
        seats = list(self.seats)
        reason: ChangeReason
        target: int | None = None
        if name == "start":
            level = args[0]
            seats = [
                SeatRow(row.seat, "bot", level, row.name) if row.kind == "open" else row
                for row in seats
            ]
            reason = "started"
        elif name == "replace":
            target = int(args[0])
            seats[target] = replace(seats[target], stand_in=args[1])
            reason = "replaced"
        elif name == "kick":
            target = int(args[0])
            seats[target] = SeatRow(target, "open")
            reason = "kicked"
        else:  # take_back
            target = int(args[0])
            seats[target] = replace(seats[target], stand_in=None)
            self._deadline = None  # a full turn's time from now
            reason = "took_back"
        await self._save_seats(seats, reason, target)

    async def _save_seats(
        self, seats: list[SeatRow], reason: ChangeReason, seat: int | None
    ) -> None:
        """Store the seats, then apply and tell (call with :attr:`lock` held)."""
        status = game_status(self.state, seats)
        try:
            await self.manager.store.update_seats(
                self.game_id, seats, status, bot_to_move(self.state, seats)
            )
        except Exception:
            log.exception("could not store the seats of game %s", self.game_id)
            raise ProtocolError(
                "server_error", "the server could not store the change; nothing changed"
            ) from None
        self._take_seats(seats)
        self.broadcast_meta(reason, seat)
        self.manager.cluster.seats_changed(self.game_id, reason, seat)
        self.kick()

    def _take_seats(self, seats: list[SeatRow]) -> None:
        """Use these seats from now on. Connections whose legal tokens change get a
        fresh welcome: all of them when the game starts (or waits again), a seat's own
        when a bot starts or stops standing in for it."""
        status, stand_ins = self.status, [row.stand_in for row in self.seats]
        self.seats = seats
        self._legal = (-1, [])
        self._update_deadline()
        changed = {n for n, row in enumerate(seats) if row.stand_in != stand_ins[n]}
        for client in list(self.clients):
            if self.status != status or client.seats & changed:
                self._send_welcome(client)

    async def _resign(self, seat: int) -> None:
        """R22: now at a decision; at the seat's own roll, after the roll; at another
        seat's roll, at the next decision."""
        state = self.state
        if state.phase is Phase.ROLL:
            if self.mover() == seat:
                await self._accept(sample_outcome(state, self.die), resign=seat)
            else:
                pending = frozenset({*self._pending_resigns, seat})
                try:  # stored before it is acknowledged, as an action would be
                    await self.manager.store.save_turn_state(self.game_id, self._deadline, pending)
                except Exception as error:
                    log.exception("could not store a resignation of game %s", self.game_id)
                    raise ProtocolError(
                        "server_error", "the server could not store the resignation: send it again"
                    ) from error
                self._pending_resigns.add(seat)
                self._stored_turn = (self._deadline, pending)
            return
        await self._accept(Resign(seat))

    def _illegal(self, seat: int, token: str, legal: list[str]) -> str:
        """Why ``token`` is refused: for an action of the core, the core's own message
        (:meth:`State.illegal_action_error`); else the tokens the seat may send (at its
        ROLL only ``roll``: the server rolls the die)."""
        state = self.state
        if state.phase is not Phase.ROLL:
            try:
                action = parse_action(token)
            except NotationError:
                action = None
            if action is not None and str(action) == token:
                return str(state.illegal_action_error(action))
        expected = ", ".join(legal)
        return f"{token!r} is not a token seat {seat} may send now: expected one of {expected}"

    def _who(self, seat: int | None) -> str:
        if seat is None:
            return "the server's"
        name = seat_name(seat, self.players)
        row = self.seats[seat]
        return f"{name}, a bot" if row.kind == "bot" or row.stand_in else name

    async def _accept(self, action: Action | None, resign: int | None = None) -> None:
        """Store, apply and broadcast ``action`` followed by any DRAW the server reveals
        and any resignation due (``resign``, then those pending).

        Call with :attr:`lock` held. ``None`` only settles pending DRAWs.
        """
        events: list[Event] = []
        state = self.state
        if action is not None:
            events.append(state.describe(action))
            state = events[-1].after
        resigning = [] if resign is None else [resign]
        while True:
            while state.phase is Phase.DRAW:  # the server reveals 2-player pile tops (R7)
                events.append(state.describe(sample_outcome(state, self.die)))
                state = events[-1].after
            if state.phase not in (Phase.ORIENT, Phase.PLACE):
                break
            due = [
                s for s in (*resigning, *sorted(self._pending_resigns)) if s not in state.eliminated
            ]
            if not due:
                break
            resigning = []
            self._pending_resigns.discard(due[0])
            events.append(state.describe(Resign(due[0])))
            state = events[-1].after
        self._pending_resigns.difference_update(state.eliminated)
        if not events:
            return
        rows = [ActionRow(str(event.action), event.seat) for event in events]
        status: GameStatus = game_status(state, self.seats)
        turns = turn_number(self.spans, state, status == "waiting", events)
        try:
            await self.manager.store.append_actions(
                self.game_id, self.version, rows, status, bot_to_move(state, self.seats), turns
            )
        except StoreConflict:
            # Another server instance moved this game on: this copy is stale. Catch up
            # from the store and send everyone a fresh welcome, then refuse the action.
            log.warning("game %s changed in the store behind this server", self.game_id)
            await self._resync()
            self.owner = await self.manager.cluster.claim(self.game_id)
            raise ProtocolError(
                "stale_version", "the game moved on elsewhere: this is the latest state"
            ) from None
        except Exception:
            log.exception("could not store an action of game %s", self.game_id)
            raise ProtocolError(
                "server_error", "the server could not store the action; nothing changed"
            ) from None
        self._apply(events)
        self.kick()

    def _apply(self, events: list[Event]) -> None:
        """Take stored ``events`` in: state, turns, resignations, clock, broadcast."""
        self.events.extend(events)
        self.state = events[-1].after
        extend_turns(self.spans, self.events)
        resigned = [e.action.seat for e in events if isinstance(e.action, Resign)]
        self.resigned.update(resigned)
        self._update_deadline()
        self._broadcast(events)
        for seat in resigned:
            self.broadcast_meta("resigned", seat)
        if self.state.is_terminal and self.owner:
            self.manager.analyse_later(self)

    # -- the clock --------------------------------------------------------------------

    def _clock_target(self) -> tuple[int, int] | None:
        """The (seat, turn) whose time runs now, or None."""
        if self.clock_mode == "none" or self.status != "running":
            return None
        seat = self.mover()
        if seat is None:
            return None
        row = self.seats[seat]
        if row.kind != "human" or row.stand_in:
            return None
        return seat, self.turn_number()

    def _update_deadline(self) -> None:
        """Start the running turn's clock if the turn is new; the owner also stores it
        (with the pending resignations, when either changed) and sets the timer that
        puts a stand-in in the seat when time runs out."""
        target = self._clock_target()
        if target is None:
            self._deadline = None
        elif self._deadline is None or self._deadline[:2] != target:
            self._deadline = (*target, time.time() + self.clock_seconds)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self.owner or self.closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no running loop: stored and armed at the next change
            return
        turn = (self._deadline, frozenset(self._pending_resigns))
        if turn != self._stored_turn:
            self._stored_turn = turn
            self._later(self._save_turn_state(*turn))
        if self._deadline is not None:
            delay = max(0.0, self._deadline[2] - time.time())
            self._timer = loop.call_later(delay, self._time_out, self._deadline[:2])

    async def _save_turn_state(
        self, turn_clock: tuple[int, int, float] | None, pending_resigns: frozenset[int]
    ) -> None:
        try:
            await self.manager.store.save_turn_state(self.game_id, turn_clock, pending_resigns)
        except Exception:  # they live on here; a restart would lose them
            log.exception("could not store the turn state of game %s", self.game_id)

    def _time_out(self, target: tuple[int, int]) -> None:
        self._timer = None
        self._later(self._stand_in(target))

    async def _stand_in(self, target: tuple[int, int]) -> None:
        async with self.lock:
            if self.closed or not self.owner or self._clock_target() != target:
                return
            seat = target[0]
            seats = list(self.seats)
            seats[seat] = replace(seats[seat], stand_in=self.stand_in_level)
            try:
                await self._save_seats(seats, "timeout", seat)
            except ProtocolError:
                self._deadline = None  # try again after a while
                self._update_deadline()

    # -- rematch and analysis -------------------------------------------------------

    async def _make_rematch(self) -> None:
        """Create the rematch (once), then give each connection its seats' links."""
        if self.rematch is None:
            self.rematch = await self.manager.create_rematch(self)
            self.broadcast_meta("rematch")
            self.manager.cluster.seats_changed(self.game_id, "rematch", None)
        for client in list(self.clients):
            self._later(self._send_rematch(client))

    async def _send_rematch(self, client: Client) -> None:
        """Send a connection its seats' tokens in the rematch (activating them)."""
        rematch = self.rematch
        if rematch is None:
            return
        seats = []
        for seat, token in sorted(client.tokens.items()):
            new = rematch_token(token, rematch)
            await self.manager.activate(rematch, seat, hash_token(new))
            seats.append(RematchSeat(seat=seat, token=new, link=seat_link(rematch, new)))
        ready = RematchReady(game_id=rematch, seats=seats, spectator_link=f"/g/{rematch}")
        client.send(ready.model_dump_json())

    def analysed(self, analysis: Analysis) -> None:
        """The finished game's analysis is ready: keep it and send it."""
        self.analysis = analysis
        text = AnalysisReady(analysis=analysis).model_dump_json()
        for client in list(self.clients):
            client.send(text)

    # -- following another instance ---------------------------------------------------

    async def follow(
        self, version: int | None = None, rows: Sequence[ActionRow] | None = None
    ) -> None:
        """Apply what the store holds after this room's version (up to ``version``, if
        known): ``rows`` are those actions if the caller has them, else they are read."""
        async with self.lock:
            if self.closed or (version is not None and version <= self.version):
                return
            if rows is None or version is None or version - len(rows) != self.version:
                rows = await self.manager.store.load_actions(self.game_id, self.version)
            events: list[Event] = []
            state = self.state
            for row in rows:
                events.append(state.describe(parse_action(row.token)))
                state = events[-1].after
            if not events:
                return
            self._apply(events)

    async def reload_seats(
        self, reason: ChangeReason | None = None, seat: int | None = None
    ) -> None:
        """Take the seats (and rematch, analysis) from the store again: another
        instance changed them."""
        game = await self.manager.store.load_game(self.game_id)
        if game is None:
            return
        self._take_seats(list(game.seats))
        if game.analysis is not None and self.analysis is None:
            self.analysed(Analysis.model_validate_json(game.analysis))
        if game.rematch is not None and self.rematch is None:
            self.rematch = game.rematch
            for client in list(self.clients):
                self._later(self._send_rematch(client))
        if reason is not None:
            self.broadcast_meta(reason, seat)
        self.kick()

    async def promote(self) -> None:
        """This instance now owns the game: catch up with the store, go on with any
        pending reveal and the bots."""
        await self.follow()
        async with self.lock:
            self.owner = True
            await self._accept(None)
        self._update_deadline()
        self.kick()

    # -- bots -------------------------------------------------------------------------

    def kick(self) -> None:
        """Start the bot loop if this instance owns the game, a bot is to move and no
        loop runs."""
        if self.closed or not self.owner or self._bot_task is not None or not self.bot_to_move():
            return
        self._bot_task = asyncio.get_running_loop().create_task(
            self._bot_loop(), name=f"bots of game {self.game_id}"
        )

    @property
    def bot_busy(self) -> bool:
        return self._bot_task is not None

    async def _bot_loop(self) -> None:
        loop = asyncio.get_running_loop()
        manager = self.manager
        try:
            while not self.closed and self.owner and self.bot_to_move():
                version = self.version
                state = self.state
                seat = self.mover()
                assert seat is not None
                started = loop.time()
                if state.phase is Phase.ROLL:
                    action = sample_outcome(state, self.die)
                else:
                    row = self.seats[seat]
                    level = row.stand_in or row.level or DEFAULT_LEVEL
                    bot = None if manager.bots.processes else self._bot(seat, level)
                    seed = self.bot_rng.getrandbits(64)
                    action = await manager.bots.choose(bot, level, state, seed)
                    if action not in state.legal_actions():  # a bot bug must not stall a game
                        who = f"game {self.game_id}, the bot of seat {seat}"
                        log.error("%s", state.illegal_action_error(action, who=who))
                        action = state.legal_actions()[0]
                # Thinking counts towards the pause that lets people see each bot move.
                await asyncio.sleep(max(0.0, manager.bot_delay - (loop.time() - started)))
                async with self.lock:
                    # A player who took the seat back meanwhile decides, not the bot.
                    if (
                        self.closed
                        or not self.owner
                        or self.version != version
                        or not self.bot_to_move()
                    ):
                        continue
                    try:
                        await self._accept(action)
                    except ProtocolError as error:
                        log.error("bot move in game %s refused: %s", self.game_id, error.message)
                        return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the bots of game %s stopped", self.game_id)
        finally:
            self._bot_task = None
            manager.release(self)

    def _bot(self, seat: int, level: str) -> Bot:
        bot = self._bots.get((seat, level))
        if bot is None:
            bot = self._bots[seat, level] = self.manager.bots.make_bot(level)
        return bot

    async def stop(self) -> None:
        """Cancel the bot loop and the clock (at shutdown) and drop the connections."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        if self._hint is not None:
            self._hint[1].cancel()
        for pending in [self._bot_task, *self._tasks]:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pending
        self.close_clients()


def _resumed(game: StoredGame) -> tuple[int, int, float] | None:
    """The stored turn clock of ``game``, with at least :data:`RESUME_SECONDS` left (or
    the turn's whole time, if shorter) from now: the players could not play while no
    instance ran the game."""
    if game.turn_clock is None:
        return None
    seat, turn, deadline = game.turn_clock
    return seat, turn, max(deadline, time.time() + min(RESUME_SECONDS, game.clock_seconds))


def _error_json(error: ProtocolError, version: int) -> str:
    return ErrorMessage(code=error.code, message=error.message, version=version).model_dump_json()


def game_status(state: State, seats: Sequence[SeatRow]) -> GameStatus:
    """``over``, ``waiting`` (a seat is still open: nobody plays yet) or ``running``."""
    if state.is_terminal:
        return "over"
    return "waiting" if any(seat.kind == "open" for seat in seats) else "running"


def seat_to_move(state: State) -> int | None:
    """The seat the server waits for (``roll`` at its ROLL), or None: over, or a DRAW,
    which the server reveals at once."""
    if state.phase is Phase.ROLL:
        return state.turn
    if state.is_chance or state.is_terminal:
        return None
    return state.to_move


def mover_kind(state: State, seats: Sequence[SeatRow]) -> str | None:
    """Who decides for the seat the server waits for: ``bot`` (a bot seat, or a bot
    standing in for a player), ``human``, or None if it waits for none."""
    seat = seat_to_move(state)
    if seat is None:
        return None
    row = seats[seat]
    return "bot" if row.kind == "bot" or row.stand_in else row.kind


def bot_to_move(state: State, seats: Sequence[SeatRow]) -> bool:
    """Whether a bot is to move in a started game (bots wait for the open seats)."""
    return game_status(state, seats) == "running" and mover_kind(state, seats) == "bot"
