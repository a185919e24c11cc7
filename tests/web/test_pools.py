"""Quick pairing (issue 37): pools stored in the database, joined over ``/pool/socket``,
tables made into games with the lobby's code, bots after the wait; on a real SQLite file
and on PostgreSQL with two instances (marrakech.web.pools)."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from marrakech.web.app import create_app
from marrakech.web.pools import PoolSettings
from tests.web.conftest import Apps

#: Waves and looks fast, bots after half a second: tests wait for events, never for
#: time; joins unlimited but in the test of their rate (one address plays everyone).
FAST = PoolSettings(wave=0.2, tick=0.05, bot_after=0.5, joins_per_minute=1e6, join_burst=100)
NO_BOTS = PoolSettings(wave=0.2, tick=0.05, bot_after=None, joins_per_minute=1e6, join_burst=100)
#: The sockets a test opened, closed before its app stops (even when it fails).
OPEN: list[Any] = []


@pytest.fixture(autouse=True)
def close_sockets(apps: Apps) -> Iterator[None]:
    yield
    while OPEN:
        with contextlib.suppress(Exception):
            OPEN.pop().__exit__(None, None, None)


def join(client: TestClient, **spec: Any) -> tuple[WebSocketTestSession, dict[str, Any]]:
    socket = client.websocket_connect("/pool/socket")
    session = socket.__enter__()
    OPEN.append(socket)
    session.send_json({"type": "join", **spec})
    return session, session.receive_json()


def until(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never came"
        time.sleep(0.05)


def waiting_rows(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        return int(db.execute("SELECT count(*) FROM pool_entries").fetchone()[0])


def game(client: TestClient, game_id: str) -> dict[str, Any]:
    reply = client.get(f"/api/games/{game_id}")
    assert reply.status_code == 200, reply.text
    result: dict[str, Any] = reply.json()
    return result


def test_two_guests_are_paired_in_a_wave(apps: Apps) -> None:
    client = apps.start(pools=NO_BOTS)
    one, waiting = join(client, players=2, clock="relaxed", name="Ann")
    assert waiting["type"] == "waiting" and waiting["pool"] == "relaxed:casual"
    assert waiting["rating"] == 1000 and waiting["level"] is None  # a newcomer, no bots
    two, _ = join(client, players=2, clock="relaxed", name="Bob")
    first, second = one.receive_json(), two.receive_json()
    assert first["type"] == second["type"] == "paired"
    assert first["game_id"] == second["game_id"] and {first["seat"], second["seat"]} == {0, 1}
    assert first["link"].startswith(f"/g/{first['game_id']}#")
    summary = game(client, first["game_id"])
    assert summary["status"] == "playing" and summary["clock"]["mode"] == "relaxed"
    assert sorted(seat["name"] for seat in summary["seats"]) == ["Ann", "Bob"]
    assert not summary["rated"]
    for socket in (one, two):
        with pytest.raises(WebSocketDisconnect):
            socket.receive_json()
    until(lambda: waiting_rows(apps.db_path) == 0)


def test_different_pools_do_not_meet(apps: Apps) -> None:
    client = apps.start(pools=NO_BOTS)
    _blitz, _ = join(client, players=2, clock="blitz")
    _relaxed, _ = join(client, players=2, clock="relaxed")
    _three, _ = join(client, players=3, clock="blitz")
    # Another look at the pools: still three waits (a wave ran in between: none seated).
    until(lambda: client.get("/api/health").status_code == 200)
    time.sleep(0.5)  # several waves' time, to show none pairs them (not a timed assertion)
    assert waiting_rows(apps.db_path) == 3
    anyone, _ = join(client, players="any", clock="blitz")
    paired = anyone.receive_json()
    assert paired["type"] == "paired"
    assert game(client, paired["game_id"])["players"] in (2, 3)


def test_a_three_player_pool_is_filled_with_bots_after_the_wait(apps: Apps) -> None:
    client = apps.start(pools=FAST)
    socket, waiting = join(client, players=3, clock="blitz", name="Ann")
    # Named honestly before the wait ends: a newcomer's rating reaches the weakest level.
    assert waiting["level"] == "easy" and waiting["bot_after"] == 0.5
    paired = socket.receive_json()
    assert paired["type"] == "paired"
    summary = game(client, paired["game_id"])
    kinds = sorted((seat["kind"], seat.get("level")) for seat in summary["seats"])
    assert kinds == [("bot", "easy"), ("bot", "easy"), ("human", None)]
    assert summary["status"] == "playing"


def test_no_bots_wanted_keeps_waiting(apps: Apps) -> None:
    client = apps.start(pools=FAST)
    socket, waiting = join(client, players=2, clock="blitz", bots=False)
    assert waiting["level"] is None and waiting["bot_after"] is None
    other, _ = join(client, players=3, clock="blitz", bots=True)
    assert other.receive_json()["type"] == "paired"  # bots came for the other one
    until(lambda: waiting_rows(apps.db_path) == 1)  # its row is deleted once handed over
    time.sleep(FAST.bot_after or 0)  # past the wait again (not a timed assertion)
    assert waiting_rows(apps.db_path) == 1
    socket.close()
    until(lambda: waiting_rows(apps.db_path) == 0)  # closing the socket leaves the pool


def test_bad_joins_get_a_clear_refusal(apps: Apps) -> None:
    client = apps.start(pools=NO_BOTS)
    _, answer = join(client, players=5)
    assert answer["type"] == "refused" and answer["code"] == "bad_message"
    assert "players" in answer["message"]
    binary = client.websocket_connect("/pool/socket")
    session = binary.__enter__()
    OPEN.append(binary)
    session.send_bytes(b"\xff not json")
    assert session.receive_json()["code"] == "bad_message"
    _, answer = join(client, players=2, rated=True)
    assert answer == {
        "type": "refused",
        "code": "sign_in_required",
        "message": "rated pools are for signed-in accounts: sign in first",
    }
    assert waiting_rows(apps.db_path) == 0


def test_pool_hopping_is_refused_after_a_few_joins(apps: Apps) -> None:
    settings = PoolSettings(wave=0.2, tick=0.05, bot_after=None)
    client = apps.start(pools=settings)
    sockets = []
    for _ in range(settings.join_burst):
        socket, answer = join(client, players=4)
        assert answer["type"] == "waiting"
        sockets.append(socket)
    socket, answer = join(client, players=4)
    assert answer["code"] == "rate_limited" and "pool joins" in answer["message"]
    assert waiting_rows(apps.db_path) == settings.join_burst  # the waits there stay


def test_an_address_has_a_few_guests_waiting_at_most(apps: Apps) -> None:
    client = apps.start(pools=NO_BOTS)
    for _ in range(NO_BOTS.guests_per_address):
        assert join(client, players=4)[1]["type"] == "waiting"
    _, answer = join(client, players=4)
    assert answer["code"] == "too_many_waiting"
    assert waiting_rows(apps.db_path) == NO_BOTS.guests_per_address


@pytest.fixture
def two_instances(pg_url: str) -> Iterator[tuple[TestClient, TestClient]]:
    one = TestClient(create_app(pg_url, bot_delay=0, pools=NO_BOTS))
    two = TestClient(create_app(pg_url, bot_delay=0, pools=NO_BOTS))
    with one, two:
        yield one, two
        while OPEN:
            with contextlib.suppress(Exception):
                OPEN.pop().__exit__(None, None, None)


@pytest.mark.e2e
def test_players_on_two_instances_are_paired(two_instances: tuple[TestClient, TestClient]) -> None:
    one, two = two_instances
    assert one.get("/api/health").json()["instance"] != two.get("/api/health").json()["instance"]
    a, _ = join(one, players=2, clock="turn_1d", name="Ann")
    b, _ = join(two, players=2, clock="turn_1d", name="Bob")
    paired_a, paired_b = a.receive_json(), b.receive_json()
    assert paired_a["game_id"] == paired_b["game_id"]
    summary = game(two, paired_a["game_id"])
    assert sorted(seat["name"] for seat in summary["seats"]) == ["Ann", "Bob"]
    # A table of three across both instances, the third on either.
    c, _ = join(one, players=3, clock="blitz")
    d, _ = join(two, players=3, clock="blitz")
    e, _ = join(two, players=3, clock="blitz")
    ids = {socket.receive_json()["game_id"] for socket in (c, d, e)}
    assert len(ids) == 1


def test_a_rated_pool_pairs_accounts_and_one_account_waits_once(apps: Apps) -> None:
    from tests.web.test_accounts import CHEAP, sign_up

    client = apps.start(pools=NO_BOTS, passwords=CHEAP)
    sign_up(client, "Ana")
    ana, waiting = join(client, players=2, clock="blitz", rated=True)
    assert waiting["pool"] == "blitz:rated" and waiting["rating"] == 1000
    _, again = join(client, players=3, clock="relaxed")  # another tab of the same account
    assert again["code"] == "already_waiting"
    client.cookies.clear()
    sign_up(client, "Bob")
    bob, _ = join(client, players=2, clock="blitz", rated=True)
    paired = bob.receive_json()
    assert ana.receive_json()["game_id"] == paired["game_id"]
    summary = game(client, paired["game_id"])
    assert summary["rated"] and summary["status"] == "playing"
    assert sorted(seat["name"] for seat in summary["seats"]) == ["Ana", "Bob"]
    # Each seat is its account's, as a lobby's join links it: the game is rated at its end.
    with sqlite3.connect(apps.db_path) as db:
        linked = db.execute(
            "SELECT count(account_id) FROM seats WHERE game_id = ?", (paired["game_id"],)
        ).fetchone()[0]
    assert linked == 2


def test_the_metrics_show_the_players_waiting_in_each_pool(db_path: Path) -> None:
    app = create_app(db_path, bot_delay=0, metrics_port=9464, pools=NO_BOTS)
    with TestClient(app, client=("127.0.0.1", 5000)) as client:
        join(client, players=4, clock="blitz")
        join(client, players=4, clock="blitz")
        join(client, players=3, clock="relaxed", rated=False)
        scraped = client.get("http://testserver:9464/metrics")
        assert scraped.status_code == 200
        lines = scraped.text.splitlines()
        assert 'marrakech_pool_waiting{pool="blitz:casual"} 2.0' in lines
        assert 'marrakech_pool_waiting{pool="relaxed:casual"} 1.0' in lines
        while OPEN:
            OPEN.pop().__exit__(None, None, None)


def test_a_table_past_the_caps_is_refused_to_its_players(apps: Apps) -> None:
    from marrakech.web.limits import Limits

    client = apps.start(pools=NO_BOTS, limits=Limits(games_per_client=1))
    client.post("/api/games", json={"players": 2, "seats": [{"kind": "human"}] * 2})
    one, _ = join(client, players=2)
    two, _ = join(client, players=2)
    for socket in (one, two):
        answer = socket.receive_json()
        assert answer["type"] == "refused" and answer["code"] == "too_many_games"
        assert "games under way" in answer["message"]
    until(lambda: waiting_rows(apps.db_path) == 0)


@pytest.mark.e2e
def test_the_waves_go_on_when_their_instance_stops(pg_url: str) -> None:
    """The lease's holder stops: the other instance takes the lease once it runs out
    and pairs the players who wait on it."""
    import psycopg

    settings = PoolSettings(
        wave=0.2, tick=0.05, bot_after=None, lease=1.0, joins_per_minute=1e6, join_burst=100
    )
    one = TestClient(create_app(pg_url, bot_delay=0, pools=settings))
    two = TestClient(create_app(pg_url, bot_delay=0, pools=settings))
    with one, two:
        clients = {c.get("/api/health").json()["instance"]: c for c in (one, two)}

        def owner() -> str | None:
            with psycopg.connect(pg_url) as db:
                row = db.execute("SELECT owner FROM pool_lease").fetchone()
            return None if row is None else str(row[0])

        until(lambda: owner() in clients)
        holder = clients.pop(str(owner()))
        holder.__exit__(None, None, None)
        (survivor,) = clients.values()
        a, _ = join(survivor, players=2)
        b, _ = join(survivor, players=2)
        assert a.receive_json()["game_id"] == b.receive_json()["game_id"]
        assert owner() == survivor.get("/api/health").json()["instance"]
        while OPEN:
            OPEN.pop().__exit__(None, None, None)


def test_a_turn_based_table_stays_open_to_the_pool_until_it_starts(apps: Apps) -> None:
    client = apps.start(pools=FAST)
    host, waiting = join(client, players=3, clock="turn_1d", name="Ann")
    assert waiting["level"] == "easy"
    # After the wait: a game of hers whose empty seats stay open, not bots at once.
    made = host.receive_json()
    summary = game(client, made["game_id"])
    assert summary["status"] == "waiting" and summary["open_seats"] == [1, 2]
    assert summary["clock"]["stand_in_level"] == "easy"  # the level her rating reaches
    join(client, players=2, clock="turn_1d", bots=False)  # another size: not at her table
    bob, _ = join(client, players=3, clock="turn_1d", name="Bob", bots=False)
    assert bob.receive_json()["game_id"] == made["game_id"]
    cy, _ = join(client, players="any", clock="turn_1d", name="Cy", bots=False)
    assert cy.receive_json()["game_id"] == made["game_id"]
    summary = game(client, made["game_id"])
    assert summary["status"] == "playing" and summary["open_seats"] == []
    assert sorted(seat["name"] for seat in summary["seats"]) == ["Ann", "Bob", "Cy"]
    # Started: the table is closed to the pool; the 2-player wait is still there.
    join(client, players=3, clock="turn_1d", bots=False)
    until(lambda: waiting_rows(apps.db_path) == 2)
    assert all(row[0] != "table" for row in open_tables(apps.db_path))


def open_tables(db_path: Path) -> list[tuple[str]]:
    with sqlite3.connect(db_path) as db:
        return [
            (str(row[0]).split(":")[0],)
            for row in db.execute("SELECT id FROM pool_entries WHERE instance = ''")
        ]


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
@pytest.mark.e2e
def test_marrakech_serve_takes_the_pools_options(tmp_path: Path) -> None:
    import asyncio
    import json
    import subprocess
    import sys

    import websockets.asyncio.client as websockets

    from tests.web.servers import Served

    for option, value, expected in [
        ("--pool-wave", "0", "--pool-wave: expected seconds above 0, under a day; found '0'"),
        ("--pool-bots-after", "soon", "expected seconds from 0, under a day, or 'never'"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "marrakech.web", "--port", "0", option, value],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
        assert done.returncode == 2 and expected in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing was created

    server = Served(tmp_path / "games.sqlite3", "--pool-bots-after", "0", "--pool-wave", "0.2")

    async def alone() -> dict[str, Any]:
        uri = server.url.replace("http", "ws") + "pool/socket"
        async with websockets.connect(uri, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "join", "players": 2, "clock": "blitz"}))
            waiting = json.loads(await ws.recv())
            assert waiting["bot_after"] == 0, waiting
            paired: dict[str, Any] = json.loads(await ws.recv())
            return paired

    try:
        paired = asyncio.run(alone())
        assert paired["type"] == "paired"
    finally:
        server.stop()


def test_accounts_that_blocked_each_other_are_not_seated_together(apps: Apps) -> None:
    from tests.web.test_accounts import CHEAP, sign_up

    client = apps.start(pools=NO_BOTS, passwords=CHEAP)
    ids, cookies, sockets = {}, {}, {}
    for name in ("Ana", "Bob", "Cy"):
        client.cookies.clear()
        ids[name] = sign_up(client, name)["id"]
        cookies[name] = dict(client.cookies)

    def be(name: str) -> None:
        client.cookies.clear()
        client.cookies.update(cookies[name])

    be("Ana")  # Ana blocks Bob, as the profile's Block button does
    reply = client.post("/api/friends/block", json={"name": "Bob"})
    assert reply.status_code == 200, reply.text
    for name in ("Ana", "Bob", "Cy"):
        be(name)
        sockets[name], _ = join(client, players=2, clock="blitz")
        if name == "Bob":  # Ana and Bob wait side by side, waves go by
            time.sleep(0.6)  # several waves (not a timed assertion: nothing may happen)
            assert waiting_rows(apps.db_path) == 2
    # Cy sits with one of them (either is as near), never the two together.
    until(lambda: len(linked_seats(apps.db_path)) == 2)
    (players,) = [set(accounts) for accounts in linked_seats_by_game(apps.db_path).values()]
    assert ids["Cy"] in players and {ids["Ana"], ids["Bob"]} - players
    assert waiting_rows(apps.db_path) == 1  # the other waits on


def linked_seats(db_path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db_path) as db:
        rows = db.execute("SELECT game_id, account_id FROM seats WHERE account_id IS NOT NULL")
        return [(str(game), str(account)) for game, account in rows]


def linked_seats_by_game(db_path: Path) -> dict[str, list[str]]:
    games: dict[str, list[str]] = {}
    for game_id, account in linked_seats(db_path):
        games.setdefault(game_id, []).append(account)
    return games
