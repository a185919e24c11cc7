"""Rated games (issue 24): the games' ``rated`` setting, each seat's place at the end,
the players' and bot levels' ratings by player count, and their history (docs/web.md,
"Ratings").

Revision ID: 0004_ratings
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_ratings"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        # Games from before ratings were never rated.
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    with op.batch_alter_table("seats") as batch:
        # Finished games from before kept no place (their replay still ranks them).
        batch.add_column(sa.Column("place", sa.SmallInteger))
    op.create_table(
        "ratings",
        sa.Column("kind", sa.Text, primary_key=True),
        sa.Column("player", sa.Text, primary_key=True),
        sa.Column("players", sa.SmallInteger, primary_key=True),
        sa.Column("mu", sa.Double, nullable=False),
        sa.Column("sigma", sa.Double, nullable=False),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("wins", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated", sa.Double, nullable=False),
        sa.CheckConstraint("kind IN ('account', 'bot')", name="ratings_kind_check"),
        sa.CheckConstraint("players BETWEEN 2 AND 4", name="ratings_players_check"),
    )
    op.create_index("ratings_by_count", "ratings", ["players", "kind", "games"])
    op.create_table(
        "rating_history",
        sa.Column(
            "game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("kind", sa.Text, primary_key=True),
        sa.Column("player", sa.Text, primary_key=True),
        sa.Column("players", sa.SmallInteger, nullable=False),
        sa.Column("at", sa.Double, nullable=False),
        sa.Column("place", sa.SmallInteger, nullable=False),
        sa.Column("mu_before", sa.Double, nullable=False),
        sa.Column("sigma_before", sa.Double, nullable=False),
        sa.Column("mu", sa.Double, nullable=False),
        sa.Column("sigma", sa.Double, nullable=False),
        sa.CheckConstraint("kind IN ('account', 'bot')", name="rating_history_kind_check"),
    )
    op.create_index("rating_history_by_player", "rating_history", ["kind", "player", "at"])
