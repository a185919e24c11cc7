"""Account names unique by how they look (issue 36): each account's name skeleton
(:func:`marrakech.web.protocol.name_skeleton`, UTS #39's skeleton case folded) under a
unique index, so that two instances cannot both give look-alike names.

Existing accounts get theirs, oldest first. An account whose name looks like an older
one's (accepted before this revision) keeps its name, its games and its sign-in, with
no skeleton (NULL): the older account keeps the skeleton, and no new account can take a
look-alike of it. Each such account is logged, for the operator to see.

Revision ID: 0008_name_skeletons
Revises: 0006_turn_based
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

revision = "0008_name_skeletons"
down_revision = "0007_shared_budgets"
branch_labels = None
depends_on = None

log = logging.getLogger("marrakech.web")


def upgrade() -> None:
    from marrakech.web.protocol.display_names import name_skeleton

    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.Text))
    accounts = sa.table(
        "accounts",
        sa.column("id", sa.Text),
        sa.column("name", sa.Text),
        sa.column("created", sa.Double),
        sa.column("deleted", sa.Boolean),
        sa.column("name_skeleton", sa.Text),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(accounts.c.id, accounts.c.name)
        .where(accounts.c.deleted == sa.false())
        .order_by(accounts.c.created, accounts.c.id)
    ).all()
    owners: dict[str, str] = {}
    for account_id, name in rows:
        key = name_skeleton(name)
        if key in owners:
            log.warning(
                "account %s keeps its name %r, which looks like the older account %r's:"
                " it has no name skeleton (revision 0008_name_skeletons)",
                account_id,
                name,
                owners[key],
            )
            continue
        owners[key] = name
        connection.execute(
            accounts.update().where(accounts.c.id == account_id).values(name_skeleton=key)
        )
    op.create_index("accounts_by_name_skeleton", "accounts", ["name_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("accounts_by_name_skeleton", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("name_skeleton")
