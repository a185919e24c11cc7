"""Quick pairing (issue 37): the pools of players waiting for a game, one per site.

A player joins a pool (a clock, rated or casual) from the landing page's "Play now",
over the socket ``/pool/socket`` (:mod:`marrakech.web.routes.pool_socket`), asking for a
table size (2, 3, 4 or any) and whether bots may fill their table after the wait. The
wait is a row of ``pool_entries`` in the database, so a player waiting on one instance
is paired with one waiting on another:

- **Every instance**, every :attr:`PoolSettings.tick` seconds, says its sockets are
  still open (``seen``) and hands its players the tables formed for them (their game,
  seat and token), then deletes those rows. A socket closed leaves the pool (its row
  deleted); the rows of an instance that stopped saying so are deleted after
  :attr:`PoolSettings.stale` seconds.
- **One instance at a time runs the waves**: the holder of the pools' lease
  (``pool_lease``, taken as rooms' leases are: free, past its time or already its own,
  :attr:`PoolSettings.lease` seconds a time). Every :attr:`PoolSettings.wave` seconds,
  or at once when a full table of people can be made, it matches each pool's players
  (:func:`marrakech.web.pool_matching.match`), takes each table's rows, makes its
  game with the lobby's own code (:meth:`RoomManager.create`, and
  :meth:`RoomManager.join` for a rated game's other seats) and writes each player's
  seat into their row. A wave that leaves a player out counts a missed wave.

Bots fill the table of a player who waited :attr:`PoolSettings.bot_after` seconds (if
they accept bots): the strongest level their rating reaches at that size
(:func:`marrakech.web.ratings.plays_like`; the weakest for a newcomer), named so on the
page before they choose.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import random
import secrets
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from marrakech.web.budgets import Budgets, Rate
from marrakech.web.pool_matching import (
    Rules,
    Table,
    Waiting,
    fill_open_table,
    full_table,
    match,
)
from marrakech.web.protocol import LEVEL_PLAYERS, LEVELS, ApiError, CreateGame, SeatSpec
from marrakech.web.protocol.client import Lang, StrictModel
from marrakech.web.protocol.display_names import Name
from marrakech.web.ratings import START, Rating, bot_seeds, plays_like, shown
from marrakech.web.ratings.queries import RatingQueries
from marrakech.web.ratings.standings import rating_of
from marrakech.web.room_manager import RoomManager
from marrakech.web.store.pool_queries import ENTRY_WRITTEN, PoolQueries, pool_queries
from marrakech.web.store.schema import Dialects

log = logging.getLogger("marrakech.web")

#: The clocks a pool may have (the lobby's, but no clock at all: a pool's game is played
#: now, or turn by turn).
PoolClock = Literal["blitz", "relaxed", "turn_1h", "turn_12h", "turn_1d", "turn_3d"]


#: The name of a guest who hosts an open table without giving one (the lobby shows it).
GUEST_HOST = "Guest"


@dataclass(frozen=True)
class PoolSettings:
    """An operator's options (docs/web.md, "Quick pairing"): seconds between waves,
    between two looks at the pools, before bots fill a table (None: never), before the
    wait of a silent instance is dropped, and of the waves' lease; the joins' rate."""

    wave: float = 3.0
    tick: float = 0.5
    bot_after: float | None = 20.0
    stale: float = 10.0
    lease: float = 3.0
    #: Joining pools, per player (an account, or a guest's address): a few at once,
    #: then one every 15 s, so that leaving and joining again to pick an opponent does
    #: not pay.
    joins_per_minute: float = 4.0
    join_burst: int = 3
    #: Guests waiting at once from one address (one player each: a tab, a device).
    guests_per_address: int = 4

    @property
    def joins(self) -> Rate:
        return Rate("pool-join", per_minute=self.joins_per_minute, burst=self.join_burst)

    def __post_init__(self) -> None:
        for name in ("wave", "tick", "stale", "lease"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: expected seconds > 0, found {getattr(self, name)}")
        if self.bot_after is not None and self.bot_after < 0:
            raise ValueError(f"bot_after: expected seconds >= 0, found {self.bot_after}")


def add_pool_options(parser: argparse.ArgumentParser) -> None:
    """``marrakech serve``'s quick-pairing options (docs/web.md, "Quick pairing")."""
    pools = parser.add_argument_group("quick pairing", "the pools of Play now (docs/web.md)")
    pools.add_argument(
        "--pool-wave",
        default="3",
        metavar="SECONDS",
        help="seconds between two waves of a pool (3); a full table is made at once",
    )
    pools.add_argument(
        "--pool-bots-after",
        default="20",
        metavar="SECONDS",
        help="seconds before bots fill a waiting player's table, or 'never' (20)",
    )


