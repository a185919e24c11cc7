"""One live game: its state, its connections, the checks, the store, the broadcast.

A :class:`Room` is one game in memory, rebuilt from the store's action log when it is
first needed. It accepts an action only from a connection holding the seat's token, for
the current version, when the seat is to move and the core says the action is legal; it
writes the action to the store, and only then broadcasts the new state. The server rolls
the die (a seeded ``random.Random`` per room) and reveals 2-player pile tops; bots choose
in a worker (:mod:`marrakech.web.bot_workers`) after a short visible pause, so the event
loop never blocks. The rooms of a server are kept by :class:`~marrakech.web.rooms.RoomManager`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING

from marrakech.actions import Action, parse_action
from marrakech.bots import Bot
from marrakech.errors import MarrakechError, NotationError
from marrakech.events import Event
from marrakech.i18n import describe_event, seat_name
from marrakech.playout import sample_outcome
from marrakech.rules import parse_rules
from marrakech.state import Phase, State
from marrakech.views import event_view, state_view
from marrakech.web.client import Client
from marrakech.web.protocol import (
    DEFAULT_LEVEL,
    ActionMessage,
    GameChanged,
    GameMeta,
    Legal,
    ProtocolError,
    SeatInfo,
    Update,
    Welcome,
    iso_time,
)
from marrakech.web.store import (
    ActionRow,
    GameStatus,
    SeatRow,
    StoreConflict,
    StoredGame,
    hash_token,
)

if TYPE_CHECKING:
    from marrakech.web.rooms import RoomManager

log = logging.getLogger("marrakech.web")


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
        return game_status(self.state, self.seats)

    def mover(self) -> int | None:
        """The seat that must send something now (``roll`` at its ROLL), or None."""
        return seat_to_move(self.state)

    def bot_to_move(self) -> bool:
        return mover_kind(self.state, self.seats) == "bot"

    def legal_for(self, seat: int) -> list[str]:
        if self.mover() != seat:
            return []
        if self.state.phase is Phase.ROLL:
            return ["roll"]
        return [str(action) for action in self.state.legal_actions()]

    def legal_map(self, client: Client) -> Legal:
        return {str(seat): self.legal_for(seat) for seat in sorted(client.seats)}

    def meta(self) -> GameMeta:
        return GameMeta(
            game_id=self.game_id,
            players=self.players,
            rules=self.rules.token(),
            seats=[SeatInfo.of(seat) for seat in self.seats],
            first_seat=self.first_seat,
            lang=self.lang,
            created=iso_time(self.created),
            status=self.status,
        )

    def log(self, lang: str) -> list[str]:
        """The game log in ``lang``, one entry per action (cached)."""
        lines = self._logs.setdefault(lang, [])
        for event in self.events[len(lines) :]:
            lines.append(describe_event(event, lang))
        return lines

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
        welcome = Welcome(
            game=self.meta(),
            you=sorted(client.seats),
            version=self.version,
            state=state_view(self.state),
            log=self.log(client.lang),
            legal=self.legal_map(client),
        )
        client.send(welcome.model_dump_json())

    async def _resync(self) -> None:
        game = await self.manager.store_worker.run(self.manager.store.load_game, self.game_id)
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
        state = state_view(self.state)
        views = [event_view(event) for event in events]
        shared: dict[str, str] = {}  # by language: the update but for each one's legal tokens
        for client in list(self.clients):
            text = shared.get(client.lang)
            if text is None:
                lines = self.log(client.lang)[self.version - len(events) :]
                update = Update(
                    version=self.version, state=state, events=views, log=lines, legal={}
                )
                text = shared[client.lang] = update.json_without_legal()
            client.send(Update.json_with_legal(text, self.legal_map(client)))

    def broadcast_meta(self) -> None:
        text = GameChanged(game=self.meta()).model_dump_json()
        for client in list(self.clients):
            client.send(text)

    def close_clients(self) -> None:
        for client in list(self.clients):
            client.close()
        self.clients.clear()

    # -- actions ----------------------------------------------------------------------

    async def act(self, client: Client, message: ActionMessage) -> None:
        """Apply a client's action or raise :class:`ProtocolError` (nothing changed)."""
        seat = message.seat
        if seat not in client.seats:
            if not client.seats:
                raise ProtocolError("not_your_seat", "spectators cannot act")
            held = ", ".join(str(s) for s in sorted(client.seats))
            raise ProtocolError(
                "not_your_seat",
                f"this connection holds a token for seat {held}, not for seat {seat}",
            )
        async with self.lock:
            state = self.state
            if state.is_terminal:
                raise ProtocolError("game_over", "the game is over")
            if message.version != self.version:
                raise ProtocolError(
                    "stale_version",
                    f"expected version {self.version} (the current one), found "
                    f"{message.version}: apply the latest update first",
                )
            mover = self.mover()
            if mover != seat:
                whose = "nobody's" if mover is None else f"seat {mover}'s"
                raise ProtocolError(
                    "not_your_turn",
                    f"it is {whose} turn ({self._who(mover)}), not seat {seat}'s",
                )
            legal = self.legal_for(seat)
            if message.action not in legal:
                raise ProtocolError("illegal_action", self._illegal(seat, message.action, legal))
            if state.phase is Phase.ROLL:
                action = sample_outcome(state, self.die)
            else:
                action = parse_action(message.action)
            await self._accept(action)

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
        bot_to_move = mover_kind(state, self.seats) == "bot"
        rows = [ActionRow(str(event.action), event.seat) for event in events]
        status: GameStatus = game_status(state, self.seats)
        try:
            await self.manager.store_worker.run(
                self.manager.store.append_actions,
                self.game_id,
                self.version,
                rows,
                status,
                bot_to_move,
            )
        except StoreConflict:
            # Another server instance moved this game on: this copy is stale. Catch up
            # from the store and send everyone a fresh welcome, then refuse the action.
            log.warning("game %s changed in the store behind this server", self.game_id)
            await self._resync()
            raise ProtocolError(
                "stale_version", "the game moved on elsewhere: this is the latest state"
            ) from None
        except Exception:
            log.exception("could not store an action of game %s", self.game_id)
            raise ProtocolError(
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
                    if self.closed or self.version != version:
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
        bot = self._bots.get(seat)
        if bot is None:
            bot = self._bots[seat] = self.manager.bots.make_bot(level)
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


def game_status(state: State, seats: Sequence[SeatRow]) -> GameStatus:
    """``over``, ``waiting`` (a seat is still open) or ``running``."""
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
    """The kind of the seat the server waits for (``bot``...), None if it waits for none."""
    seat = seat_to_move(state)
    return None if seat is None else seats[seat].kind
