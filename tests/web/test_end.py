"""After the game (docs/web-protocol.md): the rematch (same seats, a new game, each
seat's new token to its own pages only) and the analysis (dice luck, scores, winning
chances, swings), computed off the event loop and kept with the game.

Real app, real SQLite file, real WebSockets (Starlette's TestClient).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from marrakech.luck import dice_luck
from marrakech.record import GameRecord
from marrakech.web.analysis_jobs import chances_series
from marrakech.web.room import rematch_token
from marrakech.web.store import hash_token
from tests.web.conftest import Apps, Conn, create_game, finished_game, newer_than, tokens


def is_out(seat: int) -> Callable[[Conn], bool]:
    """A condition for :meth:`Conn.until`: ``seat`` is out of the game."""
    return lambda conn: seat in conn.state["eliminated"]


def resign(conn: Conn, *seats: int) -> None:
    """Seats of ``conn`` resign one after another (R22)."""
    for seat in seats:
        conn.send({"type": "resign", "seat": seat})
        conn.until(is_out(seat))


def until_type(conn: Conn, kind: str) -> dict[str, Any]:
    while True:
        message = conn.receive()
        if message["type"] == kind:
            return message


def test_rematch_gives_each_seat_its_own_new_link(client: TestClient) -> None:
    game = create_game(
        client,
        players=4,
        clock="blitz",
        seats=[
            {"kind": "human", "name": "Ana"},
            {"kind": "human", "name": "Bea"},
            {"kind": "bot", "level": "easy"},
            {"kind": "human", "name": "Dan"},
        ],
    )
    game_id = game["game_id"]
    red_t, blue_t, _, green_t = tokens(game)
    assert red_t and blue_t and green_t
    with client.websocket_connect(f"/ws/{game_id}") as ws:  # Dan leaves, and goes away
        dan = Conn(ws, [green_t])
        dan.send({"type": "resign", "seat": 3})
        dan.until(lambda c: 3 in c.state["eliminated"])
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws1,
        client.websocket_connect(f"/ws/{game_id}") as ws2,
    ):
        red, blue, spectator = Conn(ws0, [red_t]), Conn(ws1, [blue_t]), Conn(ws2)
        red.send({"type": "rematch"})
        red.expect_error("not_over")
        resign(red, 0)
        resign(blue, 1)
        red.until(lambda c: c.over)
        blue.send({"type": "rematch"})
        mine = until_type(blue, "rematch")
        theirs = until_type(red, "rematch")
        watched = until_type(spectator, "rematch")
        new_id = mine["game_id"]
        assert new_id != game_id and theirs["game_id"] == watched["game_id"] == new_id
        assert [seat["seat"] for seat in mine["seats"]] == [1]  # never another's token
        assert [seat["seat"] for seat in theirs["seats"]] == [0]
        assert watched["seats"] == [] and watched["spectator_link"] == f"/g/{new_id}"
        new_blue, new_red = mine["seats"][0]["token"], theirs["seats"][0]["token"]
        assert new_blue not in (blue_t, red_t, new_red)
        assert mine["seats"][0]["link"] == f"/g/{new_id}#t={new_blue}"
        assert blue.game["rematch"] == new_id or until_type(blue, "game")["game"]["rematch"]
        red.send({"type": "rematch"})  # asking again gives the same game
        assert until_type(red, "rematch")["game_id"] == new_id
    # Dan was away: his old page, back, learns the rematch and his own new link.
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        green = Conn(ws, [green_t])
        assert green.game["rematch"] == new_id
        late = until_type(green, "rematch")
        assert [seat["seat"] for seat in late["seats"]] == [3]
        new_green = late["seats"][0]["token"]
    new = client.get(f"/api/games/{new_id}").json()
    assert [(s["kind"], s["level"], s["name"], s["host"]) for s in new["seats"]] == [
        ("human", None, "Ana", True),
        ("human", None, "Bea", False),
        ("bot", "easy", "", False),
        ("human", None, "Dan", False),
    ]
    assert new["clock"]["mode"] == "blitz" and new["status"] == "playing"
    old_first = client.get(f"/api/games/{game_id}").json()["first_seat"]
    assert new["first_seat"] == (old_first + 1) % 4  # the next seat starts
    with client.websocket_connect(f"/ws/{new_id}") as ws:
        assert Conn(ws, [new_red, new_blue, new_green]).you == [0, 1, 3]
    with client.websocket_connect(f"/ws/{new_id}") as ws:
        old = Conn(ws, [red_t])  # the old game's token opens nothing in the new one
        assert old.you == [] and old.errors[0]["code"] == "bad_token"


def test_the_analysis_comes_after_the_end_and_stays_with_the_game(apps: Apps) -> None:
    client = apps.start()
    game = create_game(client, players=3, seats=[{"kind": "human"}] * 3)
    game_id = game["game_id"]
    assert client.get(f"/api/games/{game_id}/analysis").json() == {
        "status": "pending",
        "over": False,
        "analysis": None,
    }
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hotseat = Conn(ws, [token or "" for token in tokens(game)])
        for _ in range(12):  # four turns, then two seats leave
            seat = next(int(s) for s, moves in hotseat.legal.items() if moves)
            version = hotseat.version
            hotseat.act(seat, hotseat.legal[str(seat)][0])
            hotseat.until(newer_than(version))
        resign(hotseat, 0, 2)
        hotseat.until(lambda c: c.over)
        analysis = until_type(hotseat, "analysis")["analysis"]
    record = GameRecord.from_json(client.get(f"/api/games/{game_id}/record").text)
    assert analysis["game_id"] == game_id
    assert analysis["luck"] == [round(luck, 3) for luck in dice_luck(record)]
    assert analysis["turns"] == [0, 1, 2, 3, 4, 5]
    assert analysis["versions"][0] == 0 and analysis["versions"][-1] == len(record.actions)
    assert analysis["scores"][0] == [30, 30, 30]  # R5, no carpet yet (R20)
    assert analysis["chances"][-1] == [0.0, 1.0, 0.0]  # exact at the end
    assert analysis["chances"] == [
        [round(share, 4) for share in point] for point in chances_series(record)
    ]
    for point in analysis["chances"]:
        assert abs(sum(point) - 1) < 1e-3
    swings = analysis["swings"]
    assert 1 <= len(swings) <= 5 and analysis["method"] == "value"
    moves = [abs(s["after"] - s["before"]) for s in swings]
    assert moves == sorted(moves, reverse=True)
    biggest = max(
        abs(analysis["chances"][i][seat] - analysis["chances"][i - 1][seat])
        for i in range(1, len(analysis["chances"]))
        for seat in range(3)
    )
    assert abs(moves[0] - biggest) < 1e-3  # the series are rounded to 4 places
    ready = client.get(f"/api/games/{game_id}/analysis").json()
    assert ready == {"status": "ready", "over": True, "analysis": analysis}
    # Kept with the game: after a restart, welcomes carry it, nothing is recomputed.
    apps.stop(client)
    again = apps.start()
    with again.websocket_connect(f"/ws/{game_id}") as ws:
        assert Conn(ws).welcome["analysis"] == analysis


def test_an_unknown_game_has_no_analysis(client: TestClient) -> None:
    reply = client.get("/api/games/nosuchgame1/analysis")
    assert reply.status_code == 404 and reply.json()["error"] == "not_found"


def test_the_analysis_of_a_game_finished_before_an_upgrade_is_computed_on_demand(
    apps: Apps,
) -> None:
    client = apps.start()
    game_id = finished_game(client)["game_id"]
    deadline = time.monotonic() + 30
    while client.get(f"/api/games/{game_id}/analysis").json()["status"] != "ready":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    # As if the game had ended before the server computed analyses.
    apps.stop(client)
    with sqlite3.connect(apps.db_path) as db:
        db.execute("UPDATE games SET analysis = NULL WHERE id = ?", (game_id,))
    client = apps.start()
    deadline = time.monotonic() + 30
    while True:
        answer = client.get(f"/api/games/{game_id}/analysis").json()
        if answer["status"] == "ready":
            break
        assert answer["over"] and time.monotonic() < deadline
        time.sleep(0.1)
    assert answer["analysis"]["chances"][-1] == [0.0, 1.0]


def test_a_rematch_seat_given_its_token_elsewhere_opens_at_once(apps: Apps) -> None:
    """Another instance gave a rematch's seat its token (its player came back there):
    a page of this instance, whose room still has the seat without one, is let in."""
    client = apps.start()
    game = finished_game(client)
    red_t, blue_t = tokens(game)
    assert red_t and blue_t
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [red_t])
        red.send({"type": "rematch"})
        new_id = until_type(red, "rematch")["game_id"]
    with client.websocket_connect(f"/ws/{new_id}") as watching:
        Conn(watching)  # the rematch's room is live here, seat 1 without a token
        new_blue = rematch_token(blue_t, new_id)
        with sqlite3.connect(apps.db_path) as db:  # as the other instance would
            db.execute(
                "UPDATE seats SET token_hash = ? WHERE game_id = ? AND seat = 1",
                (hash_token(new_blue), new_id),
            )
        with client.websocket_connect(f"/ws/{new_id}") as ws:
            blue = Conn(ws, [new_blue])
            assert blue.you == [1] and blue.errors == []


def test_a_two_player_turning_point_is_listed_once() -> None:
    """At two players one seat's gain is the other's loss: each turn listed once, by the
    seat that gained."""
    import random

    from marrakech import State, random_game
    from marrakech.web.analysis_jobs import analyse

    _, actions = random_game(State.new(players=2), random.Random(4))
    swings = analyse(GameRecord.from_actions(State.new(players=2), actions), "g").swings
    assert len(swings) >= 2
    assert len({swing.turn for swing in swings}) == len(swings)
    assert all(swing.after >= swing.before for swing in swings)
