"""What the routes share: the app's settings and, while it runs, its rooms.

``create_app`` puts one :class:`WebContext` in ``app.state.web``; a route asks for it
with a parameter typed :data:`Context` (a FastAPI dependency that works for HTTP requests
and WebSockets alike). The app's lifespan opens the store and the rooms
(:meth:`WebContext.open`): the SQLite file, or the PostgreSQL database of ``database``
(with :class:`~marrakech.web.postgres_cluster.PostgresCluster`, so that instances on
it share the games).
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

from fastapi import Depends
from fastapi.requests import HTTPConnection

from marrakech.web.accounts.passwords import Passwords
from marrakech.web.accounts.service import Accounts
from marrakech.web.cluster import Cluster
from marrakech.web.friendships import Friendships, blocked_pairs
from marrakech.web.limits import ClientRates, FinishedCache, Limits, SocketCounts
from marrakech.web.metrics import MeteredStore, Metrics
from marrakech.web.pools import Pools, PoolSettings
from marrakech.web.room_manager import RoomManager
from marrakech.web.static_files import StaticVersion
from marrakech.web.store import GameStatus, GameStore
from marrakech.web.store.retry import RETRY_SECONDS
from marrakech.web.store.sqlite import SQLiteStore

#: What ``marrakech serve --external-bots`` may say (see :attr:`WebContext.external_bots`).
ExternalBots = Literal["allow", "invited", "refuse"]
if TYPE_CHECKING:
    from marrakech.web.reminders.senders import Sender
    from marrakech.web.reminders.service import Reminders
    from marrakech.web.reminders.settings import MailSettings
    from marrakech.web.reminders.webpush import PushSettings
    from marrakech.web.tournaments.schedule import Recurring
    from marrakech.web.tournaments.service import Tournaments


def is_postgres(database: str | Path | None) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a ``postgresql://`` URL).

    >>> is_postgres("postgresql://marrakech@db/games"), is_postgres("games.sqlite3")
    (True, False)
    """
    return isinstance(database, str) and database.startswith(("postgresql://", "postgres://"))


