"""Many long games, little memory (issue 25): open turn-based games that nobody watches.

Starts ``python -m marrakech.web`` on 127.0.0.1 (a temporary SQLite file, or ``--db
postgresql://...``; with ``--instances 2``, two instances on that database behind
HAProxy with deploy/haproxy.cfg, as benchmarks/load_web.py does). It then:

1. creates ``--games`` 2-player turn-based games (a day per move) through the API,
   their seats dealt to ``--players`` players (20 seats each for 10,000 games and
   1,000 players), nobody connected;
2. has every player check in, ``--concurrency`` at a time, as the page does: it asks
   "My games" (``POST /api/my-games`` with its seat tokens), opens each game where it
   is its turn over a WebSocket (the room is not in memory: it is loaded), plays one
   legal action and leaves;
3. waits until every instance has unloaded every room (``/api/health``'s ``rooms``),
   and measures each instance's resident memory.

It prints the memory per idle game (the instances' resident memory once every game is
created, checked in and idle, less what they used before the first game, divided by
the games), and the time to load a room (from a page's ``hello`` to its ``welcome``,
on a room not in memory: p50 and p95)::

    .venv/bin/python benchmarks/load_turn_based.py                    # 10,000 games, 1,000 players
    .venv/bin/python benchmarks/load_turn_based.py --db postgresql://... --instances 2
    .venv/bin/python benchmarks/load_turn_based.py --write-docs       # docs/web.md's line

Targets: under 2 KB per idle game, under 20 ms p95 to load one. This is a benchmark,
not a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import websockets.asyncio.client as ws_client
from load_web import ROOT, Instance, percentile, start_balancer
from web_clients import loopback_source, request

MARK = "<!-- load_turn_based.py --write-docs -->"


def rss_bytes(pid: int) -> int:
    """The resident memory of a process (its VmRSS), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


#: Loopback addresses the players come from behind the balancer, which allows each
#: address 120 POSTs a minute and 40 connections (deploy/haproxy.cfg).
SOURCES = 64


def create(address: str, first: int) -> dict[str, Any]:
    spec = {
        "players": 2,
        "seats": [{"kind": "human"}, {"kind": "human"}],
        "clock": "turn_1d",
        "first_seat": first,
    }
    status, answer = request(address, "POST", "api/games", spec)
    if status != 201:
        raise SystemExit(f"creating a game: {status} {answer}")
    return dict(answer)


def rooms(addresses: list[str]) -> int:
    return sum(int(request(address, "GET", "api/health")[1]["rooms"]) for address in addresses)


async def check_in(
    address: str,
    seats: list[tuple[str, str]],
    loads: list[float],
    rng: random.Random,
    source: str | None,
) -> int:
    """One player (from the address ``source``): "My games", then each game where it
    is its turn, opened, one move played, left. Returns the actions played."""
    body = {"seats": [{"game_id": game_id, "token": token} for game_id, token in seats]}
    status, answer = await asyncio.to_thread(request, address, "POST", "api/my-games", body, source)
    if status != 200:
        raise SystemExit(f"my games: {status} {answer}")
    tokens: dict[str, list[str]] = {}
    for game_id, token in seats:  # both seats of a game, now and then
        tokens.setdefault(game_id, []).append(token)
    played = 0
    base = address.replace("http://", "ws://")
    for entry in answer["games"]:
        if not entry["your_turn"]:
            break  # theirs come first
        game_id = entry["game"]["game_id"]
        extra: dict[str, Any] = {} if source is None else {"local_addr": (source, 0)}
        async with ws_client.connect(f"{base}ws/{game_id}", ping_interval=None, **extra) as ws:
            started = time.perf_counter()
            await ws.send(json.dumps({"type": "hello", "tokens": tokens[game_id]}))
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "welcome":
                    break
            loads.append(time.perf_counter() - started)
            legal = [token for tokens_ in message["legal"].values() for token in tokens_]
            if legal:
                seat = next(int(s) for s, ts in message["legal"].items() if ts)
                action = {"type": "action", "seat": seat, "version": message["version"]}
                await ws.send(json.dumps({**action, "action": rng.choice(legal)}))
                while json.loads(await ws.recv())["type"] != "update":
                    pass
                played += 1
    return played


