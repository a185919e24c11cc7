"""``marrakech admin``: the operator's moderation of the chat, on the server's database,
and its backups.

::

    $ marrakech admin --db games.sqlite3 reports            # the reports queue
    $ marrakech admin reports hide 12                       # decide on its entry 12
    $ marrakech admin reports dismiss 12
    $ marrakech admin reports ban 12 --reason "insults"     # its author's address
    $ marrakech admin reports ban 12 --account              # its author's account
    $ marrakech admin hide-message GAME_ID MESSAGE_ID
    $ marrakech admin hide-message -- -GAME_ID MESSAGE_ID   # an older id starting with -
    $ marrakech admin ban-address 203.0.113.7 --reason "flooding the chat"
    $ marrakech admin unban-address 203.0.113.7
    $ marrakech admin ban-account "Some Name" --reason "insults"
    $ marrakech admin unban-account "Some Name"
    $ marrakech admin --db games.sqlite3 backup /backups/games-2026-12-05.sqlite3
    $ marrakech admin tournament create "Hourly blitz arena" --minutes 45 --in 10

``backup`` copies an SQLite store while the server runs (:func:`backup`); a
PostgreSQL database is backed up with ``pg_dump`` (docs/deploy.md).

It works on the database itself (``--db``, or ``MARRAKECH_DB``, as ``marrakech
serve``), so every instance honours a ban at once: a banned address can create no
game, take no seat, open no game's socket and write no chat line; a banned account
writes no chat line. A line hidden (or restored by a dismissal) leaves (or comes back
to) the pages showing it within a second or two: PostgreSQL's instances are told at
once, a server on SQLite reads the decisions every second
(:class:`~marrakech.web.cluster.LocalCluster`). An entry of the queue is a reported line
nobody decided on, by the line's id (docs/web.md, "Moderation").
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
from marrakech.web.store import BanKind, ChatDecisionKind, ChatReport, ChatRow, GameStore
from marrakech.web.tournaments import admin as tournament_admin


class AdminError(Exception):
    """A moderation action refused: its message says what was expected and found."""


def add_parser(subparsers: Any) -> None:
    """Add ``admin`` to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "admin",
        help="moderate the chat (the reports queue, hidden messages, bans), back up the store,"
        " create tournaments",
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
    hide.add_argument("message", type=_line_id, help="the message's id (reports shows it)")
    reports = actions.add_parser(
        "reports",
        aliases=["list-reports"],
        help="the reports queue: list it, or hide, dismiss or ban an entry",
        description="Without a decision: the reported lines nobody decided on, newest "
        "first. With one: decide on an entry (a line's id, as listed).",
    )
    reports.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    reports.add_argument("--json", action="store_true", help="one JSON object a line")
    decisions = reports.add_subparsers(dest="decision", metavar="DECISION")
    decide = decisions.add_parser("hide", help="hide the line for good")
    decide.add_argument("entry", type=_line_id, help="the entry's id (its line's)")
    decide = decisions.add_parser(
        "dismiss", help="keep the line: shown again, never held by reports again"
    )
    decide.add_argument("entry", type=_line_id, help="the entry's id (its line's)")
    decide = decisions.add_parser("ban", help="hide the line and ban its author's address")
    decide.add_argument("entry", type=_line_id, help="the entry's id (its line's)")
    decide.add_argument(
        "--account", action="store_true", help="ban the author's account instead (signed in)"
    )
    decide.add_argument("--reason", default="", help="why (kept with the ban)")
    ban = actions.add_parser(
        "ban-address", help="refuse games, seats, sockets and chat from an address"
    )
    ban.add_argument("address", type=ban_key, help="an IPv4 or IPv6 address (IPv6: its /64)")
    ban.add_argument("--reason", default="", help="why (kept with the ban)")
    unban = actions.add_parser("unban-address", help="lift an address's ban")
    unban.add_argument("address", type=ban_key)
    ban = actions.add_parser("ban-account", help="refuse chat lines from an account")
    ban.add_argument("name", type=_name, help="the account's name (as shown on the site)")
    ban.add_argument("--reason", default="", help="why (kept with the ban)")
    unban = actions.add_parser("unban-account", help="lift an account's ban")
    unban.add_argument("name", type=_name, help="the account's name")
    backup = actions.add_parser(
        "backup",
        help="copy the SQLite file, while the server runs (PostgreSQL: pg_dump)",
        description="Copy the game store's SQLite file to a new file, consistent even "
        "while the server runs and writes (SQLite's online backup). Restore: stop the "
        "server and start it on the copy (--db), or put the copy in the file's place "
        "(docs/deploy.md). On PostgreSQL, use pg_dump.",
    )
    backup.add_argument("path", type=Path, help="the new file (must not exist)")
    tournament_admin.add_parser(actions)
    parser.set_defaults(run=run)


