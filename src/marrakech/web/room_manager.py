"""The live rooms of one server: loaded on demand, resumed at start, dropped when idle.

The :class:`RoomManager` owns the rooms (:class:`~marrakech.web.room.Room`), the store
(:mod:`marrakech.web.store`), the bots' scheduler (:mod:`marrakech.web.bot_workers`) and
the instance's place among others on a shared database (:mod:`marrakech.web.cluster`).
It creates games (within the caps of :mod:`marrakech.web.limits`) and seats players for
the lobby; at start it resumes every game that was waiting for a bot.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from marrakech.bots import Bot
from marrakech.record import GameRecord
from marrakech.rules import parse_rules
from marrakech.state import State
from marrakech.web import turn_based_clocks
from marrakech.web.analysis_jobs import analyse_json
from marrakech.web.bot_workers import BotScheduler
from marrakech.web.budgets import Budgets
from marrakech.web.cluster import Cluster, LocalCluster, Move
from marrakech.web.limits import ClientRates, Limits, check_caps
from marrakech.web.metrics import MeteredStore, Metrics
from marrakech.web.protocol import (
    DEFAULT_LEVEL,
    Analysis,
    AnalysisStatus,
    ApiError,
    ChatLine,
    CreateGame,
    ProtocolError,
    iso_time,
    same_looking_seat,
)
from marrakech.web.room import Room, RoomServices, bot_to_move, game_status, stored_actions
from marrakech.web.room.chat import ChatGate, public_lines
from marrakech.web.room.play import submit_action
from marrakech.web.room.seat_commands import submit_command
from marrakech.web.store import ActionRow, GameStore, SeatRow, StoredGame, Usage, hash_token
from marrakech.web.store.retry import RETRY_SECONDS
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.store.worker import StoreWorker
from marrakech.web.turn_based_events import TurnEvent, TurnEvents

log = logging.getLogger("marrakech.web")

#: Seconds between two sweeps for games nothing moves (:meth:`RoomManager._sweep`).
SWEEP_SECONDS = 10.0


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """A game id: 72 random bits, so spectator links cannot be guessed either; never
    starting with ``-``, which a command line (``marrakech admin hide-message GAME``)
    would take for an option."""
    while (game_id := secrets.token_urlsafe(9)).startswith("-"):
        pass
    return game_id


class RoomManager:
    """The live rooms of one server, its store, its bots and its cluster.

    ``store`` is a :class:`GameStore`, or an :class:`SQLiteStore`, which is then run in
    its own thread (``store_worker``). ``seed`` makes every die and bot reproducible
    (tests); by default each room's generators are seeded from the operating system's
    randomness. ``metrics``: time the store's calls and count the actions stored there
    (:class:`~marrakech.web.metrics.MeteredStore`).
    """

    def __init__(
        self,
        store: GameStore | SQLiteStore,
        *,
        bot_delay: float = 0.7,
        seed: int | str | None = None,
        bot_workers: int = 2,
        bot_processes: int = 0,
        queue_size: int = 256,
        bot_factory: Callable[[str], Bot] | None = None,
        cluster: Cluster | None = None,
        limits: Limits | None = None,
        relaxed_seconds: int = 180,
        blitz_seconds: int = 30,
        open_game_ttl: float = 3600.0,
        turn_scale: float = 1.0,
        sweep_seconds: float = SWEEP_SECONDS,
        metrics: Metrics | None = None,
        store_retry: float = RETRY_SECONDS,
    ) -> None:
        if bot_delay < 0:
            raise ValueError(f"bot_delay: expected seconds >= 0, found {bot_delay}")
        for name, value in (
            ("relaxed_seconds", relaxed_seconds),
            ("blitz_seconds", blitz_seconds),
            ("open_game_ttl", open_game_ttl),
        ):
            if value <= 0:
                raise ValueError(f"{name}: expected seconds > 0, found {value}")
        if store_retry < 0:
            raise ValueError(f"store_retry: expected seconds >= 0, found {store_retry}")
        if turn_scale <= 0 or sweep_seconds <= 0:
            raise ValueError(
                f"turn_scale, sweep_seconds: expected > 0, found {turn_scale}, {sweep_seconds}"
            )
        #: Seconds per player turn of each clock (the turn-based ones times
        #: ``turn_scale``: 1 but in tests and demonstrations).
        self.clock_seconds = {"none": 0, "relaxed": relaxed_seconds, "blitz": blitz_seconds}
        for mode, seconds in turn_based_clocks.TURN_BASED.items():
            self.clock_seconds[mode] = max(1, round(seconds * turn_scale))
        #: Seconds between two sweeps of this instance (:meth:`_sweep`).
        self.sweep_seconds = sweep_seconds
        #: Turn-based games' turns starting and running out (reminders listen).
        self.turn_events = TurnEvents()
        #: Seconds an open game nobody joins stays in the lobby.
        self.open_game_ttl = open_game_ttl
        self._analysing: set[str] = set()
        self._background: set[asyncio.Task[None]] = set()
        self.store_worker: StoreWorker | None = None
        if isinstance(store, SQLiteStore):
            store = self.store_worker = StoreWorker.over(store)
        if metrics is not None:  # every call timed, every append counted
            store = MeteredStore.over(store, metrics)
        self.store: GameStore = store
        self.bot_delay = bot_delay
        self.queue_size = queue_size
        self._seed = secrets.token_hex(16) if seed is None else str(seed)
        self.bots = BotScheduler(threads=bot_workers, processes=bot_processes, factory=bot_factory)
        self.bots.on_busy = self._bots_busy
        self.cluster: Cluster = cluster or LocalCluster(store=self.store)
        self.limits = limits or Limits()
        #: Game creations per client address, through the API and rematches alike.
        self.create_rates = ClientRates(self.limits.creates_per_minute, self.limits.create_burst)
        #: A signed-in account's games and bots under way (set by the app once its
        #: accounts open), so a rematch counts against the account's caps as a creation.
        self.account_usage: Callable[[str, float], Awaitable[Usage]] | None = None
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        #: What every room is given (the store, the cluster, the bots, this lobby).
        self.services = RoomServices(
            self.store,
            self.cluster,
            self.bots,
            self,
            bot_delay,
            self._seed,
            ChatGate(Budgets(self.store), self.limits),
            turn_events=self.turn_events,
            store_retry=store_retry,
        )

    def rng(self, game_id: str, purpose: str, version: int) -> random.Random:
        """A generator for one room; a resumed room gets fresh draws (``version``)."""
        return self.services.rng(game_id, purpose, version)

    def loading(self, game_id: str) -> asyncio.Future[Room | None] | None:
        """The game's room being loaded now (None if it is not)."""
        return self._loading.get(game_id)

    async def apply_forwarded(self, game_id: str, seat: int, version: int, move: Move) -> bool:
        """Apply a message another instance forwarded to this one, the game's owner: an
        action's token at ``version``, or a seat command. False if this instance does
        not own the game; :class:`ProtocolError` if it is refused or unknown."""
        room = await self.get(game_id)
        if room is None:
            raise ProtocolError("not_found", "no such game")
        if not room.owner:
            return False
        if isinstance(move, str):
            await submit_action(room, seat, version, move)
        else:
            await submit_command(room, seat, move)
        self.release(room)
        return True

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every game that was waiting for a bot when the server stopped (on a
        shared database: those no living instance owns)."""
        self.bots.start()
        await self.cluster.start(self)
        await self.resume(await self.store.games_to_resume())
        try:  # deadlines passed while no instance ran are pushed back now
            await self.sweep_clocks()
        except Exception as error:
            log.warning("the clocks' sweep failed: %s", error)
        task = asyncio.get_running_loop().create_task(self._sweep(), name="rooms' sweep")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _sweep(self) -> None:
        """Every :data:`SWEEP_SECONDS`: go on with every game whose bot is to move and
        that nothing moves (its bot loop ended on a store failure, its room was
        unloaded meanwhile), and re-arm the clocks of the rooms owned here."""
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                await self.sweep_clocks()
                await self.resume(await self.store.games_to_resume())
                for room in list(self.rooms.values()):
                    if room.owner and not room.closed:
                        room.update_clock()
                        room.kick()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the store is down: the next sweep tries again
                log.warning("the rooms' sweep failed: %s", error)

    async def sweep_clocks(self, now: float | None = None) -> None:
        """The turn-based clocks' sweep (:mod:`marrakech.web.turn_based_clocks`), on every
        instance: if no instance swept for a while, push the deadlines that passed
        meanwhile back; announce the turns whose time runs out soon (``deadline_near``,
        long real-time turns' too); and have the stand-in play for the seats whose
        deadline passed (each claimed by one instance, the room loaded for it and
        unloaded after). ``now``: the time (tests sweep as if later; by default, now)."""
        store = self.store
        now = time.time() if now is None else now
        last = await turn_based_clocks.note_sweep(store, now)
        if last is not None and now - last > turn_based_clocks.downtime_seconds(self.sweep_seconds):
            log.info("no instance ran for %.0f s: turn-based deadlines pushed back", now - last)
            await turn_based_clocks.extend_overdue(store, now)
        for due in await turn_based_clocks.warn_due(store, now):
            event = TurnEvent("deadline_near", due.game_id, due.seat, due.turn, due.deadline)
            self.turn_events.emit(event)
        for due in await turn_based_clocks.claim_due(store, now):
            try:
                room = await self.get(due.game_id)
                if room is None:
                    continue
                if room.owner:  # else its living owner's timer runs out
                    await room.time_out((due.seat, due.turn))
                self.release(room)
            except asyncio.CancelledError:
                raise
            except Exception:  # claimed for a while: a later sweep tries again
                log.exception("cannot time out game %s", due.game_id)

    async def resume(self, game_ids: list[str]) -> None:
        """Load these games' rooms (each owned here, unless a living instance owns it)
        so their bots go on."""
        for game_id in game_ids:
            try:
                room = await self.get(game_id)
            except Exception:
                log.exception("cannot resume game %s", game_id)
                continue
            if room is not None:
                room.kick()
                self.release(room)

    async def stop(self) -> None:
        for task in list(self._background):
            task.cancel()
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()
        await self.cluster.stop()
        self.bots.shutdown()
        await self.store.close()

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
            game = await self.store.load_game(game_id)
            room = None
            if game is not None:
                owner = game.status == "over" or await self.cluster.claim(game_id)
                room = Room(self.services, game, owner=owner)
                self.rooms[game_id] = room
                if room.owner and not room.state.is_terminal:
                    await room.settle()  # a crash between storing and a reveal
                elif room.owner and room.analysis is None:
                    self.analyse_later(room)  # the server stopped before it was done
            future.set_result(room)
            return room
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters get it, nobody else must
            raise
        finally:
            del self._loading[game_id]

    def release(self, room: Room) -> None:
        """Unload an idle room (no connection, no bot move pending, no real-time turn
        clock running here); the store keeps it, and any instance may own it next. A
        turn-based clock's deadline is stored: the clocks' sweep handles it."""
        clock = room.clock
        timed = room.owner and clock.deadline is not None  # its timer lives here...
        if timed and clock.turn_based and clock.stored:
            timed = False  # ...or in the store, for the sweeps
        if (
            not room.clients
            and not room.bot_busy
            and not room.lock.locked()
            and not timed
            and self.rooms.get(room.game_id) is room
        ):
            del self.rooms[room.game_id]
            room.closed = True
            clock.cancel()
            if room.owner:
                self.cluster.release(room.game_id)

    def forget(self, room: Room) -> None:
        """Drop a stale room and its connections (they reconnect to a fresh copy)."""
        room.closed = True
        room.close_clients()
        if self.rooms.get(room.game_id) is room:
            del self.rooms[room.game_id]

    # -- lobby ------------------------------------------------------------------------

    async def create(self, spec: CreateGame, creator: str = "") -> tuple[Room, dict[int, str]]:
        """Create and store a game; returns its room and the human seats' tokens.

        Refused (:class:`ApiError`) past the caps of :attr:`limits` for ``creator`` (who
        asks: :func:`marrakech.web.limits.client_key`) and for the whole server."""
        await self._check_caps(creator, sum(seat.kind == "bot" for seat in spec.seats))
        first_seat = (
            secrets.randbelow(spec.players) if spec.first_seat == "random" else spec.first_seat
        )
        tokens: dict[int, str] = {}
        seats = []
        host = spec.host_seat
        for number, seat in enumerate(spec.seats):
            token_hash = None
            if seat.kind == "human":
                tokens[number] = new_token()
                token_hash = hash_token(tokens[number])
            level = (seat.level or DEFAULT_LEVEL) if seat.kind == "bot" else None
            name = (seat.name or spec.name) if number == host else seat.name
            seats.append(SeatRow(number, seat.kind, level, name, token_hash, host=number == host))
        game = self._new_game(
            spec.players,
            spec.rules_token,
            first_seat,
            spec.lang,
            seats,
            spec.clock,
            spec.stand_in_level or DEFAULT_LEVEL,
            creator,
            spec.hints,
            spec.chat,
            spec.rated,
        )
        room = await self._open(game)
        return room, tokens

    async def _check_caps(self, creator: str, bots: int, account: str | None = None) -> None:
        """Refuse (:class:`ApiError`) a new game of ``creator`` (and of its signed-in
        ``account``, whatever its address) with ``bots`` bot seats past the caps of
        :attr:`limits`."""
        since = time.time() - self.limits.active
        check_caps(await self.store.usage(creator, since), self.limits, bots)
        if account is not None and self.account_usage is not None:
            check_caps(await self.account_usage(account, since), self.limits, bots)

    async def check_address(self, address: str) -> None:
        """Refuse (:class:`ApiError` ``banned``, 403) an address the operator banned
        (``marrakech admin ban-address``): no new game, no seat, no chat, no socket."""
        if await self.store.is_banned("address", address):
            raise ApiError(
                403,
                "banned",
                "your address is banned from this server (its operator decided so)",
            )

    async def replay_chat(self, game_id: str, over: bool) -> list[ChatLine]:
        """A game's chat as its replay shows it (:func:`public_lines`)."""
        return public_lines(await self.store.load_chat(game_id, 1000), over)

    def check_creation_rate(self, address: str, account: str | None = None) -> None:
        """Take a game creation from ``address``'s budget (the API's and rematches'
        are one), and from the signed-in ``account``'s if any (issue #24: several
        addresses, one account), or refuse with :class:`ApiError` ``rate_limited``."""
        self.create_rates.check(address, "new games")
        if account is not None:
            self.create_rates.check(f"account:{account}", "new games", "your account")

    def _new_game(
        self,
        players: int,
        rules: str,
        first_seat: int,
        lang: str,
        seats: list[SeatRow],
        clock: str,
        stand_in_level: str,
        creator: str,
        hints: bool,
        chat: bool = True,
        rated: bool = False,
    ) -> StoredGame:
        start = State.new(players, parse_rules(rules), first_seat)
        status = game_status(start, seats)
        return StoredGame(
            id=new_game_id(),
            players=players,
            rules=rules,
            first_seat=first_seat,
            lang=lang,
            seats=tuple(seats),
            status=status,
            bot_to_move=bot_to_move(start, seats),
            creator=creator,
            clock=clock,
            clock_seconds=self.clock_seconds[clock],
            stand_in_level=stand_in_level,
            turns=0 if status == "waiting" else 1,
            hints=hints,
            chat=chat,
            rated=rated,
        )

    #: A new game's stored form, for the parts that create games of their own
    #: (tournaments pair theirs): the one place its fields are set.
    new_game = _new_game

    async def _open(self, game: StoredGame) -> Room:
        """Store a new game and start its room (its bots, if they play first)."""
        await self.store.create_game(game)
        room = await self.get(game.id)
        assert room is not None
        room.kick()
        self.release(room)  # nobody is connected yet unless a bot plays
        return room

    async def create_rematch(self, room: Room, creator: str, account: str | None = None) -> str:
        """A new game with the same seats (people, bots and levels, host), rules,
        clock, hints setting and language (no hint used yet), the next seat first; the
        finished game records it (once: the rematch's id either way). People's seats
        get their tokens when their holders come back (:meth:`activate`)."""
        seats = [
            SeatRow(
                row.seat,
                row.kind,
                row.level if row.kind == "bot" else None,
                row.name,
                host=row.host,
            )
            for row in room.seats
        ]
        # A rematch is a new game: it counts against the caps of who asked for it (its
        # ``creator``) as a game created through the API would.
        await self._check_caps(creator, sum(row.kind == "bot" for row in seats), account)
        game = self._new_game(
            room.players,
            room.rules.token(),
            (room.first_seat + 1) % room.players,
            room.lang,
            seats,
            room.setting.clock,
            room.stand_in_level,
            creator,
            room.hints,
            room.chat_on,
        )
        await self.store.create_game(game)
        rematch = await self.store.set_rematch(room.game_id, game.id)
        if rematch == game.id:
            started = await self.get(game.id)
            if started is not None:
                started.kick()
                self.release(started)
        return rematch

    async def activate(self, game_id: str, seat: int, token_hash: str) -> None:
        """Give a rematch's seat its token hash (if it has none yet), here and in its
        live room on every instance."""
        if await self.store.activate_seat(game_id, seat, token_hash):
            room = self.rooms.get(game_id)
            if room is not None and room.seats[seat].token_hash is None:
                room.seats[seat] = replace(room.seats[seat], token_hash=token_hash)
            self.cluster.seats_changed(game_id, None, seat)

    async def join(self, game_id: str, seat: int, name: str, bot: bool = False) -> str:
        """Claim an open seat: returns its new token. Raises KeyError (no such game) or
        :class:`ApiError` (no such seat, or the seat is not open). ``bot``: a program
        takes it (an external bot), labelled so from now on."""
        games = await self.store.summaries([game_id])
        if not games:
            raise KeyError(game_id)
        game = games[0]
        if not 0 <= seat < game.players:
            raise ApiError(
                400, "bad_request", f"seat: expected 0..{game.players - 1}, found {seat}"
            )
        if game.seats[seat].kind != "open":
            raise ApiError(409, "seat_taken", f"seat {seat} is not open")
        people = [(row.seat, row.name) for row in game.seats if row.kind == "human"]
        twin = same_looking_seat(name, people)
        if twin is not None:
            raise ApiError(
                409,
                "name_taken",
                f"name: expected a name unlike the other players' at this table, found"
                f" {name!r}, which looks like seat {twin}'s {game.seats[twin].name!r}",
            )
        token = new_token()
        if not await self.store.claim_seat(game_id, seat, hash_token(token), name):
            raise ApiError(409, "seat_taken", f"seat {seat} was just taken")
        room = self.rooms.get(game_id)
        if room is not None:
            async with room.lock:  # the last open seat taken: play begins
                if bot:
                    room.here.external.add(seat)
                await room.reload_seats("joined", seat)
        else:  # loaded, its bots go on if the game starts with one to move
            loaded = await self.get(game_id)
            if loaded is not None:
                self.release(loaded)
        self.cluster.seats_changed(game_id, "joined", seat)
        return token

    # -- the end of a game --------------------------------------------------------------

    def analyse_later(self, room: Room) -> None:
        """Compute a finished game's analysis in the background (once), store it and
        send it to its connections."""
        if room.analysis is not None or room.game_id in self._analysing:
            return
        self._analysing.add(room.game_id)
        task = asyncio.get_running_loop().create_task(self._analyse(room.game_id))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _analyse(self, game_id: str) -> None:
        try:
            record = await self.record(game_id)
            if record is None:
                return
            text = await self.bots.run(analyse_json, record.to_json(), game_id)
            await self.store.save_analysis(game_id, text)
            room = self.rooms.get(game_id)
            if room is not None:
                room.analysed(Analysis.model_validate_json(text))
            self.cluster.seats_changed(game_id, None, None)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not analyse game %s", game_id)
        finally:
            self._analysing.discard(game_id)

    async def analysis(self, game_id: str) -> AnalysisStatus | None:
        """The analysis of a game for the API (started if the game is over and has
        none yet); None if there is no such game."""
        room = self.rooms.get(game_id)
        if room is not None:
            over, text = room.state.is_terminal, None
            if room.analysis is not None:
                return AnalysisStatus(status="ready", over=True, analysis=room.analysis)
        else:
            games = await self.store.summaries([game_id])
            if not games:
                return None
            over, text = games[0].status == "over", games[0].analysis
        if text is not None:
            analysis = Analysis.model_validate_json(text)
            return AnalysisStatus(status="ready", over=True, analysis=analysis)
        if over and game_id not in self._analysing:
            self._analysing.add(game_id)
            task = asyncio.get_running_loop().create_task(self._analyse(game_id))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        return AnalysisStatus(status="pending", over=over, analysis=None)

    def _bots_busy(self, busy: bool) -> None:
        for room in list(self.rooms.values()):
            room.tell_bots_busy(busy)

    async def catch_up(self, game_id: str, version: int, rows: list[ActionRow] | None) -> None:
        """Another instance stored actions of a game (up to ``version``): a room that
        follows it applies them."""
        room = self.rooms.get(game_id)
        if room is not None and not room.owner:
            await room.follow(version, rows)

    async def record(self, game_id: str) -> GameRecord | None:
        """The game record of a stored game (live or not)."""
        room = self.rooms.get(game_id)
        if room is not None:
            start, actions = room.start, [event.action for event in room.events]
            seats, created = room.seats, room.created
        else:
            game = await self.store.load_game(game_id)
            if game is None:
                return None
            start = State.new(game.players, parse_rules(game.rules), game.first_seat)
            actions = list(stored_actions(game))
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
