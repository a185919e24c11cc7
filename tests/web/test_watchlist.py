"""The lobby's games to watch, ``GET /api/watchlist`` (issue 37, item 5;
docs/web-protocol.md, "Games to watch"): live games only, never a private
tournament's, the rated first then the most recently moved, each with its spectator
link.

Real app, real SQLite file, real WebSockets (Starlette's TestClient).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from marrakech.web.app import create_app
from marrakech.web.routes.watchlist import WATCHLIST_SIZE
from tests.web.conftest import Apps, Conn, create_game, finished_game, newer_than, tokens
from tests.web.test_accounts import CHEAP, sign_up


def watched(client: TestClient) -> list[str]:
    reply = client.get("/api/watchlist")
    assert reply.status_code == 200, reply.text
    return [game["game_id"] for game in reply.json()]


def move_once(client: TestClient, game: dict[str, Any]) -> None:
    """The first player of a game of two people orients Assam."""
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        hotseat = Conn(ws, [token or "" for token in tokens(game)])
        version = hotseat.version
        hotseat.act(0, hotseat.legal["0"][0])
        hotseat.until(newer_than(version))


#: A private tournament and its pairing of a game (``?``: the game's id), as the
#: tournaments' service stores them (its own tests play them through).
PRIVATE_TOURNAMENT = (
    "INSERT INTO tournaments (id, name, kind, players, clock, rules, starts, private, secret,"
    " created) VALUES ('t1', 'Ours', 'arena', 2, 'blitz', 'standard', 0, true, 's', 0)",
    "INSERT INTO tournament_games (tournament_id, number, game_id, entrants, created)"
    " VALUES ('t1', 1, {game}, 'a b', 0)",
)


def test_only_live_public_games_are_listed_the_rated_first(apps: Apps, db_path: Path) -> None:
    def file_privately(game_id: str) -> None:
        with sqlite3.connect(db_path) as db:
            for sql in PRIVATE_TOURNAMENT:
                db.execute(sql.format(game="?"), (game_id,) if "{game}" in sql else ())

    listing(apps.start(passwords=CHEAP), file_privately)


def test_the_same_on_postgresql(pg_url: str) -> None:
    import psycopg

    def file_privately(game_id: str) -> None:
        with psycopg.connect(pg_url) as db:
            for sql in PRIVATE_TOURNAMENT:
                db.execute(sql.format(game="%s"), (game_id,) if "{game}" in sql else ())

    with TestClient(create_app(pg_url, bot_delay=0, passwords=CHEAP)) as client:
        listing(client, file_privately)


def listing(client: TestClient, file_privately: Callable[[str], None]) -> None:
    """A waiting game, a finished one and a private tournament's are not listed; the
    rated game comes first, then the most recently moved."""
    people = {"players": 2, "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human"}]}
    rated = {"players": 2, "rated": True, "seats": [{"kind": "human"}, {"kind": "bot"}]}
    waiting = create_game(client, seats=[{"kind": "human"}, {"kind": "open"}], name="Host")
    over = finished_game(client)
    private = create_game(client, **people)
    file_privately(private["game_id"])
    sign_up(client, "Cy")
    ranked = create_game(client, **rated)
    older = create_game(client, **people)
    newer = create_game(client, **people)
    listed = watched(client)
    assert listed == [ranked["game_id"], newer["game_id"], older["game_id"]]
    assert waiting["game_id"] not in listed and over["game_id"] not in listed
    assert private["game_id"] not in listed
    # The game that moved last comes first among the unrated.
    move_once(client, older)
    assert watched(client) == [ranked["game_id"], older["game_id"], newer["game_id"]]
    first, second = client.get("/api/watchlist").json()[:2]
    assert first["rated"] and first["status"] == "playing" and first["turn"] == 1
    assert first["watch_link"] == f"/g/{ranked['game_id']}"
    assert [(seat["kind"], seat["level"]) for seat in first["seats"]] == [
        ("human", None),
        ("bot", "medium"),
    ]
    assert first["seats"][0]["name"] == "Cy" and first["clock"]["mode"] == "none"
    assert not second["rated"] and second["seats"][0]["name"] == "Ana"


def test_a_few_games_only(client: TestClient) -> None:
    people = {"players": 2, "seats": [{"kind": "human"}] * 2}
    made = [create_game(client, **people)["game_id"] for _ in range(WATCHLIST_SIZE + 2)]
    assert watched(client) == made[::-1][:WATCHLIST_SIZE]
