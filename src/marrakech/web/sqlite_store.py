"""The default game store: one SQLite file in WAL mode, its schema created and migrated
automatically (:data:`MIGRATIONS`)::

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
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal

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

#: The schema version this code writes; older files are migrated on open.
SCHEMA_VERSION = 6

#: Migration steps: MIGRATIONS[v] turns a version ``v - 1`` database into version ``v``.
#: Each step is a list of SQL statements run in one transaction with the version bump.
MIGRATIONS: dict[int, list[str]] = {
    1: [
        """
        CREATE TABLE games (
            id TEXT PRIMARY KEY,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            players INTEGER NOT NULL CHECK (players BETWEEN 2 AND 4),
            rules TEXT NOT NULL,
            first_seat INTEGER NOT NULL,
            lang TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('waiting', 'running', 'over')),
            version INTEGER NOT NULL DEFAULT 0,
            bot_to_move INTEGER NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX games_by_status ON games (status, created)",
        "CREATE INDEX games_with_bot_to_move ON games (bot_to_move) WHERE bot_to_move = 1",
        """
        CREATE TABLE seats (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
            kind TEXT NOT NULL CHECK (kind IN ('human', 'open', 'bot')),
            level TEXT,
            name TEXT NOT NULL DEFAULT '',
            token_hash TEXT,
            PRIMARY KEY (game_id, seat)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE actions (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            token TEXT NOT NULL,
            seat INTEGER NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (game_id, number)
        ) WITHOUT ROWID
        """,
    ],
    2: [
        # Who created each game and how many bots it seats: the server's caps.
        "ALTER TABLE games ADD COLUMN creator TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE games ADD COLUMN bots INTEGER NOT NULL DEFAULT 0",
        "UPDATE games SET bots = (SELECT count(*) FROM seats"
        " WHERE seats.game_id = games.id AND seats.kind = 'bot')",
        "CREATE INDEX games_unfinished ON games (updated) WHERE status != 'over'",
    ],
    3: [
        # Issue #13: clocks, stand-ins, hosts, player turns, rematches, analyses.
        "ALTER TABLE games ADD COLUMN clock TEXT NOT NULL DEFAULT 'none'",
        "ALTER TABLE games ADD COLUMN clock_seconds INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN stand_in_level TEXT NOT NULL DEFAULT 'medium'",
        "ALTER TABLE games ADD COLUMN turns INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN rematch TEXT",
        "ALTER TABLE games ADD COLUMN analysis TEXT",
        "ALTER TABLE seats ADD COLUMN stand_in TEXT",
        "ALTER TABLE seats ADD COLUMN host INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE seats ADD COLUMN joined INTEGER NOT NULL DEFAULT 0",
        # Older games: a turn per roll (each player turn rolls once).
        "UPDATE games SET turns = (SELECT count(*) FROM actions WHERE actions.game_id ="
        " games.id AND actions.token IN ('r1', 'r2', 'r3', 'r4'))",
        # Their host: the first human seat.
        "UPDATE seats SET host = 1 WHERE kind = 'human' AND seat = (SELECT min(s.seat)"
        " FROM seats s WHERE s.game_id = seats.game_id AND s.kind = 'human')",
    ],
    4: [
        # Hints: whether a game allows them (not the games created before: their players
        # did not agree to them), and how many each seat used.
        "ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE seats ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
    ],
    5: [
        # The position (game version) of each seat's last counted hint, so a hint is
        # counted once per position even after a reload or on another instance.
        "ALTER TABLE seats ADD COLUMN hinted_at INTEGER NOT NULL DEFAULT -1",
    ],
    6: [
        # The running turn's clock (seat, turn number, deadline), so a restart keeps it.
        "ALTER TABLE games ADD COLUMN clock_seat INTEGER NOT NULL DEFAULT -1",
        "ALTER TABLE games ADD COLUMN clock_turn INTEGER NOT NULL DEFAULT -1",
        "ALTER TABLE games ADD COLUMN clock_deadline REAL NOT NULL DEFAULT 0",
        # Resignations waiting for the next decision (R22), a bit per seat.
        "ALTER TABLE games ADD COLUMN pending_resigns INTEGER NOT NULL DEFAULT 0",
    ],
}