def pool_settings(args: argparse.Namespace) -> PoolSettings:
    """The pools' settings of ``serve``'s options; a ValueError says what is wrong."""
    wave = _seconds("--pool-wave", args.pool_wave, "seconds above 0, under a day", 0.0, above=True)
    if args.pool_bots_after == "never":
        return PoolSettings(wave=wave, bot_after=None)
    expected = "seconds from 0, under a day, or 'never'"
    bots = _seconds("--pool-bots-after", args.pool_bots_after, expected, 0.0)
    return PoolSettings(wave=wave, bot_after=bots)


def _seconds(option: str, text: str, expected: str, lowest: float, above: bool = False) -> float:
    """``text`` as seconds from ``lowest`` (``above``: excluded) to a day."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (lowest < seconds if above else lowest <= seconds) or not seconds < 86400:
        raise ValueError(f"{option}: expected {expected}; found {text!r}")
    return seconds


class PoolJoin(StrictModel):
    """``{"type": "join", ...}``: the first message on ``/pool/socket``."""

    type: Literal["join"]
    players: Literal[2, 3, 4, "any"] = 2
    clock: PoolClock = "relaxed"
    rated: bool = False
    bots: bool = True
    name: Name = ""
    lang: Lang = "en"

    @property
    def pool(self) -> str:
        return pool_name(self.clock, self.rated)

    @property
    def sizes(self) -> tuple[int, ...]:
        return (2, 3, 4) if self.players == "any" else (self.players,)


def pool_name(clock: str, rated: bool) -> str:
    """A pool's name: its clock and whether it is rated (``relaxed:casual``)."""
    return f"{clock}:{'rated' if rated else 'casual'}"


class PoolRefused(Exception):
    """A join refused: ``code`` (``already_waiting``, ``sign_in_required``,
    ``rate_limited``, ``too_many_waiting``, ``banned``...) and what was expected."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Seated:
    """A table formed for a waiting player: their game, seat and its token; or, with
    ``refusal``, why its game could not be made (``code: message``)."""

    game_id: str
    seat: int
    token: str
    refusal: str | None = None


class PoolWaiting(StrictModel):
    """The server's answer to a join: the player waits (what the page shows)."""

    type: Literal["waiting"] = "waiting"
    pool: str
    rating: int
    #: The bots' level that fills the table after ``bot_after`` seconds (None: no bots).
    level: str | None
    bot_after: float | None
    sizes: list[int] = Field(default_factory=list)


#: Blocked pairs among accounts (another part of issue 37 builds blocking): given the
#: waiting accounts, the pairs of them that must not meet.
Blocks = Callable[[Sequence[str]], Awaitable[Iterable[tuple[str, str]]]]


