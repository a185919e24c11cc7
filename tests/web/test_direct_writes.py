"""A game's updates are written to each WebSocket directly (web/http_protocol.py's
``WRITE_TEXT``, web/connection.py's ``Client.write_now``), in order, and a connection
that does not read still holds them back rather than filling the server's memory."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
import uvicorn
import uvloop
import websockets.asyncio.client as websockets

from marrakech.web.connection import Client
from marrakech.web.http_protocol import WRITE_TEXT, FirmWebSocketProtocol


class Socket:
    """A stand-in for the connection's direct writer: refuses while ``full``."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.full = False

    def write(self, text: str) -> bool:
        if self.full:
            return False
        self.written.append(text)
        return True


def test_a_message_is_written_at_once_when_nothing_waits() -> None:
    async def scenario() -> None:
        client, wire = Client(frozenset({0}), "en"), Socket()
        client.send("before the connection's task")  # no writer yet: queued
        client.write_now = wire.write
        client.send("next")  # behind the queued one, not past it
        assert wire.written == [] and client.outbox.qsize() == 2
        assert client.outbox.get_nowait() == "before the connection's task"
        assert client.outbox.get_nowait() == "next"
        client.send("now")  # nothing waits: written at once
        assert wire.written == ["now"] and client.outbox.empty()

    asyncio.run(scenario())


def test_a_full_socket_queues_and_later_messages_stay_behind() -> None:
    async def scenario() -> None:
        client, wire = Client(frozenset({0}), "en"), Socket()
        client.write_now = wire.write
        wire.full = True
        client.send("one")
        wire.full = False
        client.send("two")  # the socket has room again, but "one" waits: queued
        assert wire.written == [] and client.outbox.qsize() == 2
        client.writing = True  # the task took "one" and writes it...
        assert client.outbox.get_nowait() == "one"
        assert client.outbox.get_nowait() == "two"
        client.send("three")  # ...so "three" must wait for it too
        assert client.outbox.get_nowait() == "three" and wire.written == []
        client.writing = False
        client.send("four")
        assert wire.written == ["four"]
        client.close()
        client.send("five")  # closed: dropped
        assert wire.written == ["four"]

    asyncio.run(scenario())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_server_writes_directly_in_order_and_stops_for_a_reader_that_does_not_read(
    loop: str,
) -> None:
    """Through a real uvicorn server with the protocol ``marrakech serve`` runs, on
    either event loop (the server runs uvloop): the scope carries the writer, a reader
    that reads nothing makes it refuse within a few megabytes, everything written
    arrives, in order, and once the connection is closed it refuses without raising."""
    report: dict[str, Any] = {}
    chunk = "x" * 60_000

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket"
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        write = scope["extensions"].get(WRITE_TEXT)
        report["writer"] = write is not None
        written = 0
        while write is not None and written < 2_000 and write(f"{written:05d}{chunk}"):
            written += 1
        report["written"] = written
        await send({"type": "websocket.send", "text": "end"})  # waits for room
        await receive()  # the client's close
        report["after_close"] = write is not None and write("too late")

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        app,
        ws=FirmWebSocketProtocol,
        ws_per_message_deflate=False,  # as `marrakech serve` runs it
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)

    async def scenario() -> list[str]:
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started:
            await asyncio.sleep(0.01)
        received: list[str] = []
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/", max_size=None, ping_interval=None
        ) as ws:
            await asyncio.sleep(0.5)  # reads nothing while the server writes
            while (message := await ws.recv()) != "end":
                assert isinstance(message, str)
                received.append(message[:5])
        server.should_exit = True
        await asyncio.wait_for(serving, 10)
        return received

    try:
        received = asyncio.run(scenario()) if loop == "asyncio" else uvloop.run(scenario())
    finally:
        listener.close()
    assert report["writer"] is True
    # Refused once the socket's buffers are full: 2,000 frames would be 120 MB.
    assert 0 < report["written"] < 500
    assert received == [f"{index:05d}" for index in range(report["written"])]
    assert report["after_close"] is False  # nothing written, nothing raised
