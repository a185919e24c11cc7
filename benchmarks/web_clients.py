"""Simulated players and spectators for the web benchmarks (load_web.py, abuse_web.py).

A client plays its seats over a real WebSocket as the page does: it merges what changed
into its view, answers when its seat is to move, and reconnects with a growing pause
when the connection drops (a killed instance, a restarted balancer), saying hello again
and carrying on from the welcome. Every version it sees is written down with the
position's notation, so that after the run the stored records can be checked against
what the server acknowledged (:func:`acknowledged_vs_stored`).

Each connection is a :mod:`light_socket` (a WebSocket client costing a fraction of
``websockets``' CPU: the clients share the server's machine).

A client may speak from any loopback address (``127.0.0.2``, ``127.0.0.3``...: Linux
routes the whole 127.0.0.0/8 to the machine), so a load test on the server's machine
can spread its games over enough addresses to keep each within the per-address limits
a real deployment has (:func:`addresses_needed`) instead of switching them off.
"""

from __future__ import annotations

import asyncio
import http.client
import ipaddress
import json
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from light_socket import connect

from marrakech.record import GameRecord

#: Error codes a client may meet in a normal game after a reconnection (its action
#: crossed the new state, or the owner changed): it carries on from the latest state.
BENIGN = frozenset({"stale_version", "not_your_turn", "illegal_action", "rate_limited"})


def reconnect_pause(attempt: int, rng: random.Random) -> float:
    """Seconds before reconnection attempt ``attempt`` (0 first), as the page waits
    (static/js/net.js): doubling from 0.4 s up to 10 s, give or take a quarter."""
    return float(min(10.0, 0.4 * 2**attempt)) * rng.uniform(0.75, 1.25)


def loopback_source(index: int) -> str:
    """The ``index``-th loopback address after 127.0.0.1 (0 is 127.0.0.1 itself).

    >>> loopback_source(0), loopback_source(1), loopback_source(300)
    ('127.0.0.1', '127.0.0.2', '127.0.1.45')
    """
    if not 0 <= index < 2**24 - 2:
        raise ValueError(f"expected a loopback index 0..{2**24 - 3}, found {index}")
    return str(ipaddress.IPv4Address("127.0.0.1") + index)


def request(
    address: str,
    method: str,
    path: str,
    body: Any = None,
    source: str | None = None,
    patience: int = 3,
) -> tuple[int, Any]:
    """One HTTP request from ``source`` (an address of this machine): its status and
    its JSON answer (or its bytes, if they are not JSON). A ``429`` is waited out as its
    ``Retry-After`` says, at most ``patience`` times: a second run within a minute from
    the same addresses meets the creation rate the first one used up."""
    for waited in range(patience + 1):
        status, answer, retry_after = _request_once(address, method, path, body, source)
        if status != 429 or retry_after is None or retry_after > 120 or waited == patience:
            break
        time.sleep(retry_after)
    return status, answer


def _request_once(
    address: str, method: str, path: str, body: Any, source: str | None
) -> tuple[int, Any, float | None]:
    parts = urlsplit(address)
    connection_class = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    connection = connection_class(
        parts.hostname or "127.0.0.1",
        parts.port,
        timeout=30,
        source_address=None if source is None else (source, 0),
    )
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        connection.request(method, parts.path.rstrip("/") + "/" + path.lstrip("/"), data, headers)
        reply = connection.getresponse()
        raw = reply.read()
        retry_after = reply.getheader("Retry-After")
        wait = float(retry_after) if retry_after and retry_after.isdigit() else None
        try:
            return reply.status, json.loads(raw), wait
        except ValueError:
            return reply.status, raw, wait
    finally:
        connection.close()


@dataclass
class GameTrack:
    """What a game's clients saw: each version with its position, and when it moved."""

    seen: dict[int, str] = field(default_factory=dict)
    version: int = -1
    over: bool = False
    moved_at: float = 0.0

    def saw(self, version: int, notation: str, over: bool) -> None:
        self.seen.setdefault(version, notation)
        if version > self.version:
            self.version = version
            self.moved_at = time.monotonic()
        self.over = self.over or over


@dataclass
class Kill:
    """One ``kill -9``: when, and how far each unfinished game was at that moment."""

    at: float
    versions: dict[str, int]
    #: Seconds from the kill until each game moved past ``versions`` again.
    resumed: dict[str, float] = field(default_factory=dict)


@dataclass
class Totals:
    latencies: list[float] = field(default_factory=list)
    #: When each of ``latencies`` was measured (``time.monotonic``).
    latency_at: list[float] = field(default_factory=list)
    sent: int = 0
    errors: list[str] = field(default_factory=list)
    #: Refusals a client carries on after (``BENIGN``), by code.
    refusals: dict[str, int] = field(default_factory=dict)
    reconnections: int = 0
    games: dict[str, GameTrack] = field(default_factory=dict)
    kills: list[Kill] = field(default_factory=list)

    def track(self, game_id: str) -> GameTrack:
        return self.games.setdefault(game_id, GameTrack())

    def saw(self, game_id: str, version: int, state: dict[str, Any]) -> None:
        track = self.track(game_id)
        track.saw(version, state["notation"], state["phase"] == "over")
        now = time.monotonic()
        for kill in self.kills:
            before = kill.versions.get(game_id)
            if before is not None and game_id not in kill.resumed and version > before:
                kill.resumed[game_id] = now - kill.at

    def kill(self) -> Kill:
        """Note a kill now, and how far every unfinished game is."""
        versions = {game: track.version for game, track in self.games.items() if not track.over}
        self.kills.append(Kill(time.monotonic(), versions))
        return self.kills[-1]


