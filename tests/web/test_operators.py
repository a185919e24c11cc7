"""What an operator sees and does (issue 36, item 11): ``/metrics`` on a port of its own,
JSON logs, ``marrakech admin backup`` while the server writes, and a server on the backup.

Real ``marrakech serve`` processes (:class:`~tests.web.servers.Served`) on real SQLite
files; the admin command is a real subprocess.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websockets.asyncio.client as websockets
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from marrakech.web.app import create_app
from marrakech.web.metrics import Metrics
from tests.web.servers import Served
from tests.web.smtp_server import Inbox

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e

#: The ``marrakech`` command, run by this test's Python.
MARRAKECH = "import sys; from marrakech.cli import main; sys.exit(main())"

BOT_GAME = {
    "players": 2,
    "seats": [{"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}],
    "first_seat": 0,
}


def request(url: str, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
    """The status and body of a GET (or a POST of ``body``), errors included."""
    data = None if body is None else json.dumps(body).encode()
    ask = urllib.request.Request(url, data, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(ask, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def get_json(url: str) -> Any:
    status, body = request(url)
    assert status == 200, (url, status, body)
    return json.loads(body)


def create(server: Served, spec: dict[str, Any] = BOT_GAME) -> str:
    status, body = request(server.url + "api/games", spec)
    assert status == 201, body
    game_id: str = json.loads(body)["game_id"]
    return game_id


def wait_over(server: Served, game_id: str) -> list[str]:
    """Wait for a game of bots to end; its stored actions."""
    deadline = time.monotonic() + 180
    while get_json(f"{server.url}api/games/{game_id}")["status"] != "over":
        assert time.monotonic() < deadline, f"game {game_id} did not end: {server.log()}"
        time.sleep(0.2)
    actions: list[str] = get_json(f"{server.url}api/games/{game_id}/record")["actions"]
    return actions


def metrics_url(server: Served) -> str:
    """The address of ``/metrics`` the server printed (its third line)."""
    assert server.process.stdout is not None
    line = server.process.stdout.readline()
    assert line.startswith("Metrics at "), line
    return line.split()[2]


def samples(url: str) -> dict[str, float]:
    """The metrics scraped, by sample (``name{label="value"}``)."""
    status, body = request(url)
    assert status == 200, body
    found = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            labels = ",".join(f'{key}="{value}"' for key, value in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found


def test_metrics_move_as_a_game_is_played(tmp_path: Path) -> None:
    """Scraped from a real server: games live, WebSockets, actions stored and the store
    calls' durations move as a game of bots is played and watched; the site's own port
    has no /metrics."""
    server = Served(
        tmp_path / "games.sqlite3", "--metrics", "0", "--bot-delay", "0", "--bot-processes", "0"
    )
    try:
        url = metrics_url(server)
        assert request(server.url + "metrics")[0] == 404  # never through the site's port
        before = samples(url)
        assert before["marrakech_actions_total"] == 0
        assert sum(v for k, v in before.items() if k.startswith("marrakech_games_live")) == 0
        assert before["marrakech_websockets_open"] == 0
        assert before['marrakech_store_pool_connections{state="idle"}'] == 1
        assert before["marrakech_bot_workers"] == 2

        game_id = create(server)
        actions = wait_over(server, game_id)

        async def watched() -> dict[str, float]:
            uri = f"{server.url.replace('http', 'ws')}ws/{game_id}"
            async with websockets.connect(uri, ping_interval=None) as ws:
                await ws.send(json.dumps({"type": "hello", "tokens": []}))
                await ws.recv()  # the welcome: the room is loaded, the socket counted
                return await asyncio.to_thread(samples, url)

        during = asyncio.run(watched())
        assert during["marrakech_websockets_open"] == 1
        assert during['marrakech_games_live{status="over"}'] == 1
        assert during["marrakech_actions_total"] == len(actions) > 10
        appends = during['marrakech_store_call_seconds_count{call="append_actions"}']
        assert 1 <= appends <= len(actions)
        assert during['marrakech_store_call_seconds_count{call="create_game"}'] == 1
        assert during['marrakech_store_call_seconds_sum{call="append_actions"}'] > 0
        assert samples(url)["marrakech_websockets_open"] == 0
    finally:
        server.stop()


def test_metrics_of_an_instance_on_postgresql_show_its_pool(pg_url: str) -> None:
    """On PostgreSQL the pool's connections show (the store opens at least two), and
    the store's calls are timed as on SQLite."""
    server = Served(pg_url, "--metrics", "0", "--bot-processes", "0")
    try:
        url = metrics_url(server)
        create(server, {"players": 2, "seats": [{"kind": "human"}] * 2, "first_seat": 0})
        found = samples(url)
        pool = found['marrakech_store_pool_connections{state="busy"}']
        assert pool + found['marrakech_store_pool_connections{state="idle"}'] >= 2
        assert found["marrakech_store_pool_waiting"] == 0
        assert found['marrakech_store_call_seconds_count{call="create_game"}'] == 1
    finally:
        server.stop()


