"""The budgets that matter for security hold across instances (issue 36): two
``marrakech serve`` processes on one PostgreSQL database count sign-in tries, new
accounts and chat lines together, so a client spreading its requests over both gets
no more than from one (before, each instance counted its own: twice the tries)."""

from __future__ import annotations

import asyncio
import json
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import TWO_HUMANS
from tests.web.servers import Balancer, Served, run_showing_logs

# End to end (two server instances behind HAProxy on PostgreSQL, 7 s a test): `make
# test-slow` runs it, CI too.
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

websockets = pytest.importorskip("websockets.asyncio.client")


@pytest.fixture
def pair(pg_url: str) -> Iterator[tuple[Served, Served]]:
    # One chat line a player every two minutes past the burst of 5: no line comes back
    # to the budget while the test runs, however slow the machine.
    options = ("--bot-processes", "0", "--chats-per-minute", "0.5")
    one = Served(pg_url, *options)
    try:
        two = Served(pg_url, *options)
    except BaseException:
        one.stop()
        raise
    yield one, two
    two.stop()
    one.stop()


def post(server: Served | Balancer, path: str, body: Any) -> tuple[int, Any]:
    request = urllib.request.Request(
        server.url + path.lstrip("/"), data=json.dumps(body).encode(), method="POST"
    )
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_wrong_passwords_over_two_instances_are_counted_once(
    pair: tuple[Served, Served],
) -> None:
    one, two = pair
    assert (
        post(one, "/api/account/signup", {"name": "carol", "password": "a long passphrase"})[0]
        == 201
    )
    statuses = []
    for number in range(8):  # alternately through each instance, as round robin does
        status, answer = post(
            (one, two)[number % 2], "/api/account/signin", {"name": "carol", "password": "wrong"}
        )
        statuses.append(status)
    # The count of one instance (test_accounts.py): five tries, then a delay.
    assert statuses == [401] * 5 + [429] * 3, (statuses, one.log(), two.log())
    assert "for this name" in answer["message"]
    # New accounts from one address: 5 at once over both (carol was the first).
    created = [
        post(
            (one, two)[number % 2],
            "/api/account/signup",
            {"name": f"n{number}", "password": "a long passphrase"},
        )[0]
        for number in range(5)
    ]
    assert created == [201] * 4 + [429], created


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs Debian's haproxy")
def test_wrong_passwords_through_haproxy_are_counted_once(pair: tuple[Served, Served]) -> None:
    """The shipped HAProxy configuration in front (round robin, the client's address
    forwarded): the same count as one instance gives."""
    balancer = Balancer(*pair)
    try:
        body = {"name": "dora", "password": "a long passphrase"}
        assert post(balancer, "/api/account/signup", body)[0] == 201
        wrong = {"name": "dora", "password": "wrong"}
        statuses = [post(balancer, "/api/account/signin", wrong)[0] for _ in range(8)]
        assert statuses == [401] * 5 + [429] * 3, statuses
    finally:
        balancer.stop()


def test_chat_lines_over_two_instances_share_one_budget(pair: tuple[Served, Served]) -> None:
    one, two = pair
    status, game = post(one, "/api/games", TWO_HUMANS)
    assert status == 201, game
    token = game["seats"][0]["token"]

    async def scenario() -> None:
        pages = []
        for server in (one, two):  # seat 0's pages, one on each instance
            ws = await websockets.connect(
                f"ws://127.0.0.1:{server.port}/ws/{game['game_id']}", ping_interval=None
            )
            await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
            pages.append(ws)
        answers = []
        for number in range(6):
            ws = pages[number % 2]
            await ws.send(json.dumps({"type": "chat", "text": f"line {number}"}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if message["type"] == "error":
                    answers.append(message["code"])
                    break
                if message["type"] == "chat" and not message["history"]:
                    if any(line["text"] == f"line {number}" for line in message["lines"]):
                        answers.append("said")
                        break
        for ws in pages:
            await ws.close()
        # A player's 5 lines at once (Limits.chat_burst) over both instances.
        assert answers == ["said"] * 5 + ["chat_too_fast"], answers

    run_showing_logs(scenario(), one=one, two=two)
