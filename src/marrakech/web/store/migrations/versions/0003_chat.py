"""Chat in a game (issue 24): the games' ``chat`` setting, the chat lines, their reports
and the operator's bans (docs/web.md, "Chat").

Revision ID: 0003
Revises: 0002_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        # Games from before the chat keep one (it was never turned off).
        batch.add_column(sa.Column("chat", sa.Boolean, nullable=False, server_default="1"))
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("at", sa.Double, nullable=False),
        sa.Column("seat", sa.SmallInteger, nullable=False),
        sa.Column("account_id", sa.Text),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("address", sa.Text, nullable=False, server_default=""),
        sa.Column("reports", sa.Integer, nullable=False, server_default="0"),
        sa.Column("hidden", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.CheckConstraint("seat BETWEEN -1 AND 3", name="chat_seat_check"),
        sa.CheckConstraint("channel IN ('players', 'spectators')", name="chat_channel_check"),
        sa.CheckConstraint("kind IN ('text', 'reaction')", name="chat_kind_check"),
    )
    op.create_index("chat_by_game", "chat", ["game_id", "id"])
    op.create_table(
        "chat_reports",
        sa.Column(
            "line_id",
            sa.Integer,
            sa.ForeignKey("chat.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("reporter", sa.Text, primary_key=True),
        sa.Column("at", sa.Double, nullable=False),
    )
    op.create_table(
        "bans",
        sa.Column("kind", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, primary_key=True),
        sa.Column("at", sa.Double, nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.CheckConstraint("kind IN ('address', 'account')", name="bans_kind_check"),
    )