def test_metrics_show_the_reminders_outbox(tmp_path: Path) -> None:
    """With email reminders on, the outbox's messages show by status: a verification
    message sent moves ``sent`` from 0 to 1."""
    with Inbox() as inbox:
        server = Served(
            tmp_path / "games.sqlite3",
            *("--metrics", "0", "--smtp-url", f"smtp://127.0.0.1:{inbox.port}"),
            *("--mail-from", "Marrakech <games@example.org>"),
            *("--public-url", "https://games.example.org"),
        )
        try:
            url = metrics_url(server)
            outbox = 'marrakech_reminders_outbox{status="%s"}'
            before = samples(url)
            assert [before[outbox % s] for s in ("queued", "sending", "sent")] == [0, 0, 0]
            spec = {"players": 2, "seats": [{"kind": "human"}] * 2, "first_seat": 0}
            status, body = request(server.url + "api/games", spec)
            game = json.loads(body)
            given = {"game": game["game_id"], "token": game["seats"][0]["token"]}
            status, body = request(
                server.url + "api/mail/seat", given | {"address": "a@b.org", "lang": "en"}
            )
            assert status == 200, body
            inbox.wait_for(1)
            deadline = time.monotonic() + 30
            while samples(url)[outbox % "sent"] != 1:  # marked sent once the relay took it
                assert time.monotonic() < deadline, server.log()
                time.sleep(0.1)
        finally:
            server.stop()


def test_a_new_gauge_is_one_line(tmp_path: Path) -> None:
    """The recipe of docs/architecture.md, "A metric": a later gauge (a matchmaking
    pool's players, say) is one call of ``Metrics.gauge``, read at each scrape."""
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, metrics_port=9464)
    site = TestClient(app, base_url="http://testserver:9464", client=("127.0.0.1", 5000))
    with site:
        waiting = ["ana", "bo", "cy"]
        metrics: Metrics = app.state.web.metrics
        metrics.gauge("marrakech_matchmaking_pool_players", "Players waiting", lambda: len(waiting))
        reply = site.get("/metrics")
        assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain")
        assert "marrakech_matchmaking_pool_players 3.0" in reply.text.splitlines()
        assert "marrakech_games_live" in reply.text  # beside the server's own
        assert site.get("/api/health").status_code == 404  # the metrics port's only path
        assert site.post("/metrics").status_code == 405
        head = site.head("/metrics")
        assert head.status_code == 200 and head.content == b""


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_metrics_are_refused_to_addresses_not_allowed(tmp_path: Path) -> None:
    """With ``--metrics-allow`` naming other addresses, this machine's own is refused
    (403, saying who may read them), and the metrics port serves nothing else."""
    server = Served(
        tmp_path / "games.sqlite3", "--metrics", "127.0.0.1:0", "--metrics-allow", "192.0.2.0/24"
    )
    try:
        url = metrics_url(server)
        status, body = request(url)
        assert status == 403, body
        answer = json.loads(body)
        assert answer["error"] == "forbidden" and "192.0.2.0/24" in answer["message"]
        assert b"marrakech_" not in body
    finally:
        server.stop()
    server = Served(tmp_path / "games.sqlite3", "--metrics", "0")
    try:
        url = metrics_url(server)
        assert request(url.replace("/metrics", "/api/health"))[0] == 404
        assert request(url)[0] == 200
    finally:
        server.stop()


