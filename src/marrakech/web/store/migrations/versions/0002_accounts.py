"""Optional accounts (issue #24): accounts, their credentials (an Argon2id password,
WebAuthn passkeys), their sessions, the passkey ceremonies' challenges, and the link of a
game's seat to the account of its player.

Nothing already stored changes: every existing seat stays a guest's (``account_id``
NULL) until its player claims it into an account.

Revision ID: 0002_accounts
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_accounts"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_key", sa.Text, unique=True),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("deleted_at", sa.Double),
    )
    op.create_table(
        "credentials",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column(
            "account_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("password_hash", sa.Text),
        sa.Column("credential_id", sa.Text),
        sa.Column("public_key", sa.Text),
        sa.Column("sign_count", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("transports", sa.Text, nullable=False, server_default=sa.text("''")),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("last_used", sa.Double),
        sa.CheckConstraint("kind IN ('password', 'passkey')", name="credentials_kind_check"),
    )
    op.create_index("credentials_by_account", "credentials", ["account_id"])
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.Text, primary_key=True),
        sa.Column(
            "account_id",
            sa.Text,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("last_seen", sa.Double, nullable=False),
        sa.Column("user_agent", sa.Text, nullable=False, server_default=sa.text("''")),
    )
    op.create_index("sessions_by_account", "sessions", ["account_id"])
    op.create_index("sessions_by_last_seen", "sessions", ["last_seen"])
    op.create_table(
        "challenges",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("challenge", sa.Text, nullable=False),
        sa.Column("account_id", sa.Text),
        sa.Column("name", sa.Text),
        sa.Column("user_handle", sa.Text),
        sa.Column("expires", sa.Double, nullable=False),
        sa.CheckConstraint(
            "purpose IN ('register', 'authenticate')", name="challenges_purpose_check"
        ),
    )
    op.create_index("challenges_by_expiry", "challenges", ["expires"])
    # A nullable column with a foreign key. SQLite adds it in place (Alembic would
    # rebuild the table, and cannot name older files' constraints to carry them over).
    if op.get_bind().dialect.name == "sqlite":
        op.execute(sa.text("ALTER TABLE seats ADD COLUMN account_id TEXT REFERENCES accounts (id)"))
    else:
        op.add_column("seats", sa.Column("account_id", sa.Text, sa.ForeignKey("accounts.id")))
    op.create_index("seats_by_account", "seats", ["account_id"])


def downgrade() -> None:
    op.drop_index("seats_by_account", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("account_id")
    for table in ("challenges", "sessions", "credentials", "accounts"):
        op.drop_table(table)
