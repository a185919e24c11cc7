"""A store that fails for a moment (a database restart, a busy file) is tried again.

A PostgreSQL restart breaks every connection of the pool, and for a second or two new
ones are refused; an SQLite file can be locked by another process for a while. Neither
is a reason to refuse a player's action: :func:`retrying` tries a store call again,
with a growing pause, for up to ``within`` seconds (``marrakech serve --store-retry``),
and only then lets the failure through (the room then answers ``server_error``: nothing
changed). A permanent failure (a constraint, a damaged file, a conflict with another
writer) goes through at once.

An action's append is one transaction, but when the connection breaks during its commit
nobody knows whether it landed. So before trying it again, :func:`append_landed` reads
the game's actions from the append's version: the same actions there mean it landed (it
is not written twice), none mean it did not, others mean another writer was first
(:class:`~marrakech.web.store.StoreConflict`, as the append itself would say).

    >>> import sqlite3
    >>> transient(sqlite3.OperationalError("database is locked"))
    True
    >>> transient(sqlite3.IntegrityError("UNIQUE constraint failed: actions.number"))
    False
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import sys
import time
from collections.abc import Awaitable, Callable

from marrakech.web.store import Append, GameStore, StoreConflict

log = logging.getLogger("marrakech.web")

#: Seconds a failing store call is tried again for, by default (``--store-retry``).
RETRY_SECONDS = 5.0
#: The first pause before trying again, doubled each time up to :data:`LONGEST_PAUSE`.
FIRST_PAUSE = 0.05
LONGEST_PAUSE = 1.0

#: PostgreSQL's SQLSTATEs that pass: the connection (class 08), a transaction rolled
#: back by a serialization failure or a deadlock (class 40), the server shutting down or
#: starting (57P01 to 57P03), too many connections, a lock not available.
_TRANSIENT_CLASSES = ("08", "40")
_TRANSIENT_STATES = frozenset({"57P01", "57P02", "57P03", "53300", "55P03"})


def transient(error: BaseException) -> bool:
    """Whether a store's failure may pass if the call is made again in a moment: a lost
    or refused database connection, a server shutting down or starting, a serialization
    failure or deadlock, no pooled connection free in time; a busy or locked SQLite
    file. Anything else (a constraint, bad data, a damaged file) is permanent."""
    if isinstance(error, sqlite3.OperationalError):
        text = str(error).lower()
        return "locked" in text or "busy" in text
    if isinstance(error, ConnectionError):
        return True
    psycopg = sys.modules.get("psycopg")  # imported by the PostgreSQL store only
    if psycopg is None or not isinstance(error, psycopg.Error):
        return False
    state = getattr(error, "sqlstate", None)
    if state is None:  # raised by the client: the connection broke, or none was free
        return isinstance(error, psycopg.OperationalError)
    return state.startswith(_TRANSIENT_CLASSES) or state in _TRANSIENT_STATES


async def retrying(
    attempt: Callable[[], Awaitable[None]],
    within: float,
    landed: Callable[[], Awaitable[bool]] | None = None,
) -> None:
    """Run ``attempt``; while it fails with a :func:`transient` error, run it again after
    a pause (0.05 s, doubled up to 1 s), for up to ``within`` seconds, then raise the
    last failure. ``landed``, after a failure, says whether the attempt took effect
    after all (its commit's answer was lost): then it is not made again."""
    deadline = time.monotonic() + within
    pause = FIRST_PAUSE
    unsure = False
    while True:
        try:
            if not (unsure and landed is not None and await landed()):
                await attempt()
            return
        except Exception as error:
            if not transient(error) or time.monotonic() + pause > deadline:
                raise
            log.warning("the store failed (%s): trying again in %.2f s", error, pause)
            unsure = True
        await asyncio.sleep(pause)
        pause = min(2 * pause, LONGEST_PAUSE)


async def append_landed(store: GameStore, append: Append) -> bool:
    """Whether ``append`` is in the store already (its actions stored from its version
    on); False if nothing is stored from there; :class:`StoreConflict` if other actions
    are."""
    stored = await store.load_actions(append.game_id, append.version)
    if not stored:
        return False
    mine = [(row.token, row.seat) for row in append.actions]
    if [(row.token, row.seat) for row in stored[: len(mine)]] == mine:
        return True
    raise StoreConflict(
        f"game {append.game_id} moved on from version {append.version} with other actions"
    )


async def append_retrying(store: GameStore, append: Append, within: float) -> None:
    """``store.append_actions(append)``, tried again while the store fails for a moment
    (:func:`retrying`), never written twice (:func:`append_landed`)."""
    await retrying(
        lambda: store.append_actions(
            append.game_id,
            append.version,
            append.actions,
            append.status,
            append.bot_to_move,
            append.turns,
            append.end,
        ),
        within,
        lambda: append_landed(store, append),
    )
