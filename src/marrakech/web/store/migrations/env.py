"""Alembic's environment, for developers' commands only (``python -m
marrakech.web.store.migrations``): the server migrates with
:func:`marrakech.web.store.migrations.upgrade`.

Commands that need a database take it as ``-x url=sqlite:///games.sqlite3`` (or
``postgresql+psycopg://...``).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from marrakech.web.store.schema import metadata


def run() -> None:
    url = context.get_x_argument(as_dictionary=True).get("url", "sqlite://")
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(url)
    with engine.begin() as connection:
        context.configure(connection=connection, target_metadata=metadata)
        context.run_migrations()
    engine.dispose()


try:
    context.config  # noqa: B018 (set only while Alembic runs this file)
except (NameError, AttributeError):  # imported otherwise (pytest's doctests): no run
    pass
else:
    run()