async def check_ins(
    address: str, players: list[list[tuple[str, str]]], concurrency: int, spread: bool
) -> tuple[list[float], int]:
    """Every player checks in, ``concurrency`` at a time (each from its own loopback
    address if ``spread``: behind the balancer)."""
    loads: list[float] = []
    queue: asyncio.Queue[tuple[int, list[tuple[str, str]]]] = asyncio.Queue()
    for number, seats in enumerate(players):
        queue.put_nowait((number, seats))
    played = 0

    async def worker(number: int) -> None:
        nonlocal played
        rng = random.Random(number)
        while not queue.empty():
            player, seats = queue.get_nowait()
            source = loopback_source(1 + player % SOURCES) if spread else None
            done = await check_in(address, seats, loads, rng, source)
            played += done  # after the await: the others' counts are not lost

    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    return loads, played


def measure(args: argparse.Namespace) -> dict[str, Any]:
    fleet: list[Instance] = []
    balancer = None
    with tempfile.TemporaryDirectory(prefix="marrakech-turns-") as folder:
        db = args.db or str(Path(folder) / "turns.sqlite3")
        try:
            for _ in range(args.instances):
                fleet.append(Instance(db, 0.0, None))
                fleet[-1].start()
            addresses = [one.address for one in fleet]
            address = addresses[0]
            if args.instances > 1:
                balancer, address = start_balancer(addresses)
            result = run(args, address, addresses, [one.pid for one in fleet])
        finally:
            if balancer is not None:
                balancer.terminate()
                balancer.wait(timeout=10)
            for one in fleet:
                one.stop()
        inside = asyncio.run(loads_in_process(db, result.pop("game_ids"), args.samples))
        result["server_p50_ms"] = statistics.median(inside) * 1000
        result["server_p95_ms"] = percentile(inside, 0.95) * 1000
        return result


async def loads_in_process(db: str, game_ids: list[str], samples: int) -> list[float]:
    """The server's own time to load a room (the store's read, the log's replay, the
    room's making), without a socket: ``samples`` games loaded one by one, each
    unloaded again, in this process on the same database, the servers stopped."""
    from marrakech.web.room_manager import RoomManager

    store: Any
    if db.startswith("postgresql://"):
        from marrakech.web.store.postgres import PostgresStore

        store = await PostgresStore.open(db)
    else:
        from marrakech.web.store.sqlite import SQLiteStore

        store = SQLiteStore(db)
    manager = RoomManager(store, bot_delay=0)
    chosen = random.Random(2).sample(game_ids, min(samples, len(game_ids)))
    times = []
    try:
        for game_id in chosen:
            started = time.perf_counter()
            room = await manager.get(game_id)
            times.append(time.perf_counter() - started)
            assert room is not None
            manager.release(room)
            if game_id in manager.rooms:
                raise SystemExit(f"game {game_id} stayed loaded")
    finally:
        await manager.stop()
    return times


def run(
    args: argparse.Namespace, address: str, addresses: list[str], pids: list[int]
) -> dict[str, Any]:
    rng = random.Random(args.seed)
    # A few games first, so that what every server loads once (the rules, the page's
    # words, the connection pool) is not counted per game.
    spread = len(addresses) > 1
    warm = [create(addresses[n % len(addresses)], 0) for n in range(20)]
    warm_seats = [[(g["game_id"], g["seats"][0]["token"])] for g in warm]
    asyncio.run(check_ins(address, warm_seats, 4, spread))
    wait_unloaded(addresses)
    before = [rss_bytes(pid) for pid in pids]
    started = time.monotonic()
    # The games are created on the instances in turn (as the balancer would spread
    # them; its 120 POSTs a minute per address are for people, not for this setup).
    with ThreadPoolExecutor(8) as pool:
        firsts = [(n, rng.randrange(2)) for n in range(args.games)]
        games = list(
            pool.map(lambda job: create(addresses[job[0] % len(addresses)], job[1]), firsts)
        )
    created_s = time.monotonic() - started
    # Each player holds as many seats (two a game, dealt at random).
    seats = [(g["game_id"], seat["token"]) for g in games for seat in g["seats"]]
    rng.shuffle(seats)
    share = len(seats) // args.players
    players = [seats[n * share : (n + 1) * share] for n in range(args.players)]
    started = time.monotonic()
    loads, played = asyncio.run(check_ins(address, players, args.concurrency, spread))
    checked_s = time.monotonic() - started
    wait_unloaded(addresses)
    after = [rss_bytes(pid) for pid in pids]
    grown = sum(after) - sum(before)
    return {
        "instances": len(pids),
        "games": args.games,
        "players": args.players,
        "create_s": created_s,
        "check_in_s": checked_s,
        "loads": len(loads),
        "played": played,
        "load_p50_ms": statistics.median(loads) * 1000,
        "load_p95_ms": percentile(loads, 0.95) * 1000,
        "rss_before_mb": [b / 2**20 for b in before],
        "rss_after_mb": [a / 2**20 for a in after],
        "bytes_per_idle_game": grown / args.games,
        "load_average": os.getloadavg()[0],
        "game_ids": [game["game_id"] for game in games],
    }


