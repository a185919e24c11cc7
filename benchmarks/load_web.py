"""Load test of the web server: N concurrent games over real WebSockets.

Starts ``python -m marrakech.web`` on 127.0.0.1 (a free port, a temporary SQLite file),
creates N games (humans and bots as chosen), and plays them all at once with simulated
clients, one WebSocket connection per human seat (plus an optional spectator per game).
Each client sends a random legal token when its seat is to move and measures the time
from sending the action to receiving the update with the new state.

It reports actions per second and the 50th/95th/99th percentile latency, counts errors,
and checks that every game's stored record replays to the final state its clients saw::

    .venv/bin/python benchmarks/load_web.py --games 100
    .venv/bin/python benchmarks/load_web.py --games 20 --players 4 --bots 2 --json

This is a benchmark, not a test: it prints numbers. Target on a 2-core machine: 100
games, p95 under 50 ms, no errors, every record replaying to the same final state.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from marrakech.bots import LEVELS
from marrakech.record import GameRecord


@dataclass
class Totals:
    latencies: list[float] = field(default_factory=list)
    sent: int = 0
    errors: list[str] = field(default_factory=list)
    finals: dict[str, str] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)


def start_server(db: Path, bot_delay: float) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable,
        "-m",
        "marrakech.web",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--db",
        str(db),
        "--bot-delay",
        str(bot_delay),
        "--rate",
        "10000",  # simulated clients answer in microseconds, people do not
        "--log-level",
        "warning",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.startswith("Marrakech is ready at "):
        server.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return server, line.split()[4]


def post(address: str, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        address + path.lstrip("/"),
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def get(address: str, path: str) -> bytes:
    with urllib.request.urlopen(address + path.lstrip("/"), timeout=30) as reply:
        data: bytes = reply.read()
        return data


async def play_seat(
    address: str,
    game_id: str,
    tokens: list[str],
    totals: Totals,
    rng: random.Random,
    think: float,
) -> None:
    """One connection: play its seats' turns with random legal tokens until the end."""
    uri = address.replace("http://", "ws://") + f"ws/{game_id}"
    async with connect(uri, max_size=2**22, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "tokens": tokens, "lang": "en"}))
        waiting_since: float | None = None
        waiting_for = -1
        while True:
            message = json.loads(await ws.recv())
            kind = message["type"]
            if kind == "error":
                totals.errors.append(f"{game_id}: {message['code']}: {message['message']}")
                return
            if kind not in ("welcome", "update"):
                continue
            version = message["version"]
            if waiting_since is not None and version > waiting_for:
                totals.latencies.append(time.perf_counter() - waiting_since)
                waiting_since = None
            state = message["state"]
            if state["phase"] == "over":
                totals.finals[game_id] = state["notation"]
                totals.versions[game_id] = version
                return
            for seat, legal in message["legal"].items():
                if legal:
                    if think:
                        await asyncio.sleep(rng.uniform(0, 2 * think))
                    action = rng.choice(legal)
                    waiting_since, waiting_for = time.perf_counter(), version
                    totals.sent += 1
                    await ws.send(
                        json.dumps(
                            {
                                "type": "action",
                                "seat": int(seat),
                                "version": version,
                                "action": action,
                            }
                        )
                    )
                    break


