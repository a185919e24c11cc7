"""The stored schema, declared once for SQLite and PostgreSQL (SQLAlchemy Core).

Both stores create, migrate and query the same tables from this declaration:
:data:`games`, :data:`seats`, :data:`actions`, the chat (:data:`chat`,
:data:`chat_reports`, :data:`chat_decisions`, :data:`bans`), the ratings (:data:`ratings`,
:data:`rating_history`), :data:`instances` (the PostgreSQL instances'
heartbeats; unused on SQLite) and the accounts' :data:`accounts`, :data:`credentials`,
:data:`sessions` and :data:`challenges`, and the reminders' :data:`mail_addresses`,
:data:`mail_mutes`, :data:`mail_visits`, :data:`mail_outbox` and :data:`mail_keys` (also
the device cookies' key), :data:`budgets` (the limits every instance shares), and the
push devices' :data:`push_subscriptions`, and the friends' :data:`follows`,
:data:`blocks` and :data:`game_challenges`, and the quick-pairing pools'
:data:`pool_entries` and :data:`pool_lease` (the players' tables are declared in
:mod:`marrakech.web.store.player_tables` and looked up here), and the tournaments'
:data:`tournaments`, :data:`tournament_entries` and :data:`tournament_games`
(:mod:`marrakech.web.store.tournament_schema`).
Alembic migrations shipped in :mod:`marrakech.web.store.migrations` bring any database to the
declared schema when a store opens (:func:`upgrade`), under a lock, in one transaction.

A column whose name is a field of :class:`~marrakech.web.store.StoredGame` (games) or
:class:`~marrakech.web.store.SeatRow` (seats) is written from that field and read back
into it by name (:func:`game_values`, :func:`game_fields`, :func:`seat_values`,
:func:`seat_row`); a few columns are encoded (:data:`GAME_CODECS`). So a new stored field
is its dataclass field, one :class:`~sqlalchemy.Column` here and one migration step::

    >>> sorted(set(games.c.keys()) - set(GAME_FIELDS))  # doctest: +NORMALIZE_WHITESPACE
    ['bots', 'clock_claimed', 'clock_deadline', 'clock_seat', 'clock_turn', 'clock_warned',
     'owner', 'pending_resigns']
    >>> from sqlalchemy import select
    >>> query = select(seats.c.kind).where(seats.c.host)
    >>> " ".join(compile_sql(query, "sqlite").split())
    'SELECT seats.kind FROM seats WHERE seats.host = 1'
    >>> " ".join(compile_sql(query, "postgresql").split())
    'SELECT seats.kind FROM seats WHERE seats.host'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    Table,
    Text,
    false,
    text,
    true,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.types import TIMESTAMP

from marrakech.web.store import (
    SeatRow,
    StoredGame,
    tournament_schema,  # noqa: F401 (their tables, declared)
)
from marrakech.web.store.player_tables import *  # noqa: F403 (every table, looked up here)
from marrakech.web.store.table_metadata import Dialects as Dialects
from marrakech.web.store.table_metadata import metadata as metadata

games = Table(
    "games",
    metadata,
    Column("id", Text, primary_key=True),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
    Column("players", SmallInteger, nullable=False),
    Column("rules", Text, nullable=False),
    Column("first_seat", SmallInteger, nullable=False),
    Column("lang", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("version", Integer, nullable=False, server_default=text("0")),
    Column("bot_to_move", Boolean, nullable=False, server_default=false()),
    # Who created the game (the caps' client key) and how many bots it seats.
    Column("creator", Text, nullable=False, server_default=text("''")),
    Column("bots", SmallInteger, nullable=False, server_default=text("0")),
    # The instance that owns the game's room (PostgreSQL; NULL on SQLite).
    Column("owner", Text),
    # Issue #13: the turn clock, its stand-in, player turns, rematch and analysis.
    Column("clock", Text, nullable=False, server_default=text("'none'")),
    Column("clock_seconds", Integer, nullable=False, server_default=text("0")),
    Column("stand_in_level", Text, nullable=False, server_default=text("'medium'")),
    Column("turns", Integer, nullable=False, server_default=text("0")),
    Column("rematch", Text),
    Column("analysis", Text),
    # Whether players may ask for hints (games from before hints: no).
    Column("hints", Boolean, nullable=False, server_default=false()),
    # The running turn's clock (-1, -1, 0: none) and the pending resignations (R22),
    # a bit per seat.
    Column("clock_seat", Integer, nullable=False, server_default=text("-1")),
    Column("clock_turn", Integer, nullable=False, server_default=text("-1")),
    Column("clock_deadline", Double, nullable=False, server_default=text("0")),
    Column("pending_resigns", Integer, nullable=False, server_default=text("0")),
    # Issue 24: whether the game has a chat (its host may turn it off at creation).
    Column("chat", Boolean, nullable=False, server_default=true()),
    # Issue 24: whether the game is rated (chosen at creation: accounts and bots only).
    Column("rated", Boolean, nullable=False, server_default=false()),
    # Issue 25, turn-based clocks: each seat's time bank left (seconds, comma-separated;
    # '' while every bank is full), until when an instance's sweep handles the running
    # turn's passed deadline (so that one instance does), and the player-turn number
    # whose "time runs out soon" was announced (once a turn).
    Column("clock_banks", Text, nullable=False, server_default=text("''")),
    Column("clock_claimed", Double, nullable=False, server_default=text("0")),
    Column("clock_warned", Integer, nullable=False, server_default=text("-1")),
    CheckConstraint("players BETWEEN 2 AND 4", name="games_players_check"),
    CheckConstraint("status IN ('waiting', 'running', 'over')", name="games_status_check"),
)
Index("games_by_status", games.c.status, games.c.created)
Index(
    "games_with_bot_to_move",
    games.c.id,
    sqlite_where=games.c.bot_to_move == true(),
    postgresql_where=games.c.bot_to_move == true(),
)
Index(
    "games_unfinished",
    games.c.updated,
    sqlite_where=games.c.status != "over",
    postgresql_where=games.c.status != "over",
)

# The sweeps find the running turns whose deadline passed by this index, whichever
# instance runs them (a game nobody watches has no timer in memory).
Index(
    "games_by_deadline",
    games.c.clock_deadline,
    sqlite_where=games.c.clock_seat >= 0,
    postgresql_where=games.c.clock_seat >= 0,
)

seats = Table(
    "seats",
    metadata,
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", SmallInteger, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("level", Text),
    Column("name", Text, nullable=False, server_default=text("''")),
    Column("token_hash", Text),
    Column("stand_in", Text),
    Column("host", Boolean, nullable=False, server_default=false()),
    Column("joined", Boolean, nullable=False, server_default=false()),
    Column("hints", Integer, nullable=False, server_default=text("0")),
    # The game version of the seat's last counted hint (one a position).
    Column("hinted_at", Integer, nullable=False, server_default=text("-1")),
    # The account the seat's player signed in with (issue #24), or NULL for a guest:
    # written only by the accounts' statements (never by a seat change).
    Column("account_id", Text, ForeignKey("accounts.id")),
    # The seat's place when the game ended (1 first, ties shared as R21 ranks them; a
    # seat that resigned or ran out of time last), written with the game's end; NULL
    # before (and in games finished before ratings).
    Column("place", SmallInteger),
    CheckConstraint("seat BETWEEN 0 AND 3", name="seats_seat_check"),
    CheckConstraint("kind IN ('human', 'open', 'bot')", name="seats_kind_check"),
    sqlite_with_rowid=False,
)
Index("seats_by_account", seats.c.account_id)

actions = Table(
    "actions",
    metadata,
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("token", Text, nullable=False),
    Column("seat", SmallInteger, nullable=False),
    Column("at", Double, nullable=False),
    sqlite_with_rowid=False,
)

# Issue 24: the games' chat, its reports, and the operator's bans (docs/web.md, "Chat").
chat = Table(
    "chat",
    metadata,
    # One id for every game's lines: any instance writes a line at once, without asking
    # the game's owner (chat never waits for, nor delays, a move).
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("at", Double, nullable=False),
    # The author: a seat (0-3), or -1 for a spectator; the account once accounts exist.
    Column("seat", SmallInteger, nullable=False),
    Column("account_id", Text),
    Column("channel", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("text", Text, nullable=False),
    # Who wrote it (the client key: an address), for the operator's bans only.
    Column("address", Text, nullable=False, server_default=text("''")),
    Column("reports", Integer, nullable=False, server_default=text("0")),
    Column("hidden", Boolean, nullable=False, server_default=false()),
    # Issue 36: hidden until the operator decides (players' reports: docs/web.md,
    # "Moderation"), and the operator's dismissal (no more such hiding).
    Column("held", Boolean, nullable=False, server_default=false()),
    Column("dismissed", Boolean, nullable=False, server_default=false()),
    CheckConstraint("seat BETWEEN -1 AND 3", name="chat_seat_check"),
    CheckConstraint("channel IN ('players', 'spectators')", name="chat_channel_check"),
    CheckConstraint("kind IN ('text', 'reaction')", name="chat_kind_check"),
)
Index("chat_by_game", chat.c.game_id, chat.c.id)

chat_reports = Table(
    "chat_reports",
    metadata,
    Column("line_id", Integer, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True),
    # Who reported it (once each): ``account:ID`` when signed in, else ``address:KEY``
    # (before issue 36: ``seat:N`` or a spectator's ``address:KEY``).
    Column("reporter", Text, primary_key=True),
    Column("at", Double, nullable=False),
    # Issue 36: whether the reporter held a seat of the game (``player``) or none
    # (``spectator``), and its address and account, by which players' reports are told
    # apart (:func:`marrakech.web.store.distinct_players`).
    Column("kind", Text, nullable=False, server_default=text("'spectator'")),
    Column("address", Text, nullable=False, server_default=text("''")),
    Column("account_id", Text),
    CheckConstraint("kind IN ('player', 'spectator')", name="chat_reports_kind_check"),
)

# Issue 36: the operator's decisions on chat lines, in order: an instance that did not
# make one learns of it here (on SQLite, by reading what is newer every second).
chat_decisions = Table(
    "chat_decisions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", Text, nullable=False),
    Column("line_id", Integer, nullable=False),
    Column("decision", Text, nullable=False),
    Column("at", Double, nullable=False),
    CheckConstraint("decision IN ('hidden', 'dismissed')", name="chat_decisions_check"),
)

bans = Table(
    "bans",
    metadata,
    # ``address`` (a client key, :func:`marrakech.web.limits.client_key`); ``account``
    # once accounts exist.
    Column("kind", Text, primary_key=True),
    Column("value", Text, primary_key=True),
    Column("at", Double, nullable=False),
    Column("reason", Text, nullable=False, server_default=text("''")),
    CheckConstraint("kind IN ('address', 'account')", name="bans_kind_check"),
)

# Issue 24: the ratings (docs/web.md, "Ratings"). A rated player is an account (``kind``
# ``account``, ``player`` its id) or a bot level (``bot``, the level); each has a rating
# per player count, changed only with the end of a rated game, in its transaction.
ratings = Table(
    "ratings",
    metadata,
    Column("kind", Text, primary_key=True),
    Column("player", Text, primary_key=True),
    Column("players", SmallInteger, primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("games", Integer, nullable=False, server_default=text("0")),
    Column("wins", Integer, nullable=False, server_default=text("0")),
    Column("updated", Double, nullable=False),
    CheckConstraint("kind IN ('account', 'bot')", name="ratings_kind_check"),
    CheckConstraint("players BETWEEN 2 AND 4", name="ratings_players_check"),
)
Index("ratings_by_count", ratings.c.players, ratings.c.kind, ratings.c.games)

rating_history = Table(
    "rating_history",
    metadata,
    # One row per rated player per rated game: its place and its rating before and after.
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("kind", Text, primary_key=True),
    Column("player", Text, primary_key=True),
    Column("players", SmallInteger, nullable=False),
    Column("at", Double, nullable=False),
    Column("place", SmallInteger, nullable=False),
    Column("mu_before", Double, nullable=False),
    Column("sigma_before", Double, nullable=False),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    CheckConstraint("kind IN ('account', 'bot')", name="rating_history_kind_check"),
)
Index(
    "rating_history_by_player", rating_history.c.kind, rating_history.c.player, rating_history.c.at
)

# Issue 25: when the clocks' sweep last ran (on any instance). A sweep that finds the
# last one long ago knows no instance ran meanwhile: the deadlines that passed then are
# pushed back (docs/playing.md, "Turn-based games").
sweeps = Table(
    "sweeps",
    metadata,
    Column("name", Text, primary_key=True),
    Column("at", Double, nullable=False),
)

# Issue 36: the budgets that matter for security (sign-in, account creation, chat), one
# row a budget's key, shared by every instance of the database (marrakech.web.budgets).
budgets = Table(
    "budgets",
    metadata,
    # The budget's name and whose it is: ``sign-in:203.0.113.7``.
    Column("key", Text, primary_key=True),
    # A rate's theoretical arrival time (GCRA: the budget is whole again then), or when
    # growing delays let the next try come.
    Column("due", Double, nullable=False),
    # Growing delays: the tries counted, and the delay the last one set.
    Column("tries", Integer, nullable=False, server_default=text("0")),
    Column("delay", Double, nullable=False, server_default=text("0")),
    # A random mark of the last take that was granted: how a take knows it was.
    Column("taken", Text, nullable=False, server_default=text("''")),
    # When the row says nothing any more (a whole budget): it may be deleted then.
    Column("expires", Double, nullable=False),
)
Index("budgets_by_expiry", budgets.c.expires)

instances = Table(
    "instances",
    metadata,
    Column("id", Text, primary_key=True),
    Column("started", Double, nullable=False),
    Column("alive_until", TIMESTAMP(timezone=True), nullable=False),
)

# -- rows by name -------------------------------------------------------------------------


def _turn_clock(row: Mapping[str, Any]) -> tuple[int, int, float] | None:
    if row["clock_seat"] < 0:
        return None
    return (int(row["clock_seat"]), int(row["clock_turn"]), float(row["clock_deadline"]))


def _pending(row: Mapping[str, Any]) -> frozenset[int]:
    return frozenset(s for s in range(4) if int(row["pending_resigns"]) >> s & 1)


def turn_values(
    turn_clock: tuple[int, int, float] | None, pending_resigns: frozenset[int]
) -> dict[str, Any]:
    """The columns of a game's turn state: ``clock_seat, clock_turn, clock_deadline``
    (-1, -1, 0 without a clock) and ``pending_resigns`` (a bit per seat).

    >>> turn_values((2, 7, 1.5), frozenset({0, 3}))
    {'clock_seat': 2, 'clock_turn': 7, 'clock_deadline': 1.5, 'pending_resigns': 9}
    """
    seat, turn, deadline = turn_clock or (-1, -1, 0.0)
    return {
        "clock_seat": seat,
        "clock_turn": turn,
        "clock_deadline": deadline,
        "pending_resigns": sum(1 << s for s in pending_resigns),
    }


#: StoredGame fields kept in other columns than their name: how each is read from a row
#: (its columns are written by :func:`game_values`).
GAME_CODECS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "turn_clock": _turn_clock,
    "pending_resigns": _pending,
}

#: Fields of :class:`StoredGame` stored in a games column of the same name.
GAME_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(StoredGame)
    if f.name in games.c and f.name not in GAME_CODECS
)
#: Fields of :class:`SeatRow` stored in a seats column of the same name.
SEAT_FIELDS = tuple(f.name for f in dataclasses.fields(SeatRow) if f.name in seats.c)

_GAME_BOOLS = frozenset(c.name for c in games.c if isinstance(c.type, Boolean))
_SEAT_BOOLS = frozenset(c.name for c in seats.c if isinstance(c.type, Boolean))


def game_values(game: StoredGame) -> dict[str, Any]:
    """The games columns of a new game (but ``owner``), by name."""
    values: dict[str, Any] = {name: getattr(game, name) for name in GAME_FIELDS}
    values["bots"] = game.bots
    values.update(turn_values(game.turn_clock, game.pending_resigns))
    return values


def game_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`StoredGame` fields (but seats and actions) of a games row read by
    name (SQLite keeps booleans as integers)."""
    fields = {name: bool(row[name]) if name in _GAME_BOOLS else row[name] for name in GAME_FIELDS}
    for name, read in GAME_CODECS.items():
        fields[name] = read(row)
    return fields


def seat_values(seat: SeatRow) -> dict[str, Any]:
    """A seat's columns by name (but ``game_id``)."""
    return {name: getattr(seat, name) for name in SEAT_FIELDS}


def seat_row(row: Mapping[str, Any]) -> SeatRow:
    """A :class:`SeatRow` from a seats row read by name."""
    fields: dict[str, Any] = {
        name: bool(row[name]) if name in _SEAT_BOOLS else row[name] for name in SEAT_FIELDS
    }
    return SeatRow(**fields)


# -- SQL for the stores' own drivers ---------------------------------------------------------

#: The dialects, compiling for the stores' drivers: sqlite3 with named parameters
#: (``:name``), psycopg with ``%(name)s``; both take a dict of parameters.
DIALECTS: dict[str, Dialect] = {
    "sqlite": sqlite.dialect(paramstyle="named"),
    "postgresql": postgresql.psycopg.dialect(),  # type: ignore[no-untyped-call]
}


def compile_sql(statement: ClauseElement, dialect: Dialects) -> str:
    """``statement`` as SQL for a store's driver (the stores compile each of theirs once)."""
    return str(statement.compile(dialect=DIALECTS[dialect]))
