"""Tournaments (issue 37, item 3): arenas and Swiss events, their entrants and their
pairings (docs/web.md, "Tournaments").

Revision ID: 0013_tournaments
Revises: 0012_pools
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_tournaments"
down_revision = "0012_pools"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("players", sa.SmallInteger, nullable=False),
        sa.Column("clock", sa.Text, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("starts", sa.Double, nullable=False),
        sa.Column("ends", sa.Double, nullable=False, server_default="0"),
        sa.Column("rounds", sa.SmallInteger, nullable=False, server_default="0"),
        sa.Column("status", sa.Text, nullable=False, server_default="scheduled"),
        sa.Column("private", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("max_rating", sa.Integer),
        sa.Column("bots", sa.Text, nullable=False, server_default=""),
        sa.Column("creator", sa.Text, nullable=False, server_default=""),
        sa.Column("schedule_key", sa.Text, unique=True),
        sa.Column("secret", sa.Text, nullable=False),
        sa.Column("owner", sa.Text, nullable=False, server_default=""),
        sa.Column("lease_until", sa.Double, nullable=False, server_default="0"),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("ended", sa.Double, nullable=False, server_default="0"),
        sa.CheckConstraint("kind IN ('arena', 'swiss')", name="tournaments_kind_check"),
        sa.CheckConstraint(
            "status IN ('scheduled', 'running', 'over')", name="tournaments_status_check"
        ),
    )
    op.create_index("tournaments_by_status", "tournaments", ["status", "starts"])
    op.create_table(
        "tournament_entries",
        sa.Column(
            "tournament_id",
            sa.Text,
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("entrant", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("joined", sa.Double, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
    )
    op.create_table(
        "tournament_games",
        sa.Column(
            "tournament_id",
            sa.Text,
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Text, nullable=False),
        sa.Column("round", sa.SmallInteger, nullable=False, server_default="0"),
        sa.Column("entrants", sa.Text, nullable=False),
        sa.Column("bye", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created", sa.Double, nullable=False),
    )
    op.create_index("tournament_games_by_game", "tournament_games", ["game_id"])


def downgrade() -> None:
    op.drop_index("tournament_games_by_game", table_name="tournament_games")
    op.drop_table("tournament_games")
    op.drop_table("tournament_entries")
    op.drop_index("tournaments_by_status", table_name="tournaments")
    op.drop_table("tournaments")
