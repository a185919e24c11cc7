"""The game store on PostgreSQL: one database for any number of server instances.

``marrakech serve --db postgresql://USER@HOST/DB`` (or ``MARRAKECH_DB``) uses it; it
needs the ``postgres`` extra (psycopg 3 and its pool). It holds the tables of the SQLite
file (one declaration, :mod:`marrakech.web.store.schema`), and alone uses two of them: who owns
each game's room (``games.owner``) and the instances' heartbeats (``instances``,
:mod:`marrakech.web.postgres_cluster`).

- **Asynchronous and pooled**: psycopg's ``AsyncConnectionPool``; no call blocks the
  event loop.
- **Group commit**: appends that arrive while one batch is being written go together
  in the next, in one transaction and one round trip (pipeline mode): the appends of
  distinct games in one statement for all, any other (a game's second) the same
  statement as a group of one after it. An append
  changes nothing unless the game is at the expected version and this instance owns
  it, so one refused append never undoes the others; each caller hears back only once
  the transaction committed.
- **Notified at commit**: each append sends ``NOTIFY`` (in the same transaction) with
  the game, its new version and the actions, so followers relay exactly what was stored.
- **Schema created and migrated automatically** (:func:`marrakech.web.store.migrations.upgrade`,
  the same declaration and migrations as SQLite's), under an advisory lock so instances
  starting together do it once.
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

from psycopg import AsyncConnection, IntegrityError
from psycopg.rows import DictRow, TupleRow, dict_row
from psycopg_pool import AsyncConnectionPool

from marrakech.web.ratings.queries import RatingQueries
from marrakech.web.ratings.standings import end_game_async
from marrakech.web.store import (
    ActionRow,
    Append,
    BanKind,
    ChatDecision,
    ChatDecisionKind,
    ChatReport,
    ChatRow,
    GameEnd,
    GameStatus,
    Reporter,
    SeatRow,
    Step,
    StoreConflict,
    StoredGame,
    StoreError,
    Usage,
    group_appends,
)
from marrakech.web.store.chat_queries import ChatQueries
from marrakech.web.store.migrations import MIGRATION_LOCK, upgrade
from marrakech.web.store.queries import Queries
from marrakech.web.store.retry import transient
from marrakech.web.store.schema import (
    game_fields,
    game_values,
    seat_row,
    seat_values,
    turn_values,
)

log = logging.getLogger("marrakech.web")

#: The channel every append is announced on (payload: :func:`notice`).
GAMES_CHANNEL = "marrakech_games"
__all__ = ["GAMES_CHANNEL", "MIGRATION_LOCK", "PostgresStore", "notice"]

#: The statements, compiled for psycopg (``%(name)s`` parameters). ``Q.append_many``
#: moves games on if each is at its version and this instance owns it, inserts their
#: actions and announces them, in one statement: a game's id comes back only if it
#: happened (one game's append is a group of one).
Q = Queries("postgresql")
CQ = ChatQueries("postgresql")
RQ = RatingQueries("postgresql")


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

    dialect = "postgresql"

    def __init__(self, pool: AsyncConnectionPool[AsyncConnection[TupleRow]], url: str) -> None:
        self.pool = pool
        self.url = url
        #: This instance's id: the owner it writes, the heartbeat it keeps.
        self.instance = secrets.token_hex(6)
        self._appends: list[tuple[Append, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        #: The schema's revision (:mod:`marrakech.web.store.migrations`) once open.
        self.schema_revision = ""

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_size: int = 2,
        max_size: int = 8,
        revision: str = "head",
    ) -> PostgresStore:
        """Connect (a pool of ``min_size`` to ``max_size`` connections) and create or
        migrate the schema (to ``revision``: tests); :class:`StoreError` if the database
        cannot be used."""
        pool: AsyncConnectionPool[AsyncConnection[TupleRow]] = AsyncConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False, timeout=10.0
        )
        try:
            await pool.open(wait=True, timeout=10.0)
            store = cls(pool, url)
            store.schema_revision = await asyncio.to_thread(_migrate, url, revision)
        except Exception as error:
            await pool.close()
            if isinstance(error, StoreError):
                raise
            shown = url.split("@")[-1]  # never a password
            raise StoreError(f"cannot open the game store at {shown}: {error}") from None
        return store

    # -- games --------------------------------------------------------------------------

    async def create_game(self, game: StoredGame) -> None:
        now = time.time()
        values = game_values(game)
        values.update(version=len(game.actions), updated=game.updated or now, owner=self.instance)
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute(Q.insert_game.sql, values)
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    Q.insert_seat.sql,
                    [{"game_id": game.id, **seat_values(seat)} for seat in game.seats],
                )
                if game.actions:
                    await cursor.executemany(
                        Q.insert_action.sql,
                        [
                            {
                                "game_id": game.id,
                                "number": number,
                                "token": row.token,
                                "seat": row.seat,
                                "at": row.at or now,
                            }
                            for number, row in enumerate(game.actions)
                        ],
                    )

    async def load_game(self, game_id: str) -> StoredGame | None:
        async with self.pool.connection() as conn:
            # One snapshot for the game row and its actions: another instance may append
            # between the two reads (read committed would then see more actions than the
            # row's version).
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            row = await _one(conn, Q.game.sql, {"game_id": game_id})
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
            row = await _one(conn, Q.version.sql, {"game_id": game_id})
        return None if row is None else row["owner"]

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
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        append = Append(game_id, version, tuple(actions), status, bot_to_move, turns, end)
        self._appends.append((append, future))
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
                    if transient(error):
                        # The database went away (maybe during the commit): each caller
                        # tries again, after checking whether its append landed
                        # (marrakech.web.store.retry). Trying each alone now would
                        # take a landed append for another writer's.
                        outcomes = [error] * len(batch)
                    else:  # one bad append: the others go in without it
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
        (:class:`StoreConflict`) or None. The appends of distinct games go in one
        statement for all (``Q.append_many``), the others (a game's second append) the
        same statement each after it, in their order
        (:func:`~marrakech.web.store.group_appends`); an append that ends a game goes
        last, in a transaction of its own with its places and ratings
        (:func:`end_game_async`)."""
        together, alone = group_appends(appends)
        ends = [i for i in alone if appends[i].end is not None]
        alone = [i for i in alone if appends[i].end is None]
        outcomes: list[Exception | None] = [None] * len(appends)
        if together or alone:
            now = time.time()
            async with self.pool.connection() as conn:
                async with conn.transaction(), conn.pipeline():
                    groups = ([together] if together else []) + [[i] for i in alone]
                    cursors = [
                        await conn.execute(
                            Q.append_many.sql, self._params([appends[i] for i in group], now)
                        )
                        for group in groups
                    ]
                applied: dict[int, bool] = {}
                for group, cursor in zip(groups, cursors, strict=True):
                    moved = {row[0] for row in await cursor.fetchall()}
                    applied.update((i, appends[i].game_id in moved) for i in group)
                for i in sorted(applied):
                    if not applied[i]:
                        outcomes[i] = await self._conflict(conn, appends[i])
        for i in ends:
            outcomes[i] = await self._append_end(appends[i])
        return outcomes

    async def _append_end(self, append: Append) -> Exception | None:
        """The append that ends a game, then its places and ratings, in one transaction
        (the ratings' rows locked until it commits): all of it or nothing."""
        assert append.end is not None
        now = time.time()
        async with self.pool.connection() as conn:
            try:
                async with conn.transaction():
                    if not await _all(conn, Q.append_many.sql, self._params([append], now)):
                        raise _NotApplied
                    await end_game_async(
                        RQ,
                        lambda sql, params: _rows(conn, sql, params),
                        append.game_id,
                        append.end,
                        now,
                    )
            except _NotApplied:
                return await self._conflict(conn, append)
        return None

    def _params(self, appends: list[Append], now: float) -> dict[str, Any]:
        """``Q.append_many``'s parameters: appends of distinct games."""
        nexts = [a.version + len(a.actions) for a in appends]
        rows = [(a.game_id, a.version + i, row) for a in appends for i, row in enumerate(a.actions)]
        return Q.append_many.params(
            {
                "ids": [a.game_id for a in appends],
                "at_versions": [a.version for a in appends],
                "nexts": nexts,
                "statuses": [a.status for a in appends],
                "bots": [a.bot_to_move for a in appends],
                "turns": [a.turns for a in appends],
                "notices": [
                    notice(a.game_id, version, self.instance, a.actions)
                    for a, version in zip(appends, nexts, strict=True)
                ],
                "row_games": [game_id for game_id, _, _ in rows],
                "numbers": [number for _, number, _ in rows],
                "tokens": [row.token for _, _, row in rows],
                "seats": [row.seat for _, _, row in rows],
                "now": now,
                "instance": self.instance,
                "channel": GAMES_CHANNEL,
            }
        )

    async def _conflict(self, conn: AsyncConnection[TupleRow], append: Append) -> Exception:
        row = await _one(conn, Q.version.sql, {"game_id": append.game_id})
        if row is None:
            return StoreError(f"no game {append.game_id} in the store")
        if row["owner"] != self.instance:
            return StoreConflict(f"game {append.game_id} is owned by another instance now")
        return StoreConflict(
            f"game {append.game_id} is at version {row['version']}, not {append.version}: "
            "another writer was first"
        )

    async def claim_seat(self, game_id: str, seat: int, token_hash: str, name: str) -> bool:
        params = {"game_id": game_id, "at_seat": seat, "new_token_hash": token_hash}
        async with self.pool.connection() as conn, conn.transaction():
            cursor = await conn.execute(
                Q.claim_seat.sql, Q.claim_seat.params({**params, "new_name": name})
            )
            if cursor.rowcount != 1:
                return False
            await conn.execute(
                Q.claimed.sql, Q.claimed.params({"game_id": game_id, "now": time.time()})
            )
        return True

    async def update_seats(
        self, game_id: str, seats: Sequence[SeatRow], status: GameStatus, bot_to_move: bool
    ) -> None:
        async with self.pool.connection() as conn, conn.transaction():
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    Q.update_seat.sql, [Q.seat_settings(game_id, seat) for seat in seats]
                )
            await conn.execute(
                Q.seats_changed.sql,
                Q.seats_changed.params(
                    {
                        "game_id": game_id,
                        "new_status": status,
                        "bot": bot_to_move,
                        "now": time.time(),
                    }
                ),
            )

    async def activate_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        params = {"game_id": game_id, "at_seat": seat, "new_token_hash": token_hash}
        async with self.pool.connection() as conn:
            cursor = await conn.execute(Q.activate_seat.sql, Q.activate_seat.params(params))
            return cursor.rowcount == 1

    async def set_rematch(self, game_id: str, rematch_id: str) -> str:
        async with self.pool.connection() as conn:
            row = await _one(
                conn, Q.set_rematch.sql, {"game_id": game_id, "new_rematch": rematch_id}
            )
        if row is None:
            raise StoreError(f"no game {game_id} in the store")
        return str(row["rematch"])

    async def save_analysis(self, game_id: str, analysis: str) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(Q.save_analysis.sql, {"game_id": game_id, "new_analysis": analysis})

    async def save_turn_state(
        self,
        game_id: str,
        turn_clock: tuple[int, int, float] | None,
        pending_resigns: frozenset[int],
    ) -> None:
        values = turn_values(turn_clock, pending_resigns)
        params = {"game_id": game_id, **{"new_" + k: v for k, v in values.items()}}
        async with self.pool.connection() as conn:
            await conn.execute(Q.save_turn_state.sql, params)

    async def count_hint(self, game_id: str, seat: int, version: int) -> int:
        params = {"game_id": game_id, "at_seat": seat, "at_version": version}
        async with self.pool.connection() as conn:
            row = await _one(conn, Q.count_hint.sql, Q.count_hint.params(params))
            if row is None:  # counted for this position already, or no such seat
                row = await _one(conn, Q.hints.sql, params)
        if row is None:
            raise StoreError(f"no seat {seat} of game {game_id} in the store")
        return int(row["hints"])

    async def summaries(self, game_ids: Sequence[str]) -> list[StoredGame]:
        ids = list(dict.fromkeys(game_ids))
        if not ids:
            return []
        async with self.pool.connection() as conn:
            rows = await _all(conn, Q.games.sql, {"ids": Q.ids(ids)})
            seats = await self._seats(conn, [row["id"] for row in rows])
        order = {game_id: i for i, game_id in enumerate(ids)}
        games = [_game(row, seats[row["id"]]) for row in rows]
        return sorted(games, key=lambda g: order[g.id])

    async def open_games(self, limit: int, since: float = 0.0) -> list[StoredGame]:
        async with self.pool.connection() as conn:
            rows = await _all(
                conn, Q.open_games.sql, Q.open_games.params({"since": since, "limit": limit})
            )
            seats = await self._seats(conn, [row["id"] for row in rows])
        return [_game(row, seats[row["id"]]) for row in rows]

    async def games_to_resume(self) -> list[str]:
        """Unfinished games waiting for a bot or a player's clock whose owner is not a
        living instance."""
        async with self.pool.connection() as conn:
            rows = await _all(conn, Q.games_to_resume.sql, Q.games_to_resume.params({}))
        return [row["id"] for row in rows]

    async def usage(self, creator: str, since: float) -> Usage:
        async with self.pool.connection() as conn:
            row = await _one(
                conn, Q.usage.sql, Q.usage.params({"creator": creator, "since": since})
            )
        assert row is not None
        return Q.usage_of(row)

    # -- chat (issue 24) ----------------------------------------------------------------

    async def add_chat(self, row: ChatRow) -> ChatRow:
        params = CQ.insert_chat.params(CQ.chat_values(row, time.time()))
        async with self.pool.connection() as conn:
            found = await _one(conn, CQ.insert_chat.sql, params)
        assert found is not None
        return replace(row, id=int(found["id"]), at=params["at"])

    async def load_chat(self, game_id: str, limit: int) -> list[ChatRow]:
        params = CQ.chat_lines.params({"game_id": game_id, "limit": limit})
        async with self.pool.connection() as conn:
            rows = await _all(conn, CQ.chat_lines.sql, params)
            reports = []
            if any(row["reports"] for row in rows):  # most games: no report, no read
                first = {"game_id": game_id, "first": rows[-1]["id"]}
                reports = await _all(conn, CQ.chat_reporters.sql, first)
        return CQ.with_reporters(rows, reports)

    async def report_chat(self, game_id: str, line_id: int, reporter: Reporter) -> ChatRow | None:
        params = CQ.report_values(line_id, reporter, time.time())
        async with self.pool.connection() as conn, conn.transaction():
            line = await _line(conn, line_id, lock=True)
            if line is None or line.game_id != game_id:
                return None
            await conn.execute(CQ.add_report.sql, params)
            await conn.execute(CQ.count_reports.sql, params)
            if CQ.holds(await _all(conn, CQ.line_reports.sql, params)):
                await conn.execute(CQ.hold_chat.sql, CQ.hold_chat.params(params))
            return await _line(conn, line_id)

    async def chat_line(self, line_id: int) -> ChatRow | None:
        async with self.pool.connection() as conn:
            return await _line(conn, line_id)

    async def decide_chat(
        self, game_id: str, line_id: int, decision: ChatDecisionKind
    ) -> ChatDecision | None:
        params: dict[str, Any] = {"game_id": game_id, "line_id": line_id, "decision": decision}
        decide = CQ.hide_chat if decision == "hidden" else CQ.dismiss_chat
        async with self.pool.connection() as conn, conn.transaction():
            line = await _line(conn, line_id, lock=True)
            if line is None or line.game_id != game_id:
                return None
            await conn.execute(decide.sql, decide.params(params))
            params["now"] = time.time()
            found = await _one(conn, CQ.add_decision.sql, params)
        assert found is not None
        return ChatDecision(int(found["id"]), game_id, line_id, decision)

    async def chat_decisions(self, after: int | None) -> list[ChatDecision]:
        async with self.pool.connection() as conn:
            if after is None:
                rows = await _all(conn, CQ.last_decision.sql, CQ.last_decision.params({}))
            else:
                params = CQ.decisions_after.params({"after": after})
                rows = await _all(conn, CQ.decisions_after.sql, params)
        return [CQ.decision(row) for row in rows]

    async def chat_reports(self, limit: int) -> list[ChatReport]:
        async with self.pool.connection() as conn:
            rows = await _all(conn, CQ.chat_reports.sql, CQ.chat_reports.params({"limit": limit}))
        return CQ.reports_of(rows)

    async def ban(self, kind: BanKind, value: str, reason: str) -> None:
        params = {"kind": kind, "value": value, "now": time.time(), "reason": reason}
        async with self.pool.connection() as conn:
            await conn.execute(CQ.ban.sql, params)

    async def unban(self, kind: BanKind, value: str) -> bool:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(CQ.unban.sql, {"kind": kind, "value": value})
            return cursor.rowcount == 1

    async def is_banned(self, kind: BanKind, value: str) -> bool:
        async with self.pool.connection() as conn:
            row = await _one(conn, CQ.banned.sql, {"kind": kind, "value": value})
        return row is not None

    async def transact(self, steps: Sequence[Step]) -> list[list[dict[str, Any]]]:
        found: list[list[dict[str, Any]]] = []
        try:
            async with self.pool.connection() as conn, conn.transaction():
                for sql, params in steps:
                    async with conn.cursor(row_factory=dict_row) as cursor:
                        await cursor.execute(sql, params)
                        rows = await cursor.fetchall() if cursor.description else []
                    found.append([dict(row) for row in rows])
        except IntegrityError as error:
            raise StoreConflict(f"refused by the store: {error}".split("\n")[0]) from None
        return found

    async def close(self) -> None:
        await self.pool.close(timeout=3)

    # -- rows ---------------------------------------------------------------------------

    async def _seats(
        self, conn: AsyncConnection[TupleRow], game_ids: Sequence[str]
    ) -> dict[str, tuple[SeatRow, ...]]:
        found: dict[str, list[SeatRow]] = {game_id: [] for game_id in game_ids}
        for row in await _all(conn, Q.seats.sql, {"ids": Q.ids(game_ids)}):
            found[row["game_id"]].append(seat_row(row))
        return {game_id: tuple(rows) for game_id, rows in found.items()}

    async def _actions(
        self, conn: AsyncConnection[TupleRow], game_id: str, start: int
    ) -> list[ActionRow]:
        rows = await _all(conn, Q.actions.sql, {"game_id": game_id, "start": start})
        return [ActionRow(row["token"], row["seat"], row["at"]) for row in rows]


