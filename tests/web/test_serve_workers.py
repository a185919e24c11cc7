"""``marrakech serve --workers 2``: one command, two server processes on one port.

A real supervisor and its two workers on a throwaway PostgreSQL database: the kernel
spreads the connections over the workers (``SO_REUSEPORT``), so the two players of a
game land on different workers as often as not; every game is played to its end
through them and every action a client saw accepted is stored. A worker killed with
``kill -9`` is started again, and Ctrl+C stops them all.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from marrakech.record import GameRecord
from tests.web.servers import Served, alive, run_showing_logs
from tests.web.test_cluster import Player, get_json, hello, post_json

# Minutes of real processes: in make test-slow (CI runs it), not in make test.
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

#: Games of two people: with each socket on either worker, the chance that no game has
#: its players on two workers is 2**-GAMES.
GAMES = 16


#: This test's games and sockets all come from 127.0.0.1, and its players answer within
#: 10 ms: a page's 20 messages a second would refuse them once the appends are quick.
ONE_ADDRESS = (
    *("--games-per-minute", "1000"),
    *("--max-games-per-client", "1000"),
    *("--max-sockets-per-client", "1000"),
    *("--rate", "1000"),
)


def instances(base: str, count: int) -> dict[str, int]:
    """Each worker's instance id and its rooms, asking ``/api/health`` on new
    connections until ``count`` workers answered."""
    seen: dict[str, int] = {}
    deadline = time.monotonic() + 30
    while len(seen) < count:
        assert time.monotonic() < deadline, f"only {len(seen)} workers answered: {seen}"
        health = get_json(base + "api/health")
        seen[health["instance"]] = health["rooms"]
    return seen


def test_workers_need_postgresql(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    run = subprocess.run(
        [sys.executable, "-m", "marrakech.web", "--port", "0", "--workers", "2", "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert "--workers 2: expected a postgresql:// --db" in run.stderr
    assert "ready" not in run.stdout


def test_two_workers_share_the_games_of_one_port(pg_url: str) -> None:
    server = Served(pg_url, "--workers", "2", "--bot-processes", "1", *ONE_ADDRESS)
    try:
        workers = server.children()
        assert len(workers) == 2, workers
        run_showing_logs(play_through(server.url), server=server)
        # Each worker's bot process and multiprocessing's resource tracker.
        family = workers + [pid for worker in workers for pid in children_of(worker)]
        assert len(family) == 6, family
        server.process.send_signal(signal.SIGINT)  # Ctrl+C
        assert server.process.wait(timeout=30) == 0
        deadline = time.monotonic() + 30
        while [pid for pid in family if alive(pid)]:
            assert time.monotonic() < deadline, [pid for pid in family if alive(pid)]
            time.sleep(0.05)
        log = server.log()
    finally:
        server.stop()
    # Ctrl+C (SIGINT to the supervisor) ended every worker as a lone instance ends: its
    # bot process's semaphores given back, none left for the resource tracker to find.
    assert "leaked" not in log, log


def children_of(parent: int) -> list[int]:
    """The processes whose parent is ``parent``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.append(int(entry.name))
    return found


async def play_through(base: str) -> None:
    assert len(instances(base, 2)) == 2  # both workers answer on the one port
    rng = random.Random(7)
    seats = [{"kind": "human"}, {"kind": "human"}]
    games = [post_json(base + "api/games", {"players": 2, "seats": seats}) for _ in range(GAMES)]
    # Every seat's page connected: a game whose players are on two workers has a room on
    # each (the owner's, and a follower's relaying it), so the rooms outnumber the games.
    uri = base.replace("http://", "ws://")
    sockets = [
        (await hello(f"{uri}ws/{game['game_id']}", seat["token"]))[0]
        for game in games
        for seat in game["seats"]
    ]
    rooms = instances(base, 2)
    assert sum(rooms.values()) > GAMES, rooms
    for ws in sockets:
        await ws.close()
    players = [
        Player(base, game["game_id"], seat["token"], random.Random(rng.random()))
        for game in games
        for seat in game["seats"]
    ]
    stop = asyncio.Event()
    try:
        await asyncio.wait_for(
            asyncio.gather(*(player.play(stop) for player in players)), timeout=120
        )
    finally:
        stop.set()
    for game in games:
        game_id = game["game_id"]
        with urllib.request.urlopen(base + f"api/games/{game_id}/record", timeout=10) as reply:
            record = GameRecord.from_json(reply.read())
        actions = [str(action) for action in record.actions]
        for player in (p for p in players if p.uri.endswith(game_id)):
            assert player.over
            # Every action a client saw accepted is stored, where it saw it.
            for version, token in player.seen.items():
                assert actions[version - 1] == token, (game_id, version)
            assert player.state["notation"] == record.final_state().notation()


def test_a_killed_worker_is_started_again(pg_url: str) -> None:
    server = Served(pg_url, "--workers", "2", "--bot-processes", "0")
    try:
        before = instances(server.url, 2)
        first, second = server.children()
        os.kill(first, signal.SIGKILL)
        # The supervisor starts a worker in its place: a third instance answers beside
        # the surviving one, on the same port.
        deadline = time.monotonic() + 30
        while True:
            assert time.monotonic() < deadline, server.log()
            now = {get_json(server.url + "api/health")["instance"] for _ in range(8)}
            if now - set(before):
                break
            time.sleep(0.2)
        assert alive(second)
        assert len(server.children()) == 2
        assert "worker 1" in server.log() and "starting it again" in server.log()
    finally:
        server.stop()
