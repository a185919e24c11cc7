"""Load test of the web server: N concurrent games over real WebSockets.

Starts ``python -m marrakech.web`` on 127.0.0.1 (a free port, a temporary SQLite file,
or ``--db postgresql://...``; with ``--instances 2``, two instances on that database
behind HAProxy with deploy/haproxy.cfg), or plays against a running server or load
balancer (``--url``, with ``--server-pid`` for each instance to measure). It creates N
games (humans and bots as chosen) and plays them all at once with simulated clients,
one WebSocket connection per human seat (plus an optional spectator per game). Each
client merges what changed into its view as the page does, sends a random legal token
when its seat is to move and measures the time from sending the action to receiving
the update.

It reports actions per second, the 50th/95th/99th percentile latency, the CPU time
each server instance spent per action (its bot workers included), errors, and whether
every game's stored record replays to the final state its clients saw::

    .venv/bin/python benchmarks/load_web.py --games 100
    .venv/bin/python benchmarks/load_web.py --games 1000 --think 1
    .venv/bin/python benchmarks/load_web.py --games 100 --server-src /tmp/old/src  # another version
    .venv/bin/python benchmarks/load_web.py --table --write-docs   # docs/web.md's table

This is a benchmark, not a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
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


#: Options that let one address create thousands of games (every simulated client is on
#: 127.0.0.1), if the server has them.
UNLIMITED = [
    "--games-per-minute",
    "1000000",
    "--max-games",
    "1000000",
    "--max-bots",
    "1000000",
    "--max-games-per-client",
    "1000000",
    "--max-bots-per-client",
    "1000000",
]
ROOT = Path(__file__).resolve().parents[1]


def start_server(
    db: str | Path, bot_delay: float, source: str | None = None
) -> tuple[subprocess.Popen[str], str]:
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
    if source:
        env["PYTHONPATH"] = source
    usage = subprocess.run(
        [*command[:3], "--help"], capture_output=True, text=True, env=env, check=True
    ).stdout
    if "--max-games" in usage:
        command += UNLIMITED
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


def next_state(state: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The view after a welcome or an update, as far as the simulated clients read it:
    its ``phase`` and ``notation``, plain values that ``changes`` holds whole when they
    change (the page merges the rest too: game.js, applyChanges)."""
    changes = message.get("changes")
    return message["state"] if changes is None else {**state, **changes}


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
        state: dict[str, Any] = {}
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
            state = next_state(state, message)
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
        state: dict[str, Any] = {}
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "error":
                totals.errors.append(f"{game_id} (spectator): {message['code']}")
                return
            if message["type"] in ("welcome", "update"):
                state = next_state(state, message)
                if state["phase"] == "over":
                    return


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process and its descendants (its bot workers), from
    Linux's /proc; None elsewhere."""
    fields = _stat(pid)
    if fields is None:
        return None
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (other := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = int(other[1])
    family = {pid}
    grew = True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in family and child not in family:
                family.add(child)
                grew = True
    total = 0
    for member in family:
        stat = _stat(member)
        if stat is not None:
            total += int(stat[11]) + int(stat[12])
    return total / os.sysconf("SC_CLK_TCK")


def settle(pids: list[int], limit: float = 60.0) -> None:
    """Wait until the servers are idle (their bot workers loaded), at most ``limit`` s."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = [cpu_seconds(pid) or 0.0 for pid in pids]
        time.sleep(0.5)
        after = [cpu_seconds(pid) or 0.0 for pid in pids]
        if all(b - a < 0.05 for a, b in zip(before, after, strict=True)):
            return


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace, address: str, server_pids: list[int]) -> dict[str, Any]:
    settle(server_pids)
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
    before = [cpu_seconds(pid) for pid in server_pids]
    client_cpu = time.process_time()
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=args.timeout)
    except TimeoutError:
        totals.errors.append(f"timed out after {args.timeout} s")
    elapsed = time.perf_counter() - started
    after = [cpu_seconds(pid) for pid in server_pids]
    spent = [None if a is None or b is None else a - b for a, b in zip(after, before, strict=True)]
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
        "server_cpu_ms_per_action": [
            None if cpu is None else round(1000 * cpu / max(actions, 1), 3) for cpu in spent
        ],
        "client_cpu_ms_per_action": round(1000 * client_cpu / max(actions, 1), 3),
        "load_average": round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None,
        "errors": totals.errors[:10],
        "error_count": len(totals.errors),
        "replays_matching": args.games - len(mismatched),
    }


def start_balancer(addresses: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    """HAProxy with deploy/haproxy.cfg in front of two instances."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "MARRAKECH_LB_BIND": f"127.0.0.1:{port}"}
    for name, address in zip(("MARRAKECH_ONE", "MARRAKECH_TWO"), addresses, strict=True):
        env[name] = address.removeprefix("http://").rstrip("/")
    program = shutil.which("haproxy") or "/usr/sbin/haproxy"
    config = str(ROOT / "deploy" / "haproxy.cfg")
    balancer = subprocess.Popen([program, "-db", "-f", config], env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(100):
        try:
            get(url, "api/health")
            return balancer, url
        except OSError:
            time.sleep(0.1)
    balancer.kill()
    raise SystemExit("HAProxy did not start")


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One run: start what is asked (or use --url), play, stop."""
    if args.url:
        address = args.url if args.url.endswith("/") else args.url + "/"
        return asyncio.run(run(args, address, args.server_pid))
    servers: list[subprocess.Popen[str]] = []
    balancer = None
    with tempfile.TemporaryDirectory(prefix="marrakech-load-") as folder:
        db = args.db or Path(folder) / "load.sqlite3"
        try:
            addresses = []
            for _ in range(args.instances):
                server, address = start_server(db, args.bot_delay, args.server_src)
                servers.append(server)
                addresses.append(address)
            if args.instances > 1:
                balancer, address = start_balancer(addresses)
            return asyncio.run(run(args, address, [server.pid for server in servers]))
        finally:
            if balancer is not None:
                balancer.terminate()
                balancer.wait(timeout=10)
            for server in servers:
                server.send_signal(signal.SIGINT)
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    server.kill()


def report(args: argparse.Namespace, result: dict[str, Any]) -> None:
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
    per_instance = ", ".join(f"{cpu} ms" for cpu in result["server_cpu_ms_per_action"])
    print(
        f"CPU per action: server {per_instance or 'not measured'} (per instance, bot workers "
        f"included), simulated clients {result['client_cpu_ms_per_action']} ms "
        f"(machine load average {result['load_average']})"
    )
    print(
        f"errors: {result['error_count']}",
        *result["errors"],
        sep="\n  " if result["errors"] else "",
    )
    matching = f"{result['replays_matching']}/{result['games']}"
    print(f"stored records replaying to the final state: {matching}")


#: The runs of docs/web.md's table: what is measured, and the options.
TABLE = (
    ("100 × (2 humans + 1 bot)", "none (saturated)", {"games": 100, "think": 0.0}),
    ("100 × (2 humans + 1 bot)", "0.25 s", {"games": 100, "think": 0.25}),
    (
        "100 × (2 humans + 2 bots) + spectators",
        "0.25 s",
        {"games": 100, "think": 0.25, "players": 4, "bots": 2, "spectators": True},
    ),
    ("1000 × (2 humans + 1 bot)", "1 s", {"games": 1000, "think": 1.0}),
)
MARK = "<!-- load_web.py --table -->"


def table(args: argparse.Namespace) -> str:
    """Run :data:`TABLE` and write it in Markdown."""
    lines = [
        "| games | clients think | actions/s | p50 | p95 | p99 | server CPU per action |",
        "|---|---|---|---|---|---|---|",
    ]
    for games, think, options in TABLE:
        run_args = argparse.Namespace(**{**vars(args), **options})
        result = measure(run_args)
        lat = result["latency_ms"]
        cpu = " + ".join(f"{value:.2f} ms" for value in result["server_cpu_ms_per_action"])
        ok = result["error_count"] == 0 and result["replays_matching"] == result["games"]
        lines.append(
            f"| {games} | {think} | {result['actions_per_second']:.0f} | {lat['p50']:.1f} ms "
            f"| {lat['p95']:.1f} ms | {lat['p99']:.1f} ms | {cpu} |" + ("" if ok else " (errors!)")
        )
        print(lines[-1], flush=True)
    return "\n".join(lines)


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
    parser.add_argument("--url", help="play against this running server or load balancer")
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        default=[],
        help="with --url: a server instance's process, to measure its CPU (repeatable)",
    )
    parser.add_argument("--db", help="the database of the started server(s) (a temporary file)")
    parser.add_argument(
        "--instances",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: two instances on --db postgresql://... behind HAProxy (deploy/haproxy.cfg)",
    )
    parser.add_argument("--server-src", help="run the server from this source folder")
    parser.add_argument("--table", action="store_true", help="run docs/web.md's table")
    parser.add_argument("--write-docs", action="store_true", help="with --table: write it in")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not 0 <= args.bots < args.players:
        parser.error(f"--bots: expected 0..{args.players - 1} (one human at least)")
    if not 1 <= args.games <= 2000:
        parser.error("--games: expected 1..2000")
    if args.instances > 1 and not (args.db or "").startswith("postgresql://"):
        parser.error("--instances 2 needs --db postgresql://...")

    if args.table:
        text = table(args)
        if args.write_docs:
            docs = ROOT / "docs" / "web.md"
            before, _, rest = docs.read_text(encoding="utf-8").partition(MARK + "\n")
            _, _, after = rest.partition("\n" + MARK)
            docs.write_text(f"{before}{MARK}\n{text}\n{MARK}{after}", encoding="utf-8")
        return 0
    result = measure(args)
    if args.json:
        print(json.dumps(result))
    else:
        report(args, result)
    ok = result["error_count"] == 0 and result["replays_matching"] == result["games"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
