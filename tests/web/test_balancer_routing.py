"""The shipped HAProxy config sends a game's WebSockets to one instance (issue 36): its
players meet on the instance that owns the game, and nothing is relayed between
instances; the rest is still balanced over both."""

from __future__ import annotations

import base64
import os
import shutil
import socket
import time
import urllib.request

import pytest

from tests.web.postgres import free_port
from tests.web.servers import Balancer, Served

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs Debian's haproxy"),
]

#: Games whose two sockets are opened, one game after the other.
GAMES = [f"routing{n}" for n in range(8)]


def open_websocket(port: int, game_id: str) -> socket.socket:
    """A WebSocket to ``/ws/<game_id>`` through the balancer, once upgraded (a page
    that has not said hello yet)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    connection.sendall(
        (
            f"GET /ws/{game_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    reply = connection.recv(4096)
    assert reply.startswith(b"HTTP/1.1 101"), reply
    return connection


def open_sockets(metrics_port: int) -> int:
    """The WebSockets open on an instance (its ``/metrics``)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith("marrakech_websockets_open "):
                return int(float(line.split()[1]))
    raise AssertionError("no marrakech_websockets_open in /metrics")


def settled(metrics: list[int], total: int) -> list[int]:
    """Each instance's open WebSockets, once they add up to ``total`` (an instance
    counts a socket just after its upgrade was answered)."""
    deadline = time.monotonic() + 10
    while sum(counts := [open_sockets(port) for port in metrics]) != total:
        assert time.monotonic() < deadline, counts
        time.sleep(0.05)
    return counts


def test_haproxy_sends_a_games_sockets_to_one_instance(pg_url: str) -> None:
    metrics = [free_port(), free_port()]
    one, two = (
        Served(pg_url, "--bot-processes", "0", "--metrics", f"127.0.0.1:{port}") for port in metrics
    )
    balancer = Balancer(one, two)  # ready once round robin reached both (the API)
    held: list[socket.socket] = []
    try:
        where = []
        for game_id in GAMES:
            before = settled(metrics, len(held))
            held += [open_websocket(balancer.port, game_id) for _ in range(2)]
            after = settled(metrics, len(held))
            added = [a - b for a, b in zip(after, before, strict=True)]
            assert sorted(added) == [0, 2], (game_id, added)  # both on the same instance
            where.append(added.index(2))
        assert set(where) == {0, 1}, where  # and the games spread over both
    finally:
        for connection in held:
            connection.close()
        balancer.stop()
        one.stop()
        two.stop()
