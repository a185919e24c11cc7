"""Tournaments survive ``kill -9`` (issue 37, item 3): an arena on two instances of one
PostgreSQL database goes on when the instance pairing it is killed (another takes its
lease over), and every game it paired is kept, the standings derived from them."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.web.servers import Served
from tests.web.test_accounts import PASSWORD
from tests.web.test_moderation import admin_ok

# Minutes of real processes: in make test-slow (CI runs it), not in make test.
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

OPTIONS = ("--bot-delay", "0.01", "--bot-processes", "0", "--blitz-seconds", "1")


def account(served: Served, name: str) -> Any:
    httpx = pytest.importorskip("httpx")
    client = httpx.Client(base_url=served.url, timeout=10)
    reply = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert reply.status_code == 201, reply.text
    return client


def page(served: Served, tid: str) -> dict[str, Any]:
    import httpx

    found: dict[str, Any] = httpx.get(f"{served.url}api/tournaments/{tid}", timeout=10).json()
    return found


def until(served: Served, tid: str, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        now = page(served, tid)
        if done(now):
            return now
        assert time.monotonic() < deadline, (now, served.log())
        time.sleep(0.3)


def test_an_arena_goes_on_after_its_instances_are_killed(pg_url: str) -> None:
    one, two = Served(pg_url, *OPTIONS), Served(pg_url, *OPTIONS)
    three: Served | None = None
    try:
        # Two bot entrants: always there, they go on playing each other once the
        # accounts, away, are paused.
        said = admin_ok(
            pg_url, "tournament", "create", "Kill arena", "--bot", "easy", "--bot", "medium"
        )
        tid = said.split("/t/")[1].strip()
        clients = [account(one, name) for name in ("Ana", "Bo", "Cy")]
        for client in clients:
            assert client.post(f"/api/tournaments/{tid}/join").status_code == 204
        first = until(two, tid, lambda now: len(now["games"]) >= 2)
        paired = {game["game_id"] for game in first["games"]}
        one.kill()
        # The games go on (the accounts' players away, the stand-ins play) and end;
        # the arena pairs again, on the instance left.
        later = until(two, tid, lambda now: len(now["games"]) >= len(paired) + 2)
        three = Served(pg_url, *OPTIONS)
        two.kill()
        last = until(three, tid, lambda now: len(now["games"]) >= len(later["games"]) + 2)
        kept = {game["game_id"] for game in last["games"]}
        assert paired <= kept  # every pairing, and its game, is still there
        import httpx

        for game_id in kept:
            assert httpx.get(f"{three.url}api/games/{game_id}", timeout=10).status_code == 200
        finished = [game for game in last["games"] if game["places"] is not None]
        scored = sum(line["score"] for line in last["standings"])
        assert finished and scored >= 2 * len(finished)  # each game's points, streaks double
    finally:
        for served in (one, two, three):
            if served is not None and served.process.poll() is None:
                served.stop()
