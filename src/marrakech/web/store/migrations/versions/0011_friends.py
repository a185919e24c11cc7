"""Friends and challenges (issue 37, item 2): follows, blocks, challenges, and when an
account's pages were last open (``accounts.seen``) (docs/web.md, "Friends and challenges").

Revision ID: 0011_friends
Revises: 0010_push_subscriptions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_friends"
down_revision = "0010_push_subscriptions"
branch_labels = None
depends_on = None


def _account(name: str, primary_key: bool = False) -> sa.Column[str]:
    return sa.Column(
        name,
        sa.Text,
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "follows",
        _account("follower", True),
        _account("followed", True),
        sa.Column("at", sa.Double, nullable=False),
    )
    op.create_index("follows_by_followed", "follows", ["followed"])
    op.create_table(
        "blocks",
        _account("blocker", True),
        _account("blocked", True),
        sa.Column("at", sa.Double, nullable=False),
    )
    op.create_index("blocks_by_blocked", "blocks", ["blocked"])
    op.create_table(
        "game_challenges",
        sa.Column("id", sa.Text, primary_key=True),
        _account("challenger"),
        _account("challenged"),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("expires", sa.Double, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="open"),
        sa.Column("decided", sa.Double),
        sa.Column("game_id", sa.Text),
        sa.Column("challenger_token", sa.Text),
        sa.Column("challenged_token", sa.Text),
    )
    op.create_index("game_challenges_by_challenged", "game_challenges", ["challenged", "status"])
    op.create_index("game_challenges_by_challenger", "game_challenges", ["challenger", "status"])
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("seen", sa.Double))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("seen")
    op.drop_index("game_challenges_by_challenger", table_name="game_challenges")
    op.drop_index("game_challenges_by_challenged", table_name="game_challenges")
    op.drop_table("game_challenges")
    op.drop_index("blocks_by_blocked", table_name="blocks")
    op.drop_table("blocks")
    op.drop_index("follows_by_followed", table_name="follows")
    op.drop_table("follows")
