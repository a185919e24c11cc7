"""Push notifications (issue 37, item 4): browsers' push subscriptions, and the device
an outbox message goes to (docs/web.md, "Push notifications").

Revision ID: 0010_push_subscriptions
Revises: 0009_chat_reports
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_push_subscriptions"
down_revision = "0009_chat_reports"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("endpoint", sa.Text, nullable=False, unique=True),
        sa.Column("p256dh", sa.Text, nullable=False),
        sa.Column("auth", sa.Text, nullable=False),
        sa.Column(
            "account_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kinds", sa.Text, nullable=False),
        sa.Column("lang", sa.Text, nullable=False, server_default="en"),
        sa.Column("created", sa.Double, nullable=False),
    )
    op.create_index("push_subscriptions_by_account", "push_subscriptions", ["account_id"])
    with op.batch_alter_table("mail_outbox") as batch:
        batch.add_column(sa.Column("subscription_id", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("mail_outbox") as batch:
        batch.drop_column("subscription_id")
    op.drop_index("push_subscriptions_by_account", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