def test_json_logs_are_one_object_a_line(tmp_path: Path) -> None:
    """``marrakech serve --log-format json``: every line on stderr is a JSON object with
    time, level, logger and message; a request's line has its method, path and status."""
    log = tmp_path / "stderr.log"
    command = [
        sys.executable,
        "-c",
        MARRAKECH,
        "serve",
    ]
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [
                *command,
                *("--port", "0", "--db", str(tmp_path / "games.sqlite3")),
                *("--log-format", "json", "--log-level", "info", "--bot-processes", "0"),
            ],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.startswith("Marrakech is ready at "), line + log.read_text()
            site = line.split()[4]
            assert request(site + "api/health")[0] == 200
            assert request(site + "api/games/nosuchgame1")[0] == 404

            async def no_game() -> None:
                uri = site.replace("http", "ws") + "ws/nosuchgame2"
                async with websockets.connect(uri, ping_interval=None) as ws:
                    await ws.send(json.dumps({"type": "hello", "tokens": []}))
                    await ws.recv()  # not_found, then closed

            asyncio.run(no_game())
        finally:
            process.terminate()
            process.wait(timeout=30)
            if process.stdout is not None:
                process.stdout.close()
    lines = log.read_text().splitlines()
    assert lines
    records = [json.loads(line) for line in lines]
    for record in records:
        assert isinstance(record, dict)
        assert {"time", "level", "logger", "message"} <= record.keys(), record
    loggers = {record["logger"] for record in records}
    assert {"uvicorn.error", "uvicorn.access"} <= loggers
    missing = next(r for r in records if r.get("path") == "/api/games/nosuchgame1")
    assert missing["method"] == "GET" and missing["status"] == 404
    assert missing["level"] == "INFO" and missing["time"].endswith("Z")
    socket = next(r for r in records if r.get("path") == "/ws/nosuchgame2")
    assert socket["status"] == 101 and socket["client"].startswith("127.0.0.1:")


def resigned_game(server: Served) -> str:
    """A finished game: a person against a bot, the person resigned at once."""
    spec = {"players": 2, "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}]}
    status, body = request(server.url + "api/games", {**spec, "first_seat": 0})
    assert status == 201, body
    game = json.loads(body)

    async def resign() -> None:
        uri = f"{server.url.replace('http', 'ws')}ws/{game['game_id']}"
        async with websockets.connect(uri, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "hello", "tokens": [game["seats"][0]["token"]]}))
            await ws.recv()
            await ws.send(json.dumps({"type": "resign", "seat": 0}))
            await ws.recv()  # its update: the game is over

    asyncio.run(resign())
    wait_over(server, game["game_id"])
    game_id: str = game["game_id"]
    return game_id


def backup(db: str | Path, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(sys.executable, "-c", MARRAKECH),
            *("admin", "--db", str(db), "backup", str(path)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_backup_taken_while_the_server_writes_serves_the_same_replays(
    tmp_path: Path,
) -> None:
    """``marrakech admin backup`` while games of bots are being written: the copy is one
    consistent file, and a new server on it serves the finished games' replays as the
    original does, and each unfinished game as the original had it (a prefix)."""
    db = tmp_path / "games.sqlite3"
    # Bots move every 0.2 s: their games (a hundred moves and more) go on being written
    # all through the backup, which takes a second or two.
    server = Served(db, "--bot-delay", "0.2", "--bot-processes", "0")
    copy = tmp_path / "backup.sqlite3"
    try:
        finished = [resigned_game(server) for _ in range(2)]
        running = [create(server) for _ in range(3)]
        done = backup(db, copy)
        assert done.returncode == 0, done.stderr
        assert "backed up 5 games" in done.stdout, done.stdout
        records = {g: get_json(f"{server.url}api/games/{g}/record") for g in running}
        # ...and the original was still writing them.
        assert all(get_json(f"{server.url}api/games/{g}")["status"] == "playing" for g in running)
        replays = {g: get_json(f"{server.url}api/games/{g}/replay") for g in finished}
        again = backup(db, copy)  # a backup never overwrites one
        assert again.returncode == 1 and "exists" in again.stderr
    finally:
        server.stop()
    assert not copy.with_name(copy.name + "-wal").exists()  # one file, whole
    # The server stopped, a backup leaves nothing beside its file (a -wal or -shm
    # owned by whoever ran it would stop the server from opening its file).
    assert backup(db, tmp_path / "later.sqlite3").returncode == 0
    assert sorted(path.name for path in tmp_path.glob("games.sqlite3*")) == ["games.sqlite3"]
    with sqlite3.connect(copy) as check:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # The restore: a new server on the backup file. Bots it would resume wait a long
    # time, so the games stay as the backup has them while they are read.
    restored = Served(copy, "--bot-delay", "60", "--bot-processes", "0")
    try:
        for game_id, replay in replays.items():
            assert get_json(f"{restored.url}api/games/{game_id}/replay") == replay
        for game_id, record in records.items():
            kept = get_json(f"{restored.url}api/games/{game_id}/record")["actions"]
            assert kept == record["actions"][: len(kept)]
    finally:
        restored.stop()


def test_backup_of_a_postgresql_store_says_to_use_pg_dump(tmp_path: Path) -> None:
    done = backup("postgresql://marrakech:secret@db.example.org/games", tmp_path / "x")
    assert done.returncode == 2
    assert "pg_dump" in done.stderr and "secret" not in done.stderr
    assert not (tmp_path / "x").exists()
