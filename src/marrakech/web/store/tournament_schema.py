"""The tournaments' tables (issue 37), declared on the store's one
:data:`~marrakech.web.store.table_metadata.metadata` (imported by :mod:`.schema`, so every
database gets them and the migrations are checked against them)."""

from __future__ import annotations

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

from marrakech.web.store.table_metadata import metadata

# -- tournaments (issue 37) ---------------------------------------------------------------
#
# docs/web.md, "Tournaments"; marrakech.web.tournaments. A tournament, its entrants and its
# pairings; the standings are derived from the paired games' seats' places.

tournaments = Table(
    "tournaments",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    # arena (until ``ends``) or swiss (``rounds`` rounds)
    Column("kind", Text, nullable=False),
    Column("players", SmallInteger, nullable=False),
    Column("clock", Text, nullable=False),
    Column("rules", Text, nullable=False),
    Column("starts", Double, nullable=False),
    Column("ends", Double, nullable=False, server_default=text("0")),
    Column("rounds", SmallInteger, nullable=False, server_default=text("0")),
    # scheduled, running, over
    Column("status", Text, nullable=False, server_default=text("'scheduled'")),
    Column("private", Boolean, nullable=False, server_default=false()),
    Column("rated", Boolean, nullable=False, server_default=true()),
    # The highest rating shown (at ``players``) an account may join with; NULL: any.
    Column("max_rating", Integer),
    # Bot levels that play as entrants, space-separated.
    Column("bots", Text, nullable=False, server_default=text("''")),
    # The account that created it ('' for the operator and the schedule).
    Column("creator", Text, nullable=False, server_default=text("''")),
    # The schedule's key of a scheduled one (its line and start), so that every
    # instance reading the schedule file creates it once.
    Column("schedule_key", Text, unique=True),
    # The key its games' seat tokens are derived from (an entrant gets its own).
    Column("secret", Text, nullable=False),
    # The instance that pairs it, until ``lease_until`` (epoch seconds).
    Column("owner", Text, nullable=False, server_default=text("''")),
    Column("lease_until", Double, nullable=False, server_default=text("0")),
    Column("created", Double, nullable=False),
    Column("ended", Double, nullable=False, server_default=text("0")),
    CheckConstraint("kind IN ('arena', 'swiss')", name="tournaments_kind_check"),
    CheckConstraint("status IN ('scheduled', 'running', 'over')", name="tournaments_status_check"),
)
Index("tournaments_by_status", tournaments.c.status, tournaments.c.starts)

tournament_entries = Table(
    "tournament_entries",
    metadata,
    Column(
        "tournament_id",
        Text,
        ForeignKey("tournaments.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    # ``account:ID`` or ``bot:LEVEL``
    Column("entrant", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("joined", Double, nullable=False),
    # False once withdrawn or paused (away): kept in the standings, paired no more.
    Column("active", Boolean, nullable=False, server_default=true()),
)

tournament_games = Table(
    "tournament_games",
    metadata,
    Column(
        "tournament_id",
        Text,
        ForeignKey("tournaments.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    # The pairing's number in the tournament, from 1: two instances pairing at once
    # cannot both store one.
    Column("number", Integer, primary_key=True),
    # The game's id (created after the pairing is stored); a bye's is ''.
    Column("game_id", Text, nullable=False),
    Column("round", SmallInteger, nullable=False, server_default=text("0")),
    # The entrants in seat order, space-separated.
    Column("entrants", Text, nullable=False),
    Column("bye", Boolean, nullable=False, server_default=false()),
    Column("created", Double, nullable=False),
)
Index("tournament_games_by_game", tournament_games.c.game_id)
