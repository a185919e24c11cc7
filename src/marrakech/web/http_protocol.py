"""uvicorn's HTTP protocol as this server runs it: a request's headers must arrive
within a few seconds (slowloris), and the answer to a request it cannot read is the
API's JSON error with the security headers of every answer.

uvicorn closes a kept-alive connection that stays idle, but it waits for ever for the
rest of a request whose first bytes came: a client that sends a header line now and
then holds a socket, a file and memory for as long as it likes, and a few thousand such
clients exhaust the server. :func:`protocol_with_header_deadline` gives uvicorn's HTTP
protocol a deadline: a connection whose request headers are not complete
``seconds`` after its first byte (or after it opened) is closed. A WebSocket, once
upgraded, is no longer the HTTP protocol's and keeps its connection. A connection from
an address that floods (:meth:`marrakech.web.limits.SocketCounts.cooling`) is closed as
it opens.

uvicorn's WebSocket protocol, closing a connection, sends its close frame and then reads
and discards whatever the peer still sends until the peer answers, for up to 10 s. A
flooding script does not answer: it keeps sending, and the server spends its time
parsing frames it throws away. :class:`FirmWebSocketProtocol` drops a connection closed
for flooding (``1008``) or for too many sockets (``4429``) as soon as its close frame is
written.

A game's updates go out on the connection directly: :class:`FirmWebSocketProtocol` puts
:data:`WRITE_TEXT` in the ASGI scope's extensions, a function that writes a text frame
to the socket at once (``True``) when nothing holds it back, where ASGI's ``send`` would
pass each frame through every middleware's wrapper, Starlette's checks and uvicorn's
await. An update goes to every seat of a game at each action, so this is a fixed part
of each action's cost (:mod:`marrakech.web.connection`).

A request's body is read here too (:func:`read_json_body`), within
:data:`~marrakech.web.protocol.MAX_BODY_BYTES` and only when it says it is JSON.

:class:`ReadyServer` is uvicorn's server as ``marrakech serve`` runs it: once it accepts
connections it tunes the interpreter for serving
(:mod:`marrakech.web.process_tuning`) and says it is ready.
"""

from __future__ import annotations

import asyncio
import importlib.util
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from starlette.requests import Request
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from marrakech.web.process_tuning import tune_for_serving
from marrakech.web.protocol import MAX_BODY_BYTES, ApiError
from marrakech.web.security import error_body, security_headers

#: Seconds a client has to send a request's headers (``marrakech serve --header-timeout``).
HEADER_SECONDS = 10.0


def protocol_with_header_deadline(
    seconds: float = HEADER_SECONDS, refuse: Callable[[str], bool] | None = None
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class (httptools' if installed, else h11's) closing a
    connection whose request headers take longer than ``seconds``, and a connection
    from an address ``refuse`` names (a flooding one) as soon as it opens, before a
    byte of it is read: the cheapest refusal there is."""
    base: Any
    if importlib.util.find_spec("httptools") is not None:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    else:
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

    class HeaderDeadline(base):  # type: ignore[misc]
        """The protocol, with a deadline for each request's headers."""

        def send_400_response(self, msg: str) -> None:
            """A request uvicorn cannot read (a 100 KB URL, a broken header): the API's
            JSON ``400``, with the headers every answer carries."""
            data, headers = error_body(400, "bad_request", f"unreadable request: {msg}")
            lines = [b"HTTP/1.1 400 Bad Request"]
            lines += [name + b": " + value for name, value in headers]
            lines += [f"{name}: {value}".encode() for name, value in security_headers("")]
            lines += [b"connection: close", b"", data]
            self.transport.write(b"\r\n".join(lines))
            self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._deadline: asyncio.TimerHandle | None = None
            peer = transport.get_extra_info("peername")
            if refuse is not None and peer and refuse(str(peer[0])):
                transport.close()
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._between_requests():
                self._arm()  # the next request's first bytes: its headers are due
            else:
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _between_requests(self) -> bool:
            cycle = self.cycle
            return cycle is None or bool(cycle.response_complete)

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(seconds, self._too_slow, self.cycle)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self, cycle_then: Any) -> None:
            self._deadline = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed, or upgraded to a WebSocket
            if self.cycle is cycle_then and self._between_requests():
                transport.close()  # no request's headers came in time

    HeaderDeadline.__name__ = f"HeaderDeadline{base.__name__}"
    return HeaderDeadline


#: WebSocket close codes after which the server drops the connection at once (the
#: codes of :mod:`marrakech.web.routes.socket`: flooding, too many sockets).
ABRUPT_CLOSES = frozenset({1008, 4429})


#: The ASGI scope's extension of a WebSocket with a direct writer (see the module's
#: docstring): ``write(text) -> bool``, False when the text must go through ``send``.
WRITE_TEXT = "marrakech.write_text"


class FirmWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, dropping a connection closed for abuse as soon as
    its close frame is written, instead of reading what the peer keeps sending; with a
    direct writer of text frames (:data:`WRITE_TEXT`)."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if not self.close_sent:  # the handshake goes on: the app gets this scope
            self.scope["extensions"][WRITE_TEXT] = self.write_text  # type: ignore[assignment]

    def write_text(self, text: str) -> bool:
        """Write ``text`` as one frame now if the connection is open and its socket's
        buffer has room; False (nothing written) otherwise, and ASGI's ``send`` then
        waits for room or says the connection is gone, as for any message."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.writable.is_set()  # the transport paused it: its buffer is full
            or self.transport.is_closing()
        ):
            return False
        try:
            self.conn.send_text(text.encode())
            self.transport.write(b"".join(self.conn.data_to_send()))
        except (InvalidState, RuntimeError, OSError):  # closed under it: ``send`` says so
            return False
        return True

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message.get("type") == "websocket.close" and message.get("code") in ABRUPT_CLOSES:
            self.transport.close()  # writes what is buffered (the close frame) first


#: The media type of every request body (``application/json``; a charset may follow).
JSON_MEDIA_TYPE = "application/json"


async def read_json_body(request: Request) -> bytes:
    """The body of a request that says it is JSON, else ``415``: forms and text are what
    other sites can make a browser send without asking first (no CORS preflight)."""
    declared = request.headers.get("content-type", "")
    media_type = declared.split(";", 1)[0].strip().lower()
    if media_type != JSON_MEDIA_TYPE:
        shown = media_type[:60] or "none"
        raise ApiError(
            415,
            "unsupported_media_type",
            f"Content-Type: expected {JSON_MEDIA_TYPE}, found {shown}",
        )
    return await read_body(request)


async def read_body(request: Request) -> bytes:
    """The request body, refused with 413 once it passes :data:`MAX_BODY_BYTES`."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large(int(declared))
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large(size)
        chunks.append(chunk)
    return b"".join(chunks)


def too_large(size: int) -> ApiError:
    """The ``413`` of a body of ``size`` bytes (or more)."""
    return ApiError(
        413, "too_large", f"request bodies are at most {MAX_BODY_BYTES} bytes, found {size}+"
    )


class ReadyServer(uvicorn.Server):
    """uvicorn's server calling ``ready`` (printing the address) once it accepts
    connections, with the garbage collector tuned for serving from then on."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[], None]) -> None:
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            tune_for_serving()
            self.ready()