@dataclass
class WebContext:
    """The settings ``create_app`` was given (see there), and the rooms while it runs."""

    static: StaticVersion
    db_path: str | Path | None
    store: GameStore | SQLiteStore | None
    synchronous: Literal["NORMAL", "FULL"]
    bot_delay: float
    seed: int | str | None
    bot_workers: int
    bot_processes: int
    rate: float
    burst: int
    hello_timeout: float
    limits: Limits = field(default_factory=Limits)
    relaxed_seconds: int = 180
    blitz_seconds: int = 30
    open_game_ttl: float = 3600.0
    #: Programs that declare themselves bots (``marrakech connect``): ``allow`` them on
    #: any seat, only on seats they were ``invited`` to (a link, not the lobby), or
    #: ``refuse`` them. Always shown as "bot (external)" where they play.
    external_bots: ExternalBots = "allow"

    #: Rated games an account must have played at a player count to be on its
    #: leaderboard.
    leaderboard_min_games: int = 5
    turn_scale: float = 1.0
    sweep_seconds: float = 10.0
    #: Seconds a store failing for a moment is tried again (--store-retry).
    store_retry: float = RETRY_SECONDS
    #: How passwords are hashed (None: Argon2id's defaults; tests pass cheaper ones).
    passwords: Passwords | None = None
    #: The reminders' settings (None: no ``--smtp-url``, no reminders), and what
    #: delivers them and tells the time (None: SMTP and the clock; tests pass others).
    mail: MailSettings | None = None
    mail_sender: Sender | None = None
    mail_clock: Callable[[], float] | None = None
    #: Web Push's settings (None: no ``--web-push``, no push notifications).
    push: PushSettings | None = None
    #: This instance's metrics (served by ``marrakech serve --metrics``).
    metrics: Metrics = field(default_factory=Metrics)
    #: Quick pairing's settings (None: the defaults).
    pool_settings: PoolSettings | None = None
    #: The schedule file's tournaments (--tournament-schedule), and the seconds
    #: between two ticks of the tournaments (tests shorten it).
    tournament_schedule: Sequence[Recurring] = ()
    tournament_tick: float = 1.0
    rooms: RoomManager | None = None
    _pools: Pools | None = None
    reminders: Reminders | None = None
    tournaments: Tournaments | None = None
    _accounts: Accounts | None = None
    _friendships: Friendships | None = None

    def __post_init__(self) -> None:
        limits = self.limits
        self.join_rates = ClientRates(limits.joins_per_minute, limits.join_burst)
        self.sockets = SocketCounts(limits.sockets_per_client)
        self.replay_rates = ClientRates(limits.replays_per_minute, limits.replay_burst)
        #: Finished games' replays and analyses, computed once.
        self.finished = FinishedCache()
        #: Addresses given per client (each sends a verification message).
        self.mail_rates = ClientRates(per_minute=2, burst=5)

    @property
    def static_dir(self) -> Path:
        return self.static.folder

    async def open(self) -> RoomManager:
        """Open the store (the SQLite file or the PostgreSQL database, unless a store
        was given) and its rooms."""
        store = self.store
        cluster: Cluster | None = None
        if store is None and is_postgres(self.db_path):
            from marrakech.web.postgres_cluster import PostgresCluster
            from marrakech.web.store.postgres import PostgresStore

            postgres = await PostgresStore.open(str(self.db_path))
            store, cluster = postgres, PostgresCluster(postgres)
        elif store is None:
            store = SQLiteStore(str(self.db_path), synchronous=self.synchronous)
        self.rooms = RoomManager(
            store,
            bot_delay=self.bot_delay,
            seed=self.seed,
            bot_workers=self.bot_workers,
            bot_processes=self.bot_processes,
            cluster=cluster,
            limits=self.limits,
            relaxed_seconds=self.relaxed_seconds,
            blitz_seconds=self.blitz_seconds,
            open_game_ttl=self.open_game_ttl,
            turn_scale=self.turn_scale,
            sweep_seconds=self.sweep_seconds,
            metrics=self.metrics,
            store_retry=self.store_retry,
        )
        self._accounts = Accounts(self.rooms.store, self.passwords)
        self._friendships = Friendships(self.rooms.store)
        self.rooms.account_usage = self._accounts.usage_of  # a rematch's caps per account
        if self.mail is not None or self.push is not None:
            self.reminders = self._open_reminders(self.rooms, self.mail)
        store = self.rooms.store

        async def blocks(account_ids: Sequence[str]) -> list[tuple[str, str]]:
            pairs = await blocked_pairs(store, account_ids)
            return [(one, other) for one, other in map(sorted, pairs)]

        self._pools = Pools(self.rooms, self.pool_settings, blocks=blocks)
        watch(self.metrics, self.rooms, self.reminders)
        self.metrics.gauge(
            "marrakech_pool_waiting",
            "Players waiting in each quick-pairing pool (every instance's)",
            self._pools.waiting_counts,
            label="pool",
        )
        from marrakech.web.tournaments.service import Tournaments

        self.tournaments = Tournaments(
            self.rooms.store,
            self.rooms,
            tick=self.tournament_tick,
            schedule=self.tournament_schedule,
        )
        devices = self.reminders.devices if self.reminders is not None else None
        if devices is not None:  # a game ready for a player whose pages are closed
            from marrakech.web.reminders import game_ready_push as ready

            self._pools.table_filled = partial(ready.queue_pool_game_push, devices)
            self.tournaments.first_game = partial(ready.queue_tournament_push, devices)
        return self.rooms

    def _open_reminders(self, rooms: RoomManager, mail: MailSettings | None) -> Reminders:
        """The reminders on the store, told of turns and visits by the rooms and of
        turns running out by the clocks' sweep; a seat's page is open if this
        instance's room of the game says so."""
        import time

        from marrakech.web.reminders.senders import SmtpSender
        from marrakech.web.reminders.service import Reminders

        def present(game_id: str, seat: int) -> bool:
            room = rooms.rooms.get(game_id)
            return room is not None and room.presence(seat) == "connected"

        reminders = Reminders(
            rooms.store,
            mail,
            self.mail_sender or (SmtpSender(mail.relay) if mail is not None else None),
            push=self.push,
            present=present,
            clock=self.mail_clock or time.time,
            instance=rooms.cluster.instance,
        )
        rooms.services.reminders.listener = reminders
        rooms.turn_events.subscribe(reminders.turn_event)  # "your time runs out soon"
        return reminders

    @property
    def accounts(self) -> Accounts:
        """The accounts (on the store: opened with it)."""
        if self._accounts is None:
            raise RuntimeError("the app has not started: its lifespan opens the store")
        return self._accounts

    @property
    def friendships(self) -> Friendships:
        """Follows, blocks and challenges (on the store: opened with it)."""
        if self._friendships is None:
            raise RuntimeError("the app has not started: its lifespan opens the store")
        return self._friendships

    @property
    def pools(self) -> Pools:
        """Quick pairing's pools (opened with the store)."""
        if self._pools is None:
            raise RuntimeError("the app has not started: its lifespan opens the store")
        return self._pools

    @property
    def manager(self) -> RoomManager:
        """The app's rooms (opened by the lifespan: use the app as a context manager)."""
        if self.rooms is None:
            raise RuntimeError("the app has not started: its lifespan opens the store")
        return self.rooms


