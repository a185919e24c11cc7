"""How much one client, and everyone together, may ask of a server.

- **Rates**: creating and joining games are limited per client (:class:`ClientRates`, a
  token bucket per address; IPv6 addresses by their /64, which one machine usually has
  whole). The answer past them is ``429`` with ``Retry-After``.
- **Caps**: a client may have at most so many unfinished games under way, and so many
  bot seats in them; the whole server (every instance on the database) too
  (:func:`check_caps`). A game counts while it is not over and moved in the last hour.

The defaults suit a public server on a small machine; ``marrakech serve`` takes options
(this module loads no web framework, so ``marrakech --help`` stays quick).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from marrakech.web.store import Usage


@dataclass(frozen=True)
class Limits:
    """Rates per client (per minute, with bursts) and caps on games under way."""

    creates_per_minute: float = 10.0
    create_burst: int = 10
    joins_per_minute: float = 30.0
    join_burst: int = 15
    #: Unfinished games one client may have created (and that moved within ``active``).
    games_per_client: int = 20
    #: Bot seats in those games.
    bots_per_client: int = 12
    #: Unfinished games on the whole server (every instance of its database).
    games: int = 5000
    #: Bot seats in those games.
    bots: int = 600
    #: Seconds after its last move that an unfinished game stops counting.
    active: float = 3600.0
    #: Replays and analyses computed for one client (a finished game's are computed once
    #: and then served from a cache, free): 40-50 ms of CPU each.
    replays_per_minute: float = 30.0
    replay_burst: int = 15
    #: Open WebSockets (players' and spectators' pages) of one client address on one
    #: instance: a family behind one router has a few, a flood thousands.
    sockets_per_client: int = 20
    #: Seconds an address may open no WebSocket after one of its connections was closed
    #: for flooding (a page never floods: it is a script, and reconnects at once).
    flood_cooldown: float = 30.0
    #: Chat messages and reactions of one player (a seat of a game, or a spectator's
    #: address), and of one address across all its games.
    chats_per_minute: float = 12.0
    chat_burst: int = 5
    address_chats_per_minute: float = 40.0
    address_chat_burst: int = 15


class FinishedCache:
    """Answers that never change once a game is over (its replay in each language, its
    analysis), as bytes, the least recently used dropped past ``max_bytes``.

    >>> cache = FinishedCache(max_bytes=10)
    >>> cache.put(("g1", "en"), b"123456"); cache.put(("g2", "en"), b"7890")
    >>> cache.get(("g1", "en")), cache.get(("g3", "en"))
    (b'123456', None)
    >>> cache.put(("g3", "en"), b"abc")  # past 10 bytes: g2, the least recently used, goes
    >>> cache.get(("g2", "en")), len(cache)
    (None, 2)
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._size = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[str, str]) -> bytes | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: tuple[str, str], value: bytes) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._size -= len(old)
        self._entries[key] = value
        self._size += len(value)
        while self._size > self.max_bytes and len(self._entries) > 1:
            _, dropped = self._entries.popitem(last=False)
            self._size -= len(dropped)


#: Seconds between two explained refusals of one address's sockets.
QUIET = 10.0
#: Handshakes refused unexplained within :data:`QUIET` seconds past which an address is
#: taken for a connection flood, and cools down like a flooding socket.
HANDSHAKE_FLOOD = 100


