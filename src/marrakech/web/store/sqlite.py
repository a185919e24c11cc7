"""The default game store: one SQLite file in WAL mode, its schema created and migrated
automatically (:func:`marrakech.web.store.migrations.upgrade`)::

    >>> from marrakech.web.store import hash_token
    >>> store = SQLiteStore(":memory:")
    >>> game = StoredGame("g1", players=3, rules="standard", first_seat=0, lang="en",
    ...                   seats=(SeatRow(0, "human", token_hash=hash_token("t0")),
    ...                          SeatRow(1, "bot", level="easy"), SeatRow(2, "open")))
    >>> store.create_game(game)
    >>> store.append_actions("g1", 0, [ActionRow("L", 0), ActionRow("r3", 0)], "waiting", False)
    >>> loaded = store.load_game("g1")
    >>> loaded.version, [a.token for a in loaded.actions], loaded.status
    (2, ['L', 'r3'], 'waiting')
    >>> store.append_actions("g1", 0, [ActionRow("R", 0)], "waiting", False)
    Traceback (most recent call last):
    ...
    marrakech.web.store.StoreConflict: game g1 is at version 2, not 0: another writer was first
    >>> store.close()

The statements come compiled from :mod:`marrakech.web.store.queries`; the rows are read by
column name (:class:`sqlite3.Row`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from marrakech.web.ratings.queries import RatingQueries
from marrakech.web.ratings.standings import end_game
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
from marrakech.web.store.migrations import upgrade
from marrakech.web.store.queries import Queries
from marrakech.web.store.schema import (
    game_fields,
    game_values,
    seat_row,
    seat_values,
    turn_values,
)

#: SQLite's page cache of the connection, in KiB (its default is 2,000). The file's
#: pages stay in the operating system's cache anyway, so a bigger cache saves only a
#: read call per page: the server keeps 1.7 MB less resident this way, a sixth of a
#: kilobyte per idle turn-based game at 10,000 games (benchmarks/load_turn_based.py).
CACHE_KIB = 256

#: Seconds a statement waits for another program's lock on the file (a backup, an
#: operator's sqlite3 shell) before the store gives up with ``database is locked``;
#: the server then answers ``server_error`` and nothing changed. Read when a store
#: opens (tests shorten it).
BUSY_SECONDS = 10.0

#: The statements, compiled for SQLite (named parameters).
Q = Queries("sqlite")
CQ = ChatQueries("sqlite")
RQ = RatingQueries("sqlite")


class SQLiteStore:
    """The default store: one SQLite file, WAL mode, schema migrated on open.

    Its methods block (they are :class:`~marrakech.web.store.GameStore`'s, but plain
    functions): the server runs them in the store's thread
    (:class:`~marrakech.web.store.worker.StoreWorker`), tests may call them directly.

    ``synchronous`` is SQLite's durability setting: ``"NORMAL"`` (the default in WAL
    mode) never loses a committed action when the server process dies; ``"FULL"`` also
    survives a power cut, at the cost of one disk flush per action. ``revision`` is the
    schema revision to migrate to (tests; the newest by default).
    """

    dialect = "sqlite"

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        revision: str = "head",
    ) -> None:
        self.path = str(path)
        if synchronous not in ("NORMAL", "FULL"):
            raise StoreError(f"synchronous: expected NORMAL or FULL, found {synchronous!r}")
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            # Autocommit mode: transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_SECONDS
            )
            self._db.execute(f"PRAGMA busy_timeout = {round(BUSY_SECONDS * 1000)}")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            self.journal_mode = str(mode).lower()
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the game store {self.path}: {error}") from None
        # One connection shared by the server's store thread and by tests; the lock keeps
        # each method's transaction whole even if two threads call in.
        self._lock = threading.Lock()
        with self._lock:
            self.schema_revision = self._migrate(revision)
            # After the migrations: with foreign keys on, a table rebuilt by a migration
            # (SQLite's ALTER) would take its rows' seats and actions with it.
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.row_factory = sqlite3.Row

    # -- schema ---------------------------------------------------------------------

    def _migrate(self, revision: str) -> str:
        """Run the migrations on this connection in one ``BEGIN IMMEDIATE`` transaction
        (another process opening the file waits; a failed step changes nothing)."""
        from sqlalchemy import create_engine, event
        from sqlalchemy.pool import StaticPool

        engine = create_engine("sqlite://", creator=lambda: self._db, poolclass=StaticPool)

        @event.listens_for(engine, "begin")
        def begin(connection: Any) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        try:
            with engine.connect() as connection, connection.begin():
                return upgrade(connection, revision)
        except StoreError:
            raise
        except Exception as error:
            if "file is not a database" in str(error):
                raise StoreError(f"cannot open the game store {self.path}: {error}") from None
            raise

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # -- games ----------------------------------------------------------------------

    def create_game(self, game: StoredGame) -> None:
        now = time.time()
        values = game_values(game)
        values.update(version=len(game.actions), updated=game.updated or now, owner=None)
        with self._lock, self._transaction():
            self._db.execute(Q.insert_game.sql, values)
            self._db.executemany(
                Q.insert_seat.sql,
                [{"game_id": game.id, **seat_values(seat)} for seat in game.seats],
            )
            self._insert_actions(game.id, 0, game.actions, now)

    def _insert_actions(
        self, game_id: str, start: int, actions: Iterable[ActionRow], now: float
    ) -> None:
        self._db.executemany(
            Q.insert_action.sql,
            [
                {
                    "game_id": game_id,
                    "number": start + i,
                    "token": a.token,
                    "seat": a.seat,
                    "at": a.at or now,
                }
                for i, a in enumerate(actions)
            ],
        )

    def load_game(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._db.execute(Q.game.sql, {"game_id": game_id}).fetchone()
            if row is None:
                return None
            seats = self._seats([game_id])[game_id]
            actions = self._actions(game_id, 0)
        game = _game(row, seats)
        if len(actions) != game.version:
            raise StoreError(
                f"game {game_id} is damaged: {len(actions)} actions stored, version {game.version}"
            )
        return replace(game, actions=tuple(actions))

    def load_actions(self, game_id: str, start: int) -> list[ActionRow]:
        with self._lock:
            return self._actions(game_id, start)

    def _actions(self, game_id: str, start: int) -> list[ActionRow]:
        rows = self._db.execute(Q.actions.sql, {"game_id": game_id, "start": start})
        return [ActionRow(row["token"], row["seat"], row["at"]) for row in rows]

    def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
        turns: int = 0,
        end: GameEnd | None = None,
    ) -> None:
        with self._lock, self._transaction():
            self._append(Append(game_id, version, tuple(actions), status, bot_to_move, turns, end))

    def append_batch(self, appends: Sequence[Append]) -> list[Exception | None]:
        """Several appends (of any games) in one transaction: one commit for all, and
        each append's fault (:class:`StoreConflict`...) or None. If the commit itself
        fails, every append fails with that error.

        The appends of distinct games that do not end them go in two statements for all
        (:meth:`_append_together`), the others each in a savepoint of its own after
        them; if one of the first is refused, the whole group is rolled back and made
        again one append per savepoint, so that only that one fails."""
        together, alone = group_appends(appends)
        with self._lock:
            try:
                with self._transaction():
                    if not self._append_together([appends[i] for i in together]):
                        raise _OneByOne
                    outcomes: list[Exception | None] = [None] * len(appends)
                    for i in alone:
                        outcomes[i] = self._append_alone(appends[i])
                return outcomes
            except _OneByOne:
                pass  # a conflict among them: each on its own, to tell which
            except sqlite3.Error as error:
                return [error] * len(appends)
            try:
                with self._transaction():
                    return [self._append_alone(append) for append in appends]
            except sqlite3.Error as error:
                return [error] * len(appends)

    def _append_together(self, appends: Sequence[Append]) -> bool:
        """Append to several games (distinct, none ending) in two statements
        (:func:`~marrakech.web.store.append_queries.appends_together`); False if one game was
        not at its expected version or one action was refused (the caller then rolls
        back what was written)."""
        if not appends:
            return True
        now = time.time()
        moves = [
            [a.game_id, a.version, a.version + len(a.actions), a.status, a.bot_to_move, a.turns]
            for a in appends
        ]
        params = {"moves": json.dumps(moves), "now": now}
        moved = self._db.execute(Q.move_games.sql, Q.move_games.params(params)).rowcount
        if moved != len(appends):
            return False
        rows = [
            [a.game_id, a.version + i, row.token, row.seat]
            for a in appends
            for i, row in enumerate(a.actions)
        ]
        params = {"rows": json.dumps(rows), "now": now}
        try:
            self._db.execute(Q.insert_moved_actions.sql, Q.insert_moved_actions.params(params))
        except sqlite3.IntegrityError:  # a game's actions past its version: whose, alone
            return False
        return True

    def _append_alone(self, append: Append) -> Exception | None:
        """One append in a savepoint of its own: its fault, or None."""
        self._db.execute("SAVEPOINT one")
        try:
            self._append(append)
        except Exception as error:
            self._db.execute("ROLLBACK TO one")
            return error
        finally:
            self._db.execute("RELEASE one")
        return None

    def _append(self, append: Append) -> None:
        game_id, version, actions = append.game_id, append.version, append.actions
        now = time.time()
        changed = self._db.execute(
            Q.move_game.sql,
            {
                "game_id": game_id,
                "at_version": version,
                "next": version + len(actions),
                "new_status": append.status,
                "bot": append.bot_to_move,
                "now": now,
                "new_turns": append.turns,
            },
        ).rowcount
        if changed != 1:
            row = self._db.execute(Q.version.sql, {"game_id": game_id}).fetchone()
            if row is None:
                raise StoreError(f"no game {game_id} in the store")
            raise StoreConflict(
                f"game {game_id} is at version {row['version']}, not {version}: "
                "another writer was first"
            )
        self._insert_actions(game_id, version, actions, now)
        if append.end is not None:  # the places and ratings, in the same transaction
            end_game(RQ, self._rows, game_id, append.end, now)

    def _rows(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [dict(row) for row in self._db.execute(sql, params).fetchall()]

    def claim_seat(self, game_id: str, seat: int, token_hash: str, name: str) -> bool:
        with self._lock, self._transaction():
            changed = self._db.execute(
                Q.claim_seat.sql,
                Q.claim_seat.params(
                    {
                        "game_id": game_id,
                        "at_seat": seat,
                        "new_token_hash": token_hash,
                        "new_name": name,
                    }
                ),
            ).rowcount
            if changed:
                self._db.execute(
                    Q.claimed.sql, Q.claimed.params({"game_id": game_id, "now": time.time()})
                )
        return changed == 1

    def update_seats(
        self, game_id: str, seats: Sequence[SeatRow], status: GameStatus, bot_to_move: bool
    ) -> None:
        with self._lock, self._transaction():
            self._db.executemany(
                Q.update_seat.sql, [Q.seat_settings(game_id, seat) for seat in seats]
            )
            self._db.execute(
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

    def activate_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        params = {"game_id": game_id, "at_seat": seat, "new_token_hash": token_hash}
        with self._lock, self._transaction():
            cursor = self._db.execute(Q.activate_seat.sql, Q.activate_seat.params(params))
            return cursor.rowcount == 1

    def set_rematch(self, game_id: str, rematch_id: str) -> str:
        with self._lock, self._transaction():
            row = self._db.execute(
                Q.set_rematch.sql, {"game_id": game_id, "new_rematch": rematch_id}
            ).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in the store")
        return str(row["rematch"])

    def save_analysis(self, game_id: str, analysis: str) -> None:
        with self._lock, self._transaction():
            self._db.execute(Q.save_analysis.sql, {"game_id": game_id, "new_analysis": analysis})

    def save_turn_state(
        self,
        game_id: str,
        turn_clock: tuple[int, int, float] | None,
        pending_resigns: frozenset[int],
    ) -> None:
        values = turn_values(turn_clock, pending_resigns)
        params = {"game_id": game_id, **{"new_" + k: v for k, v in values.items()}}
        with self._lock, self._transaction():
            self._db.execute(Q.save_turn_state.sql, params)

    def count_hint(self, game_id: str, seat: int, version: int) -> int:
        params = {"game_id": game_id, "at_seat": seat, "at_version": version}
        with self._lock, self._transaction():
            row = self._db.execute(Q.count_hint.sql, Q.count_hint.params(params)).fetchone()
            if row is None:  # counted for this position already, or no such seat
                row = self._db.execute(Q.hints.sql, params).fetchone()
        if row is None:
            raise StoreError(f"no seat {seat} of game {game_id} in the store")
        return int(row["hints"])

    def set_status(self, game_id: str, status: GameStatus) -> None:
        with self._lock, self._transaction():
            self._db.execute(Q.set_status.sql, {"game_id": game_id, "new_status": status})

    def summaries(self, game_ids: Sequence[str]) -> list[StoredGame]:
        ids = list(dict.fromkeys(game_ids))
        if not ids:
            return []
        with self._lock:
            rows = self._db.execute(Q.games.sql, {"ids": Q.ids(ids)}).fetchall()
            seats = self._seats([row["id"] for row in rows])
        order = {game_id: i for i, game_id in enumerate(ids)}
        games = [_game(row, seats[row["id"]]) for row in rows]
        return sorted(games, key=lambda g: order[g.id])

    def open_games(self, limit: int, since: float = 0.0) -> list[StoredGame]:
        with self._lock:
            rows = self._db.execute(
                Q.open_games.sql, Q.open_games.params({"since": since, "limit": limit})
            ).fetchall()
            seats = self._seats([row["id"] for row in rows])
        return [_game(row, seats[row["id"]]) for row in rows]

    def games_to_resume(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(Q.games_to_resume.sql, Q.games_to_resume.params({})).fetchall()
        return [row["id"] for row in rows]

    def usage(self, creator: str, since: float) -> Usage:
        with self._lock:
            row = self._db.execute(
                Q.usage.sql, Q.usage.params({"creator": creator, "since": since})
            ).fetchone()
        return Q.usage_of(row)

    # -- chat (issue 24) ------------------------------------------------------------

    def add_chat(self, row: ChatRow) -> ChatRow:
        params = CQ.insert_chat.params(CQ.chat_values(row, time.time()))
        with self._lock, self._transaction():
            line_id = self._db.execute(CQ.insert_chat.sql, params).fetchone()[0]
        return replace(row, id=int(line_id), at=params["at"])

    def load_chat(self, game_id: str, limit: int) -> list[ChatRow]:
        params = CQ.chat_lines.params({"game_id": game_id, "limit": limit})
        with self._lock:
            rows = self._db.execute(CQ.chat_lines.sql, params).fetchall()
            reports = []
            if any(row["reports"] for row in rows):  # most games: no report, no read
                first = {"game_id": game_id, "first": rows[-1]["id"]}
                reports = self._db.execute(CQ.chat_reporters.sql, first).fetchall()
        return CQ.with_reporters(rows, reports)

    def report_chat(self, game_id: str, line_id: int, reporter: Reporter) -> ChatRow | None:
        params = CQ.report_values(line_id, reporter, time.time())
        with self._lock, self._transaction():
            line = self._line(line_id)
            if line is None or line.game_id != game_id:
                return None
            self._db.execute(CQ.add_report.sql, params)
            self._db.execute(CQ.count_reports.sql, params)
            reports = self._db.execute(CQ.line_reports.sql, params).fetchall()
            if CQ.holds(reports):
                self._db.execute(CQ.hold_chat.sql, CQ.hold_chat.params(params))
            return self._line(line_id)

    def chat_line(self, line_id: int) -> ChatRow | None:
        with self._lock:
            return self._line(line_id)

    def _line(self, line_id: int) -> ChatRow | None:
        params = {"line_id": line_id}
        row = self._db.execute(CQ.chat_line.sql, params).fetchone()
        if row is None:
            return None
        reports = self._db.execute(CQ.line_reports.sql, params).fetchall()
        return CQ.chat_row(row, [report["reporter"] for report in reports])

    def decide_chat(
        self, game_id: str, line_id: int, decision: ChatDecisionKind
    ) -> ChatDecision | None:
        params = {"game_id": game_id, "line_id": line_id, "decision": decision}
        decide = CQ.hide_chat if decision == "hidden" else CQ.dismiss_chat
        with self._lock, self._transaction():
            line = self._line(line_id)
            if line is None or line.game_id != game_id:
                return None
            self._db.execute(decide.sql, decide.params(params))
            params["now"] = time.time()
            found = self._db.execute(CQ.add_decision.sql, params).fetchone()
        return ChatDecision(int(found[0]), game_id, line_id, decision)

    def chat_decisions(self, after: int | None) -> list[ChatDecision]:
        with self._lock:
            if after is None:
                rows = self._db.execute(
                    CQ.last_decision.sql, CQ.last_decision.params({})
                ).fetchall()
            else:
                params = CQ.decisions_after.params({"after": after})
                rows = self._db.execute(CQ.decisions_after.sql, params).fetchall()
        return [CQ.decision(row) for row in rows]

    def chat_reports(self, limit: int) -> list[ChatReport]:
        with self._lock:
            rows = self._db.execute(
                CQ.chat_reports.sql, CQ.chat_reports.params({"limit": limit})
            ).fetchall()
        return CQ.reports_of(rows)

    def ban(self, kind: BanKind, value: str, reason: str) -> None:
        params = {"kind": kind, "value": value, "now": time.time(), "reason": reason}
        with self._lock, self._transaction():
            self._db.execute(CQ.ban.sql, params)

    def unban(self, kind: BanKind, value: str) -> bool:
        with self._lock, self._transaction():
            cursor = self._db.execute(CQ.unban.sql, {"kind": kind, "value": value})
        return cursor.rowcount == 1

    def is_banned(self, kind: BanKind, value: str) -> bool:
        with self._lock:
            row = self._db.execute(CQ.banned.sql, {"kind": kind, "value": value}).fetchone()
        return row is not None

    def transact(self, steps: Sequence[Step]) -> list[list[dict[str, Any]]]:
        with self._lock:
            try:
                with self._transaction():
                    return [
                        [dict(row) for row in self._db.execute(sql, params).fetchall()]
                        for sql, params in steps
                    ]
            except sqlite3.IntegrityError as error:
                raise StoreConflict(f"refused by the store: {error}") from None

    def _seats(self, game_ids: Sequence[str]) -> dict[str, tuple[SeatRow, ...]]:
        found: dict[str, list[SeatRow]] = {game_id: [] for game_id in game_ids}
        for row in self._db.execute(Q.seats.sql, {"ids": Q.ids(game_ids)}):
            found[row["game_id"]].append(seat_row(row))
        return {game_id: tuple(rows) for game_id, rows in found.items()}

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _game(row: Any, seats: tuple[SeatRow, ...]) -> StoredGame:
    """A games row (read by name) without its actions: a summary."""
    return StoredGame(seats=seats, **game_fields(row))


class _OneByOne(Exception):
    """The appends of a group go one by one after all: one of them conflicts."""


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error) on an autocommit link."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if kind is None:
            self._db.execute("COMMIT")
        else:
            self._db.execute("ROLLBACK")
