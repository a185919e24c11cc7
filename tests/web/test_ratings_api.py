"""Rated games over the HTTP API and the rooms (issue 24): chosen at creation, seats for
signed-in accounts only (bots allowed), a resignation or a timeout counted last, the
leaderboard's minimum of games, and a profile's contents."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from marrakech.web.protocol import CreateGame
from marrakech.web.ratings import START, bot_seeds, shown
from marrakech.web.room_manager import RoomManager
from marrakech.web.store import ActionRow, GameEnd, SeatRow, StoredGame, hash_token
from marrakech.web.store.queries import AccountQueries
from marrakech.web.store.sqlite import SQLiteStore
from tests.web.conftest import Apps, Conn, create_game, seat_token
from tests.web.test_accounts import CHEAP, sign_up
from tests.web.test_rooms import in_fresh_loop

RATED_WITH_A_BOT = {
    "players": 3,
    "rated": True,
    "seats": [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "level": "easy"}],
    "name": "Host",
}


def start(apps: Apps, **options: Any) -> TestClient:
    return apps.start(passwords=CHEAP, **options)


def test_a_rated_game_seats_only_signed_in_accounts(apps: Apps) -> None:
    ana = start(apps)
    guest = TestClient(ana.app)  # the same server, without a session
    refused = guest.post("/api/games", json=RATED_WITH_A_BOT)
    assert refused.status_code == 403 and refused.json()["error"] == "sign_in_required"
    assert "signed-in accounts" in refused.json()["message"]
    two = {**RATED_WITH_A_BOT, "seats": [{"kind": "human"}] * 2 + [{"kind": "bot"}]}
    sign_up(ana, "Ana")
    assert ana.post("/api/games", json=two).status_code == 400  # one person per device
    bots = {"players": 2, "rated": True, "seats": [{"kind": "bot"}] * 2}
    assert "bots alone are not rated" in ana.post("/api/games", json=bots).text
    game = create_game(ana, **RATED_WITH_A_BOT)
    summary = ana.get(f"/api/games/{game['game_id']}").json()
    assert summary["rated"] is True
    # A guest may not take the open seat; the same account may not take a second one.
    join = f"/api/games/{game['game_id']}/join"
    refused = guest.post(join, json={"seat": 1, "name": "Guest"})
    assert refused.status_code == 403 and refused.json()["error"] == "sign_in_required"
    taken = ana.post(join, json={"seat": 1, "name": "Ana again"})
    assert taken.status_code == 409 and taken.json()["error"] == "already_seated"
    bo = TestClient(ana.app)
    sign_up(bo, "Bo")
    assert bo.post(join, json={"seat": 1, "name": "Bo"}).status_code == 200
    # An unrated game stays open to anyone.
    assert guest.post("/api/games", json={**RATED_WITH_A_BOT, "rated": False}).status_code == 201


def resign(client: TestClient, game: dict[str, Any], seat: int, token: str) -> None:
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        conn = Conn(ws, [token])
        conn.send({"type": "resign", "seat": seat})
        conn.until(
            lambda c: (
                (c.state.get("eliminated") is not None and seat in c.state["eliminated"]) or c.over
            )
        )


def test_a_rated_game_ended_by_resignations_rates_the_leavers_last(apps: Apps) -> None:
    ana = start(apps, leaderboard_min_games=1)
    sign_up(ana, "Ana")
    bo = TestClient(ana.app)
    sign_up(bo, "Bo")
    game = create_game(ana, **{**RATED_WITH_A_BOT, "first_seat": 0})
    joined = bo.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": "Bo"})
    assert joined.status_code == 200, joined.text
    resign(ana, game, 0, seat_token(game, 0))
    resign(bo, game, 1, joined.json()["token"])
    deadline = time.monotonic() + 20
    while ana.get(f"/api/games/{game['game_id']}").json()["status"] != "over":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    board = ana.get("/api/leaderboard?players=3").json()
    # Both left: they share the last place, the bot won.
    assert [leader["name"] for leader in board["leaders"]] == ["Ana", "Bo"] or [
        leader["name"] for leader in board["leaders"]
    ] == ["Bo", "Ana"]
    assert board["leaders"][0]["rating"] == board["leaders"][1]["rating"] < shown(START)
    easy = next(bot for bot in board["bots"] if bot["level"] == "easy")
    assert easy["games"] == 1 and easy["rating"] > shown(bot_seeds()["easy"])
    profile = ana.get("/api/players/ana").json()
    assert profile["history"][0]["place"] == 2 and profile["results"] == [
        {"players": 3, "played": 1, "won": 0}
    ]


@in_fresh_loop
async def test_r22_a_timed_out_player_of_a_rated_game_is_last_whatever_its_stand_in_does(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    a = AccountQueries("sqlite")
    values = {"id": "a1", "name": "Ana", "name_key": "ana", "name_skeleton": "ana", "created": 1.0}
    store.transact([(a.insert_account.sql, a.insert_account.params(values))])
    manager = RoomManager(store, bot_delay=0, seed=4, blitz_seconds=1)
    await manager.start()
    # Ana runs out of time at once: a medium bot plays her seat to the end against an
    # easy one (it wins nearly always: easy is far weaker, bot_ratings.json), and she
    # is counted last all the same.
    spec = {
        "players": 2,
        "rated": True,
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
        "clock": "blitz",
        "stand_in_level": "medium",
        "first_seat": 0,
    }
    room, tokens = await manager.create(CreateGame.model_validate(spec))
    steps = [
        (
            a.link_seat.sql,
            a.link_seat.params(
                {"game_id": room.game_id, "token_hash": hash_token(tokens[0]), "account_id": "a1"}
            ),
        )
    ]
    store.transact(steps)
    deadline = time.monotonic() + 90
    while not room.state.is_terminal:
        assert time.monotonic() < deadline, f"frozen at version {room.version}"
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.2)
    stored = await manager.store.load_game(room.game_id)
    assert stored is not None and stored.status == "over" and stored.seats[0].stand_in
    assert room.state.ranks()[0] == 1  # the stand-in won on the board

    (rows,) = store.transact([("SELECT seat, place FROM seats ORDER BY seat", {})])
    assert [row["place"] for row in rows] == [2, 1]
    (rated,) = store.transact([("SELECT player, games, mu FROM ratings ORDER BY player", {})])
    assert {row["player"]: row["games"] for row in rated} == {"a1": 1, "easy": 1}
    assert next(row["mu"] for row in rated if row["player"] == "a1") < START.mu
    await manager.stop()


def person(seat: int, game_id: str, name: str) -> SeatRow:
    return SeatRow(seat, "human", name=name, token_hash=hash_token(f"{game_id}-{seat}"))


def test_the_leaderboard_needs_its_minimum_and_a_profile_says_it_all(
    apps: Apps, db_path: Path
) -> None:
    store = SQLiteStore(db_path)
    client = start(apps, leaderboard_min_games=2)
    ana = sign_up(client, "Ana")
    other = TestClient(client.app)
    bo = sign_up(other, "Bo")
    ids = {"Ana": ana["id"], "Bo": bo["id"]}
    a = AccountQueries("sqlite")
    # Ana: three 2-player games (beat easy twice, lost to hard), one 3-player game with Bo.
    games = [
        ("g1", [person(0, "g1", "Ana"), SeatRow(1, "bot", level="easy")], (1, 2)),
        ("g2", [person(0, "g2", "Ana"), SeatRow(1, "bot", level="easy")], (1, 2)),
        ("g3", [person(0, "g3", "Ana"), SeatRow(1, "bot", level="hard")], (2, 1)),
        (
            "g4",
            [person(0, "g4", "Ana"), person(1, "g4", "Bo"), SeatRow(2, "bot", level="medium")],
            (1, 1, 3),
        ),
    ]
    for number, (game_id, seats, places) in enumerate(games):
        store.create_game(
            StoredGame(
                id=game_id,
                players=len(seats),
                rules="standard",
                first_seat=0,
                lang="en",
                seats=tuple(seats),
                status="running",
                rated=True,
                created=1000.0 + number,
            )
        )
        for row in seats:
            if row.kind == "human":
                values = {
                    "game_id": game_id,
                    "token_hash": row.token_hash,
                    "account_id": ids[row.name],
                }
                store.transact([(a.link_seat.sql, a.link_seat.params(values))])
        store.append_actions(game_id, 0, [ActionRow("L", 0)], "over", False, 1, GameEnd(places))
    two = client.get("/api/leaderboard?players=2").json()
    assert two["min_games"] == 2 and [leader["name"] for leader in two["leaders"]] == ["Ana"]
    assert two["leaders"][0]["games"] == 3 and two["leaders"][0]["wins"] == 2
    assert {bot["level"] for bot in two["bots"]} >= {"easy", "medium", "hard", "expert"}
    three = client.get("/api/leaderboard?players=3").json()
    assert three["leaders"] == []  # one 3-player game each: below the minimum
    assert client.get("/api/leaderboard?players=5").status_code == 400

    profile = client.get("/api/players/ANA").json()  # names match case-insensitively
    assert profile["name"] == "Ana" and profile["member_since"].endswith("Z")
    assert profile["results"] == [
        {"players": 2, "played": 3, "won": 2},
        {"players": 3, "played": 1, "won": 1},
    ]
    by_count = {row["players"]: row for row in profile["ratings"]}
    assert by_count[2]["games"] == 3 and by_count[3]["games"] == 1
    assert [point["game_id"] for point in profile["history"]] == ["g1", "g2", "g3", "g4"]
    assert profile["history"][-1]["rating"] == by_count[3]["rating"]
    assert [game["game_id"] for game in profile["last_games"]] == ["g4", "g3", "g2", "g1"]
    assert all(game["link"] == f"/r/{game['game_id']}" for game in profile["last_games"])
    assert profile["bots_beaten"] == [
        {"level": "easy", "times": 2},
        {"level": "medium", "times": 1},
    ]
    assert profile["plays_like"] == by_count[2]["plays_like"] and profile["plays_like"]
    assert client.get("/api/players/nobody").status_code == 404
    # A name with a slash is one name, in the API and the page's path alike.
    slash = TestClient(client.app)
    sign_up(slash, "Ana/Bo")
    assert client.get("/api/players/ana%2Fbo").json()["name"] == "Ana/Bo"
    assert client.get("/players/Ana%2FBo").status_code == 200
    # The account's data export holds its ratings and their history.
    export = client.get("/api/account/export").json()
    assert sorted(row["players"] for row in export["ratings"]) == [2, 3]
    assert [row["game_id"] for row in export["rating_history"]] == ["g1", "g2", "g3", "g4"]
    store.close()


def test_a_seat_opened_again_belongs_to_its_next_players_account(apps: Apps) -> None:
    ana = start(apps)
    sign_up(ana, "Ana")
    spec = {
        "players": 4,
        "rated": True,
        "seats": [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}, {"kind": "bot"}],
        "name": "Ana",
    }
    game = create_game(ana, **spec)
    join = f"/api/games/{game['game_id']}/join"
    bo, cy = TestClient(ana.app), TestClient(ana.app)
    sign_up(bo, "Bo")
    sign_up(cy, "Cy")
    assert bo.post(join, json={"seat": 1, "name": "Bo"}).status_code == 200
    assert [g["game_id"] for g in ana.get("/api/players/bo").json()["last_games"]] == [
        game["game_id"]
    ]
    with ana.websocket_connect(f"/ws/{game['game_id']}") as ws:
        host = Conn(ws, [seat_token(game, 0)])
        host.send({"type": "kick", "seat": 1})  # Bo is away: the seat is open again
        host.until(lambda c: c.game["seats"][1]["kind"] == "open")
    assert cy.post(join, json={"seat": 1, "name": "Cy"}).status_code == 200
    # The seat is Cy's account's now, not Bo's: Bo's profile no longer lists the game.
    assert ana.get("/api/players/bo").json()["last_games"] == []
    assert [g["game_id"] for g in ana.get("/api/players/cy").json()["last_games"]] == [
        game["game_id"]
    ]
