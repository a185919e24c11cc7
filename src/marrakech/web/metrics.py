"""What an operator's Prometheus reads: one server instance's metrics (docs/deploy.md).

Each instance keeps its own :class:`Metrics` (a registry of its own, so that several
apps in one process never mix) and serves it at ``/metrics`` on a listener of its own,
``marrakech serve --metrics [HOST:]PORT``, only to the addresses of ``--metrics-allow``
(loopback by default): :class:`MetricsListener`. Names follow Prometheus' conventions:
a ``marrakech_`` prefix, ``_total`` on counters, seconds in ``_seconds``.

Things that are counted as they happen are counters and histograms (actions stored, the
store calls' durations); everything else is read when Prometheus asks
(:meth:`Metrics.gauge`), so that keeping it costs nothing in between. A new gauge is one
line::

    >>> import asyncio
    >>> metrics = Metrics()
    >>> waiting: list[str] = ["ana", "bo"]
    >>> metrics.gauge("marrakech_example_players", "Players waiting", lambda: len(waiting))
    >>> text = asyncio.run(metrics.scrape()).decode()
    >>> [line for line in text.splitlines() if line.startswith("marrakech_example")]
    ['marrakech_example_players 2.0']
"""

from __future__ import annotations

import functools
import inspect
import ipaddress
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest

from marrakech.web.security import ASGIApp, Receive, Scope, Send, send_error
from marrakech.web.store import ActionRow, GameEnd, GameStatus, GameStore

log = logging.getLogger("marrakech.web.metrics")

#: The store calls' histogram buckets, in seconds: an SQLite call takes a fraction of a
#: millisecond, a PostgreSQL one a millisecond or a few; anything past a second is trouble.
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

#: What a gauge's reading gives: one value, or one per label value; or an awaitable of it.
Value = float | Mapping[str, float]
Reading = Callable[[], "Value | Awaitable[Value]"]

#: Where ``/metrics`` is answered by default: the machine itself.
LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class _Gauge:
    name: str
    documentation: str
    read: Reading
    label: str | None


