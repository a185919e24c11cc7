"""Several instances on one PostgreSQL database, behind Debian's HAProxy (deploy/).

Real ``marrakech serve`` processes, a throwaway PostgreSQL cluster, the shipped HAProxy
configuration and WebSocket clients that behave like the page (they merge what changed,
reconnect when their socket drops). Games are played through both instances; one is
killed with ``kill -9`` mid-game; the other takes its rooms over, the clients reconnect,
every game ends, and every stored record holds every action any client saw accepted.
Also: no bot worker outlives a server killed with ``kill -9``.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from marrakech.record import GameRecord
from tests.web.conftest import apply_changes
from tests.web.servers import Balancer, Served, alive, run_showing_logs

websockets = pytest.importorskip("websockets.asyncio.client")
from websockets.exceptions import ConnectionClosed, InvalidHandshake  # noqa: E402

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e


def test_bot_workers_end_with_a_killed_server(tmp_path: Path) -> None:
    server = Served(tmp_path / "games.sqlite3", "--bot-processes", "2")
    try:
        deadline = time.monotonic() + 30
        while len(server.children()) < 3:  # two workers and the resource tracker
            assert time.monotonic() < deadline, server.children()
            time.sleep(0.05)
        children = server.children()
    finally:
        server.kill()
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in children):
        assert time.monotonic() < deadline, [pid for pid in children if alive(pid)]
        time.sleep(0.05)


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.loads(reply.read())


def post_json(url: str, body: Any) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


class Player:
    """A page's connection: hello, merge updates, play its seat, reconnect when dropped.

    ``seen`` maps each version it saw to the action token that made it."""

    def __init__(self, base: str, game_id: str, token: str, rng: random.Random) -> None:
        self.uri = base.replace("http://", "ws://") + f"ws/{game_id}"
        self.token = token
        self.rng = rng
        self.seen: dict[int, str] = {}
        self.state: dict[str, Any] = {}
        self.version = -1
        self.over = False
        #: The connections it opened after its first (a server or balancer gone).
        self.reconnects = -1

    async def play(self, stop: asyncio.Event) -> None:
        while not self.over and not stop.is_set():
            self.reconnects += 1
            try:
                async with websockets.connect(self.uri, ping_interval=None) as ws:
                    await ws.send(json.dumps({"type": "hello", "tokens": [self.token]}))
                    await self._serve(ws)
            except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake):
                await asyncio.sleep(0.2 + self.rng.random() * 0.3)

    async def _serve(self, ws: Any) -> None:
        while True:
            message = json.loads(await ws.recv())
            kind = message["type"]
            if kind == "welcome":
                self.version, self.state = message["version"], message["state"]
            elif kind == "update":
                first = message["version"] - len(message["events"])
                assert first == self.version, (first, self.version)
                for number, event in enumerate(message["events"], first + 1):
                    self.seen[number] = event["action"]
                self.version = message["version"]
                changes = message["changes"]
                self.state = (
                    message["state"] if changes is None else apply_changes(self.state, changes)
                )
            elif kind == "error":
                if message["code"] in ("stale_version", "not_your_turn"):
                    continue  # a move crossed a takeover: the next message says what is current
                raise AssertionError(message)
            else:
                continue
            if self.state["phase"] == "over":
                self.over = True
                return
            for seat, legal in message.get("legal", {}).items():
                if legal:
                    await asyncio.sleep(self.rng.random() * 0.01)
                    action = {"type": "action", "seat": int(seat), "version": self.version}
                    await ws.send(json.dumps({**action, "action": self.rng.choice(legal)}))


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
@pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs Debian's haproxy")
def test_two_instances_behind_haproxy_survive_a_kill(pg_url: str, tmp_path: Path) -> None:
    options = ("--bot-delay", "0", "--bot-processes", "0")
    started: list[Served | Balancer] = []
    try:
        one = Served(pg_url, *options)
        started.append(one)
        two = Served(pg_url, *options)
        started.append(two)
        balancer = Balancer(one, two)
        started.append(balancer)
        asyncio.run(play_through(balancer, one, two, pg_url))
    finally:
        for process in reversed(started):
            process.stop()


async def play_through(balancer: Balancer, one: Served, two: Served, database: str) -> None:
    base = balancer.url
    rng = random.Random(5)
    games = []
    # Created on each instance in turn, so owned by both (HAProxy's round robin would do
    # it too, but not if a health check under load takes an instance out for a moment).
    for number in range(6):
        seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
        origin = (one, two)[number % 2].url
        games.append(post_json(origin + "api/games", {"players": 3, "seats": seats}))
    players = [
        Player(base, game["game_id"], seat["token"], random.Random(rng.random()))
        for game in games
        for seat in game["seats"]
        if seat.get("token")
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(player.play(stop)) for player in players]
    # Mid-game: every game has moved on, none is over.
    deadline = time.monotonic() + 60
    while min(player.version for player in players) < 12:
        assert time.monotonic() < deadline, "the games did not start"
        await asyncio.sleep(0.05)
    # Rooms follow their clients (an owner with none of them hands the room on), and the
    # balancer may have sent every socket to one instance if a health check was slow under
    # load: kill whichever owns the most games, so the takeover is always exercised.
    owners = await owners_of(database, [game["game_id"] for game in games])
    served_by = {get_json(served.url + "api/health")["instance"]: served for served in (one, two)}
    counts = {instance: list(owners.values()).count(instance) for instance in served_by}
    dead = max(counts, key=counts.__getitem__)
    (living,) = set(served_by) - {dead}
    assert counts[dead] > 0, owners
    served_by[dead].kill()
    killed = time.monotonic()
    # Within 5 s every unfinished game's room is owned by the living instance.
    while True:
        owners = await owners_of(database, [game["game_id"] for game in games])
        if all(owner == living for owner in owners.values()):
            break
        assert time.monotonic() - killed < 5, owners
        await asyncio.sleep(0.1)
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)
    finally:
        stop.set()
    for game in games:
        game_id = game["game_id"]
        with urllib.request.urlopen(base + f"api/games/{game_id}/record", timeout=10) as reply:
            record = GameRecord.from_json(reply.read())
        actions = [str(action) for action in record.actions]
        mine = [player for player in players if player.uri.endswith(game_id)]
        for player in mine:
            assert player.over
            # Every action a client saw accepted is stored, where it saw it.
            for version, token in player.seen.items():
                assert actions[version - 1] == token, (game_id, version)
            assert player.state["notation"] == record.final_state().notation()


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
@pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs Debian's haproxy")
def test_games_go_on_through_a_balancer_restart(pg_url: str) -> None:
    """HAProxy restarted mid-game (issue 23): every page reconnects, every game ends,
    and every action a page saw accepted is stored."""
    options = ("--bot-delay", "0", "--bot-processes", "0")
    started: list[Served | Balancer] = []
    try:
        one = Served(pg_url, *options)
        started.append(one)
        two = Served(pg_url, *options)
        started.append(two)
        balancer = Balancer(one, two)
        started.append(balancer)
        asyncio.run(play_through_a_restart(balancer))
    finally:
        for process in reversed(started):
            process.stop()


async def play_through_a_restart(balancer: Balancer) -> None:
    rng = random.Random(8)
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
    games = [
        post_json(balancer.url + "api/games", {"players": 3, "seats": seats}) for _ in range(4)
    ]
    players = [
        Player(balancer.url, game["game_id"], seat["token"], random.Random(rng.random()))
        for game in games
        for seat in game["seats"]
        if seat.get("token")
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(player.play(stop)) for player in players]
    deadline = time.monotonic() + 60
    while min(player.version for player in players) < 12:
        assert time.monotonic() < deadline, "the games did not start"
        await asyncio.sleep(0.05)
    await asyncio.to_thread(balancer.restart)
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)
    finally:
        stop.set()
    for game in games:
        game_id = game["game_id"]
        record_url = balancer.url + f"api/games/{game_id}/record"
        with urllib.request.urlopen(record_url, timeout=10) as reply:
            record = GameRecord.from_json(reply.read())
        actions = [str(action) for action in record.actions]
        for player in (player for player in players if player.uri.endswith(game_id)):
            assert player.over and player.reconnects > 0
            for version, token in player.seen.items():
                assert actions[version - 1] == token, (game_id, version)


async def owners_of(database: str, game_ids: list[str]) -> dict[str, str | None]:
    """The owner of each unfinished game, read from the database."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(database) as conn:
        cursor = await conn.execute(
            "SELECT id, owner FROM games WHERE id = ANY(%s) AND status <> 'over'", (game_ids,)
        )
        return {game_id: owner for game_id, owner in await cursor.fetchall()}


