"""Quick pairing (issue 37, item 1): the players waiting in the pools and the pools'
lease (docs/web.md, "Quick pairing").

Revision ID: 0012_pools
Revises: 0011_friends
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_pools"
down_revision = "0011_friends"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pool_entries",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("pool", sa.Text, nullable=False),
        sa.Column("sizes", sa.Text, nullable=False),
        sa.Column("player", sa.Text, nullable=False, unique=True),
        sa.Column("account_id", sa.Text),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False, server_default=""),
        sa.Column("rating", sa.Double, nullable=False),
        sa.Column("level", sa.Text, nullable=False),
        sa.Column("bots", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("lang", sa.Text, nullable=False, server_default="en"),
        sa.Column("instance", sa.Text, nullable=False),
        sa.Column("joined", sa.Double, nullable=False),
        sa.Column("seen", sa.Double, nullable=False),
        sa.Column("misses", sa.Integer, nullable=False, server_default="0"),
        sa.Column("game_id", sa.Text),
        sa.Column("seat", sa.Integer),
        sa.Column("token", sa.Text),
        sa.Column("refusal", sa.Text),
    )
    op.create_index("pool_entries_by_instance", "pool_entries", ["instance"])
    op.create_table(
        "pool_lease",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("until", sa.Double, nullable=False),
        sa.Column("last_wave", sa.Double, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("pool_lease")
    op.drop_index("pool_entries_by_instance", table_name="pool_entries")
    op.drop_table("pool_entries")
