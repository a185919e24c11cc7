"""The live rooms of one server: loaded on demand, resumed at start, dropped when idle.

The :class:`RoomManager` owns the rooms (:class:`~marrakech.web.room.Room`), the
store's thread (:mod:`marrakech.web.store_worker`) and the bots' workers
(:mod:`marrakech.web.bot_workers`). It creates games and seats players for the lobby;
at start it resumes every game that was waiting for a bot.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Callable

from marrakech.actions import parse_action
from marrakech.bots import Bot
from marrakech.record import GameRecord
from marrakech.rules import parse_rules
from marrakech.state import State
from marrakech.web.bot_workers import BotWorkers
from marrakech.web.protocol import DEFAULT_LEVEL, ApiError, CreateGame, iso_time
from marrakech.web.room import Room, game_status, mover_kind
from marrakech.web.store import GameStore, SeatRow, StoredGame, hash_token
from marrakech.web.store_worker import StoreWorker

log = logging.getLogger("marrakech.web")


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """A game id: 72 random bits, so spectator links cannot be guessed either."""
    return secrets.token_urlsafe(9)


class RoomManager:
    """The live rooms of one server, the store's thread and the bots' workers.

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
        self.store_worker = StoreWorker(store)
        self.bots = BotWorkers(threads=bot_workers, processes=bot_processes, factory=bot_factory)
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}

    def rng(self, game_id: str, purpose: str, version: int) -> random.Random:
        """A generator for one room; a resumed room gets fresh draws (``version``)."""
        return random.Random(f"{self._seed}/{game_id}/{purpose}/{version}")

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every game that was waiting for a bot when the server stopped."""
        self.bots.start()
        for game_id in await self.store_worker.run(self.store.games_with_bot_to_move):
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
        self.bots.shutdown()
        await self.store_worker.close()

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
            game = await self.store_worker.run(self.store.load_game, game_id)
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
            status=game_status(start, seats),
            bot_to_move=mover_kind(start, seats) == "bot",
        )
        await self.store_worker.run(self.store.create_game, game)
        room = await self.get(game.id)
        assert room is not None
        room.kick()
        self.release(room)  # nobody is connected yet unless a bot plays
        return room, tokens

    async def join(self, game_id: str, seat: int, name: str) -> str:
        """Claim an open seat: returns its new token. Raises KeyError (no such game) or
        :class:`ApiError` (no such seat, or the seat is not open)."""
        room = await self.get(game_id)
        if room is None:
            raise KeyError(game_id)
        async with room.lock:
            if not 0 <= seat < room.players:
                raise ApiError(
                    400, "bad_request", f"seat: expected 0..{room.players - 1}, found {seat}"
                )
            if room.seats[seat].kind != "open":
                raise ApiError(409, "seat_taken", f"seat {seat} is not open")
            token = new_token()
            claimed = await self.store_worker.run(
                self.store.claim_seat, game_id, seat, hash_token(token), name
            )
            if not claimed:
                raise ApiError(409, "seat_taken", f"seat {seat} was just taken")
            room.seats[seat] = SeatRow(seat, "human", None, name, hash_token(token))
            if room.status != "waiting":
                await self.store_worker.run(self.store.set_status, game_id, room.status)
        room.broadcast_meta()
        self.release(room)
        return token

    async def record(self, game_id: str) -> GameRecord | None:
        """The game record of a stored game (live or not)."""
        room = self.rooms.get(game_id)
        if room is not None:
            start, actions = room.start, [event.action for event in room.events]
            seats, created = room.seats, room.created
        else:
            game = await self.store_worker.run(self.store.load_game, game_id)
            if game is None:
                return None
            start = State.new(game.players, parse_rules(game.rules), game.first_seat)
            actions = [parse_action(row.token) for row in game.actions]
            seats, created = list(game.seats), game.created
        return GameRecord.from_actions(
            start,
            actions,
            seats=[seat_label(seat) for seat in seats],
            meta={"game_id": game_id, "created": iso_time(created)},
        )


def seat_label(seat: SeatRow) -> str:
    """The seat as written in a game record: a name, ``human``, ``open`` or ``bot:LEVEL``."""
    if seat.name:
        return seat.name
    return f"bot:{seat.level}" if seat.kind == "bot" else seat.kind
