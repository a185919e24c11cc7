"""Hints over the WebSocket protocol (docs/web-protocol.md, "Hints"): advice for the
seat to decide, to the asking connection only, the same as the core's
:func:`marrakech.bots.analysis.hint`; every refusal; the game's setting and each seat's
count stored; advice the game moved past never sent."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech import State
from marrakech.bots.analysis import hint
from marrakech.web import analysis_jobs
from marrakech.web.room import hints as room_module
from marrakech.web.store import SeatRow
from tests.web.conftest import Apps, Conn, create_game, seat_token

TWO_PEOPLE = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def advice_of(conn: Conn) -> dict[str, Any]:
    """The next ``hint`` message of ``conn``, passing over the ``game`` message that
    tells everyone a hint was used."""
    while True:
        message = conn.receive()
        if message["type"] == "hint":
            return message
        assert message["type"] == "game" and message["reason"] == "hint", message


def nothing_more(conn: Conn) -> None:
    """A ping proves no other message (a hint, an error) was on its way."""
    conn.send({"type": "ping"})
    assert conn.receive() == {"type": "pong"}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The positions the server searched for a hint (its workers' calls)."""
    calls: list[str] = []
    advise = analysis_jobs.advise  # what the room's hints module calls

    def counting(
        notation: str, strengths: tuple[float, ...] | None = None
    ) -> list[tuple[str, float, float]]:
        calls.append(notation)
        return advise(notation, strengths)

    monkeypatch.setattr(room_module, "advise", counting)
    return calls


def test_a_hint_goes_to_the_asker_only_and_is_the_cores_hint(
    client: TestClient, counted: list[str]
) -> None:
    game = create_game(client, players=2, seats=TWO_PEOPLE)
    assert client.get(f"/api/games/{game['game_id']}").json()["hints"] is True
    with (
        client.websocket_connect(f"/ws/{game['game_id']}") as ws0,
        client.websocket_connect(f"/ws/{game['game_id']}") as ws1,
        client.websocket_connect(f"/ws/{game['game_id']}") as ws2,
    ):
        red, blue, watcher = (
            Conn(ws0, [seat_token(game, 0)]),
            Conn(ws1, [seat_token(game, 1)]),
            Conn(ws2),
        )
        assert red.game["hints"] is True and red.legal == {"0": ["L", "S", "R"]}
        red.send({"type": "hint"})
        advice = advice_of(red)
        expected = hint(State.from_notation(red.state["notation"]))
        assert advice == {
            "type": "hint",
            "version": red.version,
            "seat": 0,
            "options": [
                {"action": str(option.action), "chance": option.chance, "share": option.share}
                for option in expected.options
            ],
        }
        assert advice["options"][0]["action"] in red.legal["0"]
        # Everyone sees that seat 0 used a hint; nobody else gets the advice.
        for other in (blue, watcher):
            changed = other.receive()
            assert changed["reason"] == "hint" and changed["seat"] == 0
            assert [seat["hints"] for seat in changed["game"]["seats"]] == [1, 0]
            nothing_more(other)
        # Asking again for the same position costs nothing and counts nothing more.
        red.send({"type": "hint", "seat": 0})
        assert red.receive() == advice
        nothing_more(blue)
        assert len(counted) == 1
        # The advised move is played like any other.
        red.act(0, advice["options"][0]["action"])
        red.until(lambda c: c.version > advice["version"])
    summary = client.get(f"/api/games/{game['game_id']}").json()
    assert [seat["hints"] for seat in summary["seats"]] == [1, 0]


def test_a_placement_hint_lists_every_legal_placement(client: TestClient) -> None:
    game = create_game(client, players=2, seats=TWO_PEOPLE)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        red.act(0, "S")
        red.until(lambda c: c.legal["0"] == ["roll"])
        red.act(0, "roll")
        red.until(lambda c: c.state["phase"] == "place")
        red.send({"type": "hint"})
        advice = advice_of(red)
        assert sorted(option["action"] for option in advice["options"]) == sorted(red.legal["0"])
        assert all("-" in option["action"] for option in advice["options"])
        assert abs(sum(option["share"] for option in advice["options"]) - 1) < 1e-3


