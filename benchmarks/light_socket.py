"""A WebSocket client as light as the load tools need (RFC 6455, text messages only).

The simulated clients of ``load_web.py`` run on the server's machine: at a thousand
games, ``websockets``' client (its frames parsed by generators, each message through an
assembler and a queue) took about a quarter of the CPU the server did per action, CPU
the server then lacked. This one is an asyncio protocol that cuts frames straight out
of the bytes received and hands each text message to the one waiting for it; it answers
pings and close frames and masks what it sends, as a client must. It checks the
server's handshake answer (``101`` and ``Sec-WebSocket-Accept``) and nothing else.

Each message keeps the moment its last bytes were read (:attr:`LightSocket.received_at`
after :meth:`~LightSocket.recv`), so that a load tool times the server's answer, not
how long its own task, sharing one loop with thousands of others, took to get to it.

Errors are :class:`OSError`\\ s (a connection refused, reset or closed, a handshake
refused: :class:`Refused`), so a client reconnecting on ``OSError`` handles them all.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import random
import ssl
import time
from collections import deque
from types import TracebackType
from typing import cast
from urllib.parse import urlsplit

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x1, 0x2, 0x8, 0x9, 0xA


class Closed(ConnectionError):
    """The connection is closed (by either side, or lost)."""


class Refused(ConnectionError):
    """The server answered the handshake with something else than ``101``."""

    def __init__(self, status: int, head: str) -> None:
        super().__init__(f"handshake refused: {head}")
        self.status = status


def frame(opcode: int, payload: bytes, rng: random.Random) -> bytes:
    """A final client frame (masked, as RFC 6455 wants of clients).

    >>> frame(_TEXT, b"hi", random.Random(0))[:2]
    b'\\x81\\x82'
    """
    length = len(payload)
    if length < 126:
        head = bytes((0x80 | opcode, 0x80 | length))
    elif length < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + length.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + length.to_bytes(8, "big")
    key = rng.getrandbits(32).to_bytes(4, "big")
    if not payload:
        return head + key
    repeated = (key * (length // 4 + 1))[:length]
    masked = int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")
    return head + key + masked.to_bytes(length, "big")


class LightSocket(asyncio.Protocol):
    """One client connection: :meth:`send` and :meth:`recv` text messages."""

    def __init__(self, key: str) -> None:
        self._accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._fragments: list[bytes] = []
        self._messages: deque[tuple[float, str]] = deque()
        #: When the message :meth:`recv` returned last was read (``time.perf_counter``).
        self.received_at = 0.0
        self._waiter: asyncio.Future[None] | None = None
        self._closed: Exception | None = None
        self._open = False
        self._rng = random.Random(os.urandom(8))
        self.handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # -- asyncio.Protocol ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if not self._open and not self._read_handshake():
            return
        self._read_frames()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(Closed(f"connection lost: {exc}" if exc else "connection closed"))

    # -- what a client calls --------------------------------------------------------------

    async def recv(self) -> str:
        """The next text message; :class:`Closed` once the connection is gone."""
        while not self._messages:
            if self._closed is not None:
                raise self._closed
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        self.received_at, text = self._messages.popleft()
        return text

    async def send(self, text: str) -> None:
        """Send a text message (:class:`Closed` if the connection is gone)."""
        if self._closed is not None or self._transport is None:
            raise self._closed or Closed("not connected")
        self._transport.write(frame(_TEXT, text.encode(), self._rng))

    def close(self) -> None:
        """Say goodbye (a close frame, 1000) and close the connection."""
        if self._transport is not None and not self._transport.is_closing():
            if self._open and self._closed is None:
                self._transport.write(frame(_CLOSE, (1000).to_bytes(2, "big"), self._rng))
            self._transport.close()
        self._fail(Closed("closed by the client"))

    # -- inside ---------------------------------------------------------------------------

    def _fail(self, error: Exception) -> None:
        if self._closed is None:
            self._closed = error
        if not self.handshake.done():
            self.handshake.set_exception(error)
            self.handshake.exception()  # whoever waits for it hears it; nobody else must
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _read_handshake(self) -> bool:
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self._buffer[:end]).decode("latin-1")
        del self._buffer[: end + 4]
        lines = head.split("\r\n")
        parts = lines[0].split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines[1:])
        }
        if status != 101 or headers.get("sec-websocket-accept") != self._accept:
            self._fail(Refused(status, lines[0]))
            assert self._transport is not None
            self._transport.close()
            return False
        self._open = True
        self.handshake.set_result(None)
        return True

    def _read_frames(self) -> None:
        buffer = self._buffer
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            length, start = second & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            if second & 0x80:  # a server must not mask; read it anyway
                start += 4
            if len(buffer) < start + length:
                return
            payload = bytes(buffer[start : start + length])
            if second & 0x80:
                key = buffer[start - 4 : start]
                payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
            del buffer[: start + length]
            self._frame(first & 0x80, first & 0x0F, payload)

    def _frame(self, final: int, opcode: int, payload: bytes) -> None:
        assert self._transport is not None
        if opcode in (_TEXT, _BINARY, 0):
            self._fragments.append(payload)
            if final:
                data = b"".join(self._fragments)
                self._fragments = []
                text = data.decode("utf-8", errors="replace")
                self._messages.append((time.perf_counter(), text))
                self._wake()
        elif opcode == _PING:
            self._transport.write(frame(_PONG, payload, self._rng))
        elif opcode == _CLOSE:
            if not self._transport.is_closing():
                self._transport.write(frame(_CLOSE, payload[:2], self._rng))
                self._transport.close()
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            self._fail(Closed(f"closed by the server ({code})"))


class connect:
    """``async with connect("ws://host:port/path") as socket``: a :class:`LightSocket`
    past its handshake, closed on leaving; ``local_addr``: the address to speak from."""

    def __init__(
        self, uri: str, local_addr: tuple[str, int] | None = None, timeout: float = 10.0
    ) -> None:
        self.uri = uri
        self.local_addr = local_addr
        self.timeout = timeout
        self.socket: LightSocket | None = None

    async def __aenter__(self) -> LightSocket:
        parts = urlsplit(self.uri)
        secure = parts.scheme == "wss"
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (443 if secure else 80)
        key = base64.b64encode(os.urandom(16)).decode()
        loop = asyncio.get_running_loop()
        self.socket = LightSocket(key)
        transport, protocol = await asyncio.wait_for(
            loop.create_connection(
                lambda: self.socket,
                host,
                port,
                local_addr=self.local_addr,
                ssl=ssl.create_default_context() if secure else None,
            ),
            self.timeout,
        )
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        )
        transport.write(request.encode())  # uvloop may call connection_made after this
        try:
            await asyncio.wait_for(asyncio.shield(protocol.handshake), self.timeout)
        except BaseException:
            protocol.close()
            raise
        return protocol

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.socket is not None:
            self.socket.close()