def watch(metrics: Metrics, rooms: RoomManager, reminders: Reminders | None = None) -> None:
    """Have ``metrics`` read a server's live state at each scrape: its games, bots,
    store and outbox (:mod:`marrakech.web.metrics`)."""
    metrics.gauge(
        "marrakech_games_live",
        "Games with a room on this instance, by status",
        lambda: (
            dict.fromkeys(get_args(GameStatus), 0)
            | Tally(room.status for room in rooms.rooms.values())
        ),
        label="status",
    )
    bots = rooms.bots
    metrics.gauge(
        "marrakech_bot_queue",
        "Bot decisions and analyses on a worker (running) or waiting for one",
        lambda: {"running": bots.running, "waiting": bots.waiting},
        label="state",
    )
    metrics.gauge("marrakech_bot_workers", "Bot worker threads or processes", lambda: bots.slots)
    metrics.gauge(
        "marrakech_store_pool_connections",
        "The store's connections (PostgreSQL's pool; SQLite's one thread), by state",
        lambda: pool_connections(rooms),
        label="state",
    )
    metrics.gauge(
        "marrakech_store_pool_waiting",
        "Store calls waiting for a connection (PostgreSQL) or for the thread (SQLite)",
        lambda: pool_waiting(rooms),
    )
    if reminders is not None:
        metrics.gauge(
            "marrakech_reminders_outbox",
            "Reminders in the outbox by status (the whole database's: every instance "
            "on one database says the same)",
            reminders.outbox_counts,
            label="status",
        )


def _postgres_pool(rooms: RoomManager) -> Any:
    store = rooms.store
    inner = store.inner if isinstance(store, MeteredStore) else store
    return getattr(inner, "pool", None)


def pool_connections(rooms: RoomManager) -> dict[str, float]:
    """The store's connections busy and idle."""
    if rooms.store_worker is not None:
        busy = rooms.store_worker.busy
        return {"busy": busy, "idle": 1 - busy}
    pool = _postgres_pool(rooms)
    if pool is None:
        return {}
    stats = pool.get_stats()
    size, idle = stats.get("pool_size", 0), stats.get("pool_available", 0)
    return {"busy": size - idle, "idle": idle}


def pool_waiting(rooms: RoomManager) -> float:
    """Store calls waiting for a connection or for the SQLite thread."""
    if rooms.store_worker is not None:
        return rooms.store_worker.waiting
    pool = _postgres_pool(rooms)
    return 0 if pool is None else pool.get_stats().get("requests_waiting", 0)


def web_context(connection: HTTPConnection) -> WebContext:
    """The :class:`WebContext` of the app serving this request or WebSocket."""
    context: WebContext = connection.app.state.web
    return context


#: A route parameter typed ``Context`` receives the app's :class:`WebContext`.
Context = Annotated[WebContext, Depends(web_context)]
