"""The chat's reports queue (issue 36): a line hidden until the operator decides
(``chat.held``, after reports of distinct players of its game) or dismissed by the
operator (``chat.dismissed``); each report's kind (``player`` or ``spectator``),
address and account; and the operator's decisions in order (``chat_decisions``), which
an instance that did not make them reads (docs/web.md, "Moderation").

Reports stored before were ``seat:N`` (a player's) or ``address:KEY`` (a spectator's):
the first become ``player`` reports, without an address (they count once each).

Revision ID: 0009_chat_reports
Revises: 0008_name_skeletons
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_chat_reports"
down_revision = "0008_name_skeletons"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.add_column(sa.Column("held", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(
            sa.Column("dismissed", sa.Boolean, nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("chat_reports") as batch:
        batch.add_column(
            sa.Column("kind", sa.Text, nullable=False, server_default=sa.text("'spectator'"))
        )
        batch.add_column(
            sa.Column("address", sa.Text, nullable=False, server_default=sa.text("''"))
        )
        batch.add_column(sa.Column("account_id", sa.Text))
        batch.create_check_constraint(
            "chat_reports_kind_check", sa.text("kind IN ('player', 'spectator')")
        )
    op.execute("UPDATE chat_reports SET kind = 'player' WHERE reporter LIKE 'seat:%'")
    op.execute(
        "UPDATE chat_reports SET address = substr(reporter, 9) WHERE reporter LIKE 'address:%'"
    )
    op.create_table(
        "chat_decisions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.Text, nullable=False),
        sa.Column("line_id", sa.Integer, nullable=False),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("at", sa.Double, nullable=False),
        sa.CheckConstraint("decision IN ('hidden', 'dismissed')", name="chat_decisions_check"),
    )


def downgrade() -> None:
    op.drop_table("chat_decisions")
    with op.batch_alter_table("chat_reports") as batch:
        batch.drop_constraint("chat_reports_kind_check", type_="check")
        batch.drop_column("account_id")
        batch.drop_column("address")
        batch.drop_column("kind")
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("dismissed")
        batch.drop_column("held")
