"""Running the schema's migrations (the Alembic scripts of ``versions/``): both stores
call :func:`upgrade` when they open, inside one transaction; :func:`head` is the newest
revision. ``python -m marrakech.web.store.migrations`` makes a new revision (see
docs/architecture.md, "A stored field")."""

from __future__ import annotations

from importlib import resources
from typing import Any

from sqlalchemy import Connection, inspect, text

from marrakech.web.store import StoreError
from marrakech.web.store.schema import metadata

#: A table older versions kept their schema number in (SQLite 1-6, PostgreSQL 1-5). The
#: first migration reads it to adopt such a database, then sets it to this number so
#: that those versions refuse the database ("newer than this marrakech understands").
LEGACY_VERSION_MARK = 100
#: Any number, the same for every instance: the lock of the schema's migrations.
MIGRATION_LOCK = 0x6D61726B


def script_directory() -> Any:
    """The Alembic scripts of :mod:`marrakech.web.store.migrations`."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(resources.files("marrakech.web.store") / "migrations"))


def head() -> str:
    """The newest migration's revision."""
    revision: str = script_directory().get_current_head()
    return revision


def upgrade(connection: Connection, target: str = "head") -> str:
    """Bring the database of ``connection`` (in a transaction the caller commits) to
    ``target``, its revision: an empty database gets the declared tables (stamped with
    the newest revision), any other the migrations it has not had. :class:`StoreError`
    if the database is newer than these migrations know."""
    from alembic.migration import MigrationContext
    from alembic.operations import Operations
    from alembic.util import CommandError

    script = script_directory()
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": MIGRATION_LOCK})

    def steps(revision: Any, context: Any) -> Any:
        return script._upgrade_revs(target, revision)

    context = MigrationContext.configure(
        connection, opts={"script": script, "fn": steps, "target_metadata": metadata}
    )
    current = context.get_current_revision()
    if current is None and target == "head" and not inspect(connection).has_table("games"):
        metadata.create_all(connection)
        mark_legacy_version(connection)
        context.stamp(script, "head")
    else:
        if current is not None:
            try:
                script.get_revision(current)
            except CommandError:
                raise StoreError(
                    f"the database has schema revision {current}, newer than this "
                    f"marrakech understands ({script.get_current_head()}): upgrade marrakech"
                ) from None
        with Operations.context(context):
            context.run_migrations()
    reached = context.get_current_revision()
    assert reached is not None
    return reached


def mark_legacy_version(connection: Connection) -> None:
    """Set the table of older versions' schema number to :data:`LEGACY_VERSION_MARK`."""
    connection.execute(text("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"))
    connection.execute(text("DELETE FROM schema_version"))
    connection.execute(
        text("INSERT INTO schema_version (version) VALUES (:mark)"), {"mark": LEGACY_VERSION_MARK}
    )