class _NotApplied(Exception):
    """The append changed nothing (rolls its transaction back)."""


async def _all(conn: AsyncConnection[TupleRow], sql: str, params: dict[str, Any]) -> list[DictRow]:
    """The rows of a query, by column name."""
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(sql, params)
        return await cursor.fetchall()


async def _rows(
    conn: AsyncConnection[TupleRow], sql: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    """The rows of any statement, by column name (none for one without any)."""
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(sql, params)
        return [dict(row) for row in await cursor.fetchall()] if cursor.description else []


async def _line(
    conn: AsyncConnection[TupleRow], line_id: int, lock: bool = False
) -> ChatRow | None:
    """A chat line by id with its reporters (``lock``: until the transaction ends)."""
    params = {"line_id": line_id}
    row = await _one(conn, (CQ.lock_chat_line if lock else CQ.chat_line).sql, params)
    if row is None:
        return None
    reports = await _all(conn, CQ.line_reports.sql, params)
    return CQ.chat_row(row, [report["reporter"] for report in reports])


async def _one(conn: AsyncConnection[TupleRow], sql: str, params: dict[str, Any]) -> DictRow | None:
    """The first row of a query (or None), by column name."""
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(sql, params)
        return await cursor.fetchone()


def _migrate(url: str, revision: str) -> str:
    """Create or migrate the schema (in a thread: SQLAlchemy runs psycopg's blocking
    connection), in one transaction under the migrations' advisory lock."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    engine = create_engine(make_url(url).set(drivername="postgresql+psycopg"), poolclass=NullPool)
    try:
        with engine.begin() as connection:
            return upgrade(connection, revision)
    finally:
        engine.dispose()


def _game(row: DictRow, seats: tuple[SeatRow, ...]) -> StoredGame:
    """A games row (read by name) without its actions: a summary."""
    return StoredGame(seats=seats, **game_fields(row))