async def hello(uri: str, token: str | None) -> Any:
    """A connection to a game, past its welcome (returned with it)."""
    ws = await websockets.connect(uri, ping_interval=None)
    await ws.send(json.dumps({"type": "hello", "tokens": [token] if token else []}))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "welcome":
            return ws, message


async def next_reason(ws: Any, reason: str, seat: int) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "game" and message["reason"] == reason and message["seat"] == seat:
            return message


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_presence_and_seat_changes_cross_instances(pg_url: str) -> None:
    """Seat 0 on one instance, seat 1 on the other: each sees the other come and go,
    the host's replace made on one reaches the other, and the pages of an instance
    killed with ``kill -9`` are away within its lease and a sweep."""
    options = ("--bot-delay", "0", "--bot-processes", "0")
    one = Served(pg_url, *options)
    two = Served(pg_url, *options)
    try:
        seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
        game = post_json(one.url + "api/games", {"players": 3, "seats": seats})
        path = f"ws/{game['game_id']}"
        red_token, blue_token = (seat.get("token") for seat in game["seats"][:2])

        async def scenario() -> None:
            red, welcome = await hello(one.url.replace("http", "ws") + path, red_token)
            assert [s["presence"] for s in welcome["game"]["seats"]][:2] == ["connected", "away"]
            blue, welcome = await hello(two.url.replace("http", "ws") + path, blue_token)
            # Seat 0's page is on the other instance: seat 1's page sees it here (in its
            # welcome, or as soon as that instance has heard).
            if welcome["game"]["seats"][0]["presence"] != "connected":
                await next_reason(blue, "connected", 0)
            came = await next_reason(red, "connected", 1)
            assert came["game"]["seats"][1]["presence"] == "connected"
            await blue.close()
            left = await next_reason(red, "away", 1)
            assert left["game"]["seats"][1]["presence"] == "away"
            await red.send(json.dumps({"type": "replace", "seat": 1, "level": "easy"}))
            await next_reason(red, "replaced", 1)
            blue, welcome = await hello(two.url.replace("http", "ws") + path, blue_token)
            assert welcome["game"]["seats"][1]["stand_in"] == "easy"
            await blue.send(json.dumps({"type": "take_back", "seat": 1}))
            back = await next_reason(red, "took_back", 1)
            assert back["game"]["seats"][1]["stand_in"] is None
            # Killed, the other instance cannot say its page closed: its lease runs out.
            # (Lease 3 s and a sweep a second: about 4 s; 30 s is only a liveness bound.)
            two.kill()
            await asyncio.wait_for(next_reason(red, "away", 1), 30)
            await red.close()

        run_showing_logs(scenario(), one=one, two=two)
    finally:
        one.stop()
        two.stop()


