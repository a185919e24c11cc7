"""A game's chat (issue 24): messages and reactions between seats and spectators, every
bad input refused with its reason and nothing stored, mutes, reports, the operator's
``marrakech admin`` (hide, reports, address bans), the replay's chat, and the relay
between two instances on one PostgreSQL database."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from marrakech.cli import main as marrakech
from marrakech.web.limits import Limits
from marrakech.web.room.chat import MAX_CHAT
from tests.web.conftest import TWO_HUMANS, Apps, Conn, create_game, newer_than, seat_token
from tests.web.servers import Served, run_showing_logs

#: The chat's limits in these tests: generous, but for the flood test's own.
ROOMY = Limits(chat_burst=100, chats_per_minute=600, address_chat_burst=100)


def chat_of(conn: Conn) -> dict[str, Any]:
    """The next chat message (lines or hidden ones) a connection receives."""
    message = conn.receive()
    assert message["type"] in ("chat", "chat_hidden"), message
    return message


def say(conn: Conn, text: str, **fields: Any) -> None:
    conn.send({"type": "chat", "text": text, **fields})


def admin(db: Path, *args: str) -> int:
    return marrakech(["admin", "--db", str(db), *args])


@pytest.fixture
def chat_client(apps: Apps) -> TestClient:
    return apps.start(limits=ROOMY)


def test_players_and_spectators_talk_each_in_their_channel(chat_client: TestClient) -> None:
    game = create_game(chat_client, **TWO_HUMANS)
    path = f"/ws/{game['game_id']}"
    with (
        chat_client.websocket_connect(path) as ws0,
        chat_client.websocket_connect(path) as ws1,
        chat_client.websocket_connect(path) as ws2,
    ):
        red = Conn(ws0, [seat_token(game, 0)])
        blue = Conn(ws1, [seat_token(game, 1)])
        watcher = Conn(ws2)
        assert red.game["chat"] is True
        say(red, "  Hello   <b>Blue</b>  ")
        for conn in (red, blue, watcher):
            (line,) = chat_of(conn)["lines"]
            assert line["seat"] == 0 and line["channel"] == "players"
            assert line["kind"] == "text" and line["text"] == "Hello <b>Blue</b>"  # text
        blue.send({"type": "react", "reaction": "gg"})
        for conn in (red, blue, watcher):
            (line,) = chat_of(conn)["lines"]
            assert (line["seat"], line["kind"], line["text"]) == (1, "reaction", "gg")
        # A spectator writes in the spectators' channel: players do not see it yet.
        say(watcher, "nice move")
        (line,) = chat_of(watcher)["lines"]
        assert line["seat"] is None and line["channel"] == "spectators"
        say(watcher, "to the players", channel="players")
        assert "spectators" in watcher.expect_error("chat_channel")["message"]
        say(red, "to the spectators", channel="spectators")
        red.expect_error("chat_channel")
        red.send({"type": "ping"})
        assert red.receive() == {"type": "pong"}  # the spectators' line never came
        # The game ends: the players see the spectators' channel now.
        red.send({"type": "resign", "seat": 0})
        message = red.receive()
        while message["type"] != "chat":
            message = red.receive()
        assert [line["text"] for line in message["lines"]] == ["nice move"]
    # A page opening later gets the whole chat (the game is over: both channels).
    with chat_client.websocket_connect(path) as ws:
        again = Conn(ws, [seat_token(game, 1)])
        history = chat_of(again)
        assert history["history"] is True
        assert [line["text"] for line in history["lines"]] == [
            "Hello <b>Blue</b>",
            "gg",
            "nice move",
        ]
    replay = chat_client.get(f"/api/games/{game['game_id']}/replay").json()
    assert [line["text"] for line in replay["chat"]] == ["Hello <b>Blue</b>", "gg", "nice move"]


def test_bad_messages_are_refused_with_their_reason(chat_client: TestClient) -> None:
    game = create_game(chat_client, **TWO_HUMANS)
    with chat_client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        say(red, "x" * (MAX_CHAT + 1))
        assert (
            f"at most {MAX_CHAT} characters, found {MAX_CHAT + 1}"
            in (red.expect_error("chat_too_long")["message"])
        )
        say(red, "invoice\u202efdp.exe")  # a right-to-left override: a filename trick
        assert "U+202E" in red.expect_error("chat_bad_text")["message"]
        for hidden in ("\u2066x\u2069", "bell\x07", "\u200e"):
            say(red, hidden)
            red.expect_error("chat_bad_text")
        say(red, " \n\t ")
        assert "visible" in red.expect_error("chat_bad_text")["message"]
        red.send({"type": "react", "reaction": "lol"})
        assert "reaction" in red.expect_error("bad_message")["message"]
        say(red, "as blue", seat=1)
        red.expect_error("not_your_seat")
        red.send({"type": "report", "id": 999})
        red.expect_error("no_such_message")
        red.send({"type": "mute", "seat": 0})
        assert "yours" in red.expect_error("bad_message")["message"]
        red.send({"type": "mute", "seat": 3})
        red.expect_error("no_such_seat")
    replay = chat_client.get(f"/api/games/{game['game_id']}/replay").json()
    assert replay["chat"] == []  # nothing refused was stored


def test_a_flood_is_refused_per_player(apps: Apps) -> None:
    client = apps.start(limits=Limits(chat_burst=3, chats_per_minute=1))
    game = create_game(client, **TWO_HUMANS)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        for number in range(3):
            say(red, f"spam {number}")
            chat_of(red)
        say(red, "spam 3")
        assert "try again in" in red.expect_error("chat_too_fast")["message"]
        red.send({"type": "react", "reaction": "oops"})
        red.expect_error("chat_too_fast")  # reactions share the budget
        before = red.version
        red.act(0, "S")  # a move is never held back by the chat's limits
        red.until(newer_than(before))


def test_the_host_can_turn_the_chat_off(chat_client: TestClient) -> None:
    game = create_game(chat_client, **TWO_HUMANS, chat=False)
    with chat_client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        assert red.game["chat"] is False
        say(red, "hello")
        assert "turned it off" in red.expect_error("chat_off")["message"]
        red.send({"type": "react", "reaction": "wp"})
        red.expect_error("chat_off")
        say(red, "x" * 500)
        red.expect_error("chat_off")  # the first reason: there is no chat at all
    summary = chat_client.get(f"/api/games/{game['game_id']}").json()
    assert summary["chat"] is False
    config = chat_client.get("/api/config").json()
    assert config["chat_max"] == MAX_CHAT and config["reactions"] == ["gg", "wp", "oops", "thanks"]


def test_a_muted_seat_is_not_shown_to_who_muted_it(chat_client: TestClient) -> None:
    game = create_game(chat_client, players=3, seats=[{"kind": "human"}] * 3)
    path = f"/ws/{game['game_id']}"
    with (
        chat_client.websocket_connect(path) as ws0,
        chat_client.websocket_connect(path) as ws1,
        chat_client.websocket_connect(path) as ws2,
    ):
        red, blue, yellow = (
            Conn(ws, [seat_token(game, n)]) for n, ws in enumerate((ws0, ws1, ws2))
        )
        red.send({"type": "mute", "seat": 1})
        say(blue, "you will not read this")
        chat_of(blue)
        assert chat_of(yellow)["lines"][0]["seat"] == 1
        say(yellow, "but this")
        assert chat_of(red)["lines"][0]["seat"] == 2  # not blue's line
        red.send({"type": "mute", "seat": 1, "muted": False})
        say(blue, "again")
        assert chat_of(red)["lines"][0]["text"] == "again"


def test_reported_and_hidden_lines(chat_client: TestClient, db_path: Path) -> None:
    game = create_game(chat_client, **TWO_HUMANS)
    game_id = game["game_id"]
    with (
        chat_client.websocket_connect(f"/ws/{game_id}") as ws0,
        chat_client.websocket_connect(f"/ws/{game_id}") as ws1,
    ):
        red = Conn(ws0, [seat_token(game, 0)])
        blue = Conn(ws1, [seat_token(game, 1)])
        say(red, "rude words")
        rude = chat_of(red)["lines"][0]["id"]
        chat_of(blue)
        say(red, "kind words")
        kind = chat_of(red)["lines"][0]["id"]
        chat_of(blue)
        blue.send({"type": "report", "id": rude})
        assert chat_of(blue) == {"type": "chat_hidden", "ids": [rude], "reason": "reported"}
        blue.send({"type": "report", "id": rude})  # once per reporter: still one report
        chat_of(blue)
        # One player's report hides the line from that player alone (issue 36): the
        # replay keeps it until the operator decides.
        replay = chat_client.get(f"/api/games/{game_id}/replay").json()
        assert [line["id"] for line in replay["chat"]] == [rude, kind]
    assert admin(db_path, "list-reports", "--json") == 0
    assert admin(db_path, "hide-message", game_id, str(kind)) == 0
    assert admin(db_path, "hide-message", game_id, "999") == 1
    replay = chat_client.get(f"/api/games/{game_id}/replay").json()
    assert [line["id"] for line in replay["chat"]] == [rude]
    # Red's page, opened again from another address than the reporter's (every test
    # client has the same one).
    elsewhere = TestClient(chat_client.app, client=("198.51.100.9", 40000))
    elsewhere.portal = chat_client.portal
    with elsewhere.websocket_connect(f"/ws/{game_id}") as ws:
        again = Conn(ws, [seat_token(game, 0)])
        # The hidden line is gone; the reported one stays for the pages that did not
        # report it, until the operator decides.
        assert [line["id"] for line in chat_of(again)["lines"]] == [rude]


def test_reports_are_listed_for_the_operator(
    chat_client: TestClient, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = create_game(chat_client, **TWO_HUMANS)
    with chat_client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        watcher = Conn(ws)
        say(watcher, "<script>alert(1)</script>")
        line = chat_of(watcher)["lines"][0]
        watcher.send({"type": "report", "id": line["id"]})
        chat_of(watcher)
    capsys.readouterr()
    assert admin(db_path, "list-reports", "--json") == 0
    (listed,) = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert listed["game"] == game["game_id"] and listed["message"] == line["id"]
    assert listed["text"] == "<script>alert(1)</script>" and listed["author"] == "spectator"
    assert listed["reporters"] == [{"kind": "spectator", "address": "testclient", "account": None}]


def test_a_banned_address_is_refused_everywhere(apps: Apps, db_path: Path) -> None:
    started = apps.start(limits=ROOMY)
    banned = TestClient(started.app, client=("203.0.113.7", 40000))
    other = TestClient(started.app, client=("198.51.100.2", 40000))
    game = create_game(other, players=2, seats=[{"kind": "human", "name": "Ana"}, {"kind": "open"}])
    path = f"/ws/{game['game_id']}"
    with banned.websocket_connect(path) as ws:
        watcher = Conn(ws)  # connected before the ban
        assert admin(db_path, "ban-address", "203.0.113.7", "--reason", "spam") == 0
        say(watcher, "hello")
        assert "banned" in watcher.expect_error("banned")["message"]
    refused = banned.post("/api/games", json=TWO_HUMANS)
    assert refused.status_code == 403 and refused.json()["error"] == "banned"
    refused = banned.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": "Bo"})
    assert refused.status_code == 403 and refused.json()["error"] == "banned"
    with banned.websocket_connect(path) as ws:
        assert ws.receive_json()["code"] == "banned"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4403
    assert other.post("/api/games", json=TWO_HUMANS).status_code == 201  # others may
    assert admin(db_path, "unban-address", "203.0.113.7") == 0
    assert admin(db_path, "unban-address", "203.0.113.7") == 1
    assert banned.post("/api/games", json=TWO_HUMANS).status_code == 201


def test_a_bad_address_is_not_banned(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        admin(db_path, "ban-address", "example.org")
    assert "expected an IPv4 or IPv6 address" in capsys.readouterr().err


# -- two instances -------------------------------------------------------------------------


def post_json(url: str, body: Any) -> Any:
    import urllib.request

    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.mark.e2e
def test_chat_is_relayed_between_instances(pg_url: str) -> None:
    """Seat 0 on one instance, seat 1 and a spectator on the other: each line reaches
    the pages of both, and a line the operator hides leaves them at once."""
    websockets = pytest.importorskip("websockets.asyncio.client")
    options = ("--bot-delay", "0", "--bot-processes", "0")
    one = Served(pg_url, *options)
    two = Served(pg_url, *options)
    try:
        game = post_json(one.url + "api/games", TWO_HUMANS)
        path = f"ws/{game['game_id']}"
        tokens = [seat["token"] for seat in game["seats"]]

        async def hello(url: str, token: str | None) -> Any:
            ws = await websockets.connect(url.replace("http", "ws") + path, ping_interval=None)
            await ws.send(json.dumps({"type": "hello", "tokens": [token] if token else []}))
            await chat_message(ws, "welcome")
            return ws

        async def chat_message(ws: Any, kind: str = "chat") -> dict[str, Any]:
            while True:
                message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] == kind:
                    return message
                assert message["type"] in ("game", "welcome"), message

        async def scenario() -> None:
            red = await hello(one.url, tokens[0])
            blue = await hello(two.url, tokens[1])
            watcher = await hello(two.url, None)
            await red.send(json.dumps({"type": "chat", "text": "from one"}))
            for ws in (red, blue, watcher):
                assert (await chat_message(ws))["lines"][0]["text"] == "from one"
            await blue.send(json.dumps({"type": "react", "reaction": "thanks"}))
            for ws in (red, blue, watcher):
                line = (await chat_message(ws))["lines"][0]
                assert (line["seat"], line["text"]) == (1, "thanks")
            await watcher.send(json.dumps({"type": "chat", "text": "spectating"}))
            assert (await chat_message(watcher))["lines"][0]["channel"] == "spectators"
            line_id = line["id"]
            assert await asyncio.to_thread(admin_pg, pg_url, game["game_id"], line_id) == 0
            for ws in (red, blue, watcher):
                hidden = await chat_message(ws, "chat_hidden")
                assert hidden == {"type": "chat_hidden", "ids": [line_id], "reason": "hidden"}
            # The spectators' line never reached the players' pages.
            await red.send(json.dumps({"type": "ping"}))
            assert json.loads(await asyncio.wait_for(red.recv(), 10)) == {"type": "pong"}
            for ws in (red, blue, watcher):
                await ws.close()

        run_showing_logs(scenario(), one=one, two=two)
    finally:
        one.stop()
        two.stop()


def admin_pg(url: str, game_id: str, line_id: int) -> int:
    return marrakech(["admin", "--db", url, "hide-message", game_id, str(line_id)])


def test_a_chat_the_store_cannot_write_never_holds_a_move(
    chat_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store refuses chat lines (a full disk, a lost database): the message is
    refused, nothing is sent, and moves go on, stored and broadcast as ever."""
    store = chat_client.app.state.web.manager.store  # type: ignore[attr-defined]

    async def broken(row: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(store, "add_chat", broken)
    game = create_game(chat_client, **TWO_HUMANS)
    with (
        chat_client.websocket_connect(f"/ws/{game['game_id']}") as ws0,
        chat_client.websocket_connect(f"/ws/{game['game_id']}") as ws1,
    ):
        red = Conn(ws0, [seat_token(game, 0)])
        blue = Conn(ws1, [seat_token(game, 1)])
        say(red, "hello")
        assert "nothing was sent" in red.expect_error("server_error")["message"]
        before = red.version
        red.act(0, "S")
        red.until(newer_than(before))
        blue.until(newer_than(before))  # the move reached blue; the chat line never did
