"""The recipe "A stored field" of docs/architecture.md, followed in a copy of the package:
a game's ``motto``, declared on ``StoredGame`` and in the schema, migrated by a revision
made with the migrations' own command, and changed by a store method written once per
database (``StoreWorker`` untouched). The store's tests then pass on the copy as they
are, with one round trip more, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recipe_copy import REPO, SourceCopy

#: Step 1: the field, with a default.
FIELD = """    #: The host's motto for the game (the recipe's example field).
    motto: str = ""
"""
#: Step 2: its column, of the same name, with the same default.
COLUMN = """    Column("motto", Text, nullable=False, server_default=text("''")),
"""
#: Step 3: the revision's step, the default as a plain string.
MIGRATION = """    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("motto", sa.Text, nullable=False, server_default=""))
"""
#: Step 4: the statement, the protocol's method and its body in each database's store.
STATEMENT = """        self.set_motto = self._compile(
            update(g).where(g.c.id == P("game_id")).values(motto=P("new_motto"))
        )
"""
DECLARATION = '''    async def set_motto(self, game_id: str, motto: str) -> None:
        """Change the game's motto."""
        ...

'''
SQLITE = """    def set_motto(self, game_id: str, motto: str) -> None:
        with self._lock, self._transaction():
            self._db.execute(Q.set_motto.sql, {"game_id": game_id, "new_motto": motto})

"""
POSTGRES = """    async def set_motto(self, game_id: str, motto: str) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(Q.set_motto.sql, {"game_id": game_id, "new_motto": motto})

"""
#: Step 5: the round trip, with the store contract's fixture (both databases).
ROUND_TRIP = """
from collections.abc import Callable
from typing import Any

from tests.web.conftest import pg_url, postgres  # the contract's fixtures need them
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store_contract import _own, a_game, open_store

__all__ = ["open_store", "pg_url", "postgres"]


@in_fresh_loop
async def test_the_motto_is_stored_and_changed(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    try:
        await store.create_game(a_game("m1", motto="carpets"))
        await _own(store, "m1")
        assert (await store.load_game("m1")).motto == "carpets"
        await store.set_motto("m1", "dirhams")
        assert (await store.load_game("m1")).motto == "dirhams"
        assert [game.motto for game in await store.summaries(["m1"])] == ["dirhams"]
        await store.create_game(a_game("m2"))
        assert (await store.load_game("m2")).motto == ""
    finally:
        await store.close()
"""

#: The store's own tests, run on the copy unchanged.
STORE_TESTS = ("test_store.py", "test_store_contract.py", "test_store_legacy.py")


@pytest.mark.slow  # among the longest: in make test-slow, which CI runs too
def test_a_new_stored_field_is_the_recipes_files(tmp_path: Path) -> None:
    copy = SourceCopy(tmp_path / "copy", copied=("web",))
    copy.insert("web/store/__init__.py", '    clock_banks: str = ""\n', FIELD)
    anchor = '    Column("clock_warned", Integer, nullable=False, server_default=text("-1")),\n'
    copy.insert("web/store/schema.py", anchor, COLUMN)
    made = copy.run(
        "-m", "marrakech.web.store.migrations", "revision", "--rev-id", "0007", "-m", "motto"
    )
    assert "0007_motto.py" in made
    anchor = "op.batch_alter_table.\n"
    copy.insert("web/store/migrations/versions/0007_motto.py", anchor, MIGRATION)
    anchor = '.values(analysis=P("new_analysis"))\n        )\n'
    copy.insert("web/store/queries.py", anchor, STATEMENT)
    anchor = '    async def close(self) -> None:\n        """Release the connections."""'
    copy.insert("web/store/__init__.py", anchor, DECLARATION, before=True)
    anchor = "    def close(self) -> None:\n        with self._lock:"
    copy.insert("web/store/sqlite.py", anchor, SQLITE, before=True)
    anchor = "    async def close(self) -> None:\n        await self.pool.close"
    copy.insert("web/store/postgres.py", anchor, POSTGRES, before=True)

    round_trip = tmp_path / "test_motto.py"
    round_trip.write_text(ROUND_TRIP)
    pytest = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
    config = ("-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO))
    copy.run(*pytest, *config, str(round_trip))
    # The worker forwards the new method, the stores agree with the protocol, and an
    # older database migrates to the declaration (the migration matches the column).
    here = Path(__file__).parent
    copy.run(*pytest, str(here / "test_store_faces.py"), *(str(here / t) for t in STORE_TESTS))