def test_every_refusal_says_why(apps: Apps) -> None:
    # The bot standing in waits a long while before it moves: time to ask.
    client = apps.start(bot_delay=30)
    game = create_game(client, players=2, seats=TWO_PEOPLE)
    game_id = game["game_id"]
    off = create_game(client, players=2, seats=TWO_PEOPLE, hints=False)
    waiting = create_game(client, players=2, seats=[TWO_PEOPLE[0], {"kind": "open"}])
    with client.websocket_connect(f"/ws/{off['game_id']}") as ws:
        red = Conn(ws, [seat_token(off, 0)])
        assert red.game["hints"] is False
        red.send({"type": "hint"})
        error = red.expect_error("hints_off")
        assert error["message"] == "this game does not allow hints (its creator turned them off)"
    with client.websocket_connect(f"/ws/{waiting['game_id']}") as ws:
        red = Conn(ws, [seat_token(waiting, 0)])
        red.send({"type": "hint"})
        assert "waits for its open seats" in red.expect_error("not_started")["message"]
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws2,
    ):
        red, watcher = Conn(ws0, [seat_token(game, 0)]), Conn(ws2)
        watcher.send({"type": "hint"})
        assert watcher.expect_error("not_your_seat")["message"] == "spectators cannot ask for hints"
        red.send({"type": "hint", "seat": 1})
        message = red.expect_error("not_your_seat")["message"]
        assert message == "this connection holds a token for seat 0, not for seat 1"
        for malformed, found in (
            ({"type": "hint", "seat": "0"}, "seat: expected a valid integer (found '0')"),
            ({"type": "hint", "seat": 4}, "seat: expected less than or equal to 3 (found 4)"),
            ({"type": "hint", "for": "me"}, "for: unexpected field"),
        ):
            red.send(malformed)
            assert red.expect_error("bad_message")["message"] == found
        red.act(0, "L")
        red.until(lambda c: c.legal["0"] == ["roll"])
        red.send({"type": "hint"})
        message = red.expect_error("not_your_turn")["message"]
        assert message == (
            "a hint is for a decision (orient or place), found the roll phase: roll the die first"
        )
        red.act(0, "roll")
        red.until(lambda c: c.state["phase"] == "place")
        red.act(0, red.legal["0"][0])
        red.until(lambda c: c.state["to_move"] == 1 and c.state["phase"] == "orient")
        red.send({"type": "hint"})
        message = red.expect_error("not_your_turn")["message"]
        assert message == (
            "a hint is for your own decision: it is seat 1's turn (Blue-Purple), not seat 0's"
        )
        # Seat 1's player is away: the host has a bot play for it (it waits 30 s).
        red.send({"type": "replace", "seat": 1})
        red.until(lambda c: c.game["seats"][1]["stand_in"] is not None)
        with client.websocket_connect(f"/ws/{game_id}") as ws1:
            blue = Conn(ws1, [seat_token(game, 1)])
            blue.send({"type": "hint"})
            message = blue.expect_error("not_your_turn")["message"]
            assert message == (
                "a bot plays for seat 1 (Blue-Purple, a bot): take the seat back first"
            )
        red.send({"type": "resign", "seat": 0})
        red.until(lambda c: c.over and c.game["seats"][0]["resigned"])
        while red.receive()["type"] != "analysis":  # the end's analysis comes first
            pass
        red.send({"type": "hint"})
        message = red.expect_error("game_over")["message"]
        assert message == "the game is over: there is nothing to advise"


