"""Seats around a live game (docs/web-protocol.md, "Waiting, starting, absence and
clocks"): presence, games waiting for their open seats, the host's start, kick and
replace, resignations (R22), turn clocks with stand-in bots and take_back.

Real app, real SQLite file, real WebSockets (Starlette's TestClient); clocks of one
second. Every refusal is checked to leave the game and the store unchanged.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech.web.room import RESUME_SECONDS, resumed_deadline
from marrakech.web.store import StoredGame
from tests.web.conftest import Apps, Conn, create_game, mover, seat_token, stored_actions
from tests.web.servers import Served
from tests.web.test_cluster import post_json

websockets = pytest.importorskip("websockets.asyncio.client")


def until_reason(conn: Conn, reason: str, seat: int | None = None) -> dict[str, Any]:
    """Read messages until a ``game`` message with ``reason`` (and ``seat``)."""
    while True:
        message = conn.receive(presence=True)
        assert message["type"] in ("game", "update", "welcome", "pong", "bots"), message
        if message["type"] == "game" and message["reason"] == reason:
            if seat is None or message["seat"] == seat:
                return message


def seat_of(game: dict[str, Any], seat: int) -> dict[str, Any]:
    info: dict[str, Any] = game["seats"][seat]
    return info


def summary(client: TestClient, game_id: str) -> dict[str, Any]:
    reply = client.get(f"/api/games/{game_id}")
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def test_presence_follows_each_seats_pages(client: TestClient) -> None:
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 2 + [{"kind": "bot"}])
    game_id = game["game_id"]
    with client.websocket_connect(f"/ws/{game_id}") as ws0:
        red = Conn(ws0, [seat_token(game, 0)])
        presences = [seat["presence"] for seat in red.game["seats"]]
        assert presences == ["connected", "away", "connected"]  # a bot is always here
        assert seat_of(red.game, 0)["host"] and not seat_of(red.game, 1)["host"]
        with client.websocket_connect(f"/ws/{game_id}") as ws1:
            blue = Conn(ws1, [seat_token(game, 1)])
            assert seat_of(blue.game, 1)["presence"] == "connected"
            came = until_reason(red, "connected", 1)
            assert seat_of(came["game"], 1)["presence"] == "connected"
            assert seat_of(summary(client, game_id), 1)["presence"] == "connected"
            with client.websocket_connect(f"/ws/{game_id}") as ws2:  # a second page of seat 1
                Conn(ws2, [seat_token(game, 1)])
            red.send({"type": "ping"})  # closing one of two pages changes nothing
            assert red.receive(presence=True) == {"type": "pong"}
        left = until_reason(red, "away", 1)
        assert seat_of(left["game"], 1)["presence"] == "away"
    assert seat_of(summary(client, game_id), 0)["presence"] == "away"


def test_a_game_waits_for_its_open_seats_until_the_host_starts_it(client: TestClient) -> None:
    game = create_game(
        client,
        players=3,
        seats=[{"kind": "human", "name": "Ana"}, {"kind": "open"}] * 1 + [{"kind": "open"}],
    )
    game_id = game["game_id"]
    assert game["host"] == 0
    joined = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bea"}).json()
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws1,
    ):
        red = Conn(ws0, [seat_token(game, 0)])
        blue = Conn(ws1, [joined["token"]])
        assert red.game["status"] == "waiting" and red.legal == {"0": []}
        red.act(0, "L")  # nobody plays before the start
        assert "open seats" in red.expect_error("not_started")["message"]
        blue.send({"type": "start"})
        assert "the host is seat 0" in blue.expect_error("not_host")["message"]
        red.send({"type": "start", "level": "expert!"})
        assert "level" in red.expect_error("bad_message")["message"]
        assert stored_actions(client, game_id) == []
        red.send({"type": "start", "level": "easy"})
        welcome = red.receive()  # who may act changed: a fresh welcome...
        assert welcome["type"] == "welcome" and welcome["game"]["status"] == "playing"
        started = until_reason(red, "started")  # ...and the reason
        assert seat_of(started["game"], 2) | {"presence": "?"} == {
            "seat": 2,
            "kind": "bot",
            "level": "easy",
            "name": "",
            "presence": "?",
            "stand_in": None,
            "resigned": False,
            "host": False,
            "hints": 0,
            "external": False,
        }
        assert red.legal == {"0": ["L", "S", "R"]}
        red.send({"type": "start"})
        red.expect_error("already_started")
    assert summary(client, game_id)["status"] == "playing"
    assert summary(client, game_id)["turn"] == 1


def test_the_host_opens_again_a_seat_whose_player_left_before_the_start(
    client: TestClient,
) -> None:
    game = create_game(
        client, players=4, seats=[{"kind": "human"}] + [{"kind": "open"}] * 3, name="Ana"
    )
    game_id = game["game_id"]
    bea = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bea"}).json()
    with client.websocket_connect(f"/ws/{game_id}") as ws0:
        red = Conn(ws0, [seat_token(game, 0)])
        with client.websocket_connect(f"/ws/{game_id}") as ws1:
            blue = Conn(ws1, [bea["token"]])
            blue.send({"type": "kick", "seat": 0})
            blue.expect_error("not_host")
            red.send({"type": "kick", "seat": 1})
            assert "is here" in red.expect_error("seat_connected")["message"]
        until_reason(red, "away", 1)
        for seat, code in ((0, "not_human"), (2, "not_human"), (3, "not_human")):
            red.send({"type": "kick", "seat": seat})
            red.expect_error(code)
        red.send({"type": "kick", "seat": 4})
        red.expect_error("bad_message")  # seats are 0..3
        red.send({"type": "kick", "seat": 1})
        kicked = until_reason(red, "kicked", 1)
        assert seat_of(kicked["game"], 1)["kind"] == "open"
        assert seat_of(kicked["game"], 1)["presence"] == "open"
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        gone = Conn(ws, [bea["token"]])  # the token opens nothing now
        assert gone.you == [] and gone.errors[0]["code"] == "bad_token"
    assert summary(client, game_id)["open_seats"] == [1, 2, 3]
    again = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Cid"})
    assert again.status_code == 200, again.text


def test_resign_is_an_action_of_the_record_and_ends_a_game(client: TestClient) -> None:
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3)
    game_id = game["game_id"]
    red_t, blue_t, yellow_t = (seat_token(game, 0), seat_token(game, 1), seat_token(game, 2))
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws1,
        client.websocket_connect(f"/ws/{game_id}") as ws2,
    ):
        red, blue, yellow = Conn(ws0, [red_t]), Conn(ws1, [blue_t]), Conn(ws2, [yellow_t])
        red.send({"type": "resign", "seat": 1})  # a forged seat
        red.expect_error("not_your_seat")
        red.send({"type": "resign", "seat": 0})
        red.until(lambda c: c.version == 1)
        assert red.updates[-1]["events"][0]["action"] == "resign:0"
        assert red.state["eliminated"] == [0] and mover(red.state) == 1  # the turn passes
        resigned = until_reason(red, "resigned", 0)
        assert seat_of(resigned["game"], 0)["resigned"]
        red.send({"type": "resign", "seat": 0})
        red.expect_error("already_resigned")
        blue.until(lambda c: c.version == 1)
        blue.act(1, "S")
        blue.until(lambda c: c.version == 2)
        assert blue.legal == {"1": ["roll"]}
        # Resigning while another seat's roll is awaited: at the next decision (R22).
        yellow.until(lambda c: c.version == 2)
        yellow.send({"type": "resign", "seat": 2})
        # Every page is told at once, before the roll that applies it.
        until_reason(yellow, "resign_pending", 2)
        until_reason(blue, "resign_pending", 2)
        until_reason(red, "resign_pending", 2)
        assert yellow.version == 2
        yellow.send({"type": "resign", "seat": 2})
        yellow.expect_error("already_resigned")
        blue.act(1, "roll")
        blue.until(lambda c: c.over)
        assert blue.updates[-1]["events"][-1]["action"] == "resign:2"
        assert blue.state["winners"] == [1]  # the last seat still in wins (R19, R21)
    assert stored_actions(client, game_id)[0] == "resign:0"
    assert stored_actions(client, game_id)[-1] == "resign:2"
    assert summary(client, game_id)["status"] == "over"


def test_a_resignation_waiting_for_the_next_decision_survives_a_restart(apps: Apps) -> None:
    client = apps.start()
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3)
    game_id = game["game_id"]
    red_t, yellow_t = seat_token(game, 0), seat_token(game, 2)
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws2,
    ):
        red, yellow = Conn(ws0, [red_t]), Conn(ws2, [yellow_t])
        red.act(0, "S")
        red.until(lambda c: c.version == 1)
        assert red.legal == {"0": ["roll"]}
        yellow.until(lambda c: c.version == 1)
        yellow.send({"type": "resign", "seat": 2})  # waits for red's roll (R22)
        until_reason(yellow, "resign_pending", 2)
    apps.stop(client)
    client = apps.start()
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        red = Conn(ws, [red_t])
        assert not seat_of(red.game, 2)["resigned"]
        red.send({"type": "resign", "seat": 2})  # not the holder: refused as forged
        red.expect_error("not_your_seat")
        red.act(0, "roll")  # the next decision: yellow's resignation is applied
        red.until(lambda c: 2 in c.state["eliminated"])
    assert stored_actions(client, game_id)[-1] == "resign:2"


def test_resigning_at_ones_own_roll_rolls_first(client: TestClient) -> None:
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        red.act(0, "S")
        red.until(lambda c: c.version == 1)
        red.send({"type": "resign", "seat": 0})
        red.until(lambda c: c.version >= 3)
        actions = [event["action"] for event in red.updates[-1]["events"]]
        assert actions[0].startswith("r") and actions[-1] == "resign:0"


def test_a_player_out_of_time_gets_a_stand_in_bot_until_taking_the_seat_back(
    apps: Apps,
) -> None:
    client = apps.start(blitz_seconds=1)
    # The clock starts with the game: timed from before its creation, which a loaded
    # machine may take most of the second to answer.
    started = time.monotonic()
    game = create_game(
        client,
        players=3,
        seats=[{"kind": "human"}, {"kind": "bot", "level": "easy"}, {"kind": "bot"}],
        clock="blitz",
        stand_in_level="easy",
    )
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        clock = red.game["clock"]
        assert clock["mode"] == "blitz" and clock["seconds"] == 1 and clock["seat"] == 0
        assert 0 < clock["remaining"] <= 1 and clock["deadline"].endswith("Z")
        red.send({"type": "take_back", "seat": 0})
        assert "no bot stands in" in red.expect_error("no_stand_in")["message"]
        timed_out = until_reason(red, "timeout", 0)
        assert time.monotonic() - started >= 0.9
        assert seat_of(timed_out["game"], 0)["stand_in"] == "easy"
        assert timed_out["game"]["clock"]["seat"] is None  # a bot plays: no clock runs
        red.until(lambda c: c.version >= 3)  # the stand-in plays seat 0's turn
        assert all(moves == [] for moves in red.legal.values())
        red.act(0, "L")  # the bots move fast: whatever the moment, the bot's seat
        refused = red.receive()
        while refused["type"] != "error":
            refused = red.receive()
        assert refused["code"] in ("not_your_turn", "stale_version")
        red.send({"type": "take_back", "seat": 0})
        welcome = red.receive()  # its legal tokens change: a fresh welcome...
        while welcome["type"] != "welcome":
            welcome = red.receive()
        assert seat_of(welcome["game"], 0)["stand_in"] is None
        back = until_reason(red, "took_back", 0)  # ...and everyone hears why
        assert seat_of(back["game"], 0)["stand_in"] is None
        # Seat 0 decides again from its next decision on, with a fresh clock.
        updates = len(red.updates)
        red.until(lambda c: bool(c.legal["0"]))
        clock = red.updates[-1]["clock"] if len(red.updates) > updates else red.game["clock"]
        assert clock["seat"] == 0 and 0 < clock["remaining"] <= 1


def test_a_restart_keeps_the_running_turns_deadline(apps: Apps) -> None:
    # The owner stores the turn clock; the restarted server resumes the same deadline
    # instead of giving the turn its whole time again.
    client = apps.start(relaxed_seconds=120)
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3, clock="relaxed")
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        first = red.game["clock"]
        assert first["seat"] == 0 and first["remaining"] > 100
    apps.stop(client)
    time.sleep(0.3)
    client = apps.start(relaxed_seconds=120)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        again = red.game["clock"]
        assert again["seat"] == 0 and again["deadline"] == first["deadline"]
        assert again["remaining"] <= first["remaining"] - 0.3
        red.act(0, "L")  # the same turn goes on: its deadline with it
        red.until(lambda c: c.version == 1)
        assert red.updates[-1]["clock"]["deadline"] == first["deadline"]


def test_a_turn_whose_time_ran_out_while_no_server_ran_gets_time_to_reconnect() -> None:
    now = time.time()
    stored = StoredGame(
        "g", 3, "standard", 0, "en", (), clock="relaxed", clock_seconds=180,
        turn_clock=(1, 4, now - 500),
    )  # fmt: skip
    resumed = resumed_deadline(stored)
    assert resumed is not None
    seat, turn, deadline = resumed
    assert (seat, turn) == (1, 4)
    assert now + RESUME_SECONDS <= deadline <= time.time() + RESUME_SECONDS
    blitz = replace(stored, clock="blitz", clock_seconds=10)  # at most its whole time
    blitz_resumed = resumed_deadline(blitz)
    assert blitz_resumed is not None and blitz_resumed[2] <= time.time() + 10
    running = replace(stored, turn_clock=(1, 4, now + 100))  # time left: kept as it is
    assert resumed_deadline(running) == (1, 4, now + 100)
    assert resumed_deadline(replace(stored, turn_clock=None)) is None


def test_the_host_replaces_an_absent_player_by_a_bot(client: TestClient) -> None:
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 2 + [{"kind": "bot"}])
    game_id = game["game_id"]
    with client.websocket_connect(f"/ws/{game_id}") as ws0:
        red = Conn(ws0, [seat_token(game, 0)])
        with client.websocket_connect(f"/ws/{game_id}") as ws1:
            blue = Conn(ws1, [seat_token(game, 1)])
            blue.send({"type": "replace", "seat": 0, "level": "easy"})
            blue.expect_error("not_host")
            red.send({"type": "replace", "seat": 1, "level": "easy"})
            red.expect_error("seat_connected")
        until_reason(red, "away", 1)
        red.send({"type": "replace", "seat": 2, "level": "easy"})
        assert "a bot" in red.expect_error("not_human")["message"]
        red.send({"type": "replace", "seat": 1, "level": "easy"})
        replaced = until_reason(red, "replaced", 1)
        assert seat_of(replaced["game"], 1)["stand_in"] == "easy"
        red.act(0, "S")
        red.until(lambda c: c.version == 1)
        red.act(0, "roll")
        red.until(lambda c: c.version == 2)
        red.act(0, red.legal["0"][0])
        red.until(lambda c: mover(c.state) == 0 and c.version > 6)  # seats 1 and 2 played
    with client.websocket_connect(f"/ws/{game_id}") as ws1:
        blue = Conn(ws1, [seat_token(game, 1)])  # back: the seat is still the bot's...
        assert seat_of(blue.game, 1)["stand_in"] == "easy"
        blue.send({"type": "take_back", "seat": 1})  # ...until its player takes it back
        assert seat_of(until_reason(blue, "took_back", 1)["game"], 1)["stand_in"] is None


def test_commands_during_the_wrong_phase_change_nothing(client: TestClient) -> None:
    game = create_game(
        client, players=3, seats=[{"kind": "human"}, {"kind": "open"}] * 1 + [{"kind": "human"}]
    )
    game_id = game["game_id"]
    with client.websocket_connect(f"/ws/{game_id}") as ws0:
        red = Conn(ws0, [seat_token(game, 0)])
        for message, code in (
            ({"type": "resign", "seat": 0}, "not_started"),
            ({"type": "replace", "seat": 2}, "not_started"),
            ({"type": "rematch"}, "not_over"),
            ({"type": "take_back", "seat": 0}, "no_stand_in"),
        ):
            red.send(message)
            red.expect_error(code)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        spectator = Conn(ws)
        for message in ({"type": "resign", "seat": 0}, {"type": "rematch"}):
            spectator.send(message)
            spectator.expect_error("not_your_seat")
        spectator.send({"type": "start"})
        spectator.expect_error("not_host")
    assert stored_actions(client, game_id) == []
    assert summary(client, game_id)["status"] == "waiting"


@pytest.mark.e2e
def test_a_real_server_runs_the_blitz_clock_it_is_given(tmp_path: Path) -> None:
    """``marrakech serve --blitz-seconds 1``: a player who does not move for a second
    gets a stand-in bot, over a real socket of a real uvicorn server; the game's
    analysis comes from the bot worker processes."""
    server = Served(tmp_path / "games.sqlite3", "--blitz-seconds", "1", "--bot-delay", "0")
    try:
        body = {
            "players": 2,
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
            "clock": "blitz",
            "first_seat": 0,
        }
        # The clock runs from the game's creation: time it from before the request (a
        # loaded machine may take longer than the second to open the socket).
        created = time.monotonic()
        game = post_json(server.url + "api/games", body)
        uri = server.url.replace("http", "ws") + f"ws/{game['game_id']}"

        async def until(ws: Any, kind: str, reason: str | None = None) -> dict[str, Any]:
            while True:
                message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 90))
                if message["type"] == kind and message.get("reason", reason) == reason:
                    return message

        async def scenario() -> tuple[dict[str, Any], float, dict[str, Any]]:
            async with websockets.connect(uri, ping_interval=None) as ws:
                token = game["seats"][0]["token"]
                await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
                timed_out = await until(ws, "game", "timeout")
                waited = time.monotonic() - created
                # Resigning ends this 2-player game; its analysis comes from a bot worker
                # process (the server's default --bot-processes 2).
                await ws.send(json.dumps({"type": "resign", "seat": 0}))
                return timed_out, waited, await until(ws, "analysis")

        timed_out, waited, analysis = asyncio.run(scenario())
        # The clock gave the player its second (no upper bound: a loaded machine is slow).
        assert waited >= 0.9
        assert timed_out["game"]["clock"]["seconds"] == 1
        assert timed_out["game"]["seats"][0]["stand_in"] == "medium"
        assert analysis["analysis"]["chances"][-1] == [0.0, 1.0]
    finally:
        server.stop()


def test_bots_wait_for_the_open_seats(client: TestClient) -> None:
    game = create_game(
        client,
        players=3,
        seats=[{"kind": "bot", "level": "easy"}, {"kind": "human"}, {"kind": "open"}],
        first_seat=0,
    )
    game_id = game["game_id"]
    time.sleep(0.3)  # the bot to move first would have moved by now (no bot delay)
    assert stored_actions(client, game_id) == []
    client.post(f"/api/games/{game_id}/join", json={"seat": 2, "name": "Cid"})
    deadline = time.monotonic() + 10
    while not stored_actions(client, game_id):  # every seat taken: the bot plays
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert summary(client, game_id)["status"] == "playing"
