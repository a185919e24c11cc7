"""A normal player's latency while someone abuses the server, one abuse at a time.

Starts ``python -m marrakech.web`` with its defaults (every limit on, a temporary SQLite
file) on 127.0.0.1. Two friends play 2-player games on it from 127.0.0.2, one game after
another, thinking about 0.2 s per move (benchmarks/web_clients.py); meanwhile an
attacker, in a process of its own and from other loopback addresses, runs each abuse
below for ``--seconds``, with a quiet pause between them. For each it prints the
friends' time from action to update (p50, p95, max), the server's memory, and what the
attacker got (answers by status or code)::

    .venv/bin/python benchmarks/abuse_web.py                    # every abuse, 10 s each
    .venv/bin/python benchmarks/abuse_web.py --only replay-flood --seconds 20
    .venv/bin/python benchmarks/abuse_web.py --write-docs       # docs/web.md's table

The abuses (docs/web.md, "Abuse"):

- ``none``: nobody else, the reference.
- ``create-flood``: 8 requests at a time creating games, flat out.
- ``rematch-flood``: rematches asked over the WebSocket of a finished game, flat out.
- ``socket-flood``: 3,000 spectator WebSockets opened from one address and held.
- ``socket-flood-50``: the same from 50 addresses (20 each, the cap per address).
- ``replay-flood``: replays of a finished game and of an unfinished one, 8 at a time.
- ``upload-flood``: uploaded records to replay (``POST /api/replay``), 8 at a time.
- ``big-bodies``: 1 MB request bodies, 8 at a time.
- ``slowloris``: 500 connections sending their headers a line every 2 s (15 s at least).
- ``garbage``: 20 WebSockets sending malformed, oversized and binary frames, flat out.
- ``action-flood``: 20 WebSockets sending forged seats and illegal actions, flat out.

The attacker shares the machine's cores with the server and the friends, as it would
not on the internet: the figures are an upper bound on what an abuse costs the others.
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
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from load_web import percentile, write_docs
from web_clients import Seat, Totals, loopback_source, next_state, request
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

from marrakech import State
from marrakech.playout import random_game
from marrakech.record import GameRecord

TWO_HUMANS = {
    "players": 2,
    "seats": [{"kind": "human"}, {"kind": "human"}],
    "first_seat": "random",
    "rules": "standard",
}
FRIENDS = loopback_source(1)
#: The attacker's first address; each abuse speaks from fresh ones.
ATTACKER = 10
MARK = "<!-- abuse_web.py --write-docs -->"


# -- the attacker (a process of its own) ------------------------------------------------


class Attack:
    """One abuse against ``address`` from loopback addresses ``first``, ``first + 1``..."""

    def __init__(self, address: str, first: int, seconds: float) -> None:
        self.address = address
        self.first = first
        self.seconds = seconds
        self.answers: Counter[str] = Counter()
        self.held: list[Any] = []

    @property
    def source(self) -> str:
        return loopback_source(self.first)

    def ws_uri(self, game_id: str) -> str:
        return self.address.replace("http://", "ws://") + f"ws/{game_id}"

    async def http(self, method: str, path: str, body: Any = None, source: str = "") -> None:
        status, answer = await asyncio.to_thread(
            request, self.address, method, path, body, source or self.source, 0
        )
        code = answer.get("error") if isinstance(answer, dict) else None
        self.answers[f"{status} {code}" if code else str(status)] += 1

    async def flat_out(self, tasks: int, one: Callable[[], Awaitable[None]]) -> None:
        """``tasks`` loops calling ``one`` until the time is up."""
        deadline = time.monotonic() + self.seconds

        async def loop() -> None:
            while time.monotonic() < deadline:
                try:
                    await one()
                except (OSError, ConnectionClosed, InvalidMessage, InvalidStatus) as error:
                    self.answers[type(error).__name__] += 1
                    await asyncio.sleep(0.05)

        await asyncio.gather(*(loop() for _ in range(tasks)))

    async def new_game(self, source: str) -> dict[str, Any]:
        """A 2-player game for the abuse to use."""
        status, game = await asyncio.to_thread(
            request, self.address, "POST", "api/games", TWO_HUMANS, source
        )
        if status != 201:
            raise SystemExit(f"the attacker could not create its game: {status} {game}")
        return dict(game)

    async def finished_game(self, source: str) -> tuple[str, list[str]]:
        """A 2-player game played to its end over one WebSocket: its id and tokens."""
        game = await self.new_game(source)
        tokens = [seat["token"] for seat in game["seats"]]
        rng = random.Random(0)
        async with connect(
            self.ws_uri(game["game_id"]), local_addr=(source, 0), ping_interval=None
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "tokens": tokens}))
            state: dict[str, Any] = {}
            while True:
                message = json.loads(await ws.recv())
                if message["type"] not in ("welcome", "update"):
                    continue
                state = next_state(state, message)
                if state["phase"] == "over":
                    return game["game_id"], tokens
                for seat, legal in message["legal"].items():
                    if legal:
                        await asyncio.sleep(0.055)  # within the socket's 20 messages/s
                        version, action = message["version"], rng.choice(legal)
                        sent = {"type": "action", "seat": int(seat), "version": version}
                        await ws.send(json.dumps({**sent, "action": action}))
                        break

    # -- the abuses ---------------------------------------------------------------------

    async def create_flood(self) -> None:
        await self.flat_out(8, lambda: self.http("POST", "api/games", TWO_HUMANS))

    async def rematch_flood(self) -> None:
        """Rematches asked as fast as the socket's message rate allows (faster, the
        socket is closed for flooding): each is a game creation, within its limits."""
        game_id, tokens = await self.finished_game(self.source)
        print("ready", flush=True)
        async with connect(
            self.ws_uri(game_id), local_addr=(self.source, 0), ping_interval=None
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "tokens": tokens}))

            async def read() -> None:
                async for raw in ws:
                    message = json.loads(raw)
                    self.answers[message.get("code") or message["type"]] += 1

            reader = asyncio.create_task(read())
            deadline = time.monotonic() + self.seconds
            while time.monotonic() < deadline:
                await ws.send(json.dumps({"type": "rematch"}))
                self.answers["asked"] += 1
                await asyncio.sleep(0.055)
            reader.cancel()

    async def socket_flood(self, addresses: int = 1, attempts: int = 3000) -> None:
        game = await self.new_game(loopback_source(self.first))
        game_id = game["game_id"]
        print("ready", flush=True)

        async def one(number: int) -> None:
            source = loopback_source(self.first + number % addresses)
            try:
                ws = await connect(self.ws_uri(game_id), local_addr=(source, 0), ping_interval=None)
                await ws.send(json.dumps({"type": "hello", "tokens": []}))
                message = json.loads(await ws.recv())
                self.answers[message.get("code") or message["type"]] += 1
                self.held.append(ws)
            except (OSError, ConnectionClosed, InvalidMessage, InvalidStatus) as error:
                self.answers[type(error).__name__] += 1

        for start in range(0, attempts, 100):
            await asyncio.gather(*(one(n) for n in range(start, min(attempts, start + 100))))
        await asyncio.sleep(max(0.0, self.seconds - 1))

    async def replay_flood(self) -> None:
        finished, _ = await self.finished_game(self.source)
        playing = await self.new_game(self.source)
        print("ready", flush=True)
        paths = [f"api/games/{finished}/replay", f"api/games/{playing['game_id']}/replay"]
        turn = iter(range(10**9))
        await self.flat_out(8, lambda: self.http("GET", paths[next(turn) % 2]))

    async def upload_flood(self) -> None:
        start = State.new(3)
        _, actions = random_game(start, random.Random(1))
        record = GameRecord.from_actions(start, actions).to_dict()
        await self.flat_out(8, lambda: self.http("POST", "api/replay", record))

    async def big_bodies(self) -> None:
        body = {"players": 2, "padding": "x" * 1_000_000}
        await self.flat_out(8, lambda: self.http("POST", "api/games", body))

    async def slowloris(self, connections: int = 500) -> None:
        host, port = self.address.split("//")[1].rstrip("/").rsplit(":", 1)
        loop = asyncio.get_running_loop()
        print("ready", flush=True)

        # Longer than the server's header deadline (10 s), so it has the time to close them.
        seconds = max(self.seconds, 15.0)

        async def one(number: int) -> None:
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((loopback_source(self.first + number % 20), 0))
            try:
                await loop.sock_connect(sock, (host, int(port)))
                await loop.sock_sendall(sock, f"GET / HTTP/1.1\r\nHost: {host}\r\n".encode())
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline:
                    await asyncio.sleep(2)
                    await loop.sock_sendall(sock, b"X-Slow: 1\r\n")
                self.answers["held to the end"] += 1
            except OSError:
                self.answers["closed by the server"] += 1
            finally:
                sock.close()

        await asyncio.gather(*(one(n) for n in range(connections)))

    async def garbage(self) -> None:
        game = await self.new_game(self.source)
        frames: list[str | bytes] = [
            "{not json",
            json.dumps({"type": "launch_missiles"}),
            "x" * 5000,
            b"\x00\xff" * 100,
            json.dumps({"type": "hello", "tokens": ["A" * 40] * 50}),
            "[]",
        ]
        turn = iter(range(10**9))
        print("ready", flush=True)

        async def one() -> None:
            async with connect(
                self.ws_uri(game["game_id"]), local_addr=(self.source, 0), ping_interval=None
            ) as ws:
                while True:
                    await ws.send(frames[next(turn) % len(frames)])
                    self.answers["sent"] += 1
                    await asyncio.sleep(0)

        await self.flat_out(20, one)

    async def action_flood(self) -> None:
        game = await self.new_game(self.source)
        token = game["seats"][0]["token"]
        print("ready", flush=True)

        async def one() -> None:
            async with connect(
                self.ws_uri(game["game_id"]), local_addr=(self.source, 0), ping_interval=None
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
                number = 0
                while True:
                    number += 1
                    seat = number % 3  # seat 1 is not held, seat 2 does not exist
                    message = {"type": "action", "seat": seat, "version": 0, "action": "Z9"}
                    await ws.send(json.dumps(message))
                    self.answers["sent"] += 1
                    await asyncio.sleep(0)

        await self.flat_out(20, one)


#: Each abuse: its name and how the attacker runs it.
ABUSES: dict[str, Callable[[Attack], Awaitable[None]]] = {
    "none": lambda attack: asyncio.sleep(attack.seconds),
    "create-flood": Attack.create_flood,
    "rematch-flood": Attack.rematch_flood,
    "socket-flood": Attack.socket_flood,
    "socket-flood-50": lambda attack: attack.socket_flood(addresses=50, attempts=1000),
    "replay-flood": Attack.replay_flood,
    "upload-flood": Attack.upload_flood,
    "big-bodies": Attack.big_bodies,
    "slowloris": Attack.slowloris,
    "garbage": Attack.garbage,
    "action-flood": Attack.action_flood,
}
#: Abuses that prepare something first and print "ready" when the abuse starts.
PREPARED = {
    "rematch-flood",
    "socket-flood",
    "socket-flood-50",
    "replay-flood",
    "slowloris",
    "garbage",
    "action-flood",
}


def attack_main(name: str, address: str, first: int, seconds: float) -> None:
    attack = Attack(address, first, seconds)
    if name not in PREPARED:
        print("ready", flush=True)

    async def abuse() -> None:
        await ABUSES[name](attack)

    asyncio.run(abuse())
    print(json.dumps(dict(attack.answers)), flush=True)


# -- the friends and the measurement ----------------------------------------------------


class Friends:
    """Two people playing one 2-player game after another from 127.0.0.2."""

    def __init__(self, address: str, think: float) -> None:
        self.address = address
        self.think = think
        self.totals = Totals()
        self.running = True

    async def play(self) -> None:
        rng = random.Random(7)
        while self.running:
            status, game = await asyncio.to_thread(
                request, self.address, "POST", "api/games", TWO_HUMANS, FRIENDS
            )
            if status != 201:
                self.totals.errors.append(f"the friends could not create a game: {game}")
                await asyncio.sleep(1)
                continue
            seats = [
                Seat(
                    self.address,
                    game["game_id"],
                    [seat["token"]],
                    self.totals,
                    random.Random(rng.random()),
                    think=self.think,
                    source=FRIENDS,
                )
                for seat in game["seats"]
            ]
            await asyncio.gather(*(seat.play() for seat in seats))

    def between(self, start: float, end: float) -> list[float]:
        return [
            1000 * latency
            for latency, at in zip(self.totals.latencies, self.totals.latency_at, strict=True)
            if start <= at <= end
        ]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def measure(args: argparse.Namespace, address: str, pid: int) -> list[dict[str, Any]]:
    friends = Friends(address, args.think)
    playing = asyncio.create_task(friends.play())
    await asyncio.sleep(3)  # the friends' first game under way
    rows = []
    first = ATTACKER
    for name in args.only or list(ABUSES):
        attacker = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--attack",
            name,
            "--url",
            address,
            "--first-address",
            str(first),
            "--seconds",
            str(args.seconds),
            stdout=subprocess.PIPE,
        )
        assert attacker.stdout is not None
        ready = await attacker.stdout.readline()
        if ready.strip() != b"ready":
            raise SystemExit(f"the attacker of {name} did not start: {ready!r}")
        start = time.monotonic()
        summary_line = await attacker.stdout.readline()
        await attacker.wait()
        end = time.monotonic()
        latencies = friends.between(start, end)
        answers = json.loads(summary_line) if summary_line.strip() else {}
        rows.append(
            {
                "abuse": name,
                "seconds": round(end - start, 1),
                "friends_actions": len(latencies),
                "p50": round(percentile(latencies, 0.5), 1),
                "p95": round(percentile(latencies, 0.95), 1),
                "max": round(max(latencies, default=float("nan")), 1),
                "rss_mb": round(rss_mb(pid), 1),
                "attacker": answers,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
        first += 60
        await asyncio.sleep(args.pause)
    friends.running = False
    playing.cancel()
    if friends.totals.errors:
        print("the friends met errors:", *friends.totals.errors[:5], sep="\n  ")
    return rows


def start_server(folder: str) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "marrakech.web", "--port", "0", "--log-level", "warning"]
    command += ["--db", str(Path(folder) / "abuse.sqlite3")]
    server = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.startswith("Marrakech is ready at "):
        server.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return server, line.split()[4]


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| abuse (one at a time) | friends' p50 | p95 | max | server memory | the attacker got |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        got = ", ".join(f"{count} × {answer}" for answer, count in row["attacker"].items())
        lines.append(
            f"| {row['abuse']} | {row['p50']} ms | {row['p95']} ms | {row['max']} ms "
            f"| {row['rss_mb']:.0f} MB | {got or '-'} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each abuse lasts (10)")
    parser.add_argument("--pause", type=float, default=3.0, help="quiet between abuses (3)")
    parser.add_argument("--think", type=float, default=0.2, help="the friends' mean think, s")
    parser.add_argument("--only", action="append", choices=list(ABUSES), help="(repeatable)")
    parser.add_argument("--write-docs", action="store_true", help="write docs/web.md's table")
    parser.add_argument("--attack", choices=list(ABUSES), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--first-address", type=int, default=ATTACKER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attack:
        attack_main(args.attack, args.url, args.first_address, args.seconds)
        return 0
    with tempfile.TemporaryDirectory(prefix="marrakech-abuse-") as folder:
        server, address = start_server(folder)
        try:
            rows = asyncio.run(measure(args, address, server.pid))
        finally:
            server.terminate()
            server.wait(timeout=30)
    text = table(rows)
    print(text)
    print(f"(machine load average {os.getloadavg()[0]:.1f})")
    if args.write_docs:
        write_docs(MARK, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