class SocketCounts:
    """The open WebSockets of each client address (on this instance), within a cap; and
    the addresses cooling down after one of their connections was closed for flooding.

    >>> now = [0.0]
    >>> counts = SocketCounts(cap=2, clock=lambda: now[0])
    >>> [counts.open("a"), counts.open("a"), counts.open("a"), counts.open("b")]
    [True, True, False, True]
    >>> counts.close("a"); counts.open("a")
    True
    >>> counts.flooded("b", seconds=30); counts.cooling("b")
    30.0
    >>> now[0] = 31.0; counts.cooling("b")
    0.0
    >>> [counts.explain("b"), counts.explain("b")]  # one refusal in 10 s says why
    [True, False]
    """

    def __init__(self, cap: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap = cap
        self._open: dict[str, int] = {}
        self._clock = clock
        #: Until when each flooding address may open no socket (at most ``clients`` kept).
        self._cooling: OrderedDict[str, float] = OrderedDict()
        #: When each address was last told why a socket was refused.
        self._explained: OrderedDict[str, float] = OrderedDict()
        #: Each address's handshakes refused unexplained: since when, how many.
        self._refused: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def open(self, key: str) -> bool:
        """Count one more socket of ``key``; False (not counted) past the cap."""
        count = self._open.get(key, 0)
        if count >= self.cap:
            return False
        self._open[key] = count + 1
        return True

    def close(self, key: str) -> None:
        count = self._open.get(key, 0) - 1
        if count > 0:
            self._open[key] = count
        else:
            self._open.pop(key, None)

    def flooded(self, key: str, seconds: float, clients: int = 100_000) -> None:
        """``key`` flooded a connection: refuse its new ones for ``seconds``."""
        self._cooling[key] = self._clock() + seconds
        self._cooling.move_to_end(key)
        while len(self._cooling) > clients:
            self._cooling.popitem(last=False)

    def refusal(self, key: str) -> tuple[str, str] | None:
        """Why a new socket of ``key`` is refused (an error code and its message), or
        None if it may open one."""
        cooling = self.cooling(key)
        if cooling:
            return (
                "rate_limited",
                f"a page from your address flooded this server: try again in"
                f" {math.ceil(cooling)} s",
            )
        if self._open.get(key, 0) >= self.cap:
            return (
                "too_many_connections",
                f"your address has {self.cap} pages of this server open, the most it may"
                " have: close one and reload",
            )
        return None

    def explain(self, key: str, quiet: float = QUIET, clients: int = 100_000) -> bool:
        """Whether to tell ``key`` why its socket is refused (accepting it to send the
        reason): once in ``quiet`` seconds; the others are refused at the handshake,
        which costs the server far less when a script opens thousands."""
        now = self._clock()
        last = self._explained.get(key)
        if last is not None and now - last < quiet:
            return False
        self._explained[key] = now
        self._explained.move_to_end(key)
        while len(self._explained) > clients:
            self._explained.popitem(last=False)
        return True

    def refused_quietly(self, key: str, cooldown: float, clients: int = 100_000) -> None:
        """Count a handshake of ``key`` refused without its reason: past
        :data:`HANDSHAKE_FLOOD` within :data:`QUIET` seconds, ``key`` is flooding and
        cools down for ``cooldown`` seconds (its connections are then closed as they
        open: ``marrakech serve`` checks :meth:`cooling` before reading a byte)."""
        now = self._clock()
        since, count = self._refused.get(key, (now, 0))
        if now - since > QUIET:
            since, count = now, 0
        self._refused[key] = (since, count + 1)
        self._refused.move_to_end(key)
        while len(self._refused) > clients:
            self._refused.popitem(last=False)
        if count + 1 > HANDSHAKE_FLOOD:
            del self._refused[key]
            self.flooded(key, cooldown)

    def cooling(self, key: str) -> float:
        """Seconds before ``key`` may open a socket again after flooding (0: it may)."""
        until = self._cooling.get(key)
        if until is None:
            return 0.0
        left = until - self._clock()
        if left <= 0:
            del self._cooling[key]
            return 0.0
        return left


def address_key(host: str) -> str:
    """The key of one client address: itself, an IPv6 address by its /64 network.

    >>> address_key("203.0.113.7"), address_key("2001:db8:1:2:3:4:5:6")
    ('203.0.113.7', '2001:db8:1:2::/64')
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def client_key(scope: Mapping[str, Any]) -> str:
    """Who a request comes from, for its limits: the client's address (behind a trusted
    proxy, the one it forwarded), an IPv6 address by its /64 network.

    >>> client_key({"client": ("203.0.113.7", 5123)})
    '203.0.113.7'
    >>> client_key({"client": ("2001:db8:1:2:3:4:5:6", 443)})
    '2001:db8:1:2::/64'
    """
    client = scope.get("client")
    return address_key(str(client[0]) if client else "")


class ClientRates:
    """A token bucket per client: ``per_minute`` on average, bursts of ``burst``.

    It remembers at most ``clients`` clients (the least recently seen are forgotten: a
    bucket left alone refills anyway)::

        >>> now = [0.0]
        >>> rates = ClientRates(per_minute=6, burst=2, clock=lambda: now[0])
        >>> [rates.wait("a") for _ in range(3)], rates.wait("b")
        ([0.0, 0.0, 10.0], 0.0)
        >>> now[0] = 10.0
        >>> rates.wait("a")
        0.0
    """

    def __init__(
        self,
        per_minute: float,
        burst: int,
        clients: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(max(1, burst))
        self.clients = clients
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait(self, key: str) -> float:
        """Take one token for ``key``: 0 if it had one, else the seconds until it has."""
        now = self._clock()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        waited = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            waited = (1.0 - tokens) / self.rate if self.rate > 0 else math.inf
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.clients:
            self._buckets.popitem(last=False)
        return waited

    def check(self, key: str, what: str, who: str = "your address") -> None:
        """Take a token for ``key`` or refuse with ``429`` (``rate_limited``); ``who``
        the key is, as the refusal says it."""
        from marrakech.web.protocol import ApiError  # pydantic: only when serving

        waited = self.wait(key)
        if waited > 0:
            seconds = max(1, math.ceil(waited))
            raise ApiError(
                429,
                "rate_limited",
                f"too many {what} from {who}: try again in {seconds} s",
                headers={"Retry-After": str(seconds)},
            )


def check_caps(usage: Usage, limits: Limits, bots: int) -> None:
    """Refuse a new game with ``bots`` bot seats past a cap: ``429`` (this client's,
    ``too_many_games``) or ``503`` (the server's, ``server_busy``)."""
    from marrakech.web.protocol import ApiError  # pydantic: only when serving

    if usage.games + 1 > limits.games_per_client:
        raise ApiError(
            429,
            "too_many_games",
            f"you have {usage.games} games under way, the most one player may have: "
            "finish or leave one (an hour without a move ends it for this count)",
        )
    if bots and usage.bots + bots > limits.bots_per_client:
        raise ApiError(
            429,
            "too_many_games",
            f"your games under way already seat {usage.bots} bots; at most "
            f"{limits.bots_per_client} bots may play for one player at a time",
        )
    if usage.all_games + 1 > limits.games or (bots and usage.all_bots + bots > limits.bots):
        raise ApiError(
            503,
            "server_busy",
            "the server has as many games (or bots) under way as it can take: "
            "try again in a few minutes",
            headers={"Retry-After": "120"},
        )
