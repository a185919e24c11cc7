"""The game store (SQLite): schema and migrations, WAL, atomic conditional appends."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from marrakech.web.store import (
    ActionRow,
    Append,
    SeatRow,
    StoreConflict,
    StoredGame,
    StoreError,
    default_db_path,
    hash_token,
    migrations,
)
from marrakech.web.store.sqlite import SQLiteStore


def a_game(game_id: str = "g1", **changes: object) -> StoredGame:
    fields: dict[str, object] = {
        "id": game_id,
        "players": 3,
        "rules": "standard",
        "first_seat": 1,
        "lang": "fr",
        "seats": (
            SeatRow(0, "human", name="Ana", token_hash=hash_token("secret")),
            SeatRow(1, "bot", level="hard"),
            SeatRow(2, "open"),
        ),
        "status": "waiting",
    }
    fields.update(changes)
    return StoredGame(**fields)  # type: ignore[arg-type]


def test_new_file_gets_the_schema_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "games.sqlite3"
    store = SQLiteStore(path)
    assert store.journal_mode == "wal" and store.schema_revision == migrations.head()
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (migrations.head(),)
        ]
        # Older versions' own mark: they refuse the file rather than misread it.
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(100,)]
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"games", "seats", "actions", "instances", "alembic_version"} <= tables


def test_games_round_trip(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    store.create_game(a_game(created=1000.0))
    store.append_actions("g1", 0, [ActionRow("L", 1), ActionRow("r2", 1)], "waiting", False)
    store.append_actions("g1", 2, [ActionRow("c3-c4", 1)], "waiting", True)
    store.close()
    store = SQLiteStore(tmp_path / "games.sqlite3")  # reopened: nothing lost
    game = store.load_game("g1")
    assert game is not None
    assert [a.token for a in game.actions] == ["L", "r2", "c3-c4"]
    assert [a.seat for a in game.actions] == [1, 1, 1]
    assert game.version == 3 and game.bot_to_move and game.created == 1000.0
    assert game.seats == a_game().seats
    assert (game.players, game.rules, game.first_seat, game.lang) == (3, "standard", 1, "fr")
    assert store.load_game("nope") is None
    assert store.games_to_resume() == ["g1"]
    [summary] = store.summaries(["g1", "nope"])
    assert summary.version == 3 and summary.actions == ()


def test_append_is_conditional_on_the_version(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    store.create_game(a_game())
    store.append_actions("g1", 0, [ActionRow("L", 1)], "running", False)
    with pytest.raises(StoreConflict, match="at version 1, not 0"):
        store.append_actions("g1", 0, [ActionRow("R", 1)], "running", False)
    with pytest.raises(StoreError, match="no game nope"):
        store.append_actions("nope", 0, [ActionRow("R", 1)], "running", False)
    game = store.load_game("g1")
    assert game is not None and [a.token for a in game.actions] == ["L"]


def test_a_group_of_appends_commits_many_games_in_four_statements(tmp_path: Path) -> None:
    # The store's thread lets go of Python's interpreter lock at every statement and
    # waits to take it back from a busy event loop: a group's statements must not grow
    # with its games.
    store = SQLiteStore(tmp_path / "games.sqlite3")
    for number in range(40):
        store.create_game(a_game(f"g{number}"))
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    moves = (ActionRow("L", 1), ActionRow("r2", 1))
    appends = [Append(f"g{n}", 0, moves, "running", n % 2 == 0, turns=n) for n in range(40)]
    before = time.time()
    assert store.append_batch(appends) == [None] * 40
    store._db.set_trace_callback(None)
    assert len(statements) == 4, statements  # BEGIN, the games, their actions, COMMIT
    for number in range(40):
        game = store.load_game(f"g{number}")
        assert game is not None and game.version == 2 and game.status == "running"
        assert [(a.token, a.seat) for a in game.actions] == [("L", 1), ("r2", 1)]
        assert game.bot_to_move == (number % 2 == 0) and game.turns == number
        assert all(before <= a.at <= time.time() for a in game.actions)


def test_each_append_of_a_group_gets_its_own_outcome(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    for number in range(4):
        store.create_game(a_game(f"g{number}"))
    outcomes = store.append_batch(
        [
            Append("g0", 0, (ActionRow("L", 1),), "running", False),
            Append("g1", 3, (ActionRow("L", 1),), "running", False),  # g1 is at 0
            Append("g2", 0, (ActionRow("L", 1),), "running", False),
            Append("g2", 1, (ActionRow("r2", 1),), "running", True),  # the same game again
            Append("nope", 0, (ActionRow("L", 1),), "running", False),
            Append("g3", 0, (ActionRow("R", 1, at=1234.5),), "running", False),
        ]
    )
    assert [type(outcome).__name__ for outcome in outcomes] == [
        "NoneType", "StoreConflict", "NoneType", "NoneType", "StoreError", "NoneType"
    ]  # fmt: skip
    assert "g1 is at version 0, not 3" in str(outcomes[1])
    tokens = {}
    for number in range(4):
        game = store.load_game(f"g{number}")
        assert game is not None and game.version == len(game.actions)
        tokens[game.id] = [a.token for a in game.actions]
    assert tokens == {"g0": ["L"], "g1": [], "g2": ["L", "r2"], "g3": ["R"]}
    g3 = store.load_game("g3")
    assert g3 is not None and g3.actions[0].at == 1234.5


def test_a_refused_action_in_a_group_fails_its_append_only(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    for number in range(2):
        store.create_game(a_game(f"g{number}"))
    # A damaged game: an action stored past its version, which the next append collides with.
    store._db.execute(
        "INSERT INTO actions (game_id, number, token, seat, at) VALUES ('g1', 0, 'L', 1, 0)"
    )
    outcomes = store.append_batch(
        [
            Append("g0", 0, (ActionRow("L", 1),), "running", False),
            Append("g1", 0, (ActionRow("R", 1),), "running", False),
        ]
    )
    assert outcomes[0] is None and isinstance(outcomes[1], sqlite3.IntegrityError)
    g0 = store.load_game("g0")
    assert g0 is not None and [a.token for a in g0.actions] == ["L"]
    assert [game.version for game in store.summaries(["g1"])] == [0]


def test_claim_seat_once(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    store.create_game(a_game())
    assert [g.id for g in store.open_games(10)] == ["g1"]
    assert store.claim_seat("g1", 2, hash_token("t2"), "Bea")
    assert not store.claim_seat("g1", 2, hash_token("t3"), "Cid")  # taken
    assert not store.claim_seat("g1", 1, hash_token("t3"), "Cid")  # a bot
    store.set_status("g1", "running")
    assert store.open_games(10) == []
    game = store.load_game("g1")
    assert game is not None
    # Taken from the lobby; the game had no host, so its first joiner hosts it.
    assert game.seats[2] == SeatRow(
        2, "human", None, "Bea", hash_token("t2"), host=True, joined=True
    )


def test_lobby_queries(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    for number in range(5):
        store.create_game(a_game(f"g{number}", created=float(number)))
    store.create_game(a_game("full", status="running"))
    assert [g.id for g in store.open_games(3)] == ["g4", "g3", "g2"]
    assert [g.id for g in store.summaries(["g3", "g1", "g3"])] == ["g3", "g1"]
    assert store.summaries([]) == []


def with_a_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *statements: str) -> None:
    """The shipped migrations and one more step of ``statements`` (a newer marrakech)."""
    from alembic.script import ScriptDirectory

    folder = tmp_path / "migrations"
    shutil.copytree(Path(migrations.__file__).parent, folder)
    step = f"""