def next_state(state: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The view after a welcome or an update, as far as the simulated clients read it:
    its ``phase`` and ``notation``, plain values that ``changes`` holds whole when they
    change (the page merges the rest too: game.js, applyChanges)."""
    changes = message.get("changes")
    return message["state"] if changes is None else {**state, **changes}


class Pacer:
    """Keeps one connection within the server's messages per second (a token bucket a
    little under it), so a client answering at once is not refused for flooding."""

    def __init__(self, per_second: float, burst: float) -> None:
        self.rate = per_second * 0.9
        self.burst = max(1.0, burst - 1)
        self.tokens = self.burst
        self.last = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1.0:
            await asyncio.sleep((1.0 - self.tokens) / self.rate)
            self.tokens, self.last = 1.0, time.monotonic()
        self.tokens -= 1.0


@dataclass
class Seat:
    """One simulated page: the seats it holds in one game, from one address."""

    address: str
    game_id: str
    tokens: list[str]
    totals: Totals
    rng: random.Random
    think: float = 0.0
    source: str | None = None
    pacer: Pacer | None = None
    #: Give up reconnecting after this many seconds without a connection.
    patience: float = 60.0

    async def play(self) -> None:
        """Play until the game is over, reconnecting whenever the connection drops."""
        uri = self.address.replace("http://", "ws://").replace("https://", "wss://")
        uri += f"ws/{self.game_id}"
        local = None if self.source is None else (self.source, 0)
        lost_since: float | None = None
        attempt = 0
        while not self.totals.track(self.game_id).over:
            try:
                async with connect(uri, local) as ws:
                    lost_since, attempt = None, 0
                    if await self._session(ws):
                        return
            except (OSError, TimeoutError):  # light_socket's errors are OSErrors
                pass
            now = time.monotonic()
            lost_since = lost_since or now
            if now - lost_since > self.patience:
                self.totals.errors.append(f"{self.game_id}: no connection for {self.patience} s")
                return
            self.totals.reconnections += 1
            await asyncio.sleep(reconnect_pause(attempt, self.rng))
            attempt += 1

    async def _session(self, ws: Any) -> bool:
        """One connection's life: True when the game ended or a fatal error came."""
        totals = self.totals
        hello: dict[str, Any] = {"type": "hello", "tokens": self.tokens, "lang": "en"}
        await ws.send(json.dumps(hello))
        waiting_since: float | None = None
        waiting_for = -1
        state: dict[str, Any] = {}
        while True:
            message = json.loads(await ws.recv())
            kind = message["type"]
            if kind == "error":
                code = message["code"]
                if code in BENIGN:
                    totals.refusals[code] = totals.refusals.get(code, 0) + 1
                    continue
                totals.errors.append(f"{self.game_id}: {code}: {message['message']}")
                return True
            if kind not in ("welcome", "update"):
                continue
            version = message["version"]
            if waiting_since is not None and version > waiting_for:
                # From the action's sending to the update's reading off the socket.
                totals.latencies.append(ws.received_at - waiting_since)
                totals.latency_at.append(time.monotonic())
                waiting_since = None
            state = next_state(state, message)
            totals.saw(self.game_id, version, state)
            if state["phase"] == "over":
                return True
            if not self.tokens:
                continue
            for seat, legal in message["legal"].items():
                if legal:
                    if self.think:
                        await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
                    if self.pacer is not None:
                        await self.pacer.wait()
                    action = self.rng.choice(legal)
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


@dataclass(frozen=True)
class Stored:
    """Acknowledged actions against stored ones, summed over the games."""

    acknowledged: int
    stored: int
    #: Acknowledged versions whose stored position differs or is missing.
    lost: int
    #: Games whose stored record ends where their clients' last view did.
    matching: int


def acknowledged_vs_stored(games: dict[str, GameTrack], records: dict[str, Any]) -> Stored:
    """Compare each version a game's clients saw (an action the server acknowledged to
    them) with the stored record (as ``GET /api/games/{id}/record`` answers it) replayed
    to that many actions."""
    acknowledged = stored = lost = matching = 0
    for game_id, track in games.items():
        data = records.get(game_id)
        positions = (
            [] if data is None else [s.notation() for s in GameRecord.from_dict(data).states()]
        )
        acknowledged += max(track.version, 0)
        stored += max(len(positions) - 1, 0)
        lost += sum(
            1
            for version, notation in track.seen.items()
            if version >= len(positions) or positions[version] != notation
        )
        matching += bool(positions) and positions[-1] == track.seen.get(track.version)
    return Stored(acknowledged, stored, lost, matching)


def addresses_needed(
    limits: dict[str, float],
    games: int,
    connections_per_game: int,
    bots_per_game: int,
    proxy_connections: int = 40,
) -> tuple[int, int]:
    """How many games one address may hold within the server's per-address ``limits``
    (``/api/config``) and a proxy's connections per address, and so how many addresses
    ``games`` need: ``(games per address, addresses)``.

    >>> addresses_needed({"create_burst": 10, "games_per_client": 20,
    ...     "bots_per_client": 12, "sockets_per_client": 20}, 100, 2, 1)
    (10, 10)
    """
    per_address = min(
        int(limits.get("create_burst", 10)),
        int(limits.get("games_per_client", 20)),
        int(limits.get("sockets_per_client", 20)) // max(connections_per_game, 1),
        proxy_connections // max(connections_per_game, 1),
        int(limits.get("bots_per_client", 12)) // bots_per_game if bots_per_game else 10**9,
    )
    if per_address < 1:
        raise ValueError(
            f"one game needs {connections_per_game} sockets and {bots_per_game} bot seats,"
            f" more than one address may have ({limits})"
        )
    return per_address, math.ceil(games / per_address)
