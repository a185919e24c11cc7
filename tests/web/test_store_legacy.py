"""Databases made by older versions migrate on open and read back what those versions
stored: SQLite schema 1 (version 0.1.0) to 6, PostgreSQL schema 1 to 5.

The files in ``fixtures/legacy/`` were written by each version's own store code
(``fixtures/make_legacy_stores.py`` runs it from git history), with what that code read
back (``<name>.json``). Each test opens one with today's store, compares every game,
seat and action, checks what the migration derived for the fields the version lacked,
writes to the migrated database, and compares its schema with the declaration
(:mod:`marrakech.web.store.schema`).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, create_engine
from sqlalchemy.pool import NullPool

from marrakech.web.store import ActionRow, StoredGame, StoreError, migrations, schema
from marrakech.web.store.sqlite import SQLiteStore
from tests.web.test_rooms import in_fresh_loop

LEGACY = Path(__file__).parent / "fixtures" / "legacy"
SQLITE = ["sqlite-1", "sqlite-2", "sqlite-3", "sqlite-4", "sqlite-5", "sqlite-6-early", "sqlite-6"]
POSTGRES = [
    "postgres-1",
    "postgres-2",
    "postgres-3",
    "postgres-4",
    "postgres-5-early",
    "postgres-5",
]
#: The creator each fixture game was created under (older versions did not read it back).
CREATORS = {"waiting": "203.0.113.7", "running": "", "over": "198.51.100.1"}


def as_json(game: StoredGame) -> dict[str, Any]:
    found = dataclasses.asdict(game)
    found["pending_resigns"] = sorted(found["pending_resigns"])
    loaded: dict[str, Any] = json.loads(json.dumps(found))
    return loaded


def check_games(name: str, loaded: dict[str, StoredGame]) -> None:
    """Every game reads back as the old version read it; the fields it lacked hold what
    the migration derived."""
    expected = json.loads((LEGACY / f"{name}.json").read_text())
    legacy_version = expected.pop("schema_version")
    sqlite = name.startswith("sqlite")
    # A schema level on SQLite's scale (PostgreSQL 1 had SQLite 2's columns).
    level = legacy_version if sqlite else legacy_version + 1
    assert set(loaded) == set(expected)
    for game_id, old in expected.items():
        new = as_json(loaded[game_id])
        old_seats, new_seats = old.pop("seats"), new.pop("seats")
        assert len(old_seats) == len(new_seats)
        for old_seat, new_seat in zip(old_seats, new_seats, strict=True):
            assert {key: new_seat[key] for key in old_seat} == old_seat, (name, game_id)
        old.pop("creator", None)  # no version read it back
        assert {key: new[key] for key in old} == old, (name, game_id)
        # The creator: stored from SQLite 2 on (and on every PostgreSQL schema).
        assert new["creator"] == (CREATORS[game_id] if level >= 2 else "")
        game = loaded[game_id]
        if level < 3:
            # Issue #13's step: a turn per roll; the host is the first human seat.
            rolls = sum(a.token in ("r1", "r2", "r3", "r4") for a in game.actions)
            assert game.turns == rolls
            humans = [seat.seat for seat in game.seats if seat.kind == "human"]
            assert [seat.seat for seat in game.seats if seat.host] == humans[:1]
            assert (game.clock, game.clock_seconds, game.stand_in_level) == ("none", 0, "medium")
            assert game.rematch is None and game.analysis is None
        if level < 4:  # before hints: none allowed, none counted
            assert game.hints is False and all(seat.hints == 0 for seat in game.seats)
        if "pending_resigns" not in old:
            assert game.pending_resigns == frozenset()
        if "turn_clock" not in old:
            assert game.turn_clock is None


def schema_differences(connection: Connection) -> list[Any]:
    """What differs between the database and the declaration. On SQLite, but the types
    (SQLite keeps affinities), the foreign keys (SQLAlchemy does not read back the
    ``ON DELETE`` of older files' inline ``REFERENCES``: checked by :func:`cascades`)
    and older files' ``id TEXT PRIMARY KEY``, which SQLite leaves nullable."""
    sqlite = connection.dialect.name == "sqlite"

    def include(item: Any, name: Any, kind: str, reflected: bool, compare_to: Any) -> bool:
        return not (sqlite and kind == "foreign_key_constraint")

    context = MigrationContext.configure(
        connection,
        opts={
            "compare_type": not sqlite,
            "compare_server_default": False,
            "include_name": lambda name, kind, parents: name != "schema_version",
            "include_object": include,
        },
    )
    found = []
    for difference in compare_metadata(context, schema.metadata):
        if sqlite and difference[0][0] == "modify_nullable" and difference[0][3] == "id":
            continue
        found.append(difference)
    return found


def cascades(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    """The foreign keys of an SQLite file's seats and actions: (table, column, on delete)."""
    with sqlite3.connect(path) as db:
        return {
            table: [
                (row[2], row[3], row[6]) for row in db.execute(f"PRAGMA foreign_key_list({table})")
            ]
            for table in ("seats", "actions")
        }


@pytest.mark.parametrize("name", SQLITE)
def test_an_older_sqlite_file_is_migrated(name: str, tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    shutil.copy(LEGACY / f"{name}.sqlite3", path)
    store = SQLiteStore(path)
    assert store.schema_revision == migrations.head()
    check_games(name, {game_id: store.load_game(game_id) for game_id in CREATORS})  # type: ignore[misc]
    # The migrated file takes writes: an append, a hint, a turn's state.
    running = store.load_game("running")
    assert running is not None
    store.append_actions("running", running.version, [ActionRow("R", 0)], "running", False, 3)
    assert store.count_hint("running", 1, running.version + 1) == running.seats[1].hints + 1
    store.save_turn_state("running", (1, 3, 5.0), frozenset({0}))
    again = store.load_game("running")
    assert again is not None and again.version == running.version + 1
    assert again.turn_clock == (1, 3, 5.0) and again.pending_resigns == frozenset({0})
    assert [game.id for game in store.summaries(["over", "waiting"])] == ["over", "waiting"]
    store.close()
    engine = create_engine(f"sqlite:///{path}", poolclass=NullPool)
    with engine.connect() as connection:
        assert schema_differences(connection) == []
    engine.dispose()
    assert cascades(path) == {
        # A seat's account (issue #24) is never deleted with it, nor it with the account.
        "seats": [("accounts", "account_id", "NO ACTION"), ("games", "game_id", "CASCADE")],
        "actions": [("games", "game_id", "CASCADE")],
    }
    with sqlite3.connect(path) as db:
        # Older versions find a schema number they refuse.
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(100,)]


def test_a_migrated_file_is_refused_by_older_versions_code(tmp_path: Path) -> None:
    # What version 6's code did on open, on a migrated file: its own check refuses.
    path = tmp_path / "games.sqlite3"
    shutil.copy(LEGACY / "sqlite-6.sqlite3", path)
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        (current,) = db.execute("SELECT version FROM schema_version").fetchone()
    assert current > 6


def test_a_new_file_matches_the_declaration(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "games.sqlite3").close()
    engine = create_engine(f"sqlite:///{tmp_path / 'games.sqlite3'}", poolclass=NullPool)
    with engine.connect() as connection:
        assert schema_differences(connection) == []
    engine.dispose()


def test_an_unknown_schema_number_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    shutil.copy(LEGACY / "sqlite-6.sqlite3", path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 7")
    with pytest.raises(Exception, match="schema_version 7"):
        SQLiteStore(path)


async def _load_dump(url: str, name: str) -> None:
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute((LEGACY / f"{name}.sql").read_text().encode())


@pytest.mark.parametrize("name", POSTGRES)
@in_fresh_loop
async def test_an_older_postgres_database_is_migrated(name: str, pg_url: str) -> None:
    from marrakech.web.store.postgres import PostgresStore

    await _load_dump(pg_url, name)
    store = await PostgresStore.open(pg_url)
    assert store.schema_revision == migrations.head()
    loaded = {game_id: await store.load_game(game_id) for game_id in CREATORS}
    check_games(name, loaded)  # type: ignore[arg-type]
    running = loaded["running"]
    assert running is not None
    async with store.pool.connection() as conn:
        await conn.execute("UPDATE games SET owner = %s", (store.instance,))
    await store.append_actions("running", running.version, [ActionRow("R", 0)], "running", False)
    assert await store.count_hint("running", 1, running.version + 1) == running.seats[1].hints + 1
    again = await store.load_game("running")
    assert again is not None and again.version == running.version + 1
    await store.close()
    # Opened again: nothing left to migrate.
    store = await PostgresStore.open(pg_url)
    await store.close()
    engine = create_engine(
        pg_url.replace("postgresql://", "postgresql+psycopg://"), poolclass=NullPool
    )
    with engine.connect() as connection:
        assert schema_differences(connection) == []
    engine.dispose()


@in_fresh_loop
async def test_a_new_postgres_database_matches_the_declaration(pg_url: str) -> None:
    from marrakech.web.store.postgres import PostgresStore

    await (await PostgresStore.open(pg_url)).close()
    engine = create_engine(
        pg_url.replace("postgresql://", "postgresql+psycopg://"), poolclass=NullPool
    )
    with engine.connect() as connection:
        assert schema_differences(connection) == []
    engine.dispose()


@in_fresh_loop
async def test_a_newer_postgres_database_is_refused(pg_url: str) -> None:
    from marrakech.web.store.postgres import PostgresStore

    await (await PostgresStore.open(pg_url)).close()
    import psycopg

    async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
        await conn.execute("UPDATE alembic_version SET version_num = 'zzzz'")
    with pytest.raises(StoreError, match="newer than this marrakech understands"):
        await PostgresStore.open(pg_url)
