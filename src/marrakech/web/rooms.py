"""Authoritative game rooms: the die, the bots, the checks, the store, the broadcast.

A :class:`Room` is one live game in memory, rebuilt from the store's action log when it
is first needed. It accepts an action only from a connection holding the seat's token,
for the current version, when the seat is to move and the core says the action is legal;
it writes the action to the store, and only then broadcasts the new state. The server
rolls the die (a seeded ``random.Random`` per room) and reveals 2-player pile tops; bots
choose in a worker thread after a short visible pause, so the event loop never blocks.

The :class:`RoomManager` owns the rooms, the store's worker thread and the bots' threads;
at start it resumes every game that was waiting for a bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import random
import secrets
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, TypeVar

from marrakech.actions import Action, action_from_id, parse_action
from marrakech.bots import Bot, make_bot
from marrakech.errors import MarrakechError
from marrakech.events import Event
from marrakech.i18n import describe_event, seat_name
from marrakech.playout import sample_outcome
from marrakech.record import GameRecord
from marrakech.rules import parse_rules
from marrakech.state import Phase, State
from marrakech.views import event_view, state_view
from marrakech.web.protocol import ActionMessage, CreateGame
from marrakech.web.store import (
    ActionRow,
    GameStatus,
    GameStore,
    SeatRow,
    StoreConflict,
    StoredGame,
    hash_token,
)

log = logging.getLogger("marrakech.web")
T = TypeVar("T")

#: If a level's bot does not exist (yet), the next weaker level is tried.
LEVEL_FALLBACK = {"expert": "hard", "hard": "medium", "medium": "easy", "easy": "random"}
DEFAULT_LEVEL = "medium"


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """A game id: 72 random bits, so spectator links cannot be guessed either."""
    return secrets.token_urlsafe(9)


def iso_time(epoch: float) -> str:
    """``2024-05-01T12:00:00Z``."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def seat_public(seat: SeatRow) -> dict[str, Any]:
    """What anyone may know about a seat (never its token hash)."""
    return {"seat": seat.seat, "kind": seat.kind, "level": seat.level, "name": seat.name}


def seat_label(seat: SeatRow) -> str:
    """The seat as written in a game record: a name, ``human``, ``open`` or ``bot:LEVEL``."""
    if seat.name:
        return seat.name
    return f"bot:{seat.level}" if seat.kind == "bot" else seat.kind


def game_summary(game: StoredGame) -> dict[str, Any]:
    """A game as the lobby lists it."""
    return {
        "game_id": game.id,
        "players": game.players,
        "rules": game.rules,
        "first_seat": game.first_seat,
        "lang": game.lang,
        "status": game.status,
        "version": game.version,
        "created": iso_time(game.created),
        "updated": iso_time(game.updated or game.created),
        "seats": [seat_public(s) for s in game.seats],
        "open_seats": [s.seat for s in game.seats if s.kind == "open"],
    }


