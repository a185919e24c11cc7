"""A database restart under load (issue 23): bot games go on by themselves once the
database is back; no game stays frozen until someone opens its page."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

from tests.web.postgres import ThrowawayPostgres
from tests.web.servers import Served

#: Enough games that some bot moves are being stored when the database goes down.
GAMES = 10
ALL_BOTS = {"players": 4, "seats": [{"kind": "bot", "level": "easy"}] * 4, "first_seat": 0}


def call(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def versions(server: Served, ids: list[str]) -> dict[str, tuple[str, int]]:
    listed = call(server.url + "api/games?ids=" + ",".join(ids))
    return {game["game_id"]: (game["status"], game["version"]) for game in listed}


def test_bot_games_go_on_after_a_database_restart(postgres: ThrowawayPostgres, pg_url: str) -> None:
    limits = ["--max-bots-per-client", "100", "--max-games-per-client", "100"]
    limits += ["--games-per-minute", "100"]
    server = Served(pg_url, "--bot-delay", "0.02", "--bot-processes", "0", *limits)
    try:
        ids = [call(server.url + "api/games", ALL_BOTS)["game_id"] for _ in range(GAMES)]
        time.sleep(1.0)  # under way: each game has moved
        before = versions(server, ids)
        assert all(status == "playing" and version > 2 for status, version in before.values())
        # pg_ctl restart -m fast: shorter than the instance's lease, so it stays the
        # owner of its games; the pool's connections break under the bot moves.
        postgres.restart(down_for=0.3)
        deadline = time.monotonic() + 90
        while True:
            try:
                now = versions(server, ids)
            except OSError:
                now = {}
            if now and all(status == "over" for status, _ in now.values()):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"frozen after the restart: {now}\n{server.log()}")
            time.sleep(0.5)
    finally:
        server.stop()
