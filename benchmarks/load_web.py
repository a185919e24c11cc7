"""Load test of the web server: N concurrent games over real WebSockets.

Starts ``python -m marrakech.web`` on 127.0.0.1 (a free port, a temporary SQLite file,
or ``--db postgresql://...``; with ``--instances 2``, two instances on that database
behind HAProxy with deploy/haproxy.cfg), or plays against a running server or load
balancer (``--url``, with ``--server-pid`` for each instance to measure). It creates N
games (humans and bots as chosen) and plays them all at once with simulated clients
(benchmarks/web_clients.py), one WebSocket connection per human seat (plus an optional
spectator per game). Each client merges what changed into its view as the page does,
sends a random legal token when its seat is to move, measures the time from sending
the action to receiving the update, and reconnects as the page does when its
connection drops.

It reports actions per second, the 50th/95th/99th percentile latency, the CPU time
each server instance spent per action (its bot workers included) and its event loop's
own (the main thread's: what bounds one instance), errors, and the actions the clients
saw acknowledged against those the database stored::

    .venv/bin/python benchmarks/load_web.py --games 100
    .venv/bin/python benchmarks/load_web.py --games 1000 --think 1
    .venv/bin/python benchmarks/load_web.py --games 100 --server-src /tmp/old/src  # another version
    .venv/bin/python benchmarks/load_web.py --table --write-docs   # docs/web.md's table
    .venv/bin/python benchmarks/load_web.py --capacity --db postgresql://... --write-docs

**A real deployment** (``--url``, a server or a balancer on this machine): its limits
stay on. The tool reads the per-address limits from ``/api/config`` and spreads its
games over as many loopback addresses (127.0.0.2, 127.0.0.3...) as keep each within
them and within the shipped proxies' 40 connections per address; a server elsewhere is
measured by running the tool on its machine against the local balancer::

    .venv/bin/python benchmarks/load_web.py --url http://127.0.0.1:8080/ --games 200 --think 0.5

**Kills**: with ``--instances 2 --kills N``, one instance is killed with ``kill -9``
every so often (and started again after its games went on elsewhere), alternately; the
report gives how long each killed instance's games took to move again (median and worst)
and whether every acknowledged action is stored::

    .venv/bin/python benchmarks/load_web.py --db postgresql://... --instances 2 \\
        --games 60 --think 0.25 --kills 8

This is a benchmark, not a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
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
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from web_clients import (
    Pacer,
    Seat,
    Totals,
    acknowledged_vs_stored,
    addresses_needed,
    loopback_source,
    request,
)

from marrakech.bots import LEVELS

#: Options that let one address create thousands of games (every simulated client is on
#: 127.0.0.1), if the server has them: for the servers this tool starts.
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


@dataclass
class Instance:
    """A server this tool started (and may kill and start again on the same port)."""

    db: str
    bot_delay: float
    source: str | None
    #: ``serve --workers``: server processes on the port under one supervisor.
    workers: int = 1
    port: int = 0
    process: subprocess.Popen[str] | None = None
    address: str = ""

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "marrakech.web",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db,
            "--bot-delay",
            str(self.bot_delay),
            "--rate",
            "10000",  # simulated clients answer in microseconds, people do not
            "--log-level",
            "warning",
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.source:
            env["PYTHONPATH"] = self.source
        usage = subprocess.run(
            [*command[:3], "--help"], capture_output=True, text=True, env=env, check=True
        ).stdout
        if "--max-games" in usage:
            command += UNLIMITED
        if "--max-sockets-per-client" in usage:
            command += ["--max-sockets-per-client", "1000000"]
        if self.workers > 1:
            if "--workers" not in usage:
                raise SystemExit("--workers: this server has no --workers option")
            command += ["--workers", str(self.workers)]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("Marrakech is ready at "):
            server.kill()
            raise SystemExit(f"the server did not start: {line!r}")
        self.process, self.address = server, line.split()[4]
        self.port = int(self.address.rstrip("/").rsplit(":", 1)[1])

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


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


def loop_cpu_seconds(pid: int, workers: int = 1) -> float | None:
    """User + system CPU time of a process's main thread alone: the event loop, which
    bounds one instance's capacity (the store's thread and the bot workers are others).
    With ``serve --workers``, ``pid`` is the supervisor: the sum of its workers' loops
    (its children's main threads)."""
    if workers > 1:
        children = [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit() and (stat := _stat(int(entry.name))) and int(stat[1]) == pid
        ]
        loops = [loop_cpu_seconds(child) for child in children]
        return sum(loop for loop in loops if loop is not None) if children else None
    try:
        text = Path(f"/proc/{pid}/task/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


def plan_sources(
    args: argparse.Namespace, address: str, behind_proxy: bool
) -> tuple[list[str | None], Pacer | None]:
    """The address each game's clients speak from, and their pace: enough loopback
    addresses to keep each within the server's published limits (``/api/config``; the
    servers this tool starts have theirs lifted) and the proxy's connections per address,
    at the server's message rate. A server too old to publish its limits is taken as
    having none (one address)."""
    status, config = request(address, "GET", "api/config")
    limits = config.get("limits") if status == 200 and isinstance(config, dict) else None
    if limits is None:
        return [None] * args.games, None
    if args.games > limits["games"] or args.games * args.bots > limits["bots"]:
        raise SystemExit(
            f"the server allows {limits['games']:.0f} unfinished games and"
            f" {limits['bots']:.0f} bot seats in all; this run needs {args.games} and"
            f" {args.games * args.bots}: lower --games or --bots, or raise --max-games/--max-bots"
        )
    connections = (1 if args.hotseat else args.players - args.bots) + args.spectators
    proxy = args.proxy_connections if behind_proxy else 10**9
    per_address, needed = addresses_needed(limits, args.games, connections, args.bots, proxy)
    count = args.addresses or needed
    host = address.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
    if count > 1 and host not in ("127.0.0.1", "localhost"):
        raise SystemExit(
            f"{args.games} games need {count} client addresses ({per_address} per address"
            f" within the server's limits), which only a loopback URL offers: run this on"
            f" the server's machine against its local balancer (http://127.0.0.1:PORT/)"
        )
    if count > 1:
        print(
            f"spreading {args.games} games over {count} loopback addresses"
            f" ({per_address} per address within the limits)",
            flush=True,
        )
    sources: list[str | None] = [
        loopback_source(i * count // args.games) for i in range(args.games)
    ]
    return sources, Pacer(limits["messages_per_second"], limits["message_burst"])


def create_games(
    args: argparse.Namespace, address: str, sources: list[str | None]
) -> list[dict[str, Any]]:
    humans = args.players - args.bots
    seats = [{"kind": "human"}] * humans + [{"kind": "bot", "level": args.level}] * args.bots
    body = {"players": args.players, "seats": seats, "first_seat": "random", "rules": "standard"}
    games = []
    for number, source in enumerate(sources, 1):
        status, game = request(address, "POST", "api/games", body, source=source)
        if status != 201:
            raise SystemExit(f"game {number}: the server refused it ({status}): {game}")
        games.append(game)
    return games


async def kill_now_and_then(
    args: argparse.Namespace, fleet: list[Instance], totals: Totals
) -> None:
    """``kill -9`` the instances in turn, each started again once its games went on."""
    await asyncio.sleep(args.kill_every)
    for number in range(args.kills):
        if totals.games and all(track.over for track in totals.games.values()):
            return
        victim = fleet[number % len(fleet)]
        kill = totals.kill()
        victim.kill()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(
            game not in kill.resumed and not totals.games[game].over for game in kill.versions
        ):
            await asyncio.sleep(0.05)
        await asyncio.to_thread(victim.start)
        await asyncio.sleep(args.kill_every)


async def run(
    args: argparse.Namespace, address: str, server_pids: list[int], fleet: list[Instance]
) -> dict[str, Any]:
    settle(server_pids)
    rng = random.Random(args.seed)
    sources, pacer = plan_sources(args, address, bool(args.url) or args.instances > 1)
    games = create_games(args, address, sources)
    totals = Totals()
    tasks = []
    for game, source in zip(games, sources, strict=True):
        held = [s["token"] for s in game["seats"] if s.get("token")]
        groups = [held] if args.hotseat else [[token] for token in held]
        if args.spectators:
            groups.append([])
        totals.track(game["game_id"])
        for group in groups:
            seat = Seat(
                address,
                game["game_id"],
                group,
                totals,
                random.Random(rng.random()),
                think=args.think,
                source=source,
                pacer=pacer,
            )
            tasks.append(seat.play())
    started = time.perf_counter()
    before = [cpu_seconds(pid) for pid in server_pids]
    loop_before = [loop_cpu_seconds(pid, args.workers) for pid in server_pids]
    client_cpu = time.process_time()
    killer = asyncio.create_task(kill_now_and_then(args, fleet, totals)) if args.kills else None
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=args.timeout)
    except TimeoutError:
        totals.errors.append(f"timed out after {args.timeout} s")
    if killer is not None:
        killer.cancel()
    elapsed = time.perf_counter() - started
    after = [cpu_seconds(pid) for pid in server_pids]
    loop_after = [loop_cpu_seconds(pid, args.workers) for pid in server_pids]
    spent = [None if a is None or b is None else a - b for a, b in zip(after, before, strict=True)]
    loop_spent = [
        None if a is None or b is None else a - b
        for a, b in zip(loop_after, loop_before, strict=True)
    ]
    if args.kills:  # the killed processes' time is gone with them
        spent = loop_spent = [None for _ in spent]
    client_cpu = time.process_time() - client_cpu

    records = {}
    for game, source in zip(games, sources, strict=True):
        status, record = request(
            address, "GET", f"api/games/{game['game_id']}/record", source=source
        )
        if status == 200:
            records[game["game_id"]] = record
    stored = acknowledged_vs_stored(totals.games, records)
    actions = sum(max(track.version, 0) for track in totals.games.values())
    lat = [x * 1000 for x in totals.latencies]
    takeovers = [max(kill.resumed.values(), default=float("nan")) for kill in totals.kills]
    per_game = sorted(t for kill in totals.kills for t in kill.resumed.values())
    never = sum(len(kill.versions) - len(kill.resumed) for kill in totals.kills)
    return {
        "games": args.games,
        "players": args.players,
        "bots_per_game": args.bots,
        "connections": len(tasks),
        "addresses": len(set(sources)),
        "finished": sum(track.over for track in totals.games.values()),
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
        "server_loop_cpu_ms_per_action": [
            None if cpu is None else round(1000 * cpu / max(actions, 1), 3) for cpu in loop_spent
        ],
        "client_cpu_ms_per_action": round(1000 * client_cpu / max(actions, 1), 3),
        "load_average": round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None,
        "errors": totals.errors[:10],
        "error_count": len(totals.errors),
        "refusals": totals.refusals,
        "reconnections": totals.reconnections,
        "acknowledged": stored.acknowledged,
        "stored": stored.stored,
        "lost": stored.lost,
        "replays_matching": stored.matching,
        "kills": len(totals.kills),
        "takeover_s": {
            "median": round(statistics.median(takeovers), 2) if takeovers else None,
            "worst": round(max(takeovers), 2) if takeovers else None,
            "each": [round(t, 2) for t in takeovers],
        },
        "game_resumed_s": {
            "p50": round(percentile(per_game, 0.5), 2) if per_game else None,
            "p95": round(percentile(per_game, 0.95), 2) if per_game else None,
            "never": never,
        },
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
            if request(url, "GET", "api/health")[0] == 200:
                return balancer, url
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.1)
    balancer.kill()
    raise SystemExit("HAProxy did not start")


def play_all(main: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """Run the simulated clients on uvloop if it is installed (as uvicorn runs the
    server): Python's own event loop costs the clients twice the CPU per action, and at
    a thousand games one process of clients would be the bottleneck it measures."""
    # The clients' own full garbage collections would stop their loop as they stop the
    # server's, and count as the server's latency: the clients' process collects as
    # the server's does (marrakech.web.process_tuning).
    from marrakech.web.process_tuning import tune_for_serving

    tune_for_serving()
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One run: start what is asked (or use --url), play, stop."""
    if args.url:
        address = args.url if args.url.endswith("/") else args.url + "/"
        return play_all(run(args, address, args.server_pid, []))
    fleet: list[Instance] = []
    balancer = None
    with tempfile.TemporaryDirectory(prefix="marrakech-load-") as folder:
        db = args.db or str(Path(folder) / "load.sqlite3")
        try:
            for _ in range(args.instances):
                fleet.append(Instance(db, args.bot_delay, args.server_src, args.workers))
                fleet[-1].start()
            address = fleet[0].address
            if args.instances > 1:
                balancer, address = start_balancer([one.address for one in fleet])
            pids = [one.pid for one in fleet]
            return play_all(run(args, address, pids, fleet))
        finally:
            if balancer is not None:
                balancer.terminate()
                balancer.wait(timeout=10)
            for one in fleet:
                one.stop()


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
    per_instance = ", ".join(
        f"{cpu} ms (event loop {loop} ms)"
        for cpu, loop in zip(
            result["server_cpu_ms_per_action"], result["server_loop_cpu_ms_per_action"], strict=True
        )
        if cpu is not None
    )
    print(
        f"CPU per action: server {per_instance or 'not measured'} (per instance, its store"
        f" thread and bot workers included), simulated clients"
        f" {result['client_cpu_ms_per_action']} ms "
        f"(machine load average {result['load_average']})"
    )
    print(
        f"errors: {result['error_count']}",
        *result["errors"],
        sep="\n  " if result["errors"] else "",
    )
    if result["refusals"] or result["reconnections"]:
        print(
            f"reconnections: {result['reconnections']}, refusals carried on from: "
            f"{result['refusals'] or 'none'}"
        )
    print(
        f"acknowledged actions (the versions clients saw): {result['acknowledged']}, stored:"
        f" {result['stored']}, acknowledged but lost or different: {result['lost']}"
    )
    matching = f"{result['replays_matching']}/{result['games']}"
    print(f"stored records replaying to the final state: {matching}")
    if result["kills"]:
        takeover, resumed = result["takeover_s"], result["game_resumed_s"]
        print(
            f"kill -9: {result['kills']}; every game of the killed instance moving again"
            f" within median {takeover['median']} s, worst {takeover['worst']} s"
            f" (each: {takeover['each']}); per game p50 {resumed['p50']} s,"
            f" p95 {resumed['p95']} s, never: {resumed['never']}"
        )


def succeeded(result: dict[str, Any]) -> bool:
    return bool(
        result["error_count"] == 0
        and result["lost"] == 0
        and result["replays_matching"] == result["games"]
    )


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
#: docs/web.md's capacity table (issue 36): games at a person's pace (0.5 s to think,
#: two people and a bot each), on one instance and on two.
CAPACITY_GAMES = (400, 600, 800, 1000)
CAPACITY_THINK = 0.5
#: The latency a player should not notice: the capacity is the most games whose 95th
#: percentile stays under it.
CAPACITY_P95_MS = 100.0
CAPACITY_MARK = "<!-- load_web.py --capacity -->"
#: Seconds a capacity run may take (a saturated one never ends in time otherwise).
CAPACITY_TIMEOUT = 240.0
#: Seconds the whole capacity table may take: a run that would end past it is left out.
CAPACITY_BUDGET = 14 * 60.0
KILL_MARK = "<!-- load_web.py --kills --write-docs -->"


def write_docs(mark: str, text: str) -> None:
    """Put ``text`` between the two ``mark`` lines of docs/web.md."""
    docs = ROOT / "docs" / "web.md"
    before, found, rest = docs.read_text(encoding="utf-8").partition(mark)
    _, closing, after = rest.partition(mark)
    if not found or not closing:
        raise SystemExit(f"docs/web.md: expected two lines {mark}, found {int(bool(found))}")
    docs.write_text(f"{before}{mark}\n{text}\n{mark}{after}", encoding="utf-8")


def kills_paragraph(args: argparse.Namespace, result: dict[str, Any]) -> str:
    """docs/web.md's takeover figures, from a run with ``--kills``."""
    takeover = result["takeover_s"]
    return (
        f"Measured with `load_web.py --db postgresql://... --instances 2 --games {args.games}"
        f" --think {args.think:g} --kills {args.kills}` (load average"
        f" {result['load_average']}): after each `kill -9`, every game of the killed"
        f" instance moved again within {takeover['median']} s (median of"
        f" {result['kills']} kills), {takeover['worst']} s at worst, clients reconnecting"
        f" through HAProxy as pages do; {result['acknowledged']:,} actions acknowledged to"
        f" the clients, {result['stored']:,} stored, {result['lost']} lost."
    )


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
        ok = succeeded(result)
        lines.append(
            f"| {games} | {think} | {result['actions_per_second']:.0f} | {lat['p50']:.1f} ms "
            f"| {lat['p95']:.1f} ms | {lat['p99']:.1f} ms | {cpu} |" + ("" if ok else " (errors!)")
        )
        print(lines[-1], flush=True)
    return "\n".join(lines)


def capacity(args: argparse.Namespace) -> str:
    """Run docs/web.md's capacity table: :data:`CAPACITY_GAMES` games of 2 humans and 1
    bot at :data:`CAPACITY_THINK` s to think, on one instance (SQLite, a temporary file)
    and, with ``--db postgresql://...``, on one instance of two workers (``serve
    --workers 2``) and on two instances behind HAProxy; then say the most games each
    setup held at p95 under :data:`CAPACITY_P95_MS` ms. A setup that failed at some
    number of games is not run at more (it would fail too, and take the longest), so
    the whole table takes under a quarter of an hour."""
    setups: list[tuple[str, dict[str, Any]]] = [
        ("1 instance, SQLite", {"instances": 1, "workers": 1, "db": None})
    ]
    if (args.db or "").startswith("postgresql://"):
        setups += [
            ("1 instance, 2 workers, PostgreSQL", {"instances": 1, "workers": 2, "db": args.db}),
            ("2 instances, PostgreSQL, HAProxy", {"instances": 2, "workers": 1, "db": args.db}),
        ]
    lines = [
        "| setup | games (sockets) | actions/s | p50 | p95 | p99 | server CPU per action"
        " (its event loops') | clients' CPU per action | load average |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    held: dict[str, int] = {}
    started, longest = time.monotonic(), 0.0
    for name, options in setups:
        for games in sorted(args.capacity_games):
            if time.monotonic() - started + longest > CAPACITY_BUDGET:
                lines.append(f"| {name} | {games:,} | not run: the table's time was up |")
                print(lines[-1], flush=True)
                break
            began = time.monotonic()
            run_args = argparse.Namespace(
                **{
                    **vars(args),
                    **options,
                    "games": games,
                    "think": CAPACITY_THINK,
                    "players": 3,
                    "bots": 1,
                    "spectators": False,
                    "hotseat": False,
                    "timeout": min(args.timeout, CAPACITY_TIMEOUT),
                }
            )
            result = measure(run_args)
            longest = max(longest, time.monotonic() - began)
            lat = result["latency_ms"]
            cpu = " + ".join(
                "?" if value is None or loop is None else f"{value:.2f} ms ({loop:.2f} ms)"
                for value, loop in zip(
                    result["server_cpu_ms_per_action"],
                    result["server_loop_cpu_ms_per_action"],
                    strict=True,
                )
            )
            ok = succeeded(result)
            lines.append(
                f"| {name} | {games:,} ({result['connections']:,}) "
                f"| {result['actions_per_second']:.0f} | {lat['p50']:.1f} ms "
                f"| {lat['p95']:.1f} ms | {lat['p99']:.1f} ms | {cpu} "
                f"| {result['client_cpu_ms_per_action']:.2f} ms "
                f"| {result['load_average']} |" + ("" if ok else " (errors!)")
            )
            print(lines[-1], flush=True)
            if not ok or lat["p95"] >= CAPACITY_P95_MS:
                break
            held[name] = games
    said = "; ".join(
        f"{name}: {held[name]:,} games" if name in held else f"{name}: none of these"
        for name, _ in setups
    )
    lines += [
        "",
        f"Most games held with p95 under {CAPACITY_P95_MS:.0f} ms ({CAPACITY_THINK:g} s to"
        f" think, 2 humans and a bot a game; a setup is not run at more games once it"
        f" failed): {said}.",
    ]
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
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="serve --workers N: server processes per instance (needs --db postgresql://...)",
    )
    parser.add_argument(
        "--kills",
        type=int,
        default=0,
        help="with --instances 2: kill -9 an instance this many times, alternately (0)",
    )
    parser.add_argument(
        "--kill-every", type=float, default=5.0, help="seconds between kills, and before the first"
    )
    parser.add_argument(
        "--addresses",
        type=int,
        default=0,
        help="with --url: loopback client addresses to spread the games over"
        " (default: as many as the server's published limits need)",
    )
    parser.add_argument(
        "--proxy-connections",
        type=int,
        default=40,
        help="connections a proxy in front allows per address (40, as deploy/ ships)",
    )
    parser.add_argument("--table", action="store_true", help="run docs/web.md's table")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="with --table, --capacity or --kills: write the figures in docs/web.md",
    )
    parser.add_argument(
        "--capacity",
        action="store_true",
        help="run docs/web.md's capacity table (400 to 1000 games, 0.5 s to think; with"
        " --db postgresql://... also --workers 2 and 2 instances)",
    )
    parser.add_argument(
        "--capacity-games",
        type=lambda text: tuple(int(n) for n in text.split(",")),
        default=CAPACITY_GAMES,
        help="with --capacity: the numbers of games, comma-separated (400,600,800,1000)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not 0 <= args.bots < args.players:
        parser.error(f"--bots: expected 0..{args.players - 1} (one human at least)")
    if not 1 <= args.games <= 2000:
        parser.error("--games: expected 1..2000")
    if args.instances > 1 and not (args.db or "").startswith("postgresql://"):
        parser.error("--instances 2 needs --db postgresql://...")
    if args.workers > 1 and not (args.db or "").startswith("postgresql://"):
        parser.error("--workers needs --db postgresql://...")
    if args.kills and (args.instances < 2 or args.url):
        parser.error("--kills needs --instances 2 (instances this tool starts and restarts)")

    if args.capacity:
        text = capacity(args)
        print(text.rsplit("\n", 1)[-1])
        if args.write_docs:
            write_docs(CAPACITY_MARK, text)
        return 0
    if args.table:
        text = table(args)
        if args.write_docs:
            write_docs(MARK, text)
        return 0
    result = measure(args)
    if args.json:
        print(json.dumps(result))
    else:
        report(args, result)
    if args.write_docs and args.kills and succeeded(result):
        write_docs(KILL_MARK, kills_paragraph(args, result))
    return 0 if succeeded(result) else 1


if __name__ == "__main__":
    sys.exit(main())