import sqlalchemy as sa
from alembic import op

revision = "9999"
down_revision = {migrations.head()!r}


def upgrade():
    for statement in {list(statements)!r}:
        op.execute(sa.text(statement))
"""
    (folder / "versions" / "9999_newer.py").write_text(step)
    monkeypatch.setattr(migrations, "script_directory", lambda: ScriptDirectory(str(folder)))


def test_a_new_migration_step_keeps_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path)
    store.create_game(a_game())
    store.close()
    with monkeypatch.context() as patched:
        with_a_step(
            tmp_path, patched, "ALTER TABLE games ADD COLUMN title TEXT NOT NULL DEFAULT ''"
        )
        store = SQLiteStore(path)
        assert store.schema_revision == "9999"
        assert store.load_game("g1") is not None
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT title FROM games").fetchall() == [("",)]
    # The migrated file is newer than this code: refuse rather than guess.
    with pytest.raises(StoreError, match="newer than this marrakech understands"):
        SQLiteStore(path)


def test_a_failed_migration_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "games.sqlite3"
    SQLiteStore(path).close()
    with monkeypatch.context() as patched:
        with_a_step(tmp_path, patched, "CREATE TABLE extra (x)", "NOT SQL")
        with pytest.raises(Exception, match="syntax error"):
            SQLiteStore(path)
    store = SQLiteStore(path)
    assert store.schema_revision == migrations.head()
    store.close()
    with sqlite3.connect(path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert "extra" not in tables


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open the game store"):
        SQLiteStore(path)


def test_tokens_are_stored_hashed() -> None:
    assert hash_token("abc") != "abc"
    assert hash_token("abc") == hash_token("abc") != hash_token("abd")


def test_default_path_is_in_the_user_data_directory() -> None:
    path = default_db_path()
    assert path.name == "marrakech.sqlite3" and "marrakech" in path.parent.parts[-1]