def _name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected an account's name, found {text!r}")
    return text


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
        if args.action == "tournament":
            try:
                print(await tournament_admin.run(store, args))
            except ValueError as error:
                raise AdminError(str(error)) from None
        elif args.action == "hide-message":
            decided = await store.decide_chat(args.game, args.message, "hidden")
            if decided is None:
                raise AdminError(
                    f"expected a message of game {args.game}, found no message {args.message} in it"
                )
            await _tell_instances(store, args.game, args.message, "hidden")
            print(f"hid message {args.message} of game {args.game}")
        elif args.action in ("reports", "list-reports"):
            if args.decision is None:
                for report in await store.chat_reports(max(1, args.limit)):
                    print(_entry_json(report) if args.json else _entry_text(report))
            else:
                await _decide(store, args)
        elif args.action == "ban-address":
            await store.ban("address", args.address, args.reason)
            print(f"banned {args.address}")
        elif args.action == "unban-address":
            if not await store.unban("address", args.address):
                raise AdminError(f"expected a banned address, found {args.address} not banned")
            print(f"lifted the ban of {args.address}")
        else:
            account = await _account_named(store, args.name)
            if args.action == "ban-account":
                await store.ban("account", account, args.reason)
                print(f"banned the account {args.name!r}")
            elif not await store.unban("account", account):
                raise AdminError(f"expected a banned account, found {args.name!r} not banned")
            else:
                print(f"lifted the ban of the account {args.name!r}")
    except AdminError as error:
        print(f"marrakech admin: {error}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    return 0


def _entry_text(report: ChatReport) -> str:
    """An entry of the queue on one line: its id, game, author, reports, text."""
    line = report.line
    kinds = [reporter.kind for reporter in report.reporters]
    counts = ", ".join(
        f"{kinds.count(kind)} {kind}{'s' if kinds.count(kind) > 1 else ''}"
        for kind in ("player", "spectator")
        if kind in kinds
    )
    state = "held" if line.held else "shown"
    # repr: a message is shown as data, quotes and all, never as markup.
    return (
        f"{line.id} game {line.game_id} {_author(line)} ({line.address or '?'}"
        f"{', account ' + line.account_id if line.account_id else ''}),"
        f" {len(report.reporters)} report(s) ({counts}), {state}: {line.text!r}"
    )


def _entry_json(report: ChatReport) -> str:
    line = report.line
    return json.dumps(
        {
            "entry": line.id,
            "game": line.game_id,
            "message": line.id,
            "author": _author(line),
            "address": line.address,
            "account": line.account_id,
            "text": line.text,
            "held": line.held,
            "reports": len(report.reporters),
            "reporters": [
                {"kind": r.kind, "address": r.address, "account": r.account_id}
                for r in report.reporters
            ],
        },
        ensure_ascii=False,
    )


def _author(line: ChatRow) -> str:
    return "spectator" if line.seat < 0 else f"seat {line.seat}"


async def _decide(store: GameStore, args: argparse.Namespace) -> None:
    """``reports hide|dismiss|ban ENTRY``: the decision on an entry of the queue."""
    line = await store.chat_line(args.entry)
    expected = "expected the id of an entry of the reports queue (marrakech admin reports)"
    if line is None:
        raise AdminError(f"{expected}, found {args.entry}: no chat line has this id")
    if line.hidden:
        raise AdminError(f"{expected}, found {args.entry}: a line the operator hid already")
    if line.dismissed:
        raise AdminError(
            f"{expected}, found {args.entry}: a line whose reports the operator dismissed"
        )
    if not line.reports:
        raise AdminError(f"{expected}, found {args.entry}: a line nobody reported")
    decision: ChatDecisionKind = "dismissed" if args.decision == "dismiss" else "hidden"
    if args.decision == "ban":
        if args.account and line.account_id is None:
            raise AdminError(
                f"expected a line written by a signed-in account, found {line.id} written by"
                " a guest: ban its address (without --account)"
            )
        if not args.account and not line.address:
            raise AdminError(
                f"expected a line with its author's address, found {line.id} without one:"
                " ban its account (--account)"
            )
        kind: BanKind = "account" if args.account else "address"
        value = line.account_id if args.account else line.address
        assert value is not None
        await store.ban(kind, value, args.reason)
        print(f"banned the {kind} {value}")
    await store.decide_chat(line.game_id, line.id, decision)
    await _tell_instances(store, line.game_id, line.id, decision)
    done = "hid" if decision == "hidden" else "dismissed the reports of"
    print(f"{done} message {line.id} of game {line.game_id}")


async def _account_named(store: GameStore, name: str) -> str:
    """The id of the account called ``name`` (whatever its case and spacing)."""
    from marrakech.web.accounts.names import name_key
    from marrakech.web.store.queries import AccountQueries

    statement = AccountQueries("postgresql" if store.dialect == "postgresql" else "sqlite")
    named = statement.account_named
    (rows,) = await store.transact([(named.sql, named.params({"key": name_key(name)}))])
    if not rows:
        raise AdminError(f"expected the name of an account of this server, found {name!r}")
    return str(rows[0]["id"])


async def _tell_instances(
    store: GameStore, game_id: str, line_id: int, decision: ChatDecisionKind
) -> None:
    """On PostgreSQL, the running instances take the line away from their pages (or
    bring a held one back) at once; a server on SQLite reads the decision itself."""
    from marrakech.web.context import is_postgres

    url = getattr(store, "url", None)
    if not is_postgres(url):
        return
    from marrakech.web.store.postgres import GAMES_CHANNEL, PostgresStore

    assert isinstance(store, PostgresStore)
    key = "hide" if decision == "hidden" else "restore"
    body = json.dumps({key: [line_id], "o": "admin"})
    async with store.pool.connection() as conn:
        await conn.execute("SELECT pg_notify(%s, %s)", (GAMES_CHANNEL, f"{game_id} {body}"))