def wait_unloaded(addresses: list[str], limit: float = 120.0) -> None:
    end = time.monotonic() + limit
    while rooms(addresses):
        if time.monotonic() > end:
            raise SystemExit(f"rooms still loaded after {limit} s: {rooms(addresses)}")
        time.sleep(0.2)


def line(args: argparse.Namespace, result: dict[str, Any]) -> str:
    where = "PostgreSQL" if (args.db or "").startswith("postgresql://") else "SQLite"
    setup = (
        "one instance"
        if result["instances"] == 1
        else f"{result['instances']} instances behind HAProxy"
    )
    return (
        f"| {setup}, {where} | {result['games']:,} games, {result['players']:,} players"
        f" | {result['bytes_per_idle_game'] / 1024:.2f} KB"
        f" | {result['server_p50_ms']:.1f} / {result['server_p95_ms']:.1f} ms"
        f" | {result['load_p50_ms']:.1f} / {result['load_p95_ms']:.1f} ms"
        f" | {result['load_average']:.1f} |"
    )


def report(args: argparse.Namespace, result: dict[str, Any]) -> None:
    per_game = result["bytes_per_idle_game"]
    print(
        f"{result['instances']} instance(s): {result['games']:,} turn-based games created in"
        f" {result['create_s']:.1f} s; {result['players']:,} players checked in in"
        f" {result['check_in_s']:.1f} s ({result['loads']:,} rooms loaded,"
        f" {result['played']:,} actions)"
    )
    before = ", ".join(f"{mb:.1f}" for mb in result["rss_before_mb"])
    after = ", ".join(f"{mb:.1f}" for mb in result["rss_after_mb"])
    print(f"resident memory: {before} MB before the games, {after} MB with them all idle")
    verdict = "ok" if per_game < 2048 else "OVER the 2 KB target"
    print(f"memory per idle game: {per_game:.0f} bytes ({per_game / 1024:.2f} KB): {verdict}")
    verdict = "ok" if result["server_p95_ms"] < 20 else "OVER the 20 ms target"
    print(
        f"time to load a room (the server's: store read, replay, room): p50"
        f" {result['server_p50_ms']:.1f} ms, p95 {result['server_p95_ms']:.1f} ms: {verdict}"
    )
    print(
        f"a page's wait for a room not in memory (hello to welcome, {result['loads']:,}"
        f" of them, {args.concurrency} players at once): p50 {result['load_p50_ms']:.1f} ms,"
        f" p95 {result['load_p95_ms']:.1f} ms (load average {result['load_average']:.1f})"
    )


def write_docs(text: str) -> None:
    """Add (or replace) this setup's line of docs/web.md's table between the marks."""
    docs = ROOT / "docs" / "web.md"
    before, found, rest = docs.read_text(encoding="utf-8").partition(MARK)
    table, closing, after = rest.partition(MARK)
    if not found or not closing:
        raise SystemExit(f"docs/web.md: expected two lines {MARK}")
    key = text.split("|")[1]
    lines = [row for row in table.strip().splitlines() if row.split("|")[1:2] != [key]]
    docs.write_text(
        f"{before}{MARK}\n" + "\n".join([*lines, text]) + f"\n{MARK}{after}", encoding="utf-8"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--concurrency", type=int, default=20, help="players at once (20)")
    parser.add_argument("--db", help="postgresql://... (default: a temporary SQLite file)")
    parser.add_argument("--instances", type=int, default=1, choices=(1, 2))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--samples", type=int, default=1000, help="rooms loaded in process to time (1000)"
    )
    parser.add_argument("--write-docs", action="store_true", help="put the line in docs/web.md")
    args = parser.parse_args()
    if args.instances > 1 and not (args.db or "").startswith("postgresql://"):
        parser.error("--instances 2 needs --db postgresql://...")
    if args.players <= 0 or args.games < args.players:
        parser.error("expected --games >= --players > 0")
    result = measure(args)
    report(args, result)
    if args.write_docs:
        write_docs(line(args, result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