def test_a_hint_asked_on_a_follower_is_counted_everywhere(pg_url: str) -> None:
    """Seat 0's page on the instance that does not own the game asks for a hint: it gets
    the advice (searched there), and seat 1's page on the owner sees the hint counted."""
    options = ("--bot-delay", "0", "--bot-processes", "0")
    one = Served(pg_url, *options)
    two = Served(pg_url, *options)
    try:
        seats = [{"kind": "human"}, {"kind": "human"}]
        game = post_json(one.url + "api/games", {"players": 2, "seats": seats, "first_seat": 0})
        path = f"ws/{game['game_id']}"
        red_token, blue_token = (seat.get("token") for seat in game["seats"])

        async def scenario() -> None:
            blue, _ = await hello(one.url.replace("http", "ws") + path, blue_token)
            red, welcome = await hello(two.url.replace("http", "ws") + path, red_token)
            await red.send(json.dumps({"type": "hint"}))
            while True:
                message = json.loads(await asyncio.wait_for(red.recv(), 30))
                if message["type"] == "hint":
                    break
                assert message["type"] == "game", message
            assert message["version"] == welcome["version"] and message["seat"] == 0
            assert {option["action"] for option in message["options"]} == {"L", "S", "R"}
            counted = await next_reason(blue, "hint", 0)
            assert [seat["hints"] for seat in counted["game"]["seats"]] == [1, 0]
            await red.close()
            await blue.close()

        run_showing_logs(scenario(), one=one, two=two)
        summary = get_json(one.url + f"api/games/{game['game_id']}")
        assert [seat["hints"] for seat in summary["seats"]] == [1, 0]  # stored
    finally:
        one.stop()
        two.stop()