class Client:
    """One WebSocket connection as a room sees it: its seats, its language, its outbox.

    Messages are queued and written by the connection's own task, so one slow browser
    never delays a game; a browser that falls ``queue_size`` messages behind is dropped
    (it reconnects and gets a fresh ``welcome``).
    """

    def __init__(self, seats: frozenset[int], lang: str, queue_size: int = 256) -> None:
        self.seats = seats
        self.lang = lang
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.closed = False

    def send(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dropping a connection that fell %d messages behind", self.outbox.qsize())
            self.close()

    def close(self) -> None:
        """Stop sending: the connection's writer sees ``None`` and closes the socket."""
        if self.closed:
            return
        self.closed = True
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.outbox.put_nowait(None)


class RefusedError(Exception):
    """An action refused with a protocol error code; nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Room:
    """One game being played: state, log, connections, bot turns.

    All changes happen on the event loop under :attr:`lock`; a change is stored (awaited
    in the store's thread) before it is applied in memory and broadcast.
    """

    def __init__(self, manager: RoomManager, game: StoredGame) -> None:
        self.manager = manager
        self.game_id = game.id
        self.players = game.players
        self.rules = parse_rules(game.rules)
        self.first_seat = game.first_seat
        self.lang = game.lang
        self.created = game.created
        self.seats: list[SeatRow] = []
        self.start = State.new(self.players, self.rules, self.first_seat)
        self.events: list[Event] = []
        self.state = self.start
        self._load(game)
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.die = manager.rng(game.id, "die", self.version)
        self.bot_rng = manager.rng(game.id, "bots", self.version)
        self._bots: dict[int, Bot] = {}
        self._bot_task: asyncio.Task[None] | None = None
        self.closed = False

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
        self._logs: dict[str, list[str]] = {}

    # -- what the game is -------------------------------------------------------------

    @property
    def version(self) -> int:
        """Accepted actions so far (rolls and draws included)."""
        return len(self.events)

    @property
    def status(self) -> GameStatus:
        return _status(self.state, self.seats)

    def mover(self) -> int | None:
        """The seat that must send something now (``roll`` at its ROLL), or None."""
        state = self.state
        if state.phase is Phase.ROLL:
            return state.turn
        if state.is_chance or state.is_terminal:
            return None  # a DRAW is revealed by the server at once
        return state.to_move

    def bot_to_move(self) -> bool:
        seat = self.mover()
        return seat is not None and self.seats[seat].kind == "bot"

    def legal_for(self, seat: int) -> list[str]:
        if self.mover() != seat:
            return []
        if self.state.phase is Phase.ROLL:
            return ["roll"]
        return [str(action) for action in self.state.legal_actions()]

    def legal_map(self, client: Client) -> dict[str, list[str]]:
        return {str(seat): self.legal_for(seat) for seat in sorted(client.seats)}

    def meta(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "players": self.players,
            "rules": self.rules.token(),
            "seats": [seat_public(seat) for seat in self.seats],
            "first_seat": self.first_seat,
            "lang": self.lang,
            "created": iso_time(self.created),
            "status": self.status,
        }

    def log(self, lang: str) -> list[str]:
        """The game log in ``lang``, one entry per action (cached)."""
        lines = self._logs.setdefault(lang, [])
        for event in self.events[len(lines) :]:
            lines.append(describe_event(event, lang))
        return lines

    def record(self) -> GameRecord:
        return GameRecord(
            players=self.players,
            rules=self.rules,
            first_seat=self.first_seat,
            actions=tuple(event.action for event in self.events),
            seats=tuple(seat_label(seat) for seat in self.seats),
            meta={"game_id": self.game_id, "created": iso_time(self.created)},
        )

    def seats_for(self, tokens: Sequence[str]) -> tuple[frozenset[int], int]:
        """The seats these tokens open, and how many tokens matched no seat."""
        seats: set[int] = set()
        unknown = 0
        for token in tokens:
            digest = hash_token(token)
            found = [
                seat.seat
                for seat in self.seats
                if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest)
            ]
            seats.update(found)
            unknown += not found
        return frozenset(seats), unknown

    # -- connections ------------------------------------------------------------------

    def attach(self, client: Client) -> None:
        """Register a connection and queue its ``welcome`` (atomically: no update can
        come between the welcome and the connection's registration)."""
        self.clients.add(client)
        client.send(
            _dumps(
                {
                    "type": "welcome",
                    "game": self.meta(),
                    "you": sorted(client.seats),
                    "version": self.version,
                    "state": state_view(self.state),
                    "log": self.log(client.lang),
                    "legal": self.legal_map(client),
                }
            )
        )

    async def _resync(self) -> None:
        game = await self.manager.run_store(self.manager.store.load_game, self.game_id)
        if game is None:
            self.manager.forget(self)
            return
        self._load(game)
        for client in list(self.clients):
            self.attach(client)

    def detach(self, client: Client) -> None:
        self.clients.discard(client)
        self.manager.release(self)

    def _broadcast(self, events: Sequence[Event]) -> None:
        if not self.clients:
            return
        common = {
            "type": "update",
            "version": self.version,
            "state": state_view(self.state),
            "events": [event_view(event) for event in events],
        }
        prefixes: dict[str, str] = {}
        for client in list(self.clients):
            prefix = prefixes.get(client.lang)
            if prefix is None:
                log_lines = self.log(client.lang)[self.version - len(events) :]
                prefix = _dumps({**common, "log": log_lines})[:-1]
                prefixes[client.lang] = prefix
            client.send(f'{prefix},"legal":{_dumps(self.legal_map(client))}}}')

    def broadcast_meta(self) -> None:
        text = _dumps({"type": "game", "game": self.meta()})
        for client in list(self.clients):
            client.send(text)

    def close_clients(self) -> None:
        for client in list(self.clients):
            client.close()
        self.clients.clear()

    # -- actions ----------------------------------------------------------------------

    async def act(self, client: Client, message: ActionMessage) -> None:
        """Apply a client's action or raise :class:`RefusedError` (nothing changed)."""
        seat = message.seat
        if seat not in client.seats:
            if not client.seats:
                raise RefusedError("not_your_seat", "spectators cannot act")
            held = ", ".join(str(s) for s in sorted(client.seats))
            raise RefusedError(
                "not_your_seat",
                f"this connection holds a token for seat {held}, not for seat {seat}",
            )
        async with self.lock:
            state = self.state
            if state.is_terminal:
                raise RefusedError("game_over", "the game is over")
            if message.version != self.version:
                raise RefusedError(
                    "stale_version",
                    f"expected version {self.version} (the current one), found "
                    f"{message.version}: apply the latest update first",
                )
            mover = self.mover()
            if mover != seat:
                whose = "nobody's" if mover is None else f"seat {mover}'s"
                raise RefusedError(
                    "not_your_turn",
                    f"it is {whose} turn ({self._who(mover)}), not seat {seat}'s",
                )
            legal = self.legal_for(seat)
            if message.action not in legal:
                raise RefusedError(
                    "illegal_action",
                    f"illegal action {message.action!r} in the {state.phase.name} phase: "
                    f"expected one of {', '.join(legal)}",
                )
            if state.phase is Phase.ROLL:
                action = sample_outcome(state, self.die)
            else:
                action = parse_action(message.action)
            await self._accept(action)

    def _who(self, seat: int | None) -> str:
        if seat is None:
            return "the server's"
        name = seat_name(seat, self.players)
        return f"{name}, a bot" if self.seats[seat].kind == "bot" else name

    async def _accept(self, action: Action | None) -> None:
        """Store, apply and broadcast ``action`` followed by any DRAW the server reveals.

        Call with :attr:`lock` held. ``None`` only settles pending DRAWs.
        """
        events: list[Event] = []
        state = self.state
        if action is not None:
            events.append(state.describe(action))
            state = events[-1].after
        while state.phase is Phase.DRAW:  # the server reveals 2-player pile tops (R7)
            events.append(state.describe(sample_outcome(state, self.die)))
            state = events[-1].after
        if not events:
            return
        mover_kind = _mover_kind(state, self.seats)
        rows = [ActionRow(str(event.action), event.seat) for event in events]
        status: GameStatus = _status(state, self.seats)
        try:
            await self.manager.run_store(
                self.manager.store.append_actions,
                self.game_id,
                self.version,
                rows,
                status,
                mover_kind == "bot",
            )
        except StoreConflict:
            # Another server instance moved this game on: this copy is stale. Catch up
            # from the store and send everyone a fresh welcome, then refuse the action.
            log.warning("game %s changed in the store behind this server", self.game_id)
            await self._resync()
            raise RefusedError(
                "stale_version", "the game moved on elsewhere: this is the latest state"
            ) from None
        except Exception:
            log.exception("could not store an action of game %s", self.game_id)
            raise RefusedError(
                "server_error", "the server could not store the action; nothing changed"
            ) from None
        self.events.extend(events)
        self.state = state
        self._broadcast(events)
        self.kick()

    # -- bots -------------------------------------------------------------------------

    def kick(self) -> None:
        """Start the bot loop if a bot is to move and none is running."""
        if self.closed or self._bot_task is not None or not self.bot_to_move():
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
            while not self.closed and self.bot_to_move():
                version = self.version
                state = self.state
                seat = self.mover()
                assert seat is not None
                started = loop.time()
                if state.phase is Phase.ROLL:
                    action = sample_outcome(state, self.die)
                else:
                    level = self.seats[seat].level or DEFAULT_LEVEL
                    bot = None if manager.bot_processes else self._bot(seat, level)
                    seed = self.bot_rng.getrandbits(64)
                    action = await manager.choose(bot, level, state, seed)
                    if action not in state.legal_actions():  # a bot bug must not stall a game
                        log.error("a bot chose %s, illegal in game %s", action, self.game_id)
                        action = state.legal_actions()[0]
                # Thinking counts towards the pause that lets people see each bot move.
                await asyncio.sleep(max(0.0, manager.bot_delay - (loop.time() - started)))
                async with self.lock:
                    if self.closed or self.version != version:
                        continue
                    try:
                        await self._accept(action)
                    except RefusedError as error:
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
        bot = self._bots.get(seat)
        if bot is None:
            bot = self._bots[seat] = self.manager.make_bot(level)
        return bot

    async def stop(self) -> None:
        """Cancel the bot loop (at shutdown) and drop the connections."""
        self.closed = True
        task = self._bot_task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.close_clients()


def _status(state: State, seats: Sequence[SeatRow]) -> GameStatus:
    if state.is_terminal:
        return "over"
    return "waiting" if any(seat.kind == "open" for seat in seats) else "running"


def _mover_kind(state: State, seats: Sequence[SeatRow]) -> str | None:
    if state.is_terminal or state.phase is Phase.DRAW:
        return None
    seat = state.turn if state.phase is Phase.ROLL else state.to_move
    return seats[seat].kind


def bot_for_level(level: str, factory: Callable[[str], Bot] = make_bot) -> Bot:
    """The bot of a level; a level whose bot does not exist falls back to a weaker one."""
    name: str | None = level
    while name is not None:
        try:
            return factory(name)
        except ValueError:
            fallback = LEVEL_FALLBACK.get(name)
            log.warning("no bot for level %r; using %r instead", name, fallback)
            name = fallback
    return factory("random")


_WORKER_BOTS: dict[str, Bot] = {}


def _quiet_worker() -> None:
    """A bot worker leaves Ctrl+C to the server, which shuts it down in order."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _warm_worker() -> None:
    """Load the bots (and their compiled kernels) in a fresh worker process."""
    for level in ("easy", "medium", "hard", "expert"):
        _WORKER_BOTS.setdefault(level, bot_for_level(level))


def _choose_in_worker(level: str, notation: str, seed: int) -> int:
    """In a bot worker process: the id of the bot's decision for this position."""
    bot = _WORKER_BOTS.get(level)
    if bot is None:
        bot = _WORKER_BOTS[level] = bot_for_level(level)
    return bot.choose(State.from_notation(notation), random.Random(seed)).id


def _run_calls(calls: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> list[tuple[bool, Any]]:
    """Run store calls in order in the store thread; each one's result or exception."""
    outcomes: list[tuple[bool, Any]] = []
    for function, args in calls:
        try:
            outcomes.append((True, function(*args)))
        except Exception as error:
            outcomes.append((False, error))
    return outcomes


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class RoomManager:
    """The live rooms of one server, the store's thread and the bots' threads.

    ``seed`` makes every die and bot reproducible (tests); by default each room's
    generators are seeded from the operating system's randomness.
    """

    def __init__(
        self,
        store: GameStore,
        *,
        bot_delay: float = 0.7,
        seed: int | str | None = None,
        bot_workers: int = 2,
        bot_processes: int = 0,
        queue_size: int = 256,
        bot_factory: Callable[[str], Bot] | None = None,
    ) -> None:
        if bot_delay < 0:
            raise ValueError(f"bot_delay: expected seconds >= 0, found {bot_delay}")
        self.store = store
        self.bot_delay = bot_delay
        self.queue_size = queue_size
        self._seed = secrets.token_hex(16) if seed is None else str(seed)
        self._store_thread = ThreadPoolExecutor(1, thread_name_prefix="marrakech-store")
        self._store_calls: list[
            tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]
        ] = []
        self._store_task: asyncio.Task[None] | None = None
        #: Bots think in worker processes when ``bot_processes`` > 0 (strong bots then
        #: never compete with the event loop for the GIL), else in threads.
        self.bot_processes = bot_processes
        self.bot_executor: Executor
        if bot_processes > 0:
            self.bot_executor = ProcessPoolExecutor(
                bot_processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_quiet_worker,
            )
        else:
            self.bot_executor = ThreadPoolExecutor(bot_workers, thread_name_prefix="marrakech-bot")
        self._bot_factory = bot_factory or make_bot
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}

    def rng(self, game_id: str, purpose: str, version: int) -> random.Random:
        """A generator for one room; a resumed room gets fresh draws (``version``)."""
        return random.Random(f"{self._seed}/{game_id}/{purpose}/{version}")

    async def run_store(self, function: Callable[..., T], *args: Any) -> T:
        """Run a blocking store call in the store's own thread.

        Calls made while the thread is busy are handed over together, in order, in one
        trip: under load that saves a thread switch per action (group hand-off).
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._store_calls.append((function, args, future))
        if self._store_task is None:
            self._store_task = asyncio.get_running_loop().create_task(self._drain_store())
        result: T = await future
        return result

    async def _drain_store(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._store_calls:
                batch, self._store_calls = self._store_calls, []
                calls = [(function, args) for function, args, _ in batch]
                try:
                    outcomes = await loop.run_in_executor(self._store_thread, _run_calls, calls)
                except asyncio.CancelledError:
                    for _, _, future in batch:
                        future.cancel()
                    raise
                except Exception as error:  # the thread is gone (shut down)...
                    outcomes = [(False, error)] * len(batch)
                for (_, _, future), (ok, value) in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
        finally:
            self._store_task = None

    def make_bot(self, level: str) -> Bot:
        """The bot for a level; a level whose bot does not exist yet falls back weaker."""
        return bot_for_level(level, self._bot_factory)

    async def choose(self, bot: Bot | None, level: str, state: State, seed: int) -> Action:
        """A bot's decision, computed off the event loop: in a worker process (``bot`` is
        not used) or in a thread by ``bot`` (one room's seat; never two at a time)."""
        loop = asyncio.get_running_loop()
        if self.bot_processes:
            action_id = await loop.run_in_executor(
                self.bot_executor, _choose_in_worker, level, state.notation(), seed
            )
            return action_from_id(action_id)
        assert bot is not None
        return await loop.run_in_executor(self.bot_executor, bot.choose, state, random.Random(seed))

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every game that was waiting for a bot when the server stopped."""
        for _ in range(self.bot_processes):  # start the workers now, not at the first move
            self.bot_executor.submit(_warm_worker)
        for game_id in await self.run_store(self.store.games_with_bot_to_move):
            try:
                room = await self.get(game_id)
            except Exception:
                log.exception("cannot resume game %s", game_id)
                continue
            if room is not None:
                room.kick()

    async def stop(self) -> None:
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()
        self.bot_executor.shutdown(wait=False, cancel_futures=True)
        await self.run_store(self.store.close)
        self._store_thread.shutdown(wait=True)

    async def get(self, game_id: str) -> Room | None:
        """The live room of a game, loaded from the store if needed; None if unknown."""
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        pending = self._loading.get(game_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            game = await self.run_store(self.store.load_game, game_id)
            room = None if game is None else Room(self, game)
            if room is not None:
                self.rooms[game_id] = room
                async with room.lock:
                    await room._accept(None)  # a crash between storing and revealing a draw
                room.kick()
            future.set_result(room)
            return room
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters get it, nobody else must
            raise
        finally:
            del self._loading[game_id]

    def release(self, room: Room) -> None:
        """Unload an idle room (no connection, no bot move pending); the store keeps it."""
        if (
            not room.clients
            and not room.bot_busy
            and not room.lock.locked()
            and self.rooms.get(room.game_id) is room
        ):
            del self.rooms[room.game_id]

    def forget(self, room: Room) -> None:
        """Drop a stale room and its connections (they reconnect to a fresh copy)."""
        room.closed = True
        room.close_clients()
        if self.rooms.get(room.game_id) is room:
            del self.rooms[room.game_id]

    # -- lobby ------------------------------------------------------------------------

    async def create(self, spec: CreateGame) -> tuple[Room, dict[int, str]]:
        """Create and store a game; returns its room and the human seats' tokens."""
        first_seat = (
            secrets.randbelow(spec.players) if spec.first_seat == "random" else spec.first_seat
        )
        tokens: dict[int, str] = {}
        seats = []
        for number, seat in enumerate(spec.seats):
            token_hash = None
            if seat.kind == "human":
                tokens[number] = new_token()
                token_hash = hash_token(tokens[number])
            level = (seat.level or DEFAULT_LEVEL) if seat.kind == "bot" else None
            seats.append(SeatRow(number, seat.kind, level, seat.name, token_hash))
        start = State.new(spec.players, parse_rules(spec.rules), first_seat)
        game = StoredGame(
            id=new_game_id(),
            players=spec.players,
            rules=spec.rules,
            first_seat=first_seat,
            lang=spec.lang,
            seats=tuple(seats),
            status=_status(start, seats),
            bot_to_move=_mover_kind(start, seats) == "bot",
        )
        await self.run_store(self.store.create_game, game)
        room = await self.get(game.id)
        assert room is not None
        room.kick()
        self.release(room)  # nobody is connected yet unless a bot plays
        return room, tokens

    async def join(self, game_id: str, seat: int, name: str) -> str:
        """Claim an open seat: returns its new token. Raises KeyError / RefusedError."""
        room = await self.get(game_id)
        if room is None:
            raise KeyError(game_id)
        async with room.lock:
            if not 0 <= seat < room.players:
                raise RefusedError(
                    "bad_request", f"seat: expected 0..{room.players - 1}, found {seat}"
                )
            if room.seats[seat].kind != "open":
                raise RefusedError("seat_taken", f"seat {seat} is not open")
            token = new_token()
            claimed = await self.run_store(
                self.store.claim_seat, game_id, seat, hash_token(token), name
            )
            if not claimed:
                raise RefusedError("seat_taken", f"seat {seat} was just taken")
            room.seats[seat] = SeatRow(seat, "human", None, name, hash_token(token))
            if room.status != "waiting":
                await self.run_store(self.store.set_status, game_id, room.status)
        room.broadcast_meta()
        self.release(room)
        return token

    async def record(self, game_id: str) -> GameRecord | None:
        """The game record of a stored game (live or not)."""
        room = self.rooms.get(game_id)
        if room is not None:
            return room.record()
        game = await self.run_store(self.store.load_game, game_id)
        if game is None:
            return None
        return GameRecord.from_actions(
            State.new(game.players, parse_rules(game.rules), game.first_seat),
            [parse_action(row.token) for row in game.actions],
            seats=[seat_label(seat) for seat in game.seats],
            meta={"game_id": game.id, "created": iso_time(game.created)},
        )


def replay_view(record: GameRecord, lang: str) -> dict[str, Any]:
    """Everything a replay page shows: every position, every event, the log.

    >>> from marrakech import State, parse_action
    >>> record = GameRecord.from_actions(State.new(3), [parse_action("L")])
    >>> view = replay_view(record, "en")
    >>> len(view["states"]), view["log"]
    (2, ['Red turned Assam left, to face West.'])
    """
    state = record.initial_state()
    states = [state_view(state)]
    events = []
    lines = []
    for action in record.actions:
        event = state.describe(action)
        state = event.after
        states.append(state_view(state))
        events.append(event_view(event))
        lines.append(describe_event(event, lang))
    return {"record": record.to_dict(), "states": states, "events": events, "log": lines}