class Metrics:
    """One server instance's metrics: counted as things happen, or read at each scrape."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        #: Seconds of each store call, by the call's name (``append_actions``...).
        self.store_seconds = Histogram(
            "marrakech_store_call_seconds",
            "Seconds each call of the game store took, by call",
            ["call"],
            buckets=STORE_BUCKETS,
            registry=self.registry,
        )
        #: Actions stored for the games this instance owns (``marrakech_actions_total``).
        self.actions = Counter(
            "marrakech_actions",
            "Actions stored for the games this instance runs (moves, dice draws, resignations)",
            registry=self.registry,
        )
        #: Open WebSockets (game pages, spectators, programs).
        self.sockets = Gauge(
            "marrakech_websockets_open",
            "WebSockets open on this instance (game pages, spectators, programs)",
            registry=self.registry,
        )
        self._gauges: list[_Gauge] = []
        self._read: list[Metric] = []
        self.registry.register(self)  # a collector: collect() below

    def gauge(self, name: str, documentation: str, read: Reading, label: str | None = None) -> None:
        """A gauge read at each scrape: ``read()`` gives its value (or, with ``label``,
        a mapping of the label's values to values; or an awaitable of either). A gauge
        of the same name is replaced (an app started again watches its new rooms)."""
        self._gauges = [gauge for gauge in self._gauges if gauge.name != name]
        self._gauges.append(_Gauge(name, documentation, read, label))

    async def scrape(self) -> bytes:
        """The metrics in Prometheus' text format, the gauges read now. A gauge that
        cannot be read (the store is down) is left out, and says why in the log."""
        families: list[Metric] = []
        for gauge in self._gauges:
            try:
                value = gauge.read()
                if inspect.isawaitable(value):
                    value = await value
            except Exception as error:
                log.warning("the metric %s cannot be read: %s", gauge.name, error)
                continue
            labels = [gauge.label] if gauge.label else None
            family = GaugeMetricFamily(gauge.name, gauge.documentation, labels=labels)
            if isinstance(value, Mapping):
                for key, number in sorted(value.items()):
                    family.add_metric([key], float(number))
            else:
                family.add_metric([], float(value))
            families.append(family)
        self._read = families  # collect() gives them; nothing awaits in between
        return generate_latest(self.registry)

    def collect(self) -> Iterable[Metric]:
        """The gauges as last read (the registry's collector interface)."""
        return list(self._read)


class MeteredStore(GameStore):
    """A :class:`GameStore` whose every call is timed (``marrakech_store_call_seconds``)
    and whose appends are counted (``marrakech_actions_total``): the one place the
    store is measured, whichever database is behind it. Make one with :meth:`over`."""

    def __init__(self, inner: GameStore, metrics: Metrics) -> None:
        self.inner = inner
        self.metrics = metrics
        #: Each call's histogram, made at its first use (a call never made shows none).
        self._timers: dict[str, Any] = {}

    @classmethod
    def over(cls, inner: GameStore, metrics: Metrics) -> MeteredStore:
        """``inner``, measured into ``metrics``."""
        return cls(inner, metrics)

    def _took(self, call: str, started: float) -> None:
        timer = self._timers.get(call)
        if timer is None:
            timer = self._timers[call] = self.metrics.store_seconds.labels(call=call)
        timer.observe(time.perf_counter() - started)

    async def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
        turns: int = 0,
        end: GameEnd | None = None,
    ) -> None:
        started = time.perf_counter()
        try:
            await self.inner.append_actions(
                game_id, version, actions, status, bot_to_move, turns, end
            )
        finally:
            self._took("append_actions", started)
        self.metrics.actions.inc(len(actions))

    @property
    def dialect(self) -> str:
        return self.inner.dialect


def _timed(name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    """The metered store's method ``name``: the inner store's, timed."""

    @functools.wraps(getattr(GameStore, name))
    async def timed(self: MeteredStore, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await getattr(self.inner, name)(*args, **kwargs)
        finally:
            self._took(name, started)

    return timed


#: The store's calls: the protocol's coroutines.
_CALLS = tuple(
    name for name, declared in vars(GameStore).items() if inspect.iscoroutinefunction(declared)
)
for _name in _CALLS:
    if _name not in vars(MeteredStore):
        setattr(MeteredStore, _name, _timed(_name))


def metrics_network(text: str) -> Network:
    """An address or network of ``--metrics-allow``.

    >>> metrics_network("10.0.0.7"), metrics_network("192.0.2.0/24")
    (IPv4Network('10.0.0.7/32'), IPv4Network('192.0.2.0/24'))
    """
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(
            f"expected an address or a network (10.0.0.7, 192.0.2.0/24, fd00::/8), found {text!r}"
        ) from None


def allowed(client: str, networks: Sequence[Network]) -> bool:
    """Whether a client address is in ``networks`` (an IPv4 address reached over IPv6,
    ``::ffff:127.0.0.1``, counts as itself).

    >>> allowed("127.0.0.1", LOOPBACK), allowed("::ffff:127.0.0.1", LOOPBACK)
    (True, True)
    >>> allowed("192.0.2.9", LOOPBACK), allowed("not an address", LOOPBACK)
    (False, False)
    """
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


class MetricsListener:
    """Outermost around the app: a request that arrived on the metrics port (the local
    port of its connection) is answered here and never reaches the app: ``/metrics`` to
    the addresses of ``allow``, ``403`` to others, ``404`` for any other path. On the
    site's own port ``/metrics`` does not exist, so a reverse proxy in front of the site
    cannot show it to the world, whatever it forwards."""

    def __init__(
        self, app: ASGIApp, metrics: Metrics, port: int, allow: Sequence[Network] = LOOPBACK
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.port = port
        self.allow = tuple(allow)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        server = scope.get("server")
        if scope["type"] not in ("http", "websocket") or not server or server[1] != self.port:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        client = scope.get("client") or ("", 0)
        if not allowed(client[0], self.allow):
            shown = ", ".join(str(network) for network in self.allow)
            await send_error(
                send, 403, "forbidden", f"the metrics are served to {shown} only (--metrics-allow)"
            )
            return
        if scope["path"] != "/metrics":
            await send_error(send, 404, "not_found", "this port serves /metrics only")
            return
        if scope["method"] not in ("GET", "HEAD"):
            await send_error(send, 405, "method_not_allowed", "expected GET /metrics")
            return
        body = await self.metrics.scrape()
        headers = [
            (b"content-type", CONTENT_TYPE_LATEST.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )


__all__ = [
    "LOOPBACK",
    "MeteredStore",
    "Metrics",
    "MetricsListener",
    "Network",
    "allowed",
    "metrics_network",
]
