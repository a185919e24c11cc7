"""Budgets shared by every instance (issue 36): sign-in, account creation and chat
limits, kept in the database instead of each instance's memory (docs/web.md,
"Accounts", and docs/deploy.md).

Revision ID: 0007_shared_budgets
Revises: 0006_turn_based
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_shared_budgets"
down_revision = "0006_turn_based"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "budgets",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("due", sa.Double, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("delay", sa.Double, nullable=False, server_default="0"),
        sa.Column("taken", sa.Text, nullable=False, server_default=""),
        sa.Column("expires", sa.Double, nullable=False),
    )
    op.create_index("budgets_by_expiry", "budgets", ["expires"])


def downgrade() -> None:
    op.drop_index("budgets_by_expiry", table_name="budgets")
    op.drop_table("budgets")
