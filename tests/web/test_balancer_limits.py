"""The shipped HAProxy config caps each client address (issue 23): connections open at
once and POSTs a minute, refused in the servers' JSON error shape (not HAProxy's HTML)."""

from __future__ import annotations

import json
import shutil
import socket
import time
import urllib.error
import urllib.request

import pytest

from tests.web.servers import Balancer, Served

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs Debian's haproxy"),
]

#: The caps of deploy/haproxy.cfg.
CONNECTIONS, POSTS_PER_MINUTE = 40, 120


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def post(url: str) -> int:
    request = urllib.request.Request(url, data=b"{}", method="POST")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            status: int = reply.status
    except urllib.error.HTTPError as error:
        status = error.code
    return status


def test_haproxy_caps_each_clients_connections_and_posts_as_json(pg_url: str) -> None:
    one = Served(pg_url, "--bot-processes", "0")
    two = Served(pg_url, "--bot-processes", "0")
    balancer = Balancer(one, two)
    held: list[socket.socket] = []
    try:
        for _ in range(CONNECTIONS):  # idle connections, as pages' sockets would be
            held.append(socket.create_connection(("127.0.0.1", balancer.port), timeout=5))
        # HAProxy counts a connection once it has accepted it: on a busy machine the
        # last ones may still wait in the kernel's queue for a moment.
        deadline = time.monotonic() + 10
        while (answer := get(balancer.url + "api/health"))[0] != 429:
            assert time.monotonic() < deadline, answer
            time.sleep(0.2)
        status, headers, body = answer
        assert headers["content-type"] == "application/json" and headers["retry-after"]
        refusal = json.loads(body)
        assert refusal["error"] == "rate_limited" and "too many connections" in refusal["message"]
        for connection in held:
            connection.close()
        held.clear()
        assert get(balancer.url + "api/health")[0] == 200
        codes = [post(balancer.url + "api/nothing-here") for _ in range(POSTS_PER_MINUTE + 2)]
        assert codes[0] != 429 and codes[-1] == 429
        status, headers, body = get(balancer.url + "api/health")
        assert status == 200  # reading goes on: only POSTs were too many
    finally:
        for connection in held:
            connection.close()
        balancer.stop()
        one.stop()
        two.stop()
