"""A rematch is a game creation (issue 23): the asker's creation rate and the first
game's creator's caps apply to it as to ``POST /api/games``."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from marrakech.web.limits import Limits
from tests.web.conftest import TWO_HUMANS, Apps, Conn, create_game, tokens

HUMAN_AND_BOT = {"players": 2, "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}]}


def resign_and_ask_rematch(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    """Seat 0 resigns (R22: a 2-player game ends at once), then asks for a rematch: the
    answer (``rematch`` or ``error``)."""
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        conn = Conn(ws, [token])
        if not conn.over:
            conn.send({"type": "resign", "seat": 0})
            conn.until(lambda c: c.over)
        conn.send({"type": "rematch"})
        while True:
            message = conn.receive()
            if message["type"] in ("rematch", "error"):
                return message


def test_r22_rematches_share_the_creation_rate_of_the_asker(apps: Apps) -> None:
    client = apps.start(limits=Limits(creates_per_minute=1, create_burst=2))
    game = create_game(client, **TWO_HUMANS)  # the 1st creation
    first_token = tokens(game)[0]
    assert first_token is not None
    rematch = resign_and_ask_rematch(client, game["game_id"], first_token)  # the 2nd
    assert rematch["type"] == "rematch", rematch
    new_id, new_token = rematch["game_id"], rematch["seats"][0]["token"]
    refused = resign_and_ask_rematch(client, new_id, new_token)  # a 3rd within the minute
    assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
    assert "too many new games from your address" in refused["message"]
    assert client.post("/api/games", json=TWO_HUMANS).status_code == 429  # one budget
    # Asking again for the rematch that exists costs nothing and still answers.
    assert resign_and_ask_rematch(client, game["game_id"], first_token)["game_id"] == new_id


def test_a_rematch_counts_against_the_caps_of_the_games_creator(apps: Apps) -> None:
    client = apps.start(limits=Limits(bots_per_client=1))
    finished = create_game(client, **HUMAN_AND_BOT, first_seat=0)
    token = tokens(finished)[0]
    assert token is not None
    with client.websocket_connect(f"/ws/{finished['game_id']}") as ws:
        conn = Conn(ws, [token])
        conn.send({"type": "resign", "seat": 0})
        conn.until(lambda c: c.over)
    create_game(client, **HUMAN_AND_BOT)  # under way: this client's one bot
    refused = resign_and_ask_rematch(client, finished["game_id"], token)  # a 2nd bot
    assert refused["type"] == "error" and refused["code"] == "too_many_games", refused
    assert "already seat 1 bots" in refused["message"]
    listed = client.get(f"/api/games?ids={finished['game_id']}").json()[0]
    assert listed["rematch"] is None  # refused: no game was made
