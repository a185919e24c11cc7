"""Quick pairing under load: players joining and leaving pools on two instances.

Starts two server instances on one PostgreSQL database (``--db postgresql://...``; by
default a throwaway cluster of this checkout's tests, ``tests/web/postgres.py``), each
on uvicorn in a process of its own, with the pools' default waves and every limit but
the ones one test machine would hit (a single address plays every player). Then
``--players`` guests arrive over ``--seconds`` (Poisson arrivals), half on each
instance, each asking for a table of 2, 3 or 4 (or any) at the blitz or relaxed clock,
people only (no bots: the figure is the pairing's, not bots' play); ``--leave`` of them
leave the pool after a random part of their patience, and everyone still waiting after
``--patience`` seconds leaves too. It prints the time from joining to the game's start
(the ``paired`` message: the table's game is made with every seat taken), p50 and p95,
the players paired, left and refused, the tables made, and the servers' CPU seconds
(both processes, user and system, from ``/proc``) per table::

    .venv/bin/python benchmarks/pool_web.py                               # 2,000 players
    .venv/bin/python benchmarks/pool_web.py --players 40 --seconds 5      # a quick check
    .venv/bin/python benchmarks/pool_web.py --db postgresql://user@host/db

This is a benchmark, not a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The table sizes players ask for, and how often.
SIZES: list[Any] = [2, 2, 2, 3, 4, "any"]
CLOCKS = ["blitz", "relaxed"]


def serve(db: str, port: int) -> None:
    """One instance (run in its own process by :func:`main`)."""
    import uvicorn

    from marrakech.web.app import create_app
    from marrakech.web.limits import Limits
    from marrakech.web.pools import PoolSettings

    many = 10**9
    limits = Limits(
        games_per_client=many, bots_per_client=many, games=many, bots=many, sockets_per_client=many
    )
    pools = PoolSettings(joins_per_minute=1e9, join_burst=many, guests_per_address=many)
    app = create_app(db, bot_delay=0, limits=limits, pools=pools)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=1 << 16)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU seconds, from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_up(port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


async def player(
    port: int, spec: dict[str, Any], patience: float, leave_after: float | None
) -> tuple[str, float, str | None]:
    """One player's wait: ("paired", seconds, game id), ("left", seconds, None) or
    ("refused", seconds, code)."""
    import websockets.asyncio.client as websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/pool/socket", ping_interval=None) as ws:
        started = time.perf_counter()
        await ws.send(json.dumps({"type": "join", **spec}))
        deadline = started + (patience if leave_after is None else leave_after)
        while True:
            left = deadline - time.perf_counter()
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), max(0.0, left)))
            except TimeoutError:
                return "left", time.perf_counter() - started, None
            if message["type"] == "paired":
                return "paired", time.perf_counter() - started, str(message["game_id"])
            if message["type"] == "refused":
                return "refused", time.perf_counter() - started, str(message["code"])


async def crowd(ports: list[int], args: argparse.Namespace) -> list[tuple[str, float, str | None]]:
    rng = random.Random(args.seed)
    tasks = []
    rate = args.players / args.seconds
    for number in range(args.players):
        spec = {
            "players": rng.choice(SIZES),
            "clock": rng.choice(CLOCKS),
            "bots": False,
            "name": f"p{number}",
        }
        leave_after = rng.uniform(0, args.patience) if rng.random() < args.leave else None
        port = ports[number % len(ports)]
        tasks.append(asyncio.create_task(player(port, spec, args.patience, leave_after)))
        await asyncio.sleep(rng.expovariate(rate))
    return list(await asyncio.gather(*tasks))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=120.0, help="over which they arrive")
    parser.add_argument("--patience", type=float, default=30.0, help="a player's longest wait")
    parser.add_argument("--leave", type=float, default=0.1, help="the part who leave early")
    parser.add_argument("--db", help="postgresql://... (default: a throwaway cluster)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serve", nargs=2, metavar=("DB", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]))
        return
    sys.path.insert(0, str(ROOT))
    cluster = None
    folder = tempfile.TemporaryDirectory(prefix="marrakech-pool-bench-")
    db = args.db
    if db is None:
        from tests.web.postgres import ThrowawayPostgres, server_programs

        programs = server_programs()
        if programs is None:
            parser.error("no PostgreSQL server programs here: give --db postgresql://...")
        cluster = ThrowawayPostgres(Path(folder.name), programs)
        cluster.start()
        db = cluster.new_database()
    ports = [free_port(), free_port()]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    servers = [
        subprocess.Popen(
            [sys.executable, __file__, "--serve", db, str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        for port in ports:
            wait_up(port)
        before = sum(cpu_seconds(server.pid) for server in servers)
        began = time.perf_counter()
        results = asyncio.run(crowd(ports, args))
        wall = time.perf_counter() - began
        cpu = sum(cpu_seconds(server.pid) for server in servers) - before
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
        if cluster is not None:
            cluster.stop()
        folder.cleanup()
    paired = [seconds for kind, seconds, _ in results if kind == "paired"]
    tables = len({game for kind, _, game in results if kind == "paired"})
    refused = [str(code) for kind, _, code in results if kind == "refused"]
    print(f"{args.players} players over {args.seconds:.0f} s on 2 instances ({wall:.1f} s in all)")
    print(f"  paired {len(paired)}, left {sum(k == 'left' for k, _, _ in results)},", end=" ")
    print(f"refused {len(refused)} {sorted(set(refused))}")
    p50, p95 = percentile(paired, 50), percentile(paired, 95)
    print(f"  join -> game start: p50 {p50:.2f} s, p95 {p95:.2f} s")
    per_table = cpu / tables if tables else float("nan")
    print(f"  tables {tables}; server CPU {cpu:.2f} s, {per_table * 1000:.1f} ms per table")


if __name__ == "__main__":
    main()