async def watch(address: str, game_id: str, totals: Totals) -> None:
    """A spectator: receives every update of the game."""
    uri = address.replace("http://", "ws://") + f"ws/{game_id}"
    async with connect(uri, max_size=2**22, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "tokens": []}))
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "error":
                totals.errors.append(f"{game_id} (spectator): {message['code']}")
                return
            if message["type"] in ("welcome", "update") and message["state"]["phase"] == "over":
                return


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace, address: str, server_pid: int) -> dict[str, Any]:
    rng = random.Random(args.seed)
    humans = args.players - args.bots
    games = []
    for _ in range(args.games):
        seats = [{"kind": "human"}] * humans + [{"kind": "bot", "level": args.level}] * args.bots
        games.append(
            post(
                address,
                "/api/games",
                {
                    "players": args.players,
                    "seats": seats,
                    "first_seat": "random",
                    "rules": "standard",
                },
            )
        )
    totals = Totals()
    tasks = []
    for game in games:
        held = [s["token"] for s in game["seats"] if s.get("token")]
        groups = [held] if args.hotseat else [[token] for token in held]
        for group in groups:
            client_rng = random.Random(rng.random())
            tasks.append(play_seat(address, game["game_id"], group, totals, client_rng, args.think))
        if args.spectators:
            tasks.append(watch(address, game["game_id"], totals))
    started = time.perf_counter()
    server_cpu = cpu_seconds(server_pid)
    client_cpu = time.process_time()
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=args.timeout)
    except TimeoutError:
        totals.errors.append(f"timed out after {args.timeout} s")
    elapsed = time.perf_counter() - started
    after = cpu_seconds(server_pid)
    server_cpu = None if server_cpu is None or after is None else after - server_cpu
    client_cpu = time.process_time() - client_cpu

    mismatched = []
    for game in games:
        record = GameRecord.from_json(get(address, f"/api/games/{game['game_id']}/record"))
        if record.final_state().notation() != totals.finals.get(game["game_id"]):
            mismatched.append(game["game_id"])
    actions = sum(totals.versions.values())
    lat = [x * 1000 for x in totals.latencies]
    return {
        "games": args.games,
        "players": args.players,
        "bots_per_game": args.bots,
        "connections": len(tasks),
        "finished": len(totals.finals),
        "actions": actions,
        "client_actions": totals.sent,
        "seconds": round(elapsed, 2),
        "actions_per_second": round(actions / elapsed, 1),
        "client_actions_per_second": round(totals.sent / elapsed, 1),
        "latency_ms": {
            "p50": round(percentile(lat, 0.50), 2),
            "p95": round(percentile(lat, 0.95), 2),
            "p99": round(percentile(lat, 0.99), 2),
            "max": round(max(lat, default=float("nan")), 2),
            "mean": round(statistics.fmean(lat), 2) if lat else None,
        },
        "server_cpu_ms_per_action": None
        if server_cpu is None
        else round(1000 * server_cpu / max(actions, 1), 3),
        "client_cpu_ms_per_action": round(1000 * client_cpu / max(actions, 1), 3),
        "load_average": round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None,
        "errors": totals.errors[:10],
        "error_count": len(totals.errors),
        "replays_matching": args.games - len(mismatched),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="concurrent games (100)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    parser.add_argument("--bots", type=int, default=1, help="bot seats per game (1)")
    parser.add_argument("--level", default="easy", choices=list(LEVELS), help="bot level (easy)")
    parser.add_argument("--bot-delay", type=float, default=0.0, help="server's bot pause (0)")
    parser.add_argument("--think", type=float, default=0.0, help="mean client think time, s")
    parser.add_argument("--hotseat", action="store_true", help="one connection per game")
    parser.add_argument("--spectators", action="store_true", help="one spectator per game")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up after (s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not 0 <= args.bots < args.players:
        parser.error(f"--bots: expected 0..{args.players - 1} (one human at least)")
    if not 1 <= args.games <= 2000:
        parser.error("--games: expected 1..2000")

    with tempfile.TemporaryDirectory(prefix="marrakech-load-") as folder:
        server, address = start_server(Path(folder) / "load.sqlite3", args.bot_delay)
        try:
            result = asyncio.run(run(args, address, server.pid))
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    if args.json:
        print(json.dumps(result))
    else:
        lat = result["latency_ms"]
        print(
            f"{result['games']} concurrent games of {result['players']} players "
            f"({result['bots_per_game']} bot seat(s), level {args.level}), "
            f"{result['connections']} WebSocket connections"
        )
        print(
            f"finished {result['finished']}/{result['games']} games, {result['actions']} actions "
            f"({result['client_actions']} sent by clients) in {result['seconds']} s"
        )
        print(
            f"throughput: {result['actions_per_second']} actions/s "
            f"({result['client_actions_per_second']} client actions/s)"
        )
        print(
            f"action -> new state: p50 {lat['p50']} ms, p95 {lat['p95']} ms, "
            f"p99 {lat['p99']} ms, max {lat['max']} ms"
        )
        print(
            f"CPU per action: server {result['server_cpu_ms_per_action']} ms, "
            f"simulated clients {result['client_cpu_ms_per_action']} ms "
            f"(machine load average {result['load_average']})"
        )
        print(
            f"errors: {result['error_count']}",
            *result["errors"],
            sep="\n  " if result["errors"] else "",
        )
        matching = f"{result['replays_matching']}/{result['games']}"
        print(f"stored records replaying to the final state: {matching}")
    ok = result["error_count"] == 0 and result["replays_matching"] == result["games"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
