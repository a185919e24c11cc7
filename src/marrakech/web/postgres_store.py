"""The game store on PostgreSQL: one database for any number of server instances.

``marrakech serve --db postgresql://USER@HOST/DB`` (or ``MARRAKECH_DB``) uses it; it
needs the ``postgres`` extra (psycopg 3 and its pool). It holds the same three tables as
the SQLite file, plus who owns each game's room (``games.owner``) and the instances'
heartbeats (``instances``, :mod:`marrakech.web.postgres_cluster`).

- **Asynchronous and pooled**: psycopg's ``AsyncConnectionPool``; no call blocks the
  event loop.
- **Group commit**: appends that arrive while one batch is being written go together
  in the next, in one transaction and one round trip (pipeline mode). Each append is one
  statement that changes nothing unless the game is at the expected version and this
  instance owns it, so one refused append never undoes the others; each caller hears
  back only once the transaction committed.
- **Notified at commit**: each append sends ``NOTIFY`` (in the same transaction) with
  the game, its new version and the actions, so followers relay exactly what was stored.
- **Schema created and migrated automatically**, under an advisory lock so instances
  starting together do it once (:data:`MIGRATIONS`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool

from marrakech.web.store import (
    GAME_COLUMNS,
    SEAT_COLUMNS,
    ActionRow,
    Append,
    GameStatus,
    SeatRow,
    StoreConflict,
    StoredGame,
    StoreError,
    Usage,
    extra_values,
    seat_row,
    seat_settings,
    seat_values,
    turn_values,
    with_extras,
)

log = logging.getLogger("marrakech.web")

#: The schema version this code writes; older databases are migrated on open.
SCHEMA_VERSION = 5
#: The channel every append is announced on (payload: :func:`notice`).
GAMES_CHANNEL = "marrakech_games"
#: Any number, the same for every instance: the lock of the schema's migrations.
MIGRATION_LOCK = 0x6D61726B

MIGRATIONS: dict[int, list[str]] = {
    1: [
        """
        CREATE TABLE games (
            id text PRIMARY KEY,
            created double precision NOT NULL,
            updated double precision NOT NULL,
            players smallint NOT NULL CHECK (players BETWEEN 2 AND 4),
            rules text NOT NULL,
            first_seat smallint NOT NULL,
            lang text NOT NULL,
            status text NOT NULL CHECK (status IN ('waiting', 'running', 'over')),
            version integer NOT NULL DEFAULT 0,
            bot_to_move boolean NOT NULL DEFAULT false,
            creator text NOT NULL DEFAULT '',
            bots smallint NOT NULL DEFAULT 0,
            owner text
        )
        """,
        "CREATE INDEX games_by_status ON games (status, created)",
        "CREATE INDEX games_with_bot_to_move ON games (id) WHERE bot_to_move",
        "CREATE INDEX games_unfinished ON games (updated) WHERE status <> 'over'",
        """
        CREATE TABLE seats (
            game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
            kind text NOT NULL CHECK (kind IN ('human', 'open', 'bot')),
            level text,
            name text NOT NULL DEFAULT '',
            token_hash text,
            PRIMARY KEY (game_id, seat)
        )
        """,
        """
        CREATE TABLE actions (
            game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            number integer NOT NULL,
            token text NOT NULL,
            seat smallint NOT NULL,
            at double precision NOT NULL,
            PRIMARY KEY (game_id, number)
        )
        """,
        """
        CREATE TABLE instances (
            id text PRIMARY KEY,
            started double precision NOT NULL,
            alive_until timestamptz NOT NULL
        )
        """,
    ],
    2: [
        # Issue #13: clocks, stand-ins, hosts, player turns, rematches, analyses.
        "ALTER TABLE games ADD COLUMN clock text NOT NULL DEFAULT 'none'",
        "ALTER TABLE games ADD COLUMN clock_seconds integer NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN stand_in_level text NOT NULL DEFAULT 'medium'",
        "ALTER TABLE games ADD COLUMN turns integer NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN rematch text",
        "ALTER TABLE games ADD COLUMN analysis text",
        "ALTER TABLE seats ADD COLUMN stand_in text",
        "ALTER TABLE seats ADD COLUMN host boolean NOT NULL DEFAULT false",
        "ALTER TABLE seats ADD COLUMN joined boolean NOT NULL DEFAULT false",
        # Older games: a turn per roll (each player turn rolls once).
        "UPDATE games SET turns = (SELECT count(*) FROM actions WHERE actions.game_id ="
        " games.id AND actions.token IN ('r1', 'r2', 'r3', 'r4'))",
        # Their host: the first human seat.
        "UPDATE seats SET host = true WHERE kind = 'human' AND seat = (SELECT min(s.seat)"
        " FROM seats s WHERE s.game_id = seats.game_id AND s.kind = 'human')",
    ],
    3: [
        # Hints: whether a game allows them (not the games created before: their players
        # did not agree to them), and how many each seat used.
        "ALTER TABLE games ADD COLUMN hints boolean NOT NULL DEFAULT false",
        "ALTER TABLE seats ADD COLUMN hints integer NOT NULL DEFAULT 0",
    ],
    4: [
        # The position (game version) of each seat's last counted hint, so a hint is
        # counted once per position even after a reload or on another instance.
        "ALTER TABLE seats ADD COLUMN hinted_at integer NOT NULL DEFAULT -1",
    ],
    5: [
        # The running turn's clock (seat, turn number, deadline), so that a restart or
        # another instance taking the game over keeps it.
        "ALTER TABLE games ADD COLUMN clock_seat integer NOT NULL DEFAULT -1",
        "ALTER TABLE games ADD COLUMN clock_turn integer NOT NULL DEFAULT -1",
        "ALTER TABLE games ADD COLUMN clock_deadline double precision NOT NULL DEFAULT 0",
        # Resignations waiting for the next decision (R22), a bit per seat.
        "ALTER TABLE games ADD COLUMN pending_resigns integer NOT NULL DEFAULT 0",
    ],
}

_GAME_COLUMNS = f"SELECT {GAME_COLUMNS}, owner FROM games"

#: One append: move the game on if it is at the version and this instance owns it,
#: insert the actions, and announce them; a row comes back only if it happened.
_APPEND = """
WITH moved AS (
    UPDATE games SET version = %(next)s, status = %(status)s, bot_to_move = %(bot)s,
        updated = %(now)s, turns = %(turns)s
    WHERE id = %(id)s AND version = %(version)s AND owner = %(owner)s
    RETURNING id
), added AS (
    INSERT INTO actions (game_id, number, token, seat, at)
    SELECT moved.id, %(version)s + a.i - 1, a.token, a.seat, %(now)s
    FROM moved, unnest(%(tokens)s::text[], %(seats)s::smallint[]) WITH ORDINALITY
        AS a (token, seat, i)
)
SELECT pg_notify(%(channel)s, %(notice)s) FROM moved
"""


def notice(game_id: str, version: int, owner: str | None, actions: Sequence[ActionRow]) -> str:
    """The ``NOTIFY`` payload of an append (the game id first, so that instances not
    following the game skip it without parsing).

    >>> notice("g1", 5, "i1", [ActionRow("r3", 0)])
    'g1 {"v":5,"o":"i1","a":[["r3",0]]}'
    """
    body = {"v": version, "o": owner, "a": [[row.token, row.seat] for row in actions]}
    return f"{game_id} {json.dumps(body, separators=(',', ':'))}"


class PostgresStore:
    """Games on PostgreSQL (see the module's docstring). Open it with :meth:`open`."""

    def __init__(self, pool: AsyncConnectionPool[AsyncConnection[TupleRow]], url: str) -> None:
        self.pool = pool
        self.url = url
        #: This instance's id: the owner it writes, the heartbeat it keeps.
        self.instance = secrets.token_hex(6)
        self._appends: list[tuple[Append, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_size: int = 2,
        max_size: int = 8,
        migrations: dict[int, list[str]] | None = None,
    ) -> PostgresStore:
        """Connect (a pool of ``min_size`` to ``max_size`` connections) and create or
        migrate the schema; :class:`StoreError` if the database cannot be used."""
        pool: AsyncConnectionPool[AsyncConnection[TupleRow]] = AsyncConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False, timeout=10.0
        )
        try:
            await pool.open(wait=True, timeout=10.0)
            store = cls(pool, url)
            await store._migrate(MIGRATIONS if migrations is None else migrations)
        except Exception as error:
            await pool.close()
            shown = url.split("@")[-1]  # never a password
            raise StoreError(f"cannot open the game store at {shown}: {error}") from None
        return store

    async def _migrate(self, migrations: dict[int, list[str]]) -> int:
        target = max(migrations)
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)"
            )
            row = await (await conn.execute("SELECT version FROM schema_version")).fetchone()
            current = 0 if row is None else int(row[0])
            if row is None:
                await conn.execute("INSERT INTO schema_version (version) VALUES (0)")
            if current > target:
                raise StoreError(
                    f"the database has schema version {current}, newer than this marrakech "
                    f"understands ({target}): upgrade marrakech"
                )
            for version in range(current + 1, target + 1):
                for statement in migrations[version]:
                    await conn.execute(statement)
                await conn.execute("UPDATE schema_version SET version = %s", (version,))
        self.schema_version = target
        return target

    # -- games --------------------------------------------------------------------------

    async def create_game(self, game: StoredGame) -> None:
        now = time.time()
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO games (id, created, updated, players, rules, first_seat, lang,"
                " status, version, bot_to_move, creator, bots, owner, clock, clock_seconds,"
                " stand_in_level, turns, rematch, analysis, hints, clock_seat, clock_turn,"
                " clock_deadline, pending_resigns) VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
                " %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    game.id,
                    game.created,
                    game.updated or now,
                    game.players,
                    game.rules,
                    game.first_seat,
                    game.lang,
                    game.status,
                    len(game.actions),
                    game.bot_to_move,
                    game.creator,
                    game.bots,
                    self.instance,
                    *extra_values(game),
                ),
            )
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    f"INSERT INTO seats (game_id, {SEAT_COLUMNS})"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    [(game.id, *seat_values(seat)) for seat in game.seats],
                )
                if game.actions:
                    await cursor.executemany(
                        "INSERT INTO actions (game_id, number, token, seat, at)"
                        " VALUES (%s, %s, %s, %s, %s)",
                        [
                            (game.id, number, row.token, row.seat, row.at or now)
                            for number, row in enumerate(game.actions)
                        ],
                    )

    async def load_game(self, game_id: str) -> StoredGame | None:
        async with self.pool.connection() as conn:
            # One snapshot for the game row and its actions: another instance may append
            # between the two reads (read committed would then see more actions than the
            # row's version).
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            row = await (
                await conn.execute(_GAME_COLUMNS + " WHERE id = %s", (game_id,))
            ).fetchone()
            if row is None:
                return None
            seats = await self._seats(conn, [game_id])
            actions = await self._actions(conn, game_id, 0)
        game = _game(row, seats[game_id])
        if len(actions) != game.version:
            raise StoreError(
                f"game {game_id} is damaged: {len(actions)} actions stored, version {game.version}"
            )
        return replace(game, actions=tuple(actions))

    async def load_actions(self, game_id: str, start: int) -> list[ActionRow]:
        async with self.pool.connection() as conn:
            return await self._actions(conn, game_id, start)

    async def owner_of(self, game_id: str) -> str | None:
        """The instance that owns the game's room (None: no one)."""
        async with self.pool.connection() as conn:
            cursor = await conn.execute("SELECT owner FROM games WHERE id = %s", (game_id,))
            row = await cursor.fetchone()
        return None if row is None else row[0]

    async def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
        turns: int = 0,
    ) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._appends.append(
            (Append(game_id, version, tuple(actions), status, bot_to_move, turns), future)
        )
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_appends())
        await future

    async def _write_appends(self) -> None:
        try:
            while self._appends:
                batch, self._appends = self._appends, []
                try:
                    outcomes = await self._append_batch([append for append, _ in batch])
                except Exception as error:
                    log.warning("a batch of %d appends failed: %s", len(batch), error)
                    outcomes = [await self._append_alone(append) for append, _ in batch]
                for (_, future), outcome in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if outcome is None:
                        future.set_result(None)
                    else:
                        future.set_exception(outcome)
        finally:
            self._writer = None

    async def _append_alone(self, append: Append) -> Exception | None:
        try:
            return (await self._append_batch([append]))[0]
        except Exception as error:
            return error

    async def _append_batch(self, appends: list[Append]) -> list[Exception | None]:
        """Write appends in one transaction and one round trip: each one's fault
        (:class:`StoreConflict`) or None."""
        now = time.time()
        async with self.pool.connection() as conn:
            async with conn.transaction(), conn.pipeline():
                cursors = [await conn.execute(_APPEND, self._params(a, now)) for a in appends]
            applied = [bool(await cursor.fetchall()) for cursor in cursors]
            outcomes: list[Exception | None] = []
            for append, done in zip(appends, applied, strict=True):
                outcomes.append(None if done else await self._conflict(conn, append))
        return outcomes

    def _params(self, append: Append, now: float) -> dict[str, Any]:
        version = append.version + len(append.actions)
        return {
            "id": append.game_id,
            "version": append.version,
            "next": version,
            "status": append.status,
            "bot": append.bot_to_move,
            "turns": append.turns,
            "now": now,
            "owner": self.instance,
            "tokens": [row.token for row in append.actions],
            "seats": [row.seat for row in append.actions],
            "channel": GAMES_CHANNEL,
            "notice": notice(append.game_id, version, self.instance, append.actions),
        }

    async def _conflict(self, conn: AsyncConnection[TupleRow], append: Append) -> Exception:
        cursor = await conn.execute(
            "SELECT version, owner FROM games WHERE id = %s", (append.game_id,)
        )
        row = await cursor.fetchone()
        if row is None:
            return StoreError(f"no game {append.game_id} in the store")
        version, owner = row
        if owner != self.instance:
            return StoreConflict(f"game {append.game_id} is owned by another instance now")
        return StoreConflict(
            f"game {append.game_id} is at version {version}, not {append.version}: "
            "another writer was first"
        )

    async def claim_seat(self, game_id: str, seat: int, token_hash: str, name: str) -> bool:
        async with self.pool.connection() as conn, conn.transaction():
            cursor = await conn.execute(
                "UPDATE seats SET kind = 'human', token_hash = %s, name = %s, joined = true,"
                " host = NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = seats.game_id"
                " AND s.host) WHERE game_id = %s AND seat = %s AND kind = 'open'",
                (token_hash, name, game_id, seat),
            )
            if cursor.rowcount != 1:
                return False
            await conn.execute(
                "UPDATE games SET updated = %s, status = CASE WHEN status = 'waiting'"
                " AND NOT EXISTS (SELECT 1 FROM seats WHERE game_id = %s AND kind = 'open')"
                " THEN 'running' ELSE status END WHERE id = %s",
                (time.time(), game_id, game_id),
            )
        return True

    async def update_seats(
        self, game_id: str, seats: Sequence[SeatRow], status: GameStatus, bot_to_move: bool
    ) -> None:
        async with self.pool.connection() as conn, conn.transaction():
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    "UPDATE seats SET kind = %s, level = %s, name = %s, token_hash = %s,"
                    " stand_in = %s, host = %s, joined = %s WHERE game_id = %s AND seat = %s",
                    [(*seat_settings(seat), game_id, seat.seat) for seat in seats],
                )
            await conn.execute(
                "UPDATE games SET status = %s, bot_to_move = %s, updated = %s,"
                " bots = (SELECT count(*) FROM seats WHERE game_id = %s AND kind = 'bot')"
                " WHERE id = %s",
                (status, bot_to_move, time.time(), game_id, game_id),
            )

    async def activate_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "UPDATE seats SET token_hash = %s WHERE game_id = %s AND seat = %s"
                " AND kind = 'human' AND token_hash IS NULL",
                (token_hash, game_id, seat),
            )
            return cursor.rowcount == 1

    async def set_rematch(self, game_id: str, rematch_id: str) -> str:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "UPDATE games SET rematch = coalesce(rematch, %s) WHERE id = %s RETURNING rematch",
                (rematch_id, game_id),
            )
            row = await cursor.fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in the store")
        return str(row[0])

    async def save_analysis(self, game_id: str, analysis: str) -> None:
        async with self.pool.connection() as conn:
            await conn.execute("UPDATE games SET analysis = %s WHERE id = %s", (analysis, game_id))

    async def save_turn_state(
        self,
        game_id: str,
        turn_clock: tuple[int, int, float] | None,
        pending_resigns: frozenset[int],
    ) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                "UPDATE games SET clock_seat = %s, clock_turn = %s, clock_deadline = %s,"
                " pending_resigns = %s WHERE id = %s",
                (*turn_values(turn_clock, pending_resigns), game_id),
            )

    async def count_hint(self, game_id: str, seat: int, version: int) -> int:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "UPDATE seats SET hints = hints + 1, hinted_at = %s WHERE game_id = %s"
                " AND seat = %s AND hinted_at <> %s RETURNING hints",
                (version, game_id, seat, version),
            )
            row = await cursor.fetchone()
            if row is None:  # counted for this position already, or no such seat
                cursor = await conn.execute(
                    "SELECT hints FROM seats WHERE game_id = %s AND seat = %s", (game_id, seat)
                )
                row = await cursor.fetchone()
        if row is None:
            raise StoreError(f"no seat {seat} of game {game_id} in the store")
        return int(row[0])

    async def summaries(self, game_ids: Sequence[str]) -> list[StoredGame]:
        ids = list(dict.fromkeys(game_ids))
        if not ids:
            return []
        async with self.pool.connection() as conn:
            cursor = await conn.execute(_GAME_COLUMNS + " WHERE id = ANY(%s)", (ids,))
            rows = await cursor.fetchall()
            seats = await self._seats(conn, [row[0] for row in rows])
        order = {game_id: i for i, game_id in enumerate(ids)}
        games = [_game(row, seats[row[0]]) for row in rows]
        return sorted(games, key=lambda g: order[g.id])

    async def open_games(self, limit: int, since: float = 0.0) -> list[StoredGame]:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                _GAME_COLUMNS + " WHERE status = 'waiting' AND updated >= %s"
                " ORDER BY created DESC LIMIT %s",
                (since, limit),
            )
            rows = await cursor.fetchall()
            seats = await self._seats(conn, [row[0] for row in rows])
        return [_game(row, seats[row[0]]) for row in rows]

    async def games_with_bot_to_move(self) -> list[str]:
        """Unfinished games waiting for a bot whose owner is not a living instance."""
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT g.id FROM games g WHERE g.bot_to_move AND g.status <> 'over' AND"
                " (g.owner IS NULL OR NOT EXISTS (SELECT 1 FROM instances i"
                " WHERE i.id = g.owner AND i.alive_until > now()))"
                " ORDER BY g.updated LIMIT 200"
            )
            return [row[0] for row in await cursor.fetchall()]

    async def usage(self, creator: str, since: float) -> Usage:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT count(*) FILTER (WHERE creator = %s),"
                " coalesce(sum(bots) FILTER (WHERE creator = %s), 0),"
                " count(*), coalesce(sum(bots), 0)"
                " FROM games WHERE status <> 'over' AND updated >= %s",
                (creator, creator, since),
            )
            row = await cursor.fetchone()
        assert row is not None
        return Usage(*(int(value) for value in row))

    async def close(self) -> None:
        await self.pool.close(timeout=3)

    # -- rows ---------------------------------------------------------------------------

    async def _seats(
        self, conn: AsyncConnection[TupleRow], game_ids: Sequence[str]
    ) -> dict[str, tuple[SeatRow, ...]]:
        found: dict[str, list[SeatRow]] = {game_id: [] for game_id in game_ids}
        cursor = await conn.execute(
            f"SELECT game_id, {SEAT_COLUMNS} FROM seats"
            " WHERE game_id = ANY(%s) ORDER BY game_id, seat",
            (list(game_ids),),
        )
        for game_id, *row in await cursor.fetchall():
            found[game_id].append(seat_row(row))
        return {game_id: tuple(rows) for game_id, rows in found.items()}

    async def _actions(
        self, conn: AsyncConnection[TupleRow], game_id: str, start: int
    ) -> list[ActionRow]:
        cursor = await conn.execute(
            "SELECT token, seat, at FROM actions WHERE game_id = %s AND number >= %s"
            " ORDER BY number",
            (game_id, start),
        )
        return [ActionRow(token, seat, at) for token, seat, at in await cursor.fetchall()]


def _game(row: tuple[Any, ...], seats: tuple[SeatRow, ...]) -> StoredGame:
    """A games row without its actions (a summary)."""
    game_id, created, updated, players, rules, first_seat, lang, status, version, bot = row[:10]
    game = StoredGame(
        id=game_id,
        players=players,
        rules=rules,
        first_seat=first_seat,
        lang=lang,
        seats=seats,
        status=status,
        created=created,
        updated=updated,
        bot_to_move=bot,
        version=version,
    )
    return with_extras(game, row[10:-1])  # the owner comes last
