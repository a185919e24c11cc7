"""One live game: its state, its connections, the store, the broadcast.

A :class:`Room` is one game in memory, rebuilt from the store's action log when it is
first needed. It accepts an action only for the current version, when the seat is to
move and the core says the action is legal; it writes the action to the store, and only
then broadcasts what changed. The server rolls the die (a seeded ``random.Random`` per
room) and reveals 2-player pile tops.

The room is the game's master, as boardgame.io's is; what happens around the game
lives in modules of its own, each given what it needs (:class:`RoomServices`: the
store, the relay to other instances, the bot workers) rather than reaching through
the instance's :class:`~marrakech.web.room_manager.RoomManager`:

- :mod:`~marrakech.web.room.handlers`: one handler per client message, by type;
- :mod:`~marrakech.web.room.seat_commands`: resign (R22), start, replace, kick, take
  back, rematch, each checked then applied;
- :mod:`~marrakech.web.room.presence`, :mod:`~marrakech.web.room.clock`,
  :mod:`~marrakech.web.room.hints`, :mod:`~marrakech.web.room.bot_loop`,
  :mod:`~marrakech.web.room.rematch`, :mod:`~marrakech.web.room.updates`.

When several instances share a database (:mod:`marrakech.web.cluster`), a room is its
game's **owner** (it applies, stores and broadcasts actions, runs the bots) or a
**follower**: it checks its clients' messages the same way, forwards them to the owner,
and applies what the owner stored (:meth:`Room.follow`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from marrakech.actions import Action, Resign, parse_action
from marrakech.events import Event
from marrakech.player_turns import TurnSpan, extend_turns, turn_number
from marrakech.rules import parse_rules
from marrakech.state import Phase, State
from marrakech.web.bot_workers import BotScheduler
from marrakech.web.cluster import Cluster, Move
from marrakech.web.connection import Client
from marrakech.web.protocol import (
    Analysis,
    AnalysisReady,
    BotsBusy,
    ChangeReason,
    Clock,
    ErrorMessage,
    GameChanged,
    GameMeta,
    Legal,
    Presence,
    ProtocolError,
    play_status,
)
from marrakech.web.reminders.hooks import ReminderHooks, TurnTeller
from marrakech.web.room.bot_loop import BotLoop, release_when_idle
from marrakech.web.room.chat import Chat, ChatGate
from marrakech.web.room.clock import Target, TurnClock
from marrakech.web.room.hints import Hints
from marrakech.web.room.meta import game_meta
from marrakech.web.room.presence import SeatPresence, tell_labels
from marrakech.web.room.rematch import send_rematch
from marrakech.web.room.reveals_resigns import final_places, replay, server_moves, stored_actions
from marrakech.web.room.status import bot_to_move, clock_target, game_status, seat_to_move
from marrakech.web.room.updates import Updates
from marrakech.web.store import (
    ActionRow,
    Append,
    GameStatus,
    GameStore,
    SeatRow,
    StoreConflict,
    StoredGame,
)
from marrakech.web.store.retry import RETRY_SECONDS, append_retrying, retrying
from marrakech.web.turn_based_events import TurnEvents

log = logging.getLogger("marrakech.web")

#: The ``version`` of a forwarded seat command (resign, start...): not an action at a
#: version, so a follower never takes a later update for its answer.
COMMAND = 2**31 - 1
#: A stand-in that could not be stored (the database restarting) is tried again after
#: this long.
STAND_IN_RETRY_SECONDS = 5.0


class RoomLobby(Protocol):
    """What a room asks of the rooms of its instance (:class:`RoomManager
    <marrakech.web.room_manager.RoomManager>`)."""

    def release(self, room: Room) -> None:
        """Unload the room if it is idle."""

    def forget(self, room: Room) -> None:
        """Drop a stale room."""

    def analyse_later(self, room: Room) -> None:
        """Analyse the finished game in the background."""

    async def create_rematch(self, room: Room, creator: str, account: str | None = None) -> str:
        """Create the rematch (once, counted against ``creator``'s caps and the
        ``account``'s); its id."""
        ...

    async def activate(self, game_id: str, seat: int, token_hash: str) -> None:
        """Give a rematch's seat its token hash."""

    def check_creation_rate(self, address: str, account: str | None = None) -> None:
        """Take a game creation from ``address``'s budget (and the signed-in
        ``account``'s), or raise ``ApiError``."""


@dataclass(frozen=True)
class RoomServices:
    """What every room of an instance is given: the ``store``, the ``cluster`` (the
    relay to other instances), the ``bots`` (workers), the ``lobby`` of rooms, the
    pause before each bot move, the generators' seed and the ``chat``'s limits."""

    store: GameStore
    cluster: Cluster
    bots: BotScheduler
    lobby: RoomLobby
    bot_delay: float
    seed: str
    chat: ChatGate
    #: Where the rooms tell the reminders of new turns and visits (issue 25).
    reminders: ReminderHooks = field(default_factory=ReminderHooks)
    #: Who listens to the turn-based clocks' turns (reminders).
    turn_events: TurnEvents = field(default_factory=TurnEvents)
    store_retry: float = RETRY_SECONDS  # seconds a failing store is tried again (store/retry.py)

    def rng(self, game_id: str, purpose: str, version: int) -> random.Random:
        """A generator for one room; a resumed room gets fresh draws (``version``)."""
        return random.Random(f"{self.seed}/{game_id}/{purpose}/{version}")


class Room:
    """One game being played: state, log, connections; clock, presence, hints and bots
    in components of their own.

    All changes happen on the event loop under :attr:`lock`; a change is stored (awaited
    in the store's thread) before it is applied in memory and broadcast.
    """

    def __init__(self, services: RoomServices, game: StoredGame, owner: bool = True) -> None:
        self.services = services
        #: Whether this instance owns the game (see the module's docstring).
        self.owner = owner
        #: The game's setting as stored at creation (its seats and actions are read
        #: into :attr:`seats` and :attr:`events`).
        self.setting = game
        self.game_id = game.id
        self.players = game.players
        self.rules = parse_rules(game.rules)
        self.first_seat = game.first_seat
        self.lang = game.lang
        self.created = game.created
        self.stand_in_level = game.stand_in_level
        #: Whether players may ask for hints (a setting of the game, stored with it).
        self.hints = game.hints
        self.start = State.new(self.players, self.rules, self.first_seat)
        self.seats: list[SeatRow] = []
        self.events: list[Event] = []
        self.state = self.start
        self.rematch: str | None = None
        self.analysis: Analysis | None = None
        self.updates = Updates()
        self._load(game)
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.here = SeatPresence()
        self.die = services.rng(game.id, "die", self.version)
        self.closed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.bots = BotLoop(
            self,
            services.bots,
            services.rng(game.id, "bots", self.version),
            services.bot_delay,
            release_when_idle(services.lobby.release, self),
        )
        self.clock = TurnClock(
            game, services.store, self.later, self._time_out, services.turn_events
        )
        self.turn_teller = TurnTeller(services.reminders, self.game_id)
        self.advice = Hints(services.bots, services.store)
        self.chat = Chat(self, services.store, services.cluster, services.chat)
        #: Seats that resigned while another seat's roll was awaited (R22 applies at a
        #: decision): resigned at the next one (stored, so a restart keeps them).
        self.pending_resigns: set[int] = (
            set(game.pending_resigns) - self.resigned - set(self.state.eliminated)
        )
        self.update_clock()

    def _load(self, game: StoredGame) -> None:
        """Take the seats and replay the action log of a stored game."""
        events = replay(self.start, stored_actions(game), f"game {game.id}")
        self.seats = list(game.seats)
        self.events = events
        self.state = events[-1].after if events else self.start
        self.rematch = game.rematch
        if game.analysis is not None:
            self.analysis = Analysis.model_validate_json(game.analysis)
        self.spans: list[TurnSpan] = extend_turns([], events)
        self.resigned: set[int] = {
            event.action.seat for event in events if isinstance(event.action, Resign)
        }
        self.updates.reset(self)
        self._legal: tuple[int, list[str]] = (-1, [])

    # -- what the game is -------------------------------------------------------------

    @property
    def version(self) -> int:
        """Accepted actions so far (rolls and draws included)."""
        return len(self.events)

    @property
    def status(self) -> GameStatus:
        return game_status(self.state, self.seats)

    @property
    def chat_on(self) -> bool:
        """Whether the game has a chat (a setting of its host's)."""
        return self.setting.chat

    @property
    def over(self) -> bool:
        return self.state.is_terminal

    @property
    def has_bots(self) -> bool:
        return any(seat.kind == "bot" or seat.stand_in for seat in self.seats)

    @property
    def host(self) -> int | None:
        """The host's seat (None: nobody hosts yet)."""
        return next((seat.seat for seat in self.seats if seat.host), None)

    @property
    def remote(self) -> dict[str, frozenset[int]]:
        """By instance id: the seats other instances' connections hold."""
        return self.here.remote

    @property
    def bot_busy(self) -> bool:
        return self.bots.busy

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
        return self.here.of(self.seats[seat])

    def local_seats(self) -> frozenset[int]:
        """The seats with a connection on this instance."""
        return self.here.local_seats()

    def clock_view(self) -> Clock:
        """The clock as the pages see it now (the running turn's deadline, if any)."""
        return self.clock.view()

    def meta(self) -> GameMeta:
        seats = [self.here.info(row, row.seat in self.resigned) for row in self.seats]
        status = play_status(self.status)
        return game_meta(
            self.setting, seats, status, self.clock_view(), self.rematch, self.rules.token()
        )

    # -- connections ------------------------------------------------------------------

    def attach(self, client: Client) -> None:
        """Register a connection and queue its ``welcome`` (atomically: no update can
        come between the welcome and the connection's registration)."""
        before = self.here.of_all(self.seats)
        self.clients.add(client)
        self.here.attach(client)
        self.services.reminders.visited(self.game_id, client.seats)
        self.send_welcome(client)
        self._presence_changed(before, skip=client)
        tell_labels(self, before, skip=client)

    def detach(self, client: Client) -> None:
        before = self.here.of_all(self.seats)
        self.clients.discard(client)
        self.here.detach(client)
        self.services.reminders.visited(self.game_id, client.seats)
        self._presence_changed(before)
        self.services.lobby.release(self)

    def send_welcome(self, client: Client) -> None:
        client.send(self.updates.welcome_json(self, client))
        if self.has_bots and self.services.bots.busy:
            client.send(BotsBusy(busy=True).model_dump_json())
        if self.rematch is not None:
            self.later(send_rematch(client, self.rematch, self.services.lobby.activate))
        self.later(self.chat.welcome(client))

    def _presence_changed(self, before: list[Presence], skip: Client | None = None) -> None:
        """Tell the connections (but ``skip``, just welcomed) and the other instances
        of seats that came or left."""
        if self._tell_presence(before, skip):
            self.services.cluster.presence(self.game_id, self.local_seats())

    def set_remote(self, instance: str, seats: frozenset[int]) -> None:
        """Another instance says which of this game's seats its connections hold."""
        before = self.here.of_all(self.seats)
        self.here.set_remote(instance, seats)
        self._tell_presence(before)
        tell_labels(self, before)

    def keep_remote(self, living: set[str]) -> None:
        """Forget the connections of instances that are gone (killed: they could not
        say their pages closed)."""
        before = self.here.of_all(self.seats)
        if self.here.keep_remote(living):
            self._tell_presence(before)

    def _tell_presence(self, before: list[Presence], skip: Client | None = None) -> bool:
        """Tell the connections (but ``skip``) of the seats whose presence changed
        since ``before``; whether any did."""
        after = self.here.of_all(self.seats)
        changed = False
        for seat in range(self.players):
            if before[seat] != after[seat]:
                reason: ChangeReason = "connected" if after[seat] == "connected" else "away"
                self.broadcast_meta(reason, seat, skip)
                changed = True
        return changed

    def tell_bots_busy(self, busy: bool) -> None:
        """Say to this game's connections whether the server's bots are busy."""
        if self.has_bots and self.clients:
            self.send_all(BotsBusy(busy=busy).model_dump_json())

    def broadcast_meta(
        self, reason: ChangeReason, seat: int | None = None, skip: Client | None = None
    ) -> None:
        if not self.clients:
            return
        text = GameChanged(game=self.meta(), reason=reason, seat=seat).model_dump_json()
        self.send_all(text, skip)

    def seats_changed(self, reason: ChangeReason, seat: int | None) -> None:
        """Tell this game's connections, here and on the other instances."""
        self.broadcast_meta(reason, seat)
        self.services.cluster.seats_changed(self.game_id, reason, seat)

    def send_all(self, text: str, skip: Client | None = None) -> None:
        for client in list(self.clients):
            if client is not skip:
                client.send(text)

    def send_error(self, client: Client, error: ProtocolError) -> None:
        message = ErrorMessage(code=error.code, message=error.message, version=self.version)
        client.send(message.model_dump_json())

    def close_clients(self) -> None:
        for client in list(self.clients):
            client.close()
        self.clients.clear()

    def later(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run a coroutine of this room in the background (kept until it ends)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- actions ----------------------------------------------------------------------

    async def submit(
        self,
        seat: int,
        version: int,
        move: Move,
        check: Callable[[], None],
        apply: Callable[[], Awaitable[None]],
    ) -> None:
        """Apply a seat's ``move`` (an action's token at ``version``, or a seat command
        at :data:`COMMAND`) whose sender was checked (here, or by the instance that
        forwarded it): ``check`` refuses it, raising :class:`ProtocolError` (nothing
        changed); the owner then ``apply``-s it, a follower forwards it to the owner."""
        for _ in range(3):
            async with self.lock:
                check()
                if self.owner:
                    await apply()
                    return
            # A follower: the owner applies it (the update then comes from the store).
            if await self.services.cluster.forward(self, seat, version, move):
                return
            await self.promote()  # the owner was gone: this instance owns the game now
        raise ProtocolError("server_error", "the game's server changed; try again")

    async def accept(self, action: Action | None, resign: int | None = None) -> None:
        """Store, apply and broadcast ``action`` followed by any DRAW the server reveals
        and any resignation due (``resign``, then those pending).

        Call with :attr:`lock` held, as the owner. ``None`` only settles pending DRAWs
        (after a crash between storing an action and its reveal).
        """
        events = server_moves(self.state, action, resign, self.pending_resigns, self.die)
        if not events:
            return
        state = events[-1].after
        rows = [ActionRow(str(event.action), event.seat) for event in events]
        status, moving = game_status(state, self.seats), bot_to_move(state, self.seats)
        turns = turn_number(self.spans, state, status == "waiting", events)
        end = (
            final_places(state, events, self.resigned, self.seats, self.setting.rated)
            if state.is_terminal
            else None
        )
        append = Append(self.game_id, self.version, tuple(rows), status, moving, turns, end)
        try:  # a store failing for a moment is tried again first (store/retry.py)
            await append_retrying(self.services.store, append, self.services.store_retry)
        except StoreConflict:
            # Another server instance moved this game on: this copy is stale. Catch up
            # from the store and send everyone a fresh welcome, then refuse the action.
            log.warning("game %s changed in the store behind this server", self.game_id)
            await self._resync()
            self.owner = await self.services.cluster.claim(self.game_id)
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
        self.update_clock()
        if self.clients:
            self.updates.broadcast(self, events)
        else:
            self.updates.forget_view()  # nobody to tell: the view waits for a connection
        for seat in resigned:
            self.broadcast_meta("resigned", seat)
        if self.state.is_terminal:
            self.chat.game_over()
            if self.owner:
                self.services.lobby.analyse_later(self)

    async def _resync(self) -> None:
        game = await self.services.store.load_game(self.game_id)
        if game is None:
            self.services.lobby.forget(self)
            return
        self._load(game)
        for client in list(self.clients):
            self.send_welcome(client)

    # -- seats ------------------------------------------------------------------------

    async def save_seats(
        self, seats: list[SeatRow], reason: ChangeReason, seat: int | None
    ) -> None:
        """Store the seats, then apply and tell (call with :attr:`lock` held)."""
        status, moving = game_status(self.state, seats), bot_to_move(self.state, seats)
        try:
            await retrying(  # writing the same seats twice changes nothing
                lambda: self.services.store.update_seats(self.game_id, seats, status, moving),
                self.services.store_retry,
            )
        except Exception:
            log.exception("could not store the seats of game %s", self.game_id)
            raise ProtocolError(
                "server_error", "the server could not store the change; nothing changed"
            ) from None
        self.take_seats(seats)
        self.seats_changed(reason, seat)
        self.kick()

    async def change_seat(self, row: SeatRow, reason: ChangeReason) -> None:
        """Store one seat's new ``row`` (:meth:`save_seats`)."""
        seats = list(self.seats)
        seats[row.seat] = row
        await self.save_seats(seats, reason, row.seat)

    def take_seats(self, seats: list[SeatRow]) -> None:
        """Use these seats from now on. Connections whose legal tokens change get a
        fresh welcome: all of them when the game starts (or waits again), a seat's own
        when a bot starts or stops standing in for it."""
        status, stand_ins = self.status, [row.stand_in for row in self.seats]
        self.seats = seats
        self._legal = (-1, [])
        self.update_clock()
        changed = {n for n, row in enumerate(seats) if row.stand_in != stand_ins[n]}
        for client in list(self.clients):
            if self.status != status or client.seats & changed:
                self.send_welcome(client)

    # -- the clock --------------------------------------------------------------------

    def _clock_target(self) -> Target | None:
        """The (seat, turn) whose time runs now, or None."""
        if not self.clock.running or self.status != "running":
            return None
        return clock_target(self.state, self.seats, self.turn_number())

    def update_clock(self) -> None:
        """Start the running turn's clock if the turn is new; the owner also stores it
        with the pending resignations and arms its timer."""
        arm = self.owner and not self.closed
        self.clock.update(self._clock_target(), frozenset(self.pending_resigns), arm)
        if arm:
            self._tell_turn()

    def _tell_turn(self) -> None:
        """Tell the reminders when a human's turn begins (with or without a clock)."""
        seat = seat_to_move(self.state) if self.status == "running" else None
        if seat is not None and (self.seats[seat].kind != "human" or self.seats[seat].stand_in):
            seat = None
        turn = self.turn_number()
        self.turn_teller.tell(seat, turn, self.presence)

    def _time_out(self, target: Target) -> None:
        self.later(self._stand_in(target))

    async def time_out(self, target: Target) -> None:
        """A sweep found ``target``'s stored deadline passed (a turn-based clock, its
        room maybe loaded just for this): the stand-in plays for the seat, unless the
        turn is over already (the store is the judge of time, not this room's timer)."""
        await self._stand_in(target)

    async def _stand_in(self, target: Target) -> None:
        """The seat's time ran out: a bot of the game's stand-in level plays for it."""
        async with self.lock:
            if self.closed or not self.owner or self._clock_target() != target:
                return
            row = replace(self.seats[target[0]], stand_in=self.stand_in_level)
            try:
                await self.change_seat(row, "timeout")
            except ProtocolError:  # the store failed: try again soon
                self.clock.postpone(STAND_IN_RETRY_SECONDS)
                self.update_clock()

    # -- the end, following another instance ------------------------------------------

    def analysed(self, analysis: Analysis) -> None:
        """The finished game's analysis is ready: keep it and send it."""
        self.analysis = analysis
        self.send_all(AnalysisReady(analysis=analysis).model_dump_json())

    async def follow(
        self, version: int | None = None, rows: Sequence[ActionRow] | None = None
    ) -> None:
        """Apply what the store holds after this room's version (up to ``version``, if
        known): ``rows`` are those actions if the caller has them, else they are read."""
        async with self.lock:
            if self.closed or (version is not None and version <= self.version):
                return
            if rows is None or version is None or version - len(rows) != self.version:
                rows = await self.services.store.load_actions(self.game_id, self.version)
            actions = [parse_action(row.token) for row in rows]
            events = replay(self.state, actions, f"game {self.game_id}", self.version + 1)
            if not events:
                return
            self._apply(events)

    async def reload_seats(
        self, reason: ChangeReason | None = None, seat: int | None = None
    ) -> None:
        """Take the seats (and rematch, analysis) from the store again: another
        instance changed them."""
        game = await self.services.store.load_game(self.game_id)
        if game is None:
            return
        self.take_seats(list(game.seats))
        if game.analysis is not None and self.analysis is None:
            self.analysed(Analysis.model_validate_json(game.analysis))
        if game.rematch is not None and self.rematch is None:
            self.rematch = game.rematch
            for client in list(self.clients):
                self.later(send_rematch(client, game.rematch, self.services.lobby.activate))
        if reason is not None:
            self.broadcast_meta(reason, seat)
        self.kick()

    async def settle(self) -> None:
        """As the owner, go on with a reveal stored but not made (a crash between the
        two) and with the bots."""
        async with self.lock:
            await self.accept(None)
        self.kick()

    async def promote(self) -> None:
        """This instance now owns the game: catch up with the store, go on with any
        pending reveal and the bots."""
        await self.follow()
        async with self.lock:
            self.owner = True
            await self.accept(None)
        self.update_clock()
        self.kick()

    def kick(self) -> None:
        """Start the bot loop if a bot is to move (:class:`BotLoop`)."""
        self.bots.kick()

    async def stop(self) -> None:
        """Cancel the bot loop and the clock (at shutdown) and drop the connections."""
        self.closed = True
        self.clock.cancel()
        self.advice.cancel()
        for pending in [self.bots.cancel(), *self._tasks]:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pending
        self.close_clients()
