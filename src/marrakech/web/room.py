"""One live game: its state, its connections, the checks, the store, the broadcast.

A :class:`Room` is one game in memory, rebuilt from the store's action log when it is
first needed. It accepts an action only from a connection holding the seat's token, for
the current version, when the seat is to move and the core says the action is legal; it
writes the action to the store, and only then broadcasts what changed. The server rolls
the die (a seeded ``random.Random`` per room) and reveals 2-player pile tops; bots choose
through the server's scheduler (:mod:`marrakech.web.bot_workers`) after a short visible
pause, so the event loop never blocks. The rooms of a server are kept by
:class:`~marrakech.web.rooms.RoomManager`.

When several instances share a database (:mod:`marrakech.web.cluster`), a room is its
game's **owner** (it applies, stores and broadcasts actions, runs the bots) or a
**follower**: it checks its clients' actions the same way, forwards them to the owner,
and applies what the owner stored (:meth:`Room.follow`).
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
    BotsBusy,
    GameChanged,
    GameMeta,
    Legal,
    NeedView,
    ProtocolError,
    SeatInfo,
    StateView,
    Update,
    Welcome,
    iso_time,
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

if TYPE_CHECKING:
    from marrakech.web.rooms import RoomManager

log = logging.getLogger("marrakech.web")


class Room:
    """One game being played: state, log, connections, bot turns.

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
        self.has_bots = any(seat.kind == "bot" for seat in self.seats)

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
        #: The state view the connections have (None: none is computed yet).
        self._view: StateView | None = None
        self._legal: tuple[int, list[str]] = (-1, [])

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
            state=self.view(),
            log=self.log(client.lang),
            legal=self.legal_map(client),
        )
        client.send(welcome.model_dump_json())
        if self.has_bots and self.manager.bots.busy:
            client.send(BotsBusy(busy=True).model_dump_json())

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
            self.attach(client)

    def detach(self, client: Client) -> None:
        self.clients.discard(client)
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

    def broadcast_meta(self) -> None:
        text = GameChanged(game=self.meta()).model_dump_json()
        for client in list(self.clients):
            client.send(text)

    def close_clients(self) -> None:
        for client in list(self.clients):
            client.close()
        self.clients.clear()

    # -- actions ----------------------------------------------------------------------

    async def act(self, client: Client, seat: int, version: int, token: str) -> None:
        """Apply a client's action or raise :class:`ProtocolError` (nothing changed)."""
        if seat not in client.seats:
            if not client.seats:
                raise ProtocolError("not_your_seat", "spectators cannot act")
            held = ", ".join(str(s) for s in sorted(client.seats))
            raise ProtocolError(
                "not_your_seat",
                f"this connection holds a token for seat {held}, not for seat {seat}",
            )
        await self.submit(seat, version, token)

    async def submit(self, seat: int, version: int, token: str) -> None:
        """Apply the action of a seat whose token was checked (here, or by the instance
        that forwarded it), or raise :class:`ProtocolError` (nothing changed)."""
        for _ in range(3):
            async with self.lock:
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
        state = self.state
        if state.is_terminal:
            raise ProtocolError("game_over", "the game is over")
        if version != self.version:
            raise ProtocolError(
                "stale_version",
                f"expected version {self.version} (the current one), found "
                f"{version}: apply the latest update first",
            )
        mover = self.mover()
        if mover != seat:
            whose = "nobody's" if mover is None else f"seat {mover}'s"
            raise ProtocolError(
                "not_your_turn",
                f"it is {whose} turn ({self._who(mover)}), not seat {seat}'s",
            )
        legal = self.legal_for(seat)
        if token not in legal:
            raise ProtocolError("illegal_action", self._illegal(seat, token, legal))

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
            await self.manager.store.append_actions(
                self.game_id, self.version, rows, status, bot_to_move
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
        self.events.extend(events)
        self.state = state
        self._broadcast(events)
        self.kick()

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
            self.events.extend(events)
            self.state = state
            self._broadcast(events)

    async def reload_seats(self) -> None:
        """Take the seats from the store again (a seat was claimed elsewhere)."""
        game = await self.manager.store.load_game(self.game_id)
        if game is not None:
            self.seats = list(game.seats)
            self.broadcast_meta()
            self.kick()

    async def promote(self) -> None:
        """This instance now owns the game: catch up with the store, go on with any
        pending reveal and the bots."""
        await self.follow()
        async with self.lock:
            self.owner = True
            await self._accept(None)
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
                    if self.closed or not self.owner or self.version != version:
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
