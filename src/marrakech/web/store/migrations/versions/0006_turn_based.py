"""Turn-based clocks (issue 25): each seat's time bank, the sweeps' claim on a passed
deadline and the "time runs out soon" notice, an index of the running turns by
deadline, and when the clocks' sweep last ran (docs/playing.md, "Turn-based games").

Revision ID: 0006_turn_based
Revises: 0005_reminders
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_turn_based"
down_revision = "0005_reminders"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock_banks", sa.Text, nullable=False, server_default=""))
        batch.add_column(sa.Column("clock_claimed", sa.Double, nullable=False, server_default="0"))
        batch.add_column(sa.Column("clock_warned", sa.Integer, nullable=False, server_default="-1"))
    op.create_index(
        "games_by_deadline",
        "games",
        ["clock_deadline"],
        sqlite_where=sa.text("clock_seat >= 0"),
        postgresql_where=sa.text("clock_seat >= 0"),
    )
    op.create_table(
        "sweeps",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("at", sa.Double, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sweeps")
    op.drop_index("games_by_deadline", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("clock_warned")
        batch.drop_column("clock_claimed")
        batch.drop_column("clock_banks")
