"""Several server instances on one PostgreSQL database (see :mod:`marrakech.web.cluster`).

- **Leases**: each instance keeps a heartbeat row (``instances.alive_until``, renewed
  every :data:`HEARTBEAT` seconds for :data:`LEASE` seconds, on the database's clock).
  ``games.owner`` names the instance that owns a game's room; an instance may claim a
  game that has no owner or whose owner's lease ran out. Appends are conditional on
  ownership, so an instance that lost a game can no longer write it.
- **Relay**: every append is announced on :data:`GAMES_CHANNEL` (``NOTIFY``, sent at
  commit, with the actions): followers apply them and tell their clients. So are chat
  lines (stored by the instance their writer is connected to), the lines players'
  reports hold and the operator's decisions (``marrakech admin``: ``hide`` a line,
  ``restore`` one whose reports were dismissed). A follower
  forwards its clients' actions to the owner on the owner's own channel and hears the
  answer on its own.
- **Takeover**: every :data:`SWEEP` seconds an instance claims the games with a bot to
  move that no living instance owns, and the games it follows whose owner died; so a
  dead owner's rooms go on elsewhere within ``LEASE + SWEEP`` seconds (4 s), with every
  stored action, and its clients reconnect through the load balancer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import logging
import time
from typing import Any

from psycopg import AsyncConnection

from marrakech.web.cluster import ClusterHost, ClusterRoom, Command, HideReason, Move
from marrakech.web.protocol import SEAT_MESSAGE, ChangeReason, ProtocolError
from marrakech.web.store import ActionRow, ChatRow
from marrakech.web.store.postgres import GAMES_CHANNEL, PostgresStore

log = logging.getLogger("marrakech.web")

#: Seconds between heartbeats, seconds a heartbeat lasts, seconds between sweeps.
HEARTBEAT, LEASE, SWEEP = 1.0, 3.0, 1.0
#: Tries to give a lease up while the database is away (about a minute in all).
RELEASE_TRIES = 12
#: Seconds a follower waits for the owner to answer a forwarded action before it checks
#: whether the owner is still alive.
ANSWER = 1.5

_OWNER_ALIVE = (
    "EXISTS (SELECT 1 FROM instances i WHERE i.id = games.owner AND i.alive_until > now())"
)


def instance_channel(instance: str) -> str:
    """The channel an instance listens to for forwarded actions and their answers."""
    return f"marrakech_i_{instance}"


class PostgresCluster:
    """Leases, relay and takeover for the instances of one PostgreSQL database."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.instance = store.instance
        self.channel = instance_channel(self.instance)
        self._host: ClusterHost | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._requests = itertools.count(1)
        self._answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._background: set[asyncio.Task[None]] = set()

    @property
    def manager(self) -> ClusterHost:
        """The rooms of this instance."""
        assert self._host is not None, "the cluster has not started"
        return self._host

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self, host: ClusterHost) -> None:
        self._host = host
        await self._execute(
            "INSERT INTO instances (id, started, alive_until)"
            " VALUES (%s, %s, now() + make_interval(secs => %s))",
            (self.instance, time.time(), LEASE),
        )
        listening = asyncio.get_running_loop().create_future()
        self._tasks = [
            asyncio.create_task(self._listen(listening), name="marrakech listen"),
            asyncio.create_task(self._heartbeat(), name="marrakech heartbeat"),
            asyncio.create_task(self._sweep(), name="marrakech sweep"),
        ]
        await listening

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):  # let the others take over at once
            await asyncio.wait_for(self._give_up(), timeout=3)

    async def _give_up(self) -> None:
        await self._execute("UPDATE games SET owner = NULL WHERE owner = %s", (self.instance,))
        await self._execute("DELETE FROM instances WHERE id = %s", (self.instance,))

    async def _execute(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        async with self.store.pool.connection() as conn:
            cursor = await conn.execute(query, params)
            return await cursor.fetchall() if cursor.description else []

    async def _notify(self, channel: str, payload: str) -> None:
        await self._execute("SELECT pg_notify(%s, %s)", (channel, payload))

    def _later(self, coroutine: Any) -> None:
        """Run ``coroutine`` in the background (kept, so it is not collected)."""
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- ownership ------------------------------------------------------------------------

    async def claim(self, game_id: str) -> bool:
        rows = await self._execute(
            f"UPDATE games SET owner = %s WHERE id = %s AND (owner IS NULL OR owner = %s"
            f" OR NOT {_OWNER_ALIVE}) RETURNING id",
            (self.instance, game_id, self.instance),
        )
        self._ask_presence(game_id)
        return bool(rows)

    def release(self, game_id: str) -> None:
        self._later(self._release(game_id))

    async def _release(self, game_id: str) -> None:
        """Give the lease up, trying again while the database is away: a lease kept by a
        living instance that unloaded the room would leave the game to nobody."""
        for attempt in range(RELEASE_TRIES):
            if game_id in self.manager.rooms:
                return  # loaded here again meanwhile: this instance owns it once more
            try:
                await self._execute(
                    "UPDATE games SET owner = NULL WHERE id = %s AND owner = %s",
                    (game_id, self.instance),
                )
                return
            except Exception as error:
                log.warning("could not give up game %s (%s): trying again", game_id, error)
                await asyncio.sleep(min(8.0, 0.25 * 2**attempt))

    def seats_changed(self, game_id: str, reason: ChangeReason | None, seat: int | None) -> None:
        body = json.dumps({"seats": 1, "why": reason, "seat": seat, "o": self.instance})
        self._later(self._notify(GAMES_CHANNEL, f"{game_id} {body}"))

    def presence(self, game_id: str, seats: frozenset[int]) -> None:
        body = json.dumps({"p": sorted(seats), "o": self.instance})
        self._later(self._notify(GAMES_CHANNEL, f"{game_id} {body}"))

    def chat(self, row: ChatRow) -> None:
        body = json.dumps({"chat": dataclasses.asdict(row), "o": self.instance})
        self._later(self._notify(GAMES_CHANNEL, f"{row.game_id} {body}"))

    def chat_held(self, game_id: str, ids: list[int]) -> None:
        body = json.dumps({"hide": ids, "why": "held", "o": self.instance})
        self._later(self._notify(GAMES_CHANNEL, f"{game_id} {body}"))

    def _ask_presence(self, game_id: str) -> None:
        """A room loaded here: the instances holding the same game say who they hold."""
        self._later(self._notify(GAMES_CHANNEL, f'{game_id} {{"pq":1,"o":"{self.instance}"}}'))

    # -- forwarding -----------------------------------------------------------------------

    async def forward(self, room: ClusterRoom, seat: int, version: int, move: Move) -> bool:
        deadline = time.monotonic() + LEASE + 2 * ANSWER
        while time.monotonic() < deadline:
            if room.version > version:
                return True  # the owner applied it; its notice arrived first
            owner = await self.store.owner_of(room.game_id)
            if owner is None or owner == self.instance:
                if await self.claim(room.game_id):
                    return False
                continue
            number = next(self._requests)
            answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self._answers[number] = answer
            request = {"r": number, "f": self.instance, "g": room.game_id}
            request.update({"s": seat, "v": version})
            if isinstance(move, str):
                request["a"] = move
            else:  # a seat command travels as its typed message
                request.update(
                    {"m": move.message.model_dump(), "k": move.address, "a": move.account}
                )
            try:
                await self._notify(instance_channel(owner), json.dumps(request))
                reply = await asyncio.wait_for(answer, ANSWER)
            except TimeoutError:
                if await self.claim(room.game_id):  # the owner is gone
                    return False
                continue
            finally:
                self._answers.pop(number, None)
            if reply.get("ok"):
                return True
            if "c" in reply:
                raise ProtocolError(reply["c"], reply["m"])
            await asyncio.sleep(0.05)  # "retry": the room moved; ask who owns it now
        raise ProtocolError("server_error", "the game's server does not answer; try again")

    async def _serve_forwarded(self, request: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"r": request["r"]}
        try:
            message = request.get("m")
            move: Move = (
                request["a"]
                if message is None
                else Command(
                    SEAT_MESSAGE.validate_python(message),
                    str(request.get("k", "")),
                    request.get("a") if isinstance(request.get("a"), str) else None,
                )
            )
            if await self.manager.apply_forwarded(request["g"], request["s"], request["v"], move):
                reply["ok"] = 1
            else:
                reply["retry"] = 1
        except ProtocolError as error:
            reply.update(c=error.code, m=error.message)
        except Exception:
            log.exception("a forwarded action of game %s failed", request.get("g"))
            reply.update(c="server_error", m="the server could not apply the action")
        await self._notify(instance_channel(request["f"]), json.dumps(reply))

    # -- listening ------------------------------------------------------------------------

    async def _listen(self, listening: asyncio.Future[None]) -> None:
        """Hear appends, seat changes, forwarded actions and answers; reconnect if the
        connection drops, catching up every followed room then."""
        while True:
            try:
                conn = await AsyncConnection.connect(self.store.url, autocommit=True)
            except Exception as error:
                log.warning("cannot listen to the database: %s", error)
                await asyncio.sleep(1)
                continue
            try:
                async with conn:
                    await conn.execute(f"LISTEN {GAMES_CHANNEL}")
                    await conn.execute(f"LISTEN {self.channel}")
                    if listening.done():  # a reconnection: notices may have been missed
                        for room in list(self.manager.rooms.values()):
                            if not room.owner:
                                self._later(room.follow())
                    else:
                        listening.set_result(None)
                    async for notice in conn.notifies():
                        self._heard(notice.channel, notice.payload)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("lost the database's notifications, reconnecting: %s", error)
                await asyncio.sleep(0.5)

    def _heard(self, channel: str, payload: str) -> None:
        if channel != GAMES_CHANNEL:
            message = json.loads(payload)
            if "f" in message:
                self._later(self._serve_forwarded(message))
            else:
                answer = self._answers.get(message.get("r", 0))
                if answer is not None and not answer.done():
                    answer.set_result(message)
            return
        game_id, _, body = payload.partition(" ")
        manager = self.manager
        room = manager.rooms.get(game_id)
        if room is None and manager.loading(game_id) is None:
            return  # a game this instance does not hold
        message = json.loads(body)
        if message.get("o") == self.instance and "a" not in message:
            return  # its own seat and presence notices
        if "p" in message:
            if room is not None:
                room.set_remote(message["o"], frozenset(message["p"]))
        elif "pq" in message:
            if room is not None and room.local_seats():
                self.presence(game_id, room.local_seats())
        elif "chat" in message:
            if room is not None:
                room.chat.heard(ChatRow(**message["chat"]))
        elif "hide" in message:
            if room is not None:
                why: HideReason = "held" if message.get("why") == "held" else "hidden"
                room.chat.hidden([int(line_id) for line_id in message["hide"]], why)
        elif "restore" in message:
            if room is not None:
                room.chat.restored([int(line_id) for line_id in message["restore"]])
        elif "seats" in message:
            if room is not None:
                self._later(room.reload_seats(message.get("why"), message.get("seat")))
        elif "a" in message and message.get("o") != self.instance:
            rows = [ActionRow(token, seat) for token, seat in message["a"]]
            self._later(self._catch_up(game_id, message["v"], rows))

    async def _catch_up(self, game_id: str, version: int, rows: list[ActionRow]) -> None:
        loading = self.manager.loading(game_id)
        if loading is not None:  # heard while the room loads: apply once it has
            with contextlib.suppress(Exception):
                await asyncio.shield(loading)
        await self.manager.catch_up(game_id, version, rows)

    # -- heartbeat and takeover -------------------------------------------------------------

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                await self._execute(
                    "INSERT INTO instances (id, started, alive_until)"
                    " VALUES (%s, %s, now() + make_interval(secs => %s))"
                    " ON CONFLICT (id) DO UPDATE SET alive_until = excluded.alive_until",
                    (self.instance, time.time(), LEASE),
                )
            except Exception as error:
                log.warning("heartbeat failed: %s", error)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP)
            try:
                await self._take_over()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("taking over the rooms of dead instances failed")

    async def _take_over(self) -> None:
        manager = self.manager
        await manager.resume(await self.store.games_to_resume())
        if any(room.remote for room in manager.rooms.values()):
            rows = await self._execute("SELECT id FROM instances WHERE alive_until > now()")
            living = {row[0] for row in rows}
            for live in list(manager.rooms.values()):
                live.keep_remote(living)
        followed = [room.game_id for room in manager.rooms.values() if not room.owner]
        if followed:
            orphans = await self._execute(
                f"SELECT id FROM games WHERE id = ANY(%s) AND status <> 'over'"
                f" AND (owner IS NULL OR NOT {_OWNER_ALIVE})",
                (followed,),
            )
            for (game_id,) in orphans:
                room = manager.rooms.get(game_id)
                if room is not None and not room.owner and await self.claim(game_id):
                    log.info("took over game %s", game_id)
                    await room.promote()
        await self._execute("DELETE FROM instances WHERE alive_until < now() - interval '1 hour'")
