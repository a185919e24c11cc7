"""The chat's moderation (issue 36): a report queues a line for the operator and hides
it from its reporter alone; reports of two distinct players of the game hold it for
everyone until the operator decides; ``marrakech admin`` (run as its own process, on
the server's SQLite file or PostgreSQL database) lists the queue, hides, dismisses and
bans from it, bans accounts by name; a server on SQLite takes a line the operator hid
away from its open pages within seconds, as PostgreSQL's instances do."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech.web.accounts.sessions import COOKIE
from marrakech.web.store import ChatRow, Reporter
from marrakech.web.store.sqlite import SQLiteStore
from tests.web.conftest import TWO_HUMANS, Apps, Conn, create_game, seat_token
from tests.web.servers import Served, run_showing_logs
from tests.web.test_account_limits import at
from tests.web.test_accounts import CHEAP, sign_up
from tests.web.test_chat import ROOMY, chat_of, post_json, say
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store_legacy import LEGACY, _load_dump

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e

THREE_HUMANS = {"players": 3, "seats": [{"kind": "human"}] * 3}


def admin(db: str | Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``marrakech admin --db DB ARGS...`` in its own process, as an operator runs it."""
    command = [sys.executable, "-m", "marrakech.cli", "admin", "--db", str(db), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def admin_ok(db: str | Path, *args: str) -> str:
    done = admin(db, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def admin_refused(db: str | Path, *args: str) -> str:
    done = admin(db, *args)
    assert done.returncode != 0, done.stdout
    return " ".join(done.stderr.split())


def replay_ids(client: TestClient, game_id: str) -> list[int]:
    return [line["id"] for line in client.get(f"/api/games/{game_id}/replay").json()["chat"]]


def history_ids(conn: Conn) -> list[int]:
    history = chat_of(conn)
    assert history["history"] is True
    return [line["id"] for line in history["lines"]]


def quiet(conn: Conn) -> None:
    """Nothing (no chat line, nothing hidden) came to ``conn`` before a pong."""
    conn.send({"type": "ping"})
    assert conn.receive() == {"type": "pong"}


def test_a_spectators_report_hides_the_line_for_it_alone(apps: Apps) -> None:
    home = apps.start(limits=ROOMY)
    red_at, blue_at, watcher_at = (at(home, f"198.51.100.{n}") for n in (1, 2, 3))
    game = create_game(red_at, **TWO_HUMANS)
    game_id, path = game["game_id"], f"/ws/{game['game_id']}"
    with (
        red_at.websocket_connect(path) as ws0,
        blue_at.websocket_connect(path) as ws1,
        watcher_at.websocket_connect(path) as ws2,
    ):
        red, blue = Conn(ws0, [seat_token(game, 0)]), Conn(ws1, [seat_token(game, 1)])
        watcher = Conn(ws2)
        say(red, "hello all")
        line = chat_of(red)["lines"][0]["id"]
        chat_of(blue), chat_of(watcher)
        watcher.send({"type": "report", "id": line})
        assert chat_of(watcher) == {"type": "chat_hidden", "ids": [line], "reason": "reported"}
        # One spectator's report hides nothing from the others: not from the replay...
        assert replay_ids(home, game_id) == [line]
        # ...nor from the players' pages (the next thing they get is the next line).
        say(blue, "still here")
        assert chat_of(red)["lines"][0]["text"] == "still here"
        assert chat_of(blue)["lines"][0]["text"] == "still here"
        chat_of(watcher)
    # The reporter's page, opened again from its address, no longer shows it.
    with watcher_at.websocket_connect(path) as ws:
        assert line not in history_ids(Conn(ws))
    with blue_at.websocket_connect(path) as ws:
        assert line in history_ids(Conn(ws, [seat_token(game, 1)]))
    queue = json.loads(admin_ok(apps.db_path, "reports", "--json"))
    assert queue["entry"] == line and queue["held"] is False and queue["reports"] == 1
    assert [reporter["kind"] for reporter in queue["reporters"]] == ["spectator"]


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_two_players_reports_hold_a_line_until_the_operator_dismisses_them(apps: Apps) -> None:
    home = apps.start(limits=ROOMY)
    clients = [at(home, f"198.51.100.{n}") for n in (1, 2, 3, 4)]
    game = create_game(clients[0], **THREE_HUMANS)
    game_id, path = game["game_id"], f"/ws/{game['game_id']}"
    with (
        clients[0].websocket_connect(path) as ws0,
        clients[1].websocket_connect(path) as ws1,
        clients[2].websocket_connect(path) as ws2,
        clients[3].websocket_connect(path) as ws3,
    ):
        red, blue, yellow = (
            Conn(ws, [seat_token(game, n)]) for n, ws in enumerate((ws0, ws1, ws2))
        )
        watcher = Conn(ws3)
        say(red, "rude words")
        line = chat_of(red)["lines"][0]["id"]
        for conn in (blue, yellow, watcher):
            chat_of(conn)
        watcher.send({"type": "report", "id": line})  # a spectator's: never counted
        chat_of(watcher)
        blue.send({"type": "report", "id": line})
        assert chat_of(blue)["reason"] == "reported"
        quiet(red)  # one player's report: the others still see it
        assert replay_ids(home, game_id) == [line]
        yellow.send({"type": "report", "id": line})
        assert chat_of(yellow)["reason"] == "reported"
        held = {"type": "chat_hidden", "ids": [line], "reason": "held"}
        assert chat_of(red) == held  # the second player's report holds it for everyone
        for conn in (blue, yellow, watcher):
            quiet(conn)  # they reported it: gone from their pages already
        assert replay_ids(home, game_id) == []
        with clients[3].websocket_connect(path) as ws:  # a page opening now: no history
            quiet(Conn(ws))
        listed = admin_ok(apps.db_path, "reports")
        assert f"{line} game {game_id} seat 0" in listed
        assert "3 report(s) (2 players, 1 spectator), held: 'rude words'" in listed
        # The operator keeps the line: it comes back to the pages that did not report it.
        assert f"dismissed the reports of message {line}" in admin_ok(
            apps.db_path, "reports", "dismiss", str(line)
        )
        assert [restored["id"] for restored in chat_of(red)["lines"]] == [line]
        for conn in (blue, yellow, watcher):
            quiet(conn)  # its reporters still do not see it
        assert replay_ids(home, game_id) == [line]
        assert admin_ok(apps.db_path, "reports") == ""  # decided: out of the queue


@pytest.mark.slow  # among the longest: in make test-slow, which CI runs too
def test_the_operator_decides_on_the_queues_entries(apps: Apps) -> None:
    home = apps.start(limits=ROOMY)
    red_at, blue_at = at(home, "198.51.100.1"), at(home, "198.51.100.2")
    game = create_game(red_at, **TWO_HUMANS)
    path = f"/ws/{game['game_id']}"
    db = apps.db_path
    with red_at.websocket_connect(path) as ws0, blue_at.websocket_connect(path) as ws1:
        red, blue = Conn(ws0, [seat_token(game, 0)]), Conn(ws1, [seat_token(game, 1)])
        lines = []
        for text in ("first", "second", "never reported"):
            say(red, text)
            lines.append(chat_of(red)["lines"][0]["id"])
            chat_of(blue)
        first, second, unreported = lines
        for line in (first, second):
            blue.send({"type": "report", "id": line})
            chat_of(blue)
        expected = "expected the id of an entry of the reports queue (marrakech admin reports)"
        refused = admin_refused(db, "reports", "hide", "999")
        assert f"{expected}, found 999: no chat line has this id" in refused
        refused = admin_refused(db, "reports", "dismiss", str(unreported))
        assert f"found {unreported}: a line nobody reported" in refused
        assert "expected a message id (1, 2...), found 'x'" in admin_refused(
            db, "reports", "hide", "x"
        )
        refused = admin_refused(db, "reports", "ban", str(first), "--account")
        assert "expected a line written by a signed-in account" in refused
        assert "written by a guest" in refused
        assert f"hid message {first}" in admin_ok(db, "reports", "hide", str(first))
        assert chat_of(red) == {"type": "chat_hidden", "ids": [first], "reason": "hidden"}
        refused = admin_refused(db, "reports", "hide", str(first))
        assert f"found {first}: a line the operator hid already" in refused
        # Banning from an entry bans its author's address and hides the line.
        done = admin_ok(db, "reports", "ban", str(second), "--reason", "insults")
        assert "banned the address 198.51.100.1" in done and f"hid message {second}" in done
        assert chat_of(red)["ids"] == [second]
        say(red, "am I banned?")
        assert "address is banned" in red.expect_error("banned")["message"]
    assert admin_ok(db, "reports") == ""
    refused = admin_refused(db, "hide-message", game["game_id"], "999")
    assert f"expected a message of game {game['game_id']}, found no message 999" in refused
    assert "lifted the ban" in admin_ok(db, "unban-address", "198.51.100.1")


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_banned_account_writes_no_chat_line(apps: Apps) -> None:
    home = apps.start(passwords=CHEAP, limits=ROOMY)
    ana = at(home, "198.51.100.1")
    sign_up(ana, "Ana Lía")
    game = create_game(ana, **TWO_HUMANS)
    path = f"/ws/{game['game_id']}"
    db = apps.db_path
    refused = admin_refused(db, "ban-account", "Nobody")
    assert "expected the name of an account of this server, found 'Nobody'" in refused
    assert "expected an account's name, found ' '" in admin_refused(db, "ban-account", " ")
    assert "banned the account" in admin_ok(db, "ban-account", "ANA   lía", "--reason", "x")
    with ana.websocket_connect(path) as ws:
        page = Conn(ws, [seat_token(game, 0)])
        say(page, "hello")
        assert "your account is banned" in page.expect_error("banned")["message"]
        # The same address without the account (a guest's page) may write.
        guest = at(home, "198.51.100.1")
        with guest.websocket_connect(path) as ws1:
            other = Conn(ws1, [seat_token(game, 1)])
            say(other, "a guest")
            assert chat_of(other)["lines"][0]["text"] == "a guest"
            chat_of(page)
        assert "lifted the ban" in admin_ok(db, "unban-account", "Ana Lía")
        say(page, "hello again")
        assert chat_of(page)["lines"][-1]["text"] == "hello again"
    refused = admin_refused(db, "unban-account", "Ana Lía")
    assert "expected a banned account, found 'Ana Lía' not banned" in refused
    assert ana.cookies.get(COOKIE)  # signed in all along


# -- real servers --------------------------------------------------------------------------


async def _page(url: str, path: str, token: str | None, address: str) -> Any:
    """A page of the game on a real server, from ``address`` (the server trusts its
    local proxy's X-Forwarded-For), after its welcome."""
    from websockets.asyncio.client import connect

    ws = await connect(
        url.replace("http", "ws") + path,
        ping_interval=None,
        additional_headers={"X-Forwarded-For": address},
    )
    await ws.send(json.dumps({"type": "hello", "tokens": [token] if token else []}))
    await _next(ws, "welcome")
    return ws


async def _next(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (passing over game updates): waits at most
    10 s, so a page that is never told fails instead of hanging."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == kind:
            return message
        assert message["type"] in ("game", "welcome", "chat"), message


def test_on_sqlite_an_open_page_loses_a_hidden_line_within_seconds(db_path: Path) -> None:
    """``marrakech admin hide-message`` run beside a server on SQLite: its open pages
    take the line away without reconnecting (the server reads the operator's decisions
    every second)."""
    pytest.importorskip("websockets.asyncio.client")
    served = Served(db_path, "--bot-delay", "0", "--bot-processes", "0")
    try:
        game = post_json(served.url + "api/games", TWO_HUMANS)
        path = f"ws/{game['game_id']}"

        async def scenario() -> None:
            red = await _page(served.url, path, game["seats"][0]["token"], "198.51.100.1")
            watcher = await _page(served.url, path, None, "198.51.100.2")
            await red.send(json.dumps({"type": "chat", "text": "to be hidden"}))
            line = (await _next(red, "chat"))["lines"][0]["id"]
            assert (await _next(watcher, "chat"))["lines"][0]["id"] == line
            await asyncio.to_thread(admin_ok, db_path, "hide-message", game["game_id"], str(line))
            for ws in (red, watcher):
                hidden = await _next(ws, "chat_hidden")
                assert hidden == {"type": "chat_hidden", "ids": [line], "reason": "hidden"}
            for ws in (red, watcher):
                await ws.close()

        run_showing_logs(scenario(), served=served)
    finally:
        served.stop()


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_postgres_instances_relay_held_and_restored_lines(pg_url: str) -> None:
    """Two instances: the players' reports hold the line on the pages of both, and the
    operator's dismissal (``marrakech admin`` on PostgreSQL: the instances are told at
    once) brings it back to both."""
    pytest.importorskip("websockets.asyncio.client")
    options = ("--bot-delay", "0", "--bot-processes", "0")
    one, two = Served(pg_url, *options), Served(pg_url, *options)
    try:
        game = post_json(one.url + "api/games", THREE_HUMANS)
        path = f"ws/{game['game_id']}"
        tokens = [seat["token"] for seat in game["seats"]]

        async def scenario() -> None:
            red = await _page(one.url, path, tokens[0], "198.51.100.1")
            blue = await _page(two.url, path, tokens[1], "198.51.100.2")
            yellow = await _page(one.url, path, tokens[2], "198.51.100.3")
            watcher = await _page(two.url, path, None, "198.51.100.4")
            await red.send(json.dumps({"type": "chat", "text": "rude words"}))
            line = (await _next(red, "chat"))["lines"][0]["id"]
            for ws in (blue, yellow, watcher):
                await _next(ws, "chat")
            for ws in (blue, yellow):  # a player on each instance
                await ws.send(json.dumps({"type": "report", "id": line}))
                assert (await _next(ws, "chat_hidden"))["reason"] == "reported"
            for ws in (red, watcher):  # one page on each instance
                held = await _next(ws, "chat_hidden")
                assert held == {"type": "chat_hidden", "ids": [line], "reason": "held"}
            await asyncio.to_thread(admin_ok, pg_url, "reports", "dismiss", str(line))
            for ws in (red, watcher):
                assert [row["id"] for row in (await _next(ws, "chat"))["lines"]] == [line]
            for ws in (red, blue, yellow, watcher):
                await ws.close()

        run_showing_logs(scenario(), one=one, two=two)
    finally:
        one.stop()
        two.stop()


# -- the migration -------------------------------------------------------------------------


def _old_reports(line_id: int) -> list[tuple[Any, ...]]:
    """The reports a version before issue 36 stored: a player's seat, a spectator's
    address."""
    return [(line_id, "seat:1", 1.0), (line_id, "address:203.0.113.5", 2.0)]


#: What the migration makes of them: kinds and addresses, no account.
MIGRATED = (
    Reporter("player", "", None),
    Reporter("spectator", "203.0.113.5", None),
)


def test_reports_stored_before_keep_their_kinds_sqlite(tmp_path: Path) -> None:
    """A file at the revision before (made from a legacy file): its reports come out
    of the migration as a player's and a spectator's."""
    path = tmp_path / "games.sqlite3"
    shutil.copy(LEGACY / "sqlite-6.sqlite3", path)
    old = SQLiteStore(path, revision="0006_turn_based")
    line = old.add_chat(ChatRow("over", 0, "players", "text", "old words", address="a"))
    with old._lock:
        old._db.executemany(
            "INSERT INTO chat_reports (line_id, reporter, at) VALUES (?, ?, ?)",
            _old_reports(line.id),
        )
        old._db.execute("UPDATE chat SET reports = 2")
    old.close()
    store = SQLiteStore(path)
    (entry,) = store.chat_reports(10)
    assert entry.reporters == MIGRATED and not entry.line.held
    assert entry.line.reporters == ("seat:1", "address:203.0.113.5")
    store.close()


@in_fresh_loop
async def test_reports_stored_before_keep_their_kinds_postgres(pg_url: str) -> None:
    from marrakech.web.store.postgres import PostgresStore

    await _load_dump(pg_url, "postgres-5")
    old = await PostgresStore.open(pg_url, revision="0006_turn_based")
    line = await old.add_chat(ChatRow("over", 0, "players", "text", "old words"))
    async with old.pool.connection() as conn:
        for row in _old_reports(line.id):
            await conn.execute(
                "INSERT INTO chat_reports (line_id, reporter, at) VALUES (%s, %s, %s)", row
            )
        await conn.execute("UPDATE chat SET reports = 2")
    await old.close()
    store = await PostgresStore.open(pg_url)
    (entry,) = await store.chat_reports(10)
    assert entry.reporters == MIGRATED and not entry.line.held
    await store.close()
