"""Alembic's commands on the shipped migrations, for developers (no alembic.ini)::

    python -m marrakech.web.store.migrations revision --rev-id 0002 -m "games title"
    python -m marrakech.web.store.migrations history
    python -m marrakech.web.store.migrations -x url=sqlite:///games.sqlite3 current

``revision`` writes ``versions/<id>_<message>.py`` from ``script.py.mako``; fill in its
``upgrade()``, one step for both databases (``op.batch_alter_table``, which SQLite needs).
The server runs the steps itself (:func:`marrakech.web.store.migrations.upgrade`) and creates a new
database from the declaration, not from the steps: point ``upgrade`` here only at an
existing database.
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic.config import CommandLine, Config


def main(argv: list[str] | None = None) -> None:
    cli = CommandLine(prog="python -m marrakech.web.store.migrations")
    options = cli.parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    config = Config(cmd_opts=options)
    config.set_main_option("script_location", str(Path(__file__).parent))
    cli.run_cmd(config, options)


if __name__ == "__main__":
    main()