class Pools:
    """The pools of a site, as one instance takes part in them (its sockets' waits, and
    the waves while it holds the lease)."""

    def __init__(
        self,
        manager: RoomManager,
        settings: PoolSettings | None = None,
        blocks: Blocks | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.manager = manager
        self.settings = settings or PoolSettings()
        self.blocks = blocks
        self.clock = clock
        self.store = manager.store
        dialect: Dialects = "postgresql" if self.store.dialect == "postgresql" else "sqlite"
        self.q: PoolQueries = pool_queries(dialect)
        self.ratings = RatingQueries(dialect)
        self.budgets = Budgets(self.store, clock)
        self.instance = manager.cluster.instance
        #: This instance's waits: ticket -> the future their table settles.
        self.waiters: dict[str, asyncio.Future[Seated]] = {}
        #: Tables formed by this instance's waves (since it started), and the CPU seconds
        #: its waves took (the pool benchmark reads both).
        self.tables = 0
        self.wave_cpu = 0.0
        self._task: asyncio.Task[None] | None = None
        #: Told when the pool's players were seated at an open table: its game, its
        #: host's seat (0) and the seats filled; the "game found" push of a host who
        #: left the page (:mod:`marrakech.web.reminders.game_ready_push`).
        self.table_filled: Callable[[str, int, list[int]], Awaitable[object]] | None = None

    def _step(self, statement: Any, **values: Any) -> tuple[str, dict[str, Any]]:
        return statement.sql, statement.params(values)

    # -- a player's wait ----------------------------------------------------------------

    async def join(
        self, spec: PoolJoin, address: str, account: tuple[str, str] | None
    ) -> tuple[str, PoolWaiting]:
        """Enter a pool: the wait's ticket and what the page shows. ``account``: the
        signed-in player's id and name (None: a guest, casual pools only). Refused
        (:class:`PoolRefused`) when already waiting, joining too often, or past the
        guests' cap of the address."""
        if spec.rated and account is None:
            raise PoolRefused(
                "sign_in_required", "rated pools are for signed-in accounts: sign in first"
            )
        ticket = secrets.token_urlsafe(12)
        player = f"account:{account[0]}" if account is not None else f"guest:{ticket}"
        who = "your account" if account is not None else "your address"
        try:
            await self.manager.check_address(address)
            key = player if account else address
            await self.budgets.check(self.settings.joins, key, "pool joins", who)
        except ApiError as error:
            raise PoolRefused(error.code, error.message) from None
        size = spec.sizes[0] if len(spec.sizes) == 1 else 2
        rating, level = await self._band(account[0] if account else None, size)
        now = self.clock()
        values = {
            "id": ticket,
            "pool": spec.pool,
            "sizes": " ".join(map(str, spec.sizes)),
            "player": player,
            "account_id": account[0] if account else None,
            "address": address,
            "name": account[1] if account else spec.name,
            "rating": float(rating),
            "level": level,
            "bots": spec.bots,
            "lang": spec.lang,
            "instance": self.instance,
            "joined": now,
            "seen": now,
        }
        count, inserted = await self.store.transact(
            [self._step(self.q.waiting_from, address=address), self._step(self.q.join, **values)]
        )
        if not inserted:
            raise PoolRefused(
                "already_waiting",
                "you are already waiting in a pool (another tab?): one pool at a time",
            )
        guests = self.settings.guests_per_address
        if account is None and int(next(iter(count[0].values()))) >= guests:
            await self.store.transact([self._step(self.q.forget, id=ticket)])
            raise PoolRefused(
                "too_many_waiting",
                f"{guests} guests already wait from your address: one pool a player",
            )
        self.waiters[ticket] = asyncio.get_running_loop().create_future()
        bots = spec.bots and self.settings.bot_after is not None
        return ticket, PoolWaiting(
            pool=spec.pool,
            rating=rating,
            level=level if bots else None,
            bot_after=self.settings.bot_after if bots else None,
            sizes=list(spec.sizes),
        )

    async def _band(self, account_id: str | None, size: int) -> tuple[int, str]:
        """A player's shown rating at ``size`` players (a newcomer's for a guest) and
        the strongest bot level it reaches there (the weakest below them all)."""
        steps = [self._step(self.ratings.bot_ratings)]
        if account_id is not None:
            steps.append(self._step(self.ratings.ratings_of, account_id=account_id))
        results = await self.store.transact(steps)
        mine = next((rating_of(r) for r in results[-1] if int(r["players"]) == size), None)
        rating: Rating = mine if account_id is not None and mine is not None else START
        stored = {r["player"]: rating_of(r) for r in results[0] if int(r["players"]) == size}
        seeds = bot_seeds(size)
        levels = [level for level in LEVELS if size in LEVEL_PLAYERS[level]]
        bots = {level: stored.get(level, seeds.get(level, START)) for level in levels}
        return shown(rating), plays_like(rating, bots) or levels[0]

    def wait(self, ticket: str) -> asyncio.Future[Seated]:
        """The future a wait's table settles (on this instance)."""
        return self.waiters[ticket]

    async def leave(self, ticket: str) -> None:
        """The player left (their socket closed): out of the pool, unless a table took
        them already."""
        self.waiters.pop(ticket, None)
        await self.store.transact([self._step(self.q.leave, id=ticket)])

    # -- every instance -----------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="pools")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.tick)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:  # the store is away: the next tick tries again
                log.exception("the pools' tick failed")

    async def tick(self) -> None:
        """Say this instance's sockets are open, hand their players the tables formed
        for them; then, holding the lease, run a wave if one is due."""
        now = self.clock()
        lease_values = {"instance": self.instance, "now": now, "until": now + self.settings.lease}
        _, formed, lease = await self.store.transact(
            [
                self._step(self.q.seen, instance=self.instance, now=now),
                self._step(self.q.formed, instance=self.instance),
                self._step(self.q.take_lease, **lease_values),
            ]
        )
        done = []
        for row in formed:
            done.append(self._step(self.q.forget, id=row["id"]))
            waiter = self.waiters.pop(row["id"], None)
            if waiter is not None and not waiter.done():
                seat = -1 if row["seat"] is None else int(row["seat"])
                waiter.set_result(Seated(row["game_id"], seat, row["token"] or "", row["refusal"]))
        if done:
            await self.store.transact(done)
        if lease and lease[0]["owner"] == self.instance:
            await self.wave(now, float(lease[0]["last_wave"]))

    # -- the lease's holder ---------------------------------------------------------------

    async def wave(self, now: float, last_wave: float) -> None:
        """Match every pool's players: a regular wave every :attr:`PoolSettings.wave`
        seconds (missed waves counted, bots for those who waited); between two, only the
        full tables of people that can be made at once."""
        _, rows = await self.store.transact(
            [
                self._step(self.q.stale, before=now - self.settings.stale),
                self._step(self.q.waiting),
            ]
        )
        regular = now - last_wave >= self.settings.wave
        by_pool: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            by_pool[row["pool"]].append(row)
        rules = Rules(bot_after=self.settings.bot_after)
        for pool, entries in by_pool.items():
            started = time.process_time()
            waiting = [
                Waiting(
                    row["id"],
                    float(row["rating"]),
                    int(row["misses"]),
                    now - float(row["joined"]),
                    frozenset(int(size) for size in row["sizes"].split()),
                    bool(row["bots"]),
                )
                for row in entries
            ]
            by_id = {row["id"]: row for row in entries}
            if pool.startswith("turn_"):  # the open tables first: their games wait
                waiting = await self._fill_open(pool, waiting, by_id)
            if not regular and not full_table(waiting):
                continue
            blocked = await self._blocked(entries)
            tables = match(waiting, rules, blocked)
            if not regular:
                tables = [table for table in tables if table.bots == 0]
            self.wave_cpu += time.process_time() - started
            for table in tables:
                await self._start(pool, table, by_id)
            if regular:
                await self.store.transact([self._step(self.q.missed, pool=pool)])
        if regular:
            await self.store.transact([self._step(self.q.waved, instance=self.instance, now=now)])

    async def _blocked(self, entries: list[dict[str, Any]]) -> list[frozenset[str]]:
        """The pairs of waits whose accounts blocked each other (:data:`Blocks`)."""
        if self.blocks is None:
            return []
        tickets: dict[str, list[str]] = defaultdict(list)
        for row in entries:
            if row["account_id"] is not None:
                tickets[row["account_id"]].append(row["id"])
        pairs = await self.blocks(sorted(tickets))
        return [
            frozenset((one, other))
            for a, b in pairs
            for one in tickets.get(a, ())
            for other in tickets.get(b, ())
        ]

    async def _start(self, pool: str, table: Table, rows: dict[str, dict[str, Any]]) -> None:
        """Take the table's rows, make its game, give each player their seat."""
        taken = await self.store.transact(
            [self._step(self.q.take, id=key) for key in table.players]
        )
        held = [key for key, result in zip(table.players, taken, strict=True) if result]
        if len(held) < len(table.players):  # someone left meanwhile: the others wait on
            await self.store.transact([self._step(self.q.let_go, id=key) for key in held])
            return
        people = [rows[key] for key in table.players]
        random.shuffle(people)
        clock, kind = pool.split(":")
        # A turn-based game is not played at once: its empty seats stay open to the
        # pool's next players until its host starts it (with bots) or they are taken.
        open_rest = table.bots > 0 and clock.startswith("turn_")
        try:
            seats = await self._game(people, table.bots, clock, kind == "rated", open_rest)
            if open_rest:
                await self._open_table(pool, people[0], table.size, seats[people[0]["id"]][0])
        except ApiError as error:
            refusal = f"{error.code}: {error.message}"
            seats = {row["id"]: ("-", -1, "", refusal) for row in people}
        self.tables += 1
        steps = [
            self._step(
                self.q.seat,
                id=key,
                new_game=game_id,
                new_seat=seat,
                new_token=token,
                new_refusal=refusal,
            )
            for key, (game_id, seat, token, refusal) in seats.items()
        ]
        await self.store.transact(steps)

    async def _game(
        self,
        people: list[dict[str, Any]],
        bots: int,
        clock: str,
        rated: bool,
        open_rest: bool = False,
    ) -> dict[str, tuple[str, int, str, str | None]]:
        """Make a table's game as the lobby does: the first person hosts it (a rated
        game's other people join its open seats, one person a seat at creation), bots
        of the host's level after them (``open_rest``: open seats instead, the host's
        bots' level the game's stand-in). Each wait's game, seat and token."""
        host = people[0]
        name = host["name"] or GUEST_HOST
        seat_specs = [SeatSpec(kind="human", name=name if open_rest else host["name"])]
        for row in people[1:]:
            seat_specs.append(SeatSpec(kind="open" if rated else "human", name=row["name"]))
        for _ in range(bots):
            seat_specs.append(
                SeatSpec(kind="open") if open_rest else SeatSpec(kind="bot", level=host["level"])
            )
        spec = CreateGame(
            players=len(seat_specs),
            seats=seat_specs,
            clock=clock,  # type: ignore[arg-type]  # a pool's clock is a game's
            rated=rated,
            lang=host["lang"],
            name=name if rated or open_rest else "",
            stand_in_level=host["level"],
        )
        room, tokens = await self.manager.create(spec, host["address"])
        seats: dict[str, tuple[str, int, str, str | None]] = {}
        for number, row in enumerate(people):
            token = tokens.get(number)
            if token is None:  # a rated game's open seat: joined now, as from the lobby
                token = await self.manager.join(room.game_id, number, row["name"])
            seats[row["id"]] = (room.game_id, number, token, None)
        return seats

    async def _open_table(self, pool: str, host: dict[str, Any], size: int, game_id: str) -> None:
        """Keep a turn-based table open to the pool's next players (:meth:`_fill_open`)."""
        values = {name: host[name] for name in ENTRY_WRITTEN}
        values |= {
            "id": f"table:{game_id}",
            "player": f"table:{game_id}",
            "sizes": str(size),
            "bots": False,
            "instance": "",
            "game_id": game_id,
        }
        await self.store.transact([self._step(self.q.add_table, **values)])

    async def _fill_open(
        self, pool: str, waiting: list[Waiting], rows: dict[str, dict[str, Any]]
    ) -> list[Waiting]:
        """Seat waiting players at the pool's open tables (turn-based games not yet
        started), nearest in rating first; a table whose game started, or that the
        lobby no longer shows (``open_game_ttl``), is closed. The players left waiting."""
        (tables,) = await self.store.transact([self._step(self.q.open_tables, pool=pool)])
        seated: set[str] = set()
        for table in tables:
            fresh = self.clock() - float(table["joined"]) < self.manager.open_game_ttl
            games = await self.store.summaries([table["game_id"]]) if fresh else []
            game = games[0] if games else None
            free = [] if game is None or game.status != "waiting" else game.seats
            open_seats = [seat.seat for seat in free if seat.kind == "open"]
            if not open_seats:
                await self.store.transact([self._step(self.q.forget, id=table["id"])])
                continue
            assert game is not None
            left = [player for player in waiting if player.key not in seated]
            chosen = fill_open_table(float(table["rating"]), game.players, len(open_seats), left)
            filled: list[int] = []
            for key, seat in zip(chosen, open_seats, strict=False):
                (taken,) = await self.store.transact([self._step(self.q.take, id=key)])
                if not taken:
                    continue
                try:
                    token = await self.manager.join(game.id, seat, rows[key]["name"])
                except (ApiError, KeyError):  # the seat went meanwhile: they wait on
                    await self.store.transact([self._step(self.q.let_go, id=key)])
                    continue
                seated.add(key)
                values = {"new_game": game.id, "new_seat": seat, "new_token": token}
                await self.store.transact(
                    [self._step(self.q.seat, id=key, new_refusal=None, **values)]
                )
                filled.append(seat)
            if filled and self.table_filled is not None:
                try:  # the host's game has players now; the seats stand if this fails
                    await self.table_filled(game.id, 0, filled)
                except Exception:
                    log.exception("could not tell the host of %s of its players", game.id)
        return [player for player in waiting if player.key not in seated]

    async def waiting_counts(self) -> dict[str, int]:
        """Players waiting in each pool, every instance's (the metrics' gauge)."""
        (rows,) = await self.store.transact([self._step(self.q.count)])
        return {row["pool"]: int(row["waiting"]) for row in rows}


__all__ = ["PoolJoin", "PoolRefused", "PoolSettings", "Pools", "Seated"]
