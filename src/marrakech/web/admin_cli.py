"""``marrakech admin``: the operator's moderation of the chat, on the server's database,
and its backups.

::

    $ marrakech admin --db games.sqlite3 list-reports
    $ marrakech admin hide-message GAME_ID MESSAGE_ID
    $ marrakech admin hide-message -- -GAME_ID MESSAGE_ID   # an older id starting with -
    $ marrakech admin ban-address 203.0.113.7 --reason "flooding the chat"
    $ marrakech admin unban-address 203.0.113.7
    $ marrakech admin --db games.sqlite3 backup /backups/games-2026-12-05.sqlite3

``backup`` copies an SQLite store while the server runs (:func:`backup`); a
PostgreSQL database is backed up with ``pg_dump`` (docs/deploy.md).

It works on the database itself (``--db``, or ``MARRAKECH_DB``, as ``marrakech
serve``), so every instance honours a ban at once: a banned address can create no
game, take no seat, open no game's socket and write no chat line. On PostgreSQL a
hidden line also leaves the pages showing it at once (the instances are told); on
SQLite it leaves them at their next connection, and the replay at once.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import sys
from pathlib import Path
from typing import Any

from marrakech.web.limits import client_key
from marrakech.web.store import GameStore


def add_parser(subparsers: Any) -> None:
    """Add ``admin`` to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "admin",
        help="hide chat messages, list reports, ban addresses, back up the store",
        description="Moderate the web app's chat on its database; back it up.",
    )
    parser.add_argument(
        "--db",
        metavar="PATH|URL",
        default=os.environ.get("MARRAKECH_DB"),
        help="the server's SQLite file or PostgreSQL URL (as marrakech serve; also "
        "read from MARRAKECH_DB)",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    hide = actions.add_parser("hide-message", help="hide a chat message for good")
    hide.add_argument("game", help="the game's id")
    hide.add_argument("message", type=_line_id, help="the message's id (list-reports shows it)")
    reports = actions.add_parser("list-reports", help="reported messages not hidden yet")
    reports.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    reports.add_argument("--json", action="store_true", help="one JSON object a line")
    ban = actions.add_parser(
        "ban-address", help="refuse games, seats, sockets and chat from an address"
    )
    ban.add_argument("address", type=ban_key, help="an IPv4 or IPv6 address (IPv6: its /64)")
    ban.add_argument("--reason", default="", help="why (kept with the ban)")
    unban = actions.add_parser("unban-address", help="lift an address's ban")
    unban.add_argument("address", type=ban_key)
    backup = actions.add_parser(
        "backup",
        help="copy the SQLite file, while the server runs (PostgreSQL: pg_dump)",
        description="Copy the game store's SQLite file to a new file, consistent even "
        "while the server runs and writes (SQLite's online backup). Restore: stop the "
        "server and start it on the copy (--db), or put the copy in the file's place "
        "(docs/deploy.md). On PostgreSQL, use pg_dump.",
    )
    backup.add_argument("path", type=Path, help="the new file (must not exist)")
    parser.set_defaults(run=run)


def _line_id(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a message id (1, 2...), found {text!r}")
    return int(text)


def ban_key(text: str) -> str:
    """The key an address is banned under: the server's client key
    (:func:`~marrakech.web.limits.client_key`), so an IPv6 address bans its /64.

    >>> ban_key("203.0.113.7"), ban_key("2001:db8:1:2::9"), ban_key("2001:db8:1:2::/64")
    ('203.0.113.7', '2001:db8:1:2::/64', '2001:db8:1:2::/64')
    """
    host = text.strip()
    if host.endswith("/64"):
        host = host[:-3]
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an IPv4 or IPv6 address (203.0.113.7, 2001:db8::1), found {text!r}"
        ) from None
    return client_key({"client": (host, 0)})


def run(args: argparse.Namespace) -> int:
    """Do one moderation action; the exit code."""
    from marrakech.web.store import StoreError, default_db_path

    db: str | Path = args.db or default_db_path()
    if args.action == "backup":
        return backup(db, args.path)
    try:
        return asyncio.run(_run(args, db))
    except (StoreError, ImportError) as error:
        print(f"marrakech admin: {error}", file=sys.stderr)
        return 1


def backup(db: str | Path, path: Path) -> int:
    """``marrakech admin backup PATH``: the SQLite store copied to ``PATH`` with
    SQLite's online backup, in one step, so the copy is the database as one moment saw
    it while the server goes on writing (WAL: it waits for no one). Written beside
    ``PATH`` first, checked, then renamed: a ``PATH`` that exists is a whole backup.
    The exit code."""
    import sqlite3

    from marrakech.web.context import is_postgres

    if is_postgres(db):
        shown = str(db).split("@")[-1]  # never a password
        print(
            "marrakech admin backup: the games are on PostgreSQL: back them up with"
            f" pg_dump, e.g. pg_dump --format=custom --file={path} 'postgresql://...@{shown}'"
            " (docs/deploy.md)",
            file=sys.stderr,
        )
        return 2
    source_path = Path(db)
    if not source_path.is_file():
        print(
            f"marrakech admin backup: no game store at {db} (give the server's --db)",
            file=sys.stderr,
        )
        return 1
    if path.exists():
        print(f"marrakech admin backup: {path} exists: expected a new file", file=sys.stderr)
        return 1
    if path.resolve() == source_path.resolve():
        print("marrakech admin backup: expected another file than the store", file=sys.stderr)
        return 1
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        # Not read-only: a read-only connection to a stopped server's WAL file leaves a
        # -wal and a -shm behind it (owned by whoever ran the backup); this one removes
        # them as it closes. The backup itself only reads.
        source = sqlite3.connect(source_path)
        try:
            target = sqlite3.connect(partial)
            try:
                source.backup(target)  # pages=-1: all at once, one consistent snapshot
                (check,) = target.execute("PRAGMA quick_check").fetchone()
                if check != "ok":
                    raise sqlite3.DatabaseError(f"the copy does not check: {check}")
                games = target.execute("SELECT count(*) FROM games").fetchone()[0]
                actions = target.execute("SELECT count(*) FROM actions").fetchone()[0]
                # One file, nothing in a -wal beside it: copied, moved, opened as it is.
                target.execute("PRAGMA journal_mode=DELETE")
            finally:
                target.close()
        finally:
            source.close()
        partial.replace(path)
    except (sqlite3.Error, OSError) as error:
        partial.unlink(missing_ok=True)
        print(f"marrakech admin backup: cannot back up {db}: {error}", file=sys.stderr)
        return 1
    print(f"backed up {games} games ({actions} actions) of {db} to {path}")
    return 0


async def _open(db: str | Path) -> GameStore:
    from marrakech.web.context import is_postgres

    if is_postgres(db):
        from marrakech.web.store.postgres import PostgresStore

        return await PostgresStore.open(str(db), min_size=1, max_size=1)
    from marrakech.web.store.sqlite import SQLiteStore
    from marrakech.web.store.worker import StoreWorker

    if not Path(db).exists():
        from marrakech.web.store import StoreError

        raise StoreError(f"no game store at {db} (give the server's --db)")
    return StoreWorker.over(SQLiteStore(db))


async def _run(args: argparse.Namespace, db: str | Path) -> int:
    store = await _open(db)
    try:
        if args.action == "hide-message":
            if not await store.hide_chat(args.game, args.message):
                print(
                    f"marrakech admin: game {args.game} has no message {args.message}",
                    file=sys.stderr,
                )
                return 1
            await _tell_instances(store, args.game, args.message)
            print(f"hid message {args.message} of game {args.game}")
        elif args.action == "list-reports":
            for report in await store.chat_reports(max(1, args.limit)):
                line = report.line
                author = "spectator" if line.seat < 0 else f"seat {line.seat}"
                if args.json:
                    print(
                        json.dumps(
                            {
                                "game": line.game_id,
                                "message": line.id,
                                "author": author,
                                "address": line.address,
                                "text": line.text,
                                "reporters": list(report.reporters),
                            },
                            ensure_ascii=False,
                        )
                    )
                else:
                    # repr: a message is shown as data, quotes and all, never as markup.
                    print(
                        f"{line.game_id} {line.id} {author} ({line.address or '?'}),"
                        f" {len(report.reporters)} report(s): {line.text!r}"
                    )
        elif args.action == "ban-address":
            await store.ban("address", args.address, args.reason)
            print(f"banned {args.address}")
        else:
            if not await store.unban("address", args.address):
                print(f"marrakech admin: {args.address} was not banned", file=sys.stderr)
                return 1
            print(f"lifted the ban of {args.address}")
    finally:
        await store.close()
    return 0


async def _tell_instances(store: GameStore, game_id: str, line_id: int) -> None:
    """On PostgreSQL, the running instances take the line away from their pages."""
    from marrakech.web.context import is_postgres

    url = getattr(store, "url", None)
    if not is_postgres(url):
        return
    from marrakech.web.store.postgres import GAMES_CHANNEL, PostgresStore

    assert isinstance(store, PostgresStore)
    body = json.dumps({"hide": [line_id], "o": "admin"})
    async with store.pool.connection() as conn:
        await conn.execute("SELECT pg_notify(%s, %s)", (GAMES_CHANNEL, f"{game_id} {body}"))
