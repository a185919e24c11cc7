"""What the lobby and the page are told about a game (docs/web-protocol.md): summaries
with host, seats, player turns, age and replay link; open games leaving the lobby after
``--open-game-ttl``; names; the clock and rule-set options of a new game; the preview
while orienting, the last move and "what happened since your last turn".

Real app, real SQLite file, real WebSockets (Starlette's TestClient).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech import State
from marrakech.views import preview_view
from tests.web.conftest import (
    Apps,
    Conn,
    create_game,
    finished_game,
    newer_than,
    seat_token,
    tokens,
)


def test_summaries_tell_what_you_join(client: TestClient) -> None:
    game = create_game(
        client,
        players=4,
        rules="bga",
        clock="relaxed",
        seats=[
            {"kind": "human", "name": "Ana"},
            {"kind": "bot", "level": "hard"},
            {"kind": "open"},
            {"kind": "open"},
        ],
    )
    game_id = game["game_id"]
    [listed] = client.get("/api/games/open").json()
    assert listed["game_id"] == game_id and listed["host"] == "Ana"
    assert listed["taken"] == 2 and listed["open_seats"] == [2, 3]
    assert [(s["kind"], s["level"]) for s in listed["seats"][:2]] == [
        ("human", None),
        ("bot", "hard"),
    ]
    assert listed["rules"] == "bga" and listed["status"] == "waiting" and listed["turn"] == 0
    assert listed["clock"] == {
        "mode": "relaxed",
        "seconds": 180,
        "stand_in_level": "medium",
        "seat": None,
        "deadline": None,
        "remaining": None,
        "bank": None,
    }
    assert 0 <= listed["age"] < 60 and listed["replay_link"] is None


def test_the_turn_number_counts_player_turns_not_actions(client: TestClient) -> None:
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3)
    game_id = game["game_id"]
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hotseat = Conn(ws, [token or "" for token in tokens(game)])
        assert client.get(f"/api/games/{game_id}").json()["turn"] == 1
        for turn in range(2, 5):
            for _ in range(3):  # orient, roll, place: three actions, one turn
                seat = next(int(s) for s, moves in hotseat.legal.items() if moves)
                version = hotseat.version
                hotseat.act(seat, hotseat.legal[str(seat)][0])
                hotseat.until(newer_than(version))
            summary = client.get(f"/api/games/{game_id}").json()
            assert summary["turn"] == turn, (summary["version"], turn)
    summary = client.get(f"/api/games/{game_id}").json()
    assert summary["version"] == 9 and summary["turn"] == 4  # not "turn 9"
    # Stored too: a game no room holds any more reads the same.
    [stored] = client.get(f"/api/games?ids={game_id}").json()
    assert stored["turn"] == 4


def test_finished_games_link_to_their_replay(client: TestClient) -> None:
    game_id = finished_game(client)["game_id"]
    summary = client.get(f"/api/games/{game_id}").json()
    assert summary["status"] == "over" and summary["replay_link"] == f"/r/{game_id}"
    assert client.get(summary["replay_link"]).status_code == 200


def test_unjoined_open_games_leave_the_lobby(apps: Apps) -> None:
    client = apps.start(open_game_ttl=1)
    game = create_game(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    assert [g["game_id"] for g in client.get("/api/games/open").json()] == [game["game_id"]]
    time.sleep(1.2)
    assert client.get("/api/games/open").json() == []
    # Its links still work, and so does joining it by its link.
    assert client.get(f"/api/games/{game['game_id']}").json()["status"] == "waiting"
    joined = client.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": "Bea"})
    assert joined.status_code == 200


@pytest.mark.parametrize(
    "name",
    ["👩\u200d💻", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "Nguyê\u0303n", "Zoé"],
)
def test_names_accept_joiners(client: TestClient, name: str) -> None:
    game = create_game(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}], name=name)
    reply = client.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": name + "2"})
    assert reply.status_code == 200, reply.text
    seats = client.get(f"/api/games/{game['game_id']}").json()["seats"]
    assert [seat["name"] for seat in seats] == [name, name + "2"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a" + "\u0301" * 39, "cannot stack more than 3 combining marks on a character, found 39"),
        ("x\u202eevil", "control characters, found '\\u202e'"),
        ("bell\x07", "control characters"),
        ("", "expected a name of 1 to 40 characters, found none"),
        ("   ", "expected a name of 1 to 40 characters, found none"),
        ("n" * 41, "at most 40 characters, found 41"),
    ],
)
def test_bad_names_are_refused_with_the_reason(
    client: TestClient, name: str, expected: str
) -> None:
    game = create_game(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    reply = client.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": name})
    assert reply.status_code == 400 and reply.json()["error"] == "bad_request"
    assert expected in reply.json()["message"], reply.json()
    assert client.get(f"/api/games/{game['game_id']}").json()["open_seats"] == [1]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"clock": "fast"}, "clock: expected 'none', 'relaxed', 'blitz', 'turn_1h'"),
        ({"stand_in_level": "god"}, "stand_in_level: expected 'easy'"),
        ({"orient_last": "yes"}, "orient_last: expected a valid boolean"),
        ({"seats": [{"kind": "human"}, {"kind": "open"}]}, "name: expected the host's name"),
        (
            {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "open"}], "name": "Bob"},
            "expected the host's name once",
        ),
        (
            {"seats": [{"kind": "human"}, {"kind": "open"}], "name": "a\u0300\u0300\u0300\u0300"},
            "combining marks",
        ),
        ({"seats": [{"kind": "bot"}, {"kind": "open"}], "name": "Ana"}, "without a human seat"),
    ],
)
def test_create_refuses_bad_options(
    client: TestClient, body: dict[str, Any], expected: str
) -> None:
    spec = {"players": 2, "seats": [{"kind": "human"}] * 2, **body}
    reply = client.post("/api/games", json=spec)
    assert reply.status_code == 400 and reply.json()["error"] == "bad_request"
    assert expected in reply.json()["message"], reply.json()


@pytest.mark.parametrize("players", [2, 3])
def test_orient_last_is_a_creation_option(client: TestClient, players: int) -> None:
    # At two players the pile shows its next carpet between the orientation and the next
    # seat's roll (R7, R32): the preview passes that draw.
    seats = [{"kind": "human"}] * players
    game = create_game(client, players=players, seats=seats, orient_last=True)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        assert red.game["rules"] == "standard+orient-last"
        assert red.legal == {"0": ["roll"]}  # the first player rolls without orienting (R32)
        assert red.welcome["preview"] is None
        red.act(0, "roll")
        red.until(lambda c: c.state["phase"] == "place")
        red.act(0, red.legal["0"][0])  # place, then orient for the next player
        red.until(lambda c: c.state["phase"] == "orient")
        assert red.legal == {"0": ["L", "S", "R"]}
        assert red.updates[-1]["preview"] == preview_view(
            State.from_notation(red.state["notation"])
        )
        red.act(0, "S")  # the server crashed here at two players before the fix
        red.until(lambda c: c.state["phase"] == "roll")
        assert red.state["turn"] == 1  # the next seat's roll, Assam turned for it


def test_preview_last_move_and_what_happened_since_your_last_turn(client: TestClient) -> None:
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3)
    game_id = game["game_id"]
    red_t, blue_t, yellow_t = tokens(game)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hotseat = Conn(ws, [red_t or "", blue_t or "", yellow_t or ""])
        start = State.new(3, first_seat=0)
        assert hotseat.welcome["preview"] == preview_view(start)
        assert hotseat.welcome["last_move"] is None and hotseat.welcome["since"] == []
        played = ["S", "roll", None, "L", "roll", None, "R"]
        for token in played:
            seat = next(int(s) for s, moves in hotseat.legal.items() if moves)
            version = hotseat.version
            hotseat.act(seat, token or hotseat.legal[str(seat)][0])
            hotseat.until(newer_than(version))
        update = hotseat.updates[-1]  # seat 2 turned Assam: the preview is gone
        assert update["preview"] is None
        assert update["last_move"] is None  # no turn ended: the page keeps the last one
        last = hotseat.updates[-2]["last_move"]  # seat 1's placement ended its turn
        assert last["seat"] == 1 and last["turn"] == 2 and last["orient"] == "L"
        assert last["start"] == 3 and last["end"] == 6
        assert last["placed"] is not None and len(last["placed"]) == 2 and last["colour"] == "B"
        assert last["path"] and last["roll"] == len(last["path"])
        assert len(last["log"]) == 3
    # Seat 0 comes back: it is told what seat 1 did since its own turn; seat 2 is
    # told about seats 0 and 1 (it has not played yet).
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        red = Conn(ws, [red_t or ""])
        assert [turn["seat"] for turn in red.welcome["since"]] == [1]
        assert red.welcome["last_move"]["seat"] == 1
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        yellow = Conn(ws, [yellow_t or ""], lang="fr")
        since = yellow.welcome["since"]
        assert [turn["seat"] for turn in since] == [0, 1]
        assert since[0]["orient"] == "S" and since[0]["turn"] == 1
        assert "Assam" in since[0]["log"][0] and "tourné" in " ".join(since[1]["log"])
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        assert Conn(ws).welcome["since"] == []  # spectators have no last turn


def test_the_core_preview_is_what_the_page_gets(client: TestClient) -> None:
    game = create_game(client, players=2, seats=[{"kind": "human"}] * 2)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        position = State.from_notation(red.state["notation"])
        assert red.welcome["preview"] == preview_view(position)
        options = red.welcome["preview"]
        assert [option["orient"] for option in options] == ["L", "S", "R"]
        for option in options:
            assert abs(sum(roll["probability"] for roll in option["rolls"]) - 1) < 1e-9


def test_a_spectators_welcome_follows_the_seats_though_made_once(client: TestClient) -> None:
    """Spectators share one welcome per version and language (a popular game, a flood of
    them); a seat taken since, with no action in between, is in the next one's."""
    game = create_game(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    path = f"/ws/{game['game_id']}"
    with client.websocket_connect(path) as one, client.websocket_connect(path) as two:
        first, second = Conn(one), Conn(two)
        assert first.welcome == second.welcome
        assert [seat.get("name") for seat in first.game["seats"]] == ["Host", ""]
    joined = client.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": "Bea"})
    assert joined.status_code == 200, joined.text
    with (
        client.websocket_connect(path) as three,
        client.websocket_connect(
            path,
        ) as four,
    ):
        late, french = Conn(three), Conn(four, lang="fr")
        assert late.version == first.version
        assert [seat.get("name") for seat in late.game["seats"]] == ["Host", "Bea"]
        assert late.welcome["log"] and french.welcome["log"] != late.welcome["log"]