def test_the_setting_and_the_counts_survive_a_restart_and_the_rematch(apps: Apps) -> None:
    client = apps.start()
    on = create_game(client, players=2, seats=TWO_PEOPLE)
    off = create_game(client, players=2, seats=TWO_PEOPLE, hints=False)
    with client.websocket_connect(f"/ws/{on['game_id']}") as ws:
        red = Conn(ws, [seat_token(on, 0)])
        red.send({"type": "hint"})
        advice_of(red)
    apps.stop(client)
    client = apps.start()
    with client.websocket_connect(f"/ws/{on['game_id']}") as ws:
        red = Conn(ws, [seat_token(on, 0)])
        assert red.game["hints"] is True
        assert [seat["hints"] for seat in red.game["seats"]] == [1, 0]
        # The position is the same: the advice is the same and, though this room was
        # loaded afresh, the count does not grow (the store knows the position counted).
        red.send({"type": "hint"})
        assert red.receive()["type"] == "hint"
        nothing_more(red)
    stored = client.get(f"/api/games/{on['game_id']}").json()
    assert [seat["hints"] for seat in stored["seats"]] == [1, 0]
    with client.websocket_connect(f"/ws/{off['game_id']}") as ws:
        red = Conn(ws, [seat_token(off, 0)])
        assert red.game["hints"] is False
        red.send({"type": "hint"})
        red.expect_error("hints_off")
        red.send({"type": "resign", "seat": 0})
        red.until(lambda c: c.over and c.game["seats"][0]["resigned"])
        red.send({"type": "rematch"})
        message = red.receive()
        while message["type"] != "rematch":
            message = red.receive()
    rematch = client.get(f"/api/games/{message['game_id']}").json()
    assert rematch["hints"] is False
    assert [seat["hints"] for seat in rematch["seats"]] == [0, 0]


def test_advice_the_game_moved_past_is_never_sent(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked, release, returned = threading.Event(), threading.Event(), threading.Event()
    advise = analysis_jobs.advise  # what the room's hints module calls

    def slow(
        notation: str, strengths: tuple[float, ...] | None = None
    ) -> list[tuple[str, float, float]]:
        asked.set()
        release.wait(10)
        try:
            return advise(notation, strengths)
        finally:
            returned.set()

    monkeypatch.setattr(room_module, "advise", slow)
    game = create_game(client, players=2, seats=TWO_PEOPLE)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        red.send({"type": "hint"})
        assert asked.wait(10)
        red.act(0, "R")  # the player decides before the advice comes
        red.until(lambda c: c.version > 0 and c.legal["0"] == ["roll"])
        release.set()
        assert returned.wait(10)
        time.sleep(0.3)  # time for the loop to take the advice in (and drop it)
        nothing_more(red)  # no hint for a position that is gone, no hint counted
        assert [seat["hints"] for seat in red.game["seats"]] == [0, 0]
        # The next decision gets its own advice.
        red.act(0, "roll")
        red.until(lambda c: c.state["phase"] == "place")
        red.send({"type": "hint"})
        assert advice_of(red)["version"] == red.version
        assert [seat["hints"] for seat in red.game["seats"]] == [1, 0]


def test_the_hints_chances_are_for_the_bots_at_the_table(client: TestClient) -> None:
    """Issue 38, item 3: a hint's chances take the table's known strengths (the bots'
    levels) as the end screen's do; a table of people is taken as evenly matched."""
    seats = [
        {"kind": "human", "name": "Ana"},
        {"kind": "bot", "level": "expert"},
        {"kind": "bot", "level": "easy"},
    ]
    game = create_game(client, players=3, seats=seats)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        ana = Conn(ws, [seat_token(game, 0)])
        ana.send({"type": "hint"})
        advice = advice_of(ana)
    state = State.from_notation(ana.state["notation"])
    strengths = analysis_jobs.table_strengths(
        [SeatRow(0, "human"), SeatRow(1, "bot", "expert"), SeatRow(2, "bot", "easy")]
    )
    assert strengths is not None
    at_this_table = hint(state, strengths=strengths)
    evenly_matched = hint(state)
    chances = {option["action"]: option["chance"] for option in advice["options"]}
    assert chances == {str(o.action): o.chance for o in at_this_table.options}
    assert chances != {str(o.action): o.chance for o in evenly_matched.options}