class SQLiteStore:
    """The default store: one SQLite file, WAL mode, schema migrated on open.

    Its methods block (they are :class:`~marrakech.web.store.GameStore`'s, but plain
    functions): the server runs them in the store's thread
    (:class:`~marrakech.web.store_worker.StoreWorker`), tests may call them directly.

    ``synchronous`` is SQLite's durability setting: ``"NORMAL"`` (the default in WAL
    mode) never loses a committed action when the server process dies; ``"FULL"`` also
    survives a power cut, at the cost of one disk flush per action.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        migrations: dict[int, list[str]] | None = None,
    ) -> None:
        self.path = str(path)
        if synchronous not in ("NORMAL", "FULL"):
            raise StoreError(f"synchronous: expected NORMAL or FULL, found {synchronous!r}")
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            # Autocommit mode: transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=10.0
            )
            self._db.execute("PRAGMA busy_timeout = 10000")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            self.journal_mode = str(mode).lower()
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the game store {self.path}: {error}") from None
        # One connection shared by the server's store thread and by tests; the lock keeps
        # each method's transaction whole even if two threads call in.
        self._lock = threading.Lock()
        self.schema_version = self._migrate(MIGRATIONS if migrations is None else migrations)

    # -- schema ---------------------------------------------------------------------

    def _migrate(self, migrations: dict[int, list[str]]) -> int:
        target = max(migrations)
        with self._lock, self._transaction():
            self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._db.execute("SELECT version FROM schema_version").fetchone()
            current = 0 if row is None else int(row[0])
            if row is None:
                self._db.execute("INSERT INTO schema_version (version) VALUES (0)")
            if current > target:
                raise StoreError(
                    f"the game store {self.path} has schema version {current}, newer than "
                    f"this marrakech understands ({target}): upgrade marrakech"
                )
            for version in range(current + 1, target + 1):
                for statement in migrations[version]:
                    self._db.execute(statement)
                self._db.execute("UPDATE schema_version SET version = ?", (version,))
        return target

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # -- games ----------------------------------------------------------------------

    def create_game(self, game: StoredGame) -> None:
        now = time.time()
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO games (id, created, updated, players, rules, first_seat, lang,"
                " status, version, bot_to_move, creator, bots, clock, clock_seconds,"
                " stand_in_level, turns, rematch, analysis, hints, clock_seat, clock_turn,"
                " clock_deadline, pending_resigns)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    int(game.bot_to_move),
                    game.creator,
                    game.bots,
                    *extra_values(game),
                ),
            )
            self._db.executemany(
                f"INSERT INTO seats (game_id, {SEAT_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(game.id, *seat_values(seat)) for seat in game.seats],
            )
            self._insert_actions(game.id, 0, game.actions, now)

    def _insert_actions(
        self, game_id: str, start: int, actions: Iterable[ActionRow], now: float
    ) -> None:
        self._db.executemany(
            "INSERT INTO actions (game_id, number, token, seat, at) VALUES (?, ?, ?, ?, ?)",
            [(game_id, start + i, a.token, a.seat, a.at or now) for i, a in enumerate(actions)],
        )

    def load_game(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._db.execute(_GAME_COLUMNS + " WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            seats = self._seats([game_id])[game_id]
            actions = tuple(
                ActionRow(token, seat, at)
                for token, seat, at in self._db.execute(
                    "SELECT token, seat, at FROM actions WHERE game_id = ? ORDER BY number",
                    (game_id,),
                )
            )
        game = _game(row, seats)
        if len(actions) != game.version:
            raise StoreError(
                f"game {game_id} is damaged: {len(actions)} actions stored, version {game.version}"
            )
        return replace(game, actions=actions)

    def load_actions(self, game_id: str, start: int) -> list[ActionRow]:
        with self._lock:
            return [
                ActionRow(token, seat, at)
                for token, seat, at in self._db.execute(
                    "SELECT token, seat, at FROM actions WHERE game_id = ? AND number >= ?"
                    " ORDER BY number",
                    (game_id, start),
                )
            ]

    def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
        turns: int = 0,
    ) -> None:
        with self._lock, self._transaction():
            self._append(Append(game_id, version, tuple(actions), status, bot_to_move, turns))

    def append_batch(self, appends: Sequence[Append]) -> list[Exception | None]:
        """Several appends (of any games) in one transaction, each in its own savepoint:
        one commit for all, and each append's fault (:class:`StoreConflict`...) or None.
        If the commit itself fails, every append fails with that error."""
        outcomes: list[Exception | None] = []
        with self._lock:
            try:
                with self._transaction():
                    for append in appends:
                        self._db.execute("SAVEPOINT one")
                        try:
                            self._append(append)
                        except Exception as error:
                            self._db.execute("ROLLBACK TO one")
                            outcomes.append(error)
                        else:
                            outcomes.append(None)
                        self._db.execute("RELEASE one")
            except sqlite3.Error as error:
                return [error] * len(appends)
        return outcomes

    def _append(self, append: Append) -> None:
        game_id, version, actions = append.game_id, append.version, append.actions
        now = time.time()
        changed = self._db.execute(
            "UPDATE games SET version = ?, status = ?, bot_to_move = ?, updated = ?, turns = ?"
            " WHERE id = ? AND version = ?",
            (
                version + len(actions),
                append.status,
                int(append.bot_to_move),
                now,
                append.turns,
                game_id,
                version,
            ),
        ).rowcount
        if changed != 1:
            row = self._db.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreError(f"no game {game_id} in the store")
            raise StoreConflict(
                f"game {game_id} is at version {row[0]}, not {version}: another writer was first"
            )
        self._insert_actions(game_id, version, actions, now)

    def claim_seat(self, game_id: str, seat: int, token_hash: str, name: str) -> bool:
        with self._lock, self._transaction():
            changed = self._db.execute(
                "UPDATE seats SET kind = 'human', token_hash = ?, name = ?, joined = 1,"
                " host = NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = seats.game_id"
                " AND s.host) WHERE game_id = ? AND seat = ? AND kind = 'open'",
                (token_hash, name, game_id, seat),
            ).rowcount
            if changed:
                self._db.execute(
                    "UPDATE games SET updated = ?, status = CASE WHEN status = 'waiting'"
                    " AND NOT EXISTS (SELECT 1 FROM seats WHERE game_id = ? AND kind = 'open')"
                    " THEN 'running' ELSE status END WHERE id = ?",
                    (time.time(), game_id, game_id),
                )
        return changed == 1

    def update_seats(
        self, game_id: str, seats: Sequence[SeatRow], status: GameStatus, bot_to_move: bool
    ) -> None:
        with self._lock, self._transaction():
            self._db.executemany(
                "UPDATE seats SET kind = ?, level = ?, name = ?, token_hash = ?, stand_in = ?,"
                " host = ?, joined = ? WHERE game_id = ? AND seat = ?",
                [(*seat_settings(seat), game_id, seat.seat) for seat in seats],
            )
            self._db.execute(
                "UPDATE games SET status = ?, bot_to_move = ?, updated = ?,"
                " bots = (SELECT count(*) FROM seats WHERE game_id = ? AND kind = 'bot')"
                " WHERE id = ?",
                (status, int(bot_to_move), time.time(), game_id, game_id),
            )

    def activate_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        with self._lock, self._transaction():
            return (
                self._db.execute(
                    "UPDATE seats SET token_hash = ? WHERE game_id = ? AND seat = ?"
                    " AND kind = 'human' AND token_hash IS NULL",
                    (token_hash, game_id, seat),
                ).rowcount
                == 1
            )

    def set_rematch(self, game_id: str, rematch_id: str) -> str:
        with self._lock, self._transaction():
            self._db.execute(
                "UPDATE games SET rematch = ? WHERE id = ? AND rematch IS NULL",
                (rematch_id, game_id),
            )
            row = self._db.execute("SELECT rematch FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in the store")
        return str(row[0])

    def save_analysis(self, game_id: str, analysis: str) -> None:
        with self._lock, self._transaction():
            self._db.execute("UPDATE games SET analysis = ? WHERE id = ?", (analysis, game_id))

    def save_turn_state(
        self,
        game_id: str,
        turn_clock: tuple[int, int, float] | None,
        pending_resigns: frozenset[int],
    ) -> None:
        with self._lock, self._transaction():
            self._db.execute(
                "UPDATE games SET clock_seat = ?, clock_turn = ?, clock_deadline = ?,"
                " pending_resigns = ? WHERE id = ?",
                (*turn_values(turn_clock, pending_resigns), game_id),
            )

    def count_hint(self, game_id: str, seat: int, version: int) -> int:
        with self._lock, self._transaction():
            row = self._db.execute(
                "UPDATE seats SET hints = hints + 1, hinted_at = ? WHERE game_id = ?"
                " AND seat = ? AND hinted_at <> ? RETURNING hints",
                (version, game_id, seat, version),
            ).fetchone()
            if row is None:  # counted for this position already, or no such seat
                row = self._db.execute(
                    "SELECT hints FROM seats WHERE game_id = ? AND seat = ?", (game_id, seat)
                ).fetchone()
        if row is None:
            raise StoreError(f"no seat {seat} of game {game_id} in the store")
        return int(row[0])

    def set_status(self, game_id: str, status: GameStatus) -> None:
        with self._lock, self._transaction():
            self._db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

    def summaries(self, game_ids: Sequence[str]) -> list[StoredGame]:
        ids = list(dict.fromkeys(game_ids))
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        with self._lock:
            rows = self._db.execute(_GAME_COLUMNS + f" WHERE id IN ({marks})", ids).fetchall()
            seats = self._seats([row[0] for row in rows])
        order = {game_id: i for i, game_id in enumerate(ids)}
        games = [_game(row, seats[row[0]]) for row in rows]
        return sorted(games, key=lambda g: order[g.id])

    def open_games(self, limit: int, since: float = 0.0) -> list[StoredGame]:
        with self._lock:
            rows = self._db.execute(
                _GAME_COLUMNS + " WHERE status = 'waiting' AND updated >= ?"
                " ORDER BY created DESC LIMIT ?",
                (since, limit),
            ).fetchall()
            seats = self._seats([row[0] for row in rows])
        return [_game(row, seats[row[0]]) for row in rows]

    def games_with_bot_to_move(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM games WHERE bot_to_move = 1 AND status != 'over'"
            ).fetchall()
        return [row[0] for row in rows]

    def usage(self, creator: str, since: float) -> Usage:
        with self._lock:
            row = self._db.execute(
                "SELECT coalesce(sum(creator = ?), 0),"
                " coalesce(sum(CASE WHEN creator = ? THEN bots END), 0),"
                " count(*), coalesce(sum(bots), 0)"
                " FROM games WHERE status != 'over' AND updated >= ?",
                (creator, creator, since),
            ).fetchone()
        return Usage(*(int(value) for value in row))

    def _seats(self, game_ids: Sequence[str]) -> dict[str, tuple[SeatRow, ...]]:
        found: dict[str, list[SeatRow]] = {game_id: [] for game_id in game_ids}
        for start in range(0, len(game_ids), 500):  # SQLite's bound-parameter limit
            chunk = list(game_ids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            for game_id, *row in self._db.execute(
                f"SELECT game_id, {SEAT_COLUMNS} FROM seats"
                f" WHERE game_id IN ({marks}) ORDER BY game_id, seat",
                chunk,
            ):
                found[game_id].append(seat_row(row))
        return {game_id: tuple(rows) for game_id, rows in found.items()}

    def close(self) -> None:
        with self._lock:
            self._db.close()


_GAME_COLUMNS = f"SELECT {GAME_COLUMNS} FROM games"


def _game(row: tuple[object, ...], seats: tuple[SeatRow, ...]) -> StoredGame:
    """A games row without its actions (a summary)."""
    game_id, created, updated, players, rules, first_seat, lang, status, version, bot = row[:10]
    game = StoredGame(
        id=str(game_id),
        players=int(players),  # type: ignore[call-overload]
        rules=str(rules),
        first_seat=int(first_seat),  # type: ignore[call-overload]
        lang=str(lang),
        seats=seats,
        status=status,  # type: ignore[arg-type]
        created=float(created),  # type: ignore[arg-type]
        updated=float(updated),  # type: ignore[arg-type]
        bot_to_move=bool(bot),
        version=int(version),  # type: ignore[call-overload]
    )
    return with_extras(game, row[10:])


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
