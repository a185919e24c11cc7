"""Live play over the WebSocket ``/ws/{game_id}`` (docs/web-protocol.md).

A :class:`Session` is one connection: it waits for the ``hello``, attaches a
:class:`~marrakech.web.connection.Client` to the game's room, then answers actions and pings
in order. Every message is size-checked, rate-limited (a token bucket per connection,
:class:`RateLimiter`) and validated first; a connection that keeps flooding is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import cast

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from marrakech.web.accounts.sessions import COOKIE
from marrakech.web.connection import Client
from marrakech.web.context import Context
from marrakech.web.friendships import blocked_by
from marrakech.web.http_protocol import WRITE_TEXT
from marrakech.web.limits import client_key
from marrakech.web.protocol import (
    GAME_ID,
    AnyClientMessage,
    ApiError,
    ErrorCode,
    ErrorMessage,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    parse_client_message,
)
from marrakech.web.room import Room, handle
from marrakech.web.room.checks import awaits_tokens, seats_for
from marrakech.web.room_manager import RoomManager
from marrakech.web.security import deny_websocket

router = APIRouter()

#: A client that keeps sending after this many refused (rate-limited) messages is closed.
MAX_REFUSED = 200
#: WebSocket close codes: 4404 no such game, 4408 no hello in time, 1008 flooding,
#: 4429 too many sockets from one address, 4403 an address the operator banned.
CLOSE_NOT_FOUND, CLOSE_NO_HELLO, CLOSE_POLICY, CLOSE_TOO_MANY = 4404, 4408, 1008, 4429
CLOSE_BANNED = 4403
#: A program that declared itself a bot where this server takes none (``--external-bots``).
CLOSE_BOTS_REFUSED = 4406


@router.websocket("/ws/{game_id}")
async def play(websocket: WebSocket, context: Context, game_id: str) -> None:
    address = client_key(websocket.scope)
    sockets = context.sockets
    reason = sockets.refusal(address)
    if reason is not None:
        code, message = cast(ErrorCode, reason[0]), reason[1]
        if sockets.explain(address):  # a page can read the reason only from a message
            await websocket.accept()
            await websocket.send_text(refusal(code, message).model_dump_json())
            await websocket.close(CLOSE_TOO_MANY, "too many connections")
        else:
            sockets.refused_quietly(address, context.limits.flood_cooldown)
            await deny_websocket(
                websocket.scope, websocket.send, 429, code, message, CLOSE_TOO_MANY
            )
        return
    sockets.open(address)
    await websocket.accept()
    context.metrics.sockets.inc()
    account: str | None = None
    try:
        try:
            await context.manager.check_address(address)
        except ApiError as error:
            await websocket.send_text(refusal("banned", error.message).model_dump_json())
            await websocket.close(CLOSE_BANNED, "banned")
            return
        signed = await context.accounts.session(websocket.cookies.get(COOKIE))
        if signed is not None:  # one account from several addresses: its own cap too
            if not sockets.open(f"account:{signed.account.id}"):
                message = (
                    f"your account has {sockets.cap} pages of this server open, the most it"
                    " may have: close one and reload"
                )
                await websocket.send_text(
                    refusal("too_many_connections", message).model_dump_json()
                )
                await websocket.close(CLOSE_TOO_MANY, "too many connections")
                return
            account = signed.account.id
        limiter = RateLimiter(context.rate, context.burst)
        session = Session(
            websocket,
            context.manager,
            game_id,
            limiter,
            account,
            external_bots=context.external_bots,
        )
        await session.run(context.hello_timeout)
    finally:
        context.metrics.sockets.dec()
        context.sockets.close(address)
        if account is not None:
            context.sockets.close(f"account:{account}")
    if limiter.refused > MAX_REFUSED:
        context.sockets.flooded(address, context.limits.flood_cooldown)


class RateLimiter:
    """A token bucket: ``rate`` messages per second on average, bursts up to ``burst``.

    >>> limiter = RateLimiter(rate=1.0, burst=2, clock=lambda: 0.0)
    >>> [limiter.allow() for _ in range(4)], limiter.refused_in_a_row
    ([True, True, False, False], 2)
    """

    def __init__(
        self, rate: float = 20.0, burst: int = 40, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"expected rate > 0 and burst >= 1, found {rate} and {burst}")
        self.rate = rate
        self.burst = float(burst)
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()
        #: Messages refused so far (the server closes a connection that keeps flooding).
        self.refused = 0
        #: Messages refused since the last one allowed (only the first is answered).
        self.refused_in_a_row = 0

    def allow(self) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.refused_in_a_row = 0
            return True
        self.refused += 1
        self.refused_in_a_row += 1
        return False


class Session:
    """One WebSocket connection: a hello, then actions and pings, answered in order.

    After the hello everything is sent through the :class:`Client` outbox, written by one
    task, so the welcome, the updates and the errors reach the browser in order.
    """

    def __init__(
        self,
        websocket: WebSocket,
        manager: RoomManager,
        game_id: str,
        limiter: RateLimiter,
        account: str | None = None,
        external_bots: str = "allow",
    ) -> None:
        #: The signed-in account of the connection (its cookie), for per-account limits.
        self.account = account
        self.external_bots = external_bots
        self.websocket = websocket
        self.manager = manager
        self.game_id = game_id
        self.limiter = limiter
        self.room: Room | None = None
        self.client: Client | None = None

    async def run(self, hello_timeout: float) -> None:
        writer: asyncio.Task[None] | None = None
        try:
            client = await self._hello(hello_timeout)
            if client is None:
                return
            writer = asyncio.create_task(self._write(client))
            await self._serve(client)
        except WebSocketDisconnect:
            pass
        finally:
            if self.room is not None and self.client is not None:
                self.room.detach(self.client)
                self.client.close()
            if writer is not None:
                try:
                    await asyncio.wait_for(writer, timeout=5)
                except (TimeoutError, asyncio.CancelledError):
                    writer.cancel()

    async def _receive(self, timeout: float | None = None) -> str | bytes | None:
        """The next message, or None when the browser left."""
        message = await asyncio.wait_for(self.websocket.receive(), timeout)
        if message["type"] == "websocket.disconnect":
            return None
        text: str | None = message.get("text")
        if text is not None:
            return text
        data: bytes = message.get("bytes") or b""
        return data

    async def _check(self, raw: str | bytes) -> AnyClientMessage | ErrorMessage | Pong | None:
        """The message to handle, or the answer to send instead (an error, a pong), or
        None to drop it unanswered (a flood past its first refusal: answering each would
        cost the server more than the flood)."""
        version = None if self.room is None else self.room.version
        if not self.limiter.allow():
            if self.limiter.refused > MAX_REFUSED:
                await self.websocket.close(CLOSE_POLICY, "too many messages")
                raise WebSocketDisconnect(CLOSE_POLICY)
            if self.limiter.refused_in_a_row > 1:
                return None
            return refusal(
                "rate_limited",
                f"at most {self.limiter.rate:g} messages per second (bursts of "
                f"{self.limiter.burst:g}): this one was dropped",
                version,
            )
        try:
            message = parse_client_message(raw)
        except ProtocolError as error:
            return refusal(error.code, error.message, version)
        if isinstance(message, Ping):
            return Pong()
        return message

    async def _hello(self, timeout: float) -> Client | None:
        """Wait for the hello; attach to the room. None if the connection ends here."""
        while True:
            try:
                raw = await self._receive(timeout)
            except TimeoutError:
                await self._send_now(refusal("bad_message", "expected a hello message"))
                await self.websocket.close(CLOSE_NO_HELLO, "no hello")
                return None
            if raw is None:
                return None
            message = await self._check(raw)
            if message is None:
                continue
            if isinstance(message, ErrorMessage | Pong):
                await self._send_now(message)
                continue
            if not isinstance(message, Hello):
                await self._send_now(refusal("bad_message", 'expected {"type": "hello"} first'))
                continue
            room = await self.manager.get(self.game_id) if GAME_ID.match(self.game_id) else None
            if room is None:
                await self._send_now(refusal("not_found", "no such game"))
                await self.websocket.close(CLOSE_NOT_FOUND, "no such game")
                return None
            tokens, unknown = seats_for(room, message.tokens)
            if unknown and awaits_tokens(room):
                # A rematch's seat may have got its token on another instance just now.
                await room.reload_seats()
                tokens, unknown = seats_for(room, message.tokens)
            refused = self._bot_refused(room, message, frozenset(tokens))
            if refused is not None:
                await self._send_now(refusal("bots_refused", refused))
                await self.websocket.close(CLOSE_BOTS_REFUSED, "external bots refused")
                return None
            client = Client(
                frozenset(tokens),
                message.lang,
                self.manager.queue_size,
                tokens,
                address=client_key(self.websocket.scope),
                bot=message.bot and bool(tokens),
                account=self.account,
                blocked=await blocked_by(self.manager.store, self.account),
            )
            self.room, self.client = room, client
            if unknown:
                client.send(
                    refusal(
                        "bad_token",
                        f"{unknown} of the tokens matches no seat of this game: "
                        "you see the game without that seat",
                        room.version,
                    ).model_dump_json()
                )
            room.attach(client)
            return client

    def _bot_refused(self, room: Room, hello: Hello, seats: frozenset[int]) -> str | None:
        """Why this server refuses a program that declared itself a bot on ``seats``
        (``--external-bots``), or None. A bot watching without a seat is a spectator."""
        if not hello.bot or not seats or self.external_bots == "allow":
            return None
        if self.external_bots == "refuse":
            return "this server takes no external bot"
        if any(room.seats[seat].joined for seat in seats):
            return (
                "this server takes external bots on invitation only, not on a seat "
                "taken from the lobby: ask the host for an invitation link"
            )
        return None

    async def _send_now(self, message: ErrorMessage | Pong) -> None:
        await self.websocket.send_text(message.model_dump_json())

    async def _serve(self, client: Client) -> None:
        room = self.room
        assert room is not None
        while not client.closed:
            raw = await self._receive()
            if raw is None or client.closed:
                return
            message = await self._check(raw)
            if message is None:
                continue
            if isinstance(message, Hello):
                message = refusal("bad_message", "hello was already received", room.version)
            if isinstance(message, ErrorMessage | Pong):
                client.send(message.model_dump_json())
                continue
            try:
                await handle(room, client, message)  # refuses a type it has no handler for
            except ProtocolError as error:
                client.send(refusal(error.code, error.message, room.version).model_dump_json())

    async def _write(self, client: Client) -> None:
        client.write_now = self.websocket.scope.get("extensions", {}).get(WRITE_TEXT)
        try:
            while True:
                text = await client.outbox.get()
                if text is None:
                    break
                client.writing = True
                await self.websocket.send_text(text)
                client.writing = False
        except Exception:  # the browser left mid-write: the reader sees the disconnect
            return
        finally:
            client.write_now = None
        if self.websocket.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await self.websocket.close(1000)


def refusal(code: ErrorCode, message: str, version: int | None = None) -> ErrorMessage:
    """An ``error`` message; ``version`` None before the hello was accepted."""
    return ErrorMessage(code=code, message=message, version=version)
