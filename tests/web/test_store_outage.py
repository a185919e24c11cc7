"""A database restart under load (issues 23 and 36): bot games go on by themselves once
the database is back, no game stays frozen until someone opens its page, and the
players' actions in flight are stored once each, with no refusal."""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.request
from typing import Any

import pytest

from marrakech.record import GameRecord
from tests.web.conftest import apply_changes
from tests.web.postgres import ThrowawayPostgres
from tests.web.servers import Served, run_showing_logs

websockets = pytest.importorskip("websockets.asyncio.client")
from websockets.exceptions import ConnectionClosed, InvalidHandshake  # noqa: E402

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e

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


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
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


class PagePlayer:
    """A page holding every seat of a game: it plays whatever is legal as soon as it
    may, and as the page does (static/js/game/state.js) keeps its last action until an
    update answers it, sending it again after a ``server_error`` or a reconnection if
    the game is still at its version.

    ``seen`` maps each version to the action that made it; ``refused`` lists the
    refusals it was sent."""

    def __init__(self, base: str, game: dict[str, Any], rng: random.Random) -> None:
        self.uri = base.replace("http://", "ws://") + f"ws/{game['game_id']}"
        self.tokens = [seat["token"] for seat in game["seats"]]
        self.rng = rng
        self.seen: dict[int, str] = {}
        self.state: dict[str, Any] = {}
        self.version = -1
        #: The version of the first welcome (the server may have revealed a carpet).
        self.first: int | None = None
        self.over = False
        self.refused: list[dict[str, Any]] = []
        self.unanswered: dict[str, Any] | None = None

    async def play(self) -> None:
        while not self.over:
            try:
                async with websockets.connect(self.uri, ping_interval=None) as ws:
                    await ws.send(json.dumps({"type": "hello", "tokens": self.tokens}))
                    await self._serve(ws)
            except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake):
                await asyncio.sleep(0.2)

    async def _serve(self, ws: Any) -> None:
        while True:
            message = json.loads(await ws.recv())
            kind = message["type"]
            if kind == "welcome":
                self.version, self.state = message["version"], message["state"]
                if self.first is None:
                    self.first = self.version
            elif kind == "update":
                first = message["version"] - len(message["events"])
                assert first == self.version, (first, self.version)
                for number, event in enumerate(message["events"], first + 1):
                    assert number not in self.seen, ("applied twice", number, event)
                    self.seen[number] = event["action"]
                self.version = message["version"]
                changes = message["changes"]
                self.state = (
                    message["state"] if changes is None else apply_changes(self.state, changes)
                )
            elif kind == "error":
                self.refused.append(message)
                if message["code"] == "server_error" and self._pending():
                    await asyncio.sleep(0.2)
                    await ws.send(json.dumps(self.unanswered))
                continue
            else:
                continue
            if self.state["phase"] == "over":
                self.over = True
                return
            if kind == "welcome" and self._pending():
                await ws.send(json.dumps(self.unanswered))  # not answered before the drop
                continue
            for seat, legal in message.get("legal", {}).items():
                if legal:
                    await asyncio.sleep(self.rng.random() * 0.03)  # never idle for long
                    token = self.rng.choice(legal)
                    action = {"type": "action", "seat": int(seat), "version": self.version}
                    self.unanswered = {**action, "action": token}
                    await ws.send(json.dumps(self.unanswered))

    def _pending(self) -> bool:
        """Whether the last action is unanswered and still for the position shown."""
        return self.unanswered is not None and self.unanswered["version"] == self.version


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_players_actions_survive_a_database_restart(
    postgres: ThrowawayPostgres, pg_url: str
) -> None:
    """PostgreSQL restarted (every connection dropped, the database away for a second)
    while several games are played as fast as their players can: every action is
    stored once, where the players saw it accepted, no player is refused, and every game
    goes on to its end (issue 36: two actions used to get "server_error ... nothing
    changed" and their games sat idle)."""
    # Its players act faster than people: no message of theirs may be dropped as too fast.
    limits = ["--games-per-minute", "100", "--max-games-per-client", "100", "--rate", "1000"]
    # A bound well over the restart's length: the test runs on a loaded machine.
    server = Served(
        pg_url, "--bot-delay", "0", "--bot-processes", "0", "--store-retry", "30", *limits
    )
    try:
        run_showing_logs(play_through_a_database_restart(server, postgres), server=server)
    finally:
        server.stop()


async def play_through_a_database_restart(server: Served, postgres: ThrowawayPostgres) -> None:
    rng = random.Random(36)
    spec = {"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}], "first_seat": 0}
    games = [call(server.url + "api/games", spec) for _ in range(GAMES)]
    players = [PagePlayer(server.url, game, random.Random(rng.random())) for game in games]
    tasks = [asyncio.create_task(player.play()) for player in players]
    deadline = time.monotonic() + 60
    while min(player.version for player in players) < 12:
        assert time.monotonic() < deadline, "the games did not start"
        await asyncio.sleep(0.05)
    before = [player.version for player in players]
    assert not any(player.over for player in players), "over before the restart"
    await asyncio.to_thread(postgres.restart, 1.0)
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=120)
    except TimeoutError:
        idle = {p.uri.rsplit("/", 1)[1]: (p.version, p.refused) for p in players if not p.over}
        raise AssertionError(f"games left idle after the restart: {idle}") from None
    assert [player.version for player in players] > before
    for game, player in zip(games, players, strict=True):
        record_url = server.url + f"api/games/{game['game_id']}/record"
        with urllib.request.urlopen(record_url, timeout=10) as reply:
            record = GameRecord.from_json(reply.read())
        actions = [str(action) for action in record.actions]
        # Every action stored once: the page saw each version once, and the record is
        # exactly what it saw accepted.
        assert len(actions) == player.version
        assert player.first is not None
        played = range(player.first + 1, player.version + 1)
        assert [player.seen[version] for version in played] == actions[player.first :]
        assert player.refused == [], player.refused
