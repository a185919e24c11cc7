"""Email reminders (issue 25, item 3): players' addresses, per-game mutes, page visits,
the outbox of reminders and the key that signs their links (docs/playing.md,
"Reminders"; docs/deploy.md, "Email reminders").

Revision ID: 0005_reminders
Revises: 0004_ratings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_reminders"
down_revision = "0004_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_addresses",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text, nullable=False, unique=True),
        sa.Column("account_id", sa.Text, sa.ForeignKey("accounts.id", ondelete="CASCADE")),
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE")),
        sa.Column("seat", sa.SmallInteger),
        sa.Column("token_hash", sa.Text),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("lang", sa.Text, nullable=False, server_default="en"),
        sa.Column("status", sa.Text, nullable=False, server_default="pending"),
        sa.Column("verify_nonce", sa.Text),
        sa.Column("unsubscribe_nonce", sa.Text),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("changed", sa.Double, nullable=False),
        sa.Column("problem", sa.Text, nullable=False, server_default=""),
        sa.CheckConstraint(
            "status IN ('pending', 'verified', 'unsubscribed', 'undeliverable')",
            name="mail_addresses_status_check",
        ),
    )
    op.create_index("mail_addresses_by_game", "mail_addresses", ["game_id", "seat"])
    op.create_index("mail_addresses_by_account", "mail_addresses", ["account_id"])
    for name in ("mail_mutes", "mail_visits"):
        op.create_table(
            name,
            sa.Column(
                "game_id",
                sa.Text,
                sa.ForeignKey("games.id", ondelete="CASCADE"),
                primary_key=True,
            ),
            sa.Column("seat", sa.SmallInteger, primary_key=True),
            sa.Column("at", sa.Double, nullable=False),
        )
    op.create_table(
        "mail_outbox",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("address_id", sa.Text, sa.ForeignKey("mail_addresses.id", ondelete="CASCADE")),
        sa.Column("game_id", sa.Text),
        sa.Column("seat", sa.SmallInteger),
        sa.Column("turn", sa.Integer),
        sa.Column("link", sa.Text),
        sa.Column("due", sa.Double, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="queued"),
        sa.Column("claimed_by", sa.Text),
        sa.Column("claimed_until", sa.Double, nullable=False, server_default="0"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("done_at", sa.Double),
        sa.Column("problem", sa.Text, nullable=False, server_default=""),
        sa.CheckConstraint(
            "status IN ('queued', 'sending', 'sent', 'skipped', 'failed')",
            name="mail_outbox_status_check",
        ),
    )
    op.create_index("mail_outbox_due", "mail_outbox", ["status", "due"])
    op.create_index("mail_outbox_by_game", "mail_outbox", ["game_id", "seat"])
    op.create_table(
        "mail_keys",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("secret", sa.Text, nullable=False),
    )
