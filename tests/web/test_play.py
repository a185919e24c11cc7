"""Live play over the WebSocket protocol (docs/web-protocol.md), with Starlette's TestClient.

The server is authoritative: complete games, every kind of refusal leaving the game
unchanged, spectators, and a restart on the same SQLite file that loses nothing.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech import State, parse_action
from marrakech.record import GameRecord
from marrakech.web.protocol import MAX_MESSAGE_BYTES, JoinedSeat
from marrakech.web.routes.socket import MAX_REFUSED
from marrakech.web.store.sqlite import SQLiteStore
from tests.web.conftest import (
    Apps,
    Conn,
    at_least,
    create_game,
    mover,
    newer_than,
    seat_token,
    stored_actions,
    tokens,
)


def play_to_end(conns: dict[int, Conn], watcher: Conn, bots: set[int], rng: random.Random) -> int:
    """Humans play random legal tokens (each from its own connection) until the end.

    Returns how many actions the humans sent.
    """
    sent = 0
    latest = watcher
    while not latest.over:
        seat = mover(latest.state)
        assert seat is not None
        if seat in bots:
            version = latest.version
            latest.until(newer_than(version))
            continue
        conn = conns[seat]
        conn.until(at_least(latest.version))
        legal = conn.legal[str(seat)]
        assert legal, (seat, conn.state["phase"])
        # Only this seat may act now: every other seat of every connection has nothing.
        for other in conns.values():
            for held, moves in other.legal.items():
                if int(held) != seat and other.version == conn.version:
                    assert moves == [], (held, moves)
        version = conn.version
        conn.act(seat, rng.choice(legal))
        sent += 1
        conn.until(newer_than(version))
        latest = conn
    return sent


def test_complete_game_two_humans_and_a_bot(client: TestClient) -> None:
    game = create_game(
        client,
        players=3,
        rules="bga",
        seats=[
            {"kind": "human", "name": "Ana"},
            {"kind": "human"},
            {"kind": "bot", "level": "easy"},
        ],
    )
    game_id = game["game_id"]
    first, second = seat_token(game, 0), seat_token(game, 1)
    assert game["seats"][2] == {"seat": 2, "kind": "bot", "level": "easy"}
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws1,
        client.websocket_connect(f"/ws/{game_id}") as ws_watch,
    ):
        red = Conn(ws0, [first])
        blue = Conn(ws1, [second], lang="fr")
        watcher = Conn(ws_watch)
        assert (red.you, blue.you, watcher.you) == ([0], [1], [])
        assert red.legal == {"0": ["L", "S", "R"]} and blue.legal == {"1": []}
        assert watcher.legal == {}
        assert red.game["seats"][0]["name"] == "Ana" and red.game["rules"] == "bga"
        sent = play_to_end({0: red, 1: blue}, watcher, {2}, random.Random(3))
        for conn in (red, blue, watcher):
            conn.until(lambda c: c.over)
    assert sent > 20
    final = watcher.state
    assert red.state == blue.state == final
    assert final["phase"] == "over" and final["winners"]
    # The stored record replays to the very state every client saw.
    actions = stored_actions(client, game_id)
    assert len(actions) == watcher.version
    record = GameRecord.from_json(client.get(f"/api/games/{game_id}/record").text)
    assert record.final_state().notation() == final["notation"]
    assert record.seats == ("Ana", "human", "bot:easy")
    # The log has one entry per action, in each connection's language.
    assert len(red.log) == len(blue.log) == watcher.version
    assert red.log[-1].endswith("The game is over.")
    assert blue.log[-1].endswith("La partie est terminée.")
    # Rolls came from the server's die: each roll event is a tithe-aware path of 1..4 steps.
    rolls = [e for u in watcher.updates for e in u["events"] if e["phase"] == "roll"]
    assert rolls and all(1 <= len(e["path"]) <= 4 for e in rolls)
    summary = client.get(f"/api/games?ids={game_id}").json()[0]
    assert summary["status"] == "over" and summary["version"] == watcher.version


def test_two_player_game_reveals_piles_and_hotseat_holds_both_seats(client: TestClient) -> None:
    game = create_game(client, players=2, first_seat=1)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        both = Conn(ws, [t for t in tokens(game) if t])
        assert both.you == [0, 1]
        # The server revealed both pile tops (R7) before anyone moved.
        assert both.version == 2 and both.state["phase"] == "orient"
        assert both.legal == {"0": [], "1": ["L", "S", "R"]}
        assert len(both.log) == 2
        sent = play_to_end({0: both, 1: both}, both, set(), random.Random(5))
    assert sent > 10 and both.over
    record = GameRecord.from_json(client.get(f"/api/games/{game['game_id']}/record").text)
    assert record.final_state().notation() == both.state["notation"]


def test_every_message_of_a_played_game_validates_against_its_type(client: TestClient) -> None:
    """:class:`Conn` checks each message against its protocol type; this game sends each
    type of message at least once."""
    game = create_game(
        client,
        players=3,
        seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "level": "easy"}],
    )
    game_id = game["game_id"]
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws1,
    ):
        red = Conn(ws0, [seat_token(game, 0)])
        seen = {red.welcome["type"]}
        red.send({"type": "ping"})
        seen.add(red.receive()["type"])
        red.act(1, "L")
        seen.add(red.receive()["type"])
        reply = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bea"})
        joined = JoinedSeat.model_validate_json(reply.text, strict=True)
        seen.add(red.receive()["type"])  # the game starts: a fresh welcome (who may act)...
        seen.add(red.receive()["type"])  # ...and who sits where
        blue = Conn(ws1, [joined.token])
        play_to_end({0: red, 1: blue}, red, {2}, random.Random(7))
        red.until(lambda c: c.over)
        seen.update(update["type"] for update in red.updates)
    assert seen == {"welcome", "pong", "error", "game", "update"}


@pytest.fixture
def duel(client: TestClient) -> dict[str, Any]:
    """A 3-player game of humans, seat 0 to move, with one connection per seat."""
    return create_game(client, players=3, seats=[{"kind": "human"}] * 3)


def unchanged(client: TestClient, game: dict[str, Any], conn: Conn, version: int) -> None:
    assert conn.version == version
    assert len(stored_actions(client, game["game_id"])) == version


def test_stale_version_is_refused(client: TestClient, duel: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/{duel['game_id']}") as ws:
        red = Conn(ws, [seat_token(duel, 0)])
        red.act(0, "L")
        red.until(lambda c: c.version == 1)
        for version in (0, 2, 99):
            red.act(0, "roll", version=version)
            error = red.expect_error("stale_version")
            assert error["version"] == 1
            assert f"expected version 1 (the current one), found {version}" in error["message"]
        unchanged(client, duel, red, 1)
        red.act(0, "roll")  # the right version is accepted
        red.until(lambda c: c.version == 2)


def test_wrong_token_is_refused(client: TestClient, duel: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/{duel['game_id']}") as ws:
        intruder = Conn(ws, ["not-a-real-token-" + "x" * 20])
        assert [e["code"] for e in intruder.errors] == ["bad_token"]
        assert intruder.you == [] and intruder.legal == {}
        intruder.act(0, "L")
        error = intruder.expect_error("not_your_seat")
        assert error["message"] == "spectators cannot act"
        unchanged(client, duel, intruder, 0)
    # A real token of another seat does not open seat 0 either.
    with client.websocket_connect(f"/ws/{duel['game_id']}") as ws:
        blue = Conn(ws, [seat_token(duel, 1)])
        blue.act(0, "L")
        assert (
            "holds a token for seat 1, not for seat 0"
            in blue.expect_error("not_your_seat")["message"]
        )
        unchanged(client, duel, blue, 0)


def test_illegal_actions_are_refused(client: TestClient, duel: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/{duel['game_id']}") as ws:
        red = Conn(ws, [seat_token(duel, 0)])
        for token in ("roll", "a1-a2", "r3", "+R", "x", "left"):
            red.act(0, token)
            error = red.expect_error("illegal_action")
            assert "expected one of L, S, R" in error["message"], error
        red.act(0, "S")
        red.until(lambda c: c.version == 1)
        for token in ("r3", "L", "d4-d5"):  # the server rolls; the seat only says "roll"
            red.act(0, token)
            assert "expected one of roll" in red.expect_error("illegal_action")["message"]
        red.act(0, "roll")
        red.until(lambda c: c.version == 2)
        assert red.state["phase"] == "place"
        red.act(0, "a1-g7")
        error = red.expect_error("illegal_action")
        assert ", ".join(red.legal["0"]) in error["message"]
        # An action of the core (adjacent squares, unlike a1-g7) is refused in its words.
        illegal = next(token for token in ("a1-a2", "g6-g7") if token not in red.legal["0"])
        red.act(0, illegal)
        error = red.expect_error("illegal_action")
        state = State.from_notation(red.state["notation"])
        assert error["message"] == str(state.illegal_action_error(parse_action(illegal)))
        assert ", ".join(red.legal["0"]) in error["message"]
        unchanged(client, duel, red, 2)


def test_not_your_turn(client: TestClient, duel: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/{duel['game_id']}") as ws:
        blue = Conn(ws, [seat_token(duel, 1)])
        blue.act(1, "L")
        assert "it is seat 0's turn (Red)" in blue.expect_error("not_your_turn")["message"]
        unchanged(client, duel, blue, 0)


def test_malformed_and_oversized_messages(client: TestClient, duel: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/{duel['game_id']}") as ws:
        red = Conn(ws, [seat_token(duel, 0)])
        cases = {
            "{not json": "expected a JSON object",
            "[1, 2]": "expected a JSON object, found a JSON list",
            '{"type": "shout"}': "type: expected",
            '{"type": "action", "seat": 0, "version": 0}': "action: expected this field",
            '{"type": "action", "seat": "0", "version": 0, "action": "L"}': "seat: expected",
            '{"type": "action", "seat": 0, "version": 0, "action": "L", "x": 1}': "x: unexpected",
            '{"type": "hello", "tokens": []}': "hello was already received",
        }
        for text, expected in cases.items():
            red.send(text)
            assert expected in red.expect_error("bad_message")["message"], text
        big = '{"type": "action", "seat": 0, "version": 0, "action": "' + "L" * 5000 + '"}'
        red.send(big)
        error = red.expect_error("too_large")
        assert f"at most {MAX_MESSAGE_BYTES} bytes" in error["message"]
        red.ws.send_bytes(b'{"type": "ping"}')  # binary frames are read as UTF-8 JSON too
        assert red.receive() == {"type": "pong"}
        unchanged(client, duel, red, 0)


def test_spectator_cannot_act_but_sees_everything(client: TestClient, duel: dict[str, Any]) -> None:
    with (
        client.websocket_connect(f"/ws/{duel['game_id']}") as ws,
        client.websocket_connect(f"/ws/{duel['game_id']}") as ws_watch,
    ):
        red = Conn(ws, [seat_token(duel, 0)])
        watcher = Conn(ws_watch)
        for seat in range(3):
            watcher.act(seat, "L")
            watcher.expect_error("not_your_seat")
        unchanged(client, duel, watcher, 0)
        red.act(0, "R")
        for conn in (red, watcher):
            conn.until(lambda c: c.version == 1)
        assert watcher.state == red.state
        assert watcher.updates[-1]["events"][0]["action"] == "R"
        assert watcher.log == ["Red turned Assam right, to face East."]


def test_game_over_is_refused(client: TestClient) -> None:
    game = create_game(client, players=2, seats=[{"kind": "human"}, {"kind": "bot"}])
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        play_to_end({0: red}, red, {1}, random.Random(11))
        while red.receive()["type"] != "analysis":  # the end's analysis follows the end
            pass
        red.act(0, "L")
        red.expect_error("game_over")
        unchanged(client, game, red, red.version)


def test_rate_limit_per_connection(apps: Apps) -> None:
    client = apps.start(rate=0.001, burst=3)
    game = create_game(client)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])  # the hello used one message of the burst
        for _ in range(2):
            red.send({"type": "ping"})
            assert red.receive() == {"type": "pong"}
        red.act(0, "L")
        error = red.receive()
        assert error["code"] == "rate_limited" and "messages per second" in error["message"]
        assert len(stored_actions(client, game["game_id"])) == red.version


def test_unknown_game_and_missing_hello(apps: Apps) -> None:
    client = apps.start(hello_timeout=0.2)
    with client.websocket_connect("/ws/nosuchgame") as ws:
        ws.send_json({"type": "hello"})
        assert ws.receive_json()["code"] == "not_found"
        assert ws.receive()["code"] == 4404
    game = create_game(client)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        ws.send_json({"type": "action", "seat": 0, "version": 0, "action": "L"})
        assert ws.receive_json()["message"] == 'expected {"type": "hello"} first'
        assert ws.receive_json() == {
            "type": "error",
            "code": "bad_message",
            "message": "expected a hello message",
            "version": None,
        }
        assert ws.receive()["code"] == 4408


def test_restart_resumes_mid_turn_with_nothing_lost(apps: Apps) -> None:
    first = apps.start(bot_delay=30)  # the bot would wait 30 s: the restart comes first
    game = create_game(
        first, players=3, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}]
    )
    game_id = game["game_id"]
    red_token = seat_token(game, 0)
    with first.websocket_connect(f"/ws/{game_id}") as ws:
        red = Conn(ws, [red_token])
        for token in ("L", "roll"):
            red.act(0, token)
            red.until(newer_than(red.version))
        red.act(0, red.legal["0"][0])
        red.until(lambda c: c.version == 3)
        assert mover(red.state) == 1  # the bot's turn: it is pausing when the server stops
        before = (red.version, red.state, red.log)
    apps.stop(first)

    second = apps.start(bot_delay=0)  # the restart resumes the bot's turn by itself...
    deadline = time.monotonic() + 10
    while second.get(f"/api/games/{game_id}").json()["version"] < before[0] + 3:
        assert time.monotonic() < deadline, "the bot did not resume"
        time.sleep(0.01)  # ...with nobody connected: the server does it at start
    with second.websocket_connect(f"/ws/{game_id}") as ws:
        watcher = Conn(ws)
        watcher.until(lambda c: mover(c.state) == 2)
        assert watcher.version == before[0] + 3  # the bot oriented, rolled and placed
        assert watcher.log[: before[0]] == before[2]
    actions = stored_actions(second, game_id)
    replayed = State.new(3)
    for state in GameRecord.from_json(second.get(f"/api/games/{game_id}/record").text).states():
        replayed = state
    assert replayed.notation() == watcher.state["notation"]
    assert len(actions) == watcher.version

    # Mid-turn for a human: orient, restart, and the same seat rolls on the same version.
    with second.websocket_connect(f"/ws/{game_id}") as ws:
        yellow = Conn(ws, [seat_token(game, 2)])
        yellow.act(2, "R")
        yellow.until(lambda c: c.state["phase"] == "roll")
        mid = (yellow.version, yellow.state, yellow.log)
    apps.stop(second)
    third = apps.start()
    with third.websocket_connect(f"/ws/{game_id}") as ws:
        yellow = Conn(ws, [seat_token(game, 2)])
        assert (yellow.version, yellow.state, yellow.log) == mid
        assert yellow.legal == {"2": ["roll"]}
        yellow.act(2, "roll")
        yellow.until(lambda c: c.version == mid[0] + 1)


def test_two_apps_share_the_store_without_losing_actions(apps: Apps) -> None:
    """Two servers on one database: the second write on a stale copy is refused."""
    one = apps.start()
    two = apps.start()
    game = create_game(one, players=3, seats=[{"kind": "human"}] * 3)
    red_token = seat_token(game, 0)
    with (
        one.websocket_connect(f"/ws/{game['game_id']}") as ws_one,
        two.websocket_connect(f"/ws/{game['game_id']}") as ws_two,
    ):
        red_one = Conn(ws_one, [red_token])
        red_two = Conn(ws_two, [red_token])
        red_one.act(0, "L")
        red_one.until(lambda c: c.version == 1)
        red_two.act(0, "R")  # server two still believes version 0 is current
        welcome = red_two.receive()  # it catches up from the store...
        assert welcome["type"] == "welcome" and welcome["version"] == 1
        error = red_two.receive()  # ...and refuses the action
        assert error["code"] == "stale_version", error
    assert stored_actions(one, game["game_id"]) == ["L"]


class FlakyStore(SQLiteStore):
    """A store whose disk fails on demand."""

    failing = False

    def append_batch(self, *args: Any, **kwargs: Any) -> list[Exception | None]:
        if self.failing:
            raise OSError("disk full")
        return super().append_batch(*args, **kwargs)


def test_a_store_failure_refuses_the_action_and_changes_nothing(apps: Apps, tmp_path: Path) -> None:
    store = FlakyStore(tmp_path / "flaky.sqlite3")
    client = apps.start(store=store)
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        store.failing = True
        red.act(0, "L")
        error = red.expect_error("server_error")
        assert error["version"] == 0 and "nothing changed" in error["message"]
        assert red.version == 0 and red.state["phase"] == "orient"
        store.failing = False
        red.act(0, "L")  # the same action, now stored and applied
        red.until(lambda c: c.version == 1)
    assert stored_actions(client, game["game_id"]) == ["L"]


def test_a_flooding_connection_is_closed(apps: Apps) -> None:
    client = apps.start(rate=0.001, burst=1)
    game = create_game(client)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        watcher = Conn(ws)
        codes = []
        for _ in range(MAX_REFUSED + 5):
            watcher.send({"type": "ping"})
        while True:
            message = watcher.receive()
            if message["type"] == "closed":
                assert message["code"] == 1008
                break
            codes.append(message["code"])
        # The flood's first refusal is answered; answering the others would cost the
        # server more than the flood (issue 23).
        assert codes == ["rate_limited"]
    # The address may open no socket for a while, on any game.
    with client.websocket_connect(f"/ws/{create_game(client)['game_id']}") as ws:
        refused = ws.receive_json()
        assert refused["code"] == "rate_limited" and "flooded" in refused["message"]
        assert ws.receive()["code"] == 4429
