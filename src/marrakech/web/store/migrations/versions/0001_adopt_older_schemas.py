"""Adopt a database of an older marrakech: SQLite schema 1-6, PostgreSQL schema 1-5.

Those versions numbered their schema in a ``schema_version`` table and migrated it with
their own SQL lists (one a database). This step brings any of them to the schema as
declared at issue 22, adding what each lacks (so it also mends a SQLite 6 / PostgreSQL 5
database made before ``pending_resigns`` joined that step), then marks ``schema_version``
so that those older versions refuse the database rather than misread it. A new database
never runs this: it gets the declared tables at once (``migrations.upgrade``).

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

#: The number older versions find in ``schema_version`` after this step: newer than any
#: of them understands (schema.LEGACY_VERSION_MARK).
MARK = 100

games = sa.table(
    "games",
    sa.column("id", sa.Text),
    sa.column("bots", sa.SmallInteger),
    sa.column("turns", sa.Integer),
)
seats = sa.table(
    "seats",
    sa.column("game_id", sa.Text),
    sa.column("seat", sa.SmallInteger),
    sa.column("kind", sa.Text),
    sa.column("host", sa.Boolean),
)
actions = sa.table("actions", sa.column("game_id", sa.Text), sa.column("token", sa.Text))


def _default(value: str) -> str:
    """A server default as a plain string: a constant SQLite adds in place (with an SQL
    expression as default, a batch step would rebuild the table instead)."""
    return value


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    sqlite = bind.dialect.name == "sqlite"
    if inspector.has_table("schema_version"):
        legacy = bind.execute(sa.text("SELECT max(version) FROM schema_version")).scalar()
        newest = 6 if sqlite else 5
        if legacy is not None and legacy > newest:
            raise RuntimeError(
                f"schema_version {legacy}: not a database of an older marrakech (1 to {newest})"
            )

    def columns(table: str) -> set[str]:
        return {column["name"] for column in inspector.get_columns(table)}

    game_columns, seat_columns = columns("games"), columns("seats")
    with op.batch_alter_table("games") as batch:
        # SQLite 2: who created each game and how many bots it seats (the caps).
        if "creator" not in game_columns:
            batch.add_column(
                sa.Column("creator", sa.Text, nullable=False, server_default=_default(""))
            )
            batch.add_column(
                sa.Column("bots", sa.SmallInteger, nullable=False, server_default=_default("0"))
            )
        # PostgreSQL's lease on a game's room; SQLite has the column too, unused.
        if "owner" not in game_columns:
            batch.add_column(sa.Column("owner", sa.Text))
        # SQLite 3, PostgreSQL 2 (issue #13): clocks, stand-ins, player turns, rematches,
        # analyses.
        if "clock" not in game_columns:
            for column in (
                sa.Column("clock", sa.Text, nullable=False, server_default=_default("none")),
                sa.Column(
                    "clock_seconds", sa.Integer, nullable=False, server_default=_default("0")
                ),
                sa.Column(
                    "stand_in_level", sa.Text, nullable=False, server_default=_default("medium")
                ),
                sa.Column("turns", sa.Integer, nullable=False, server_default=_default("0")),
                sa.Column("rematch", sa.Text),
                sa.Column("analysis", sa.Text),
            ):
                batch.add_column(column)
        # SQLite 4, PostgreSQL 3: hints (not for the games created before).
        if "hints" not in game_columns:
            batch.add_column(
                sa.Column("hints", sa.Boolean, nullable=False, server_default=_default("0"))
            )
        # SQLite 6, PostgreSQL 5: the running turn's clock and pending resignations.
        if "clock_seat" not in game_columns:
            for name in ("clock_seat", "clock_turn"):
                batch.add_column(
                    sa.Column(name, sa.Integer, nullable=False, server_default=_default("-1"))
                )
            batch.add_column(
                sa.Column("clock_deadline", sa.Double, nullable=False, server_default=_default("0"))
            )
        if "pending_resigns" not in game_columns:
            batch.add_column(
                sa.Column(
                    "pending_resigns", sa.Integer, nullable=False, server_default=_default("0")
                )
            )
    with op.batch_alter_table("seats") as batch:
        if "stand_in" not in seat_columns:
            batch.add_column(sa.Column("stand_in", sa.Text))
            for name in ("host", "joined"):
                batch.add_column(
                    sa.Column(name, sa.Boolean, nullable=False, server_default=_default("0"))
                )
        if "hints" not in seat_columns:
            batch.add_column(
                sa.Column("hints", sa.Integer, nullable=False, server_default=_default("0"))
            )
        # SQLite 5, PostgreSQL 4: the position of each seat's last counted hint.
        if "hinted_at" not in seat_columns:
            batch.add_column(
                sa.Column("hinted_at", sa.Integer, nullable=False, server_default=_default("-1"))
            )

    # The data those steps derived for the games stored before them.
    if "bots" not in game_columns:
        count = sa.select(sa.func.count()).where(
            seats.c.game_id == games.c.id, seats.c.kind == "bot"
        )
        op.execute(games.update().values(bots=count.scalar_subquery()))
    if "turns" not in game_columns:
        # A turn per roll (each player turn rolls once).
        rolls = sa.select(sa.func.count()).where(
            actions.c.game_id == games.c.id, actions.c.token.in_(["r1", "r2", "r3", "r4"])
        )
        op.execute(games.update().values(turns=rolls.scalar_subquery()))
    if "host" not in seat_columns:
        # The host of an older game: its first human seat.
        first = sa.alias(seats, "first")
        first_human = sa.select(sa.func.min(first.c.seat)).where(
            first.c.game_id == seats.c.game_id, first.c.kind == "human"
        )
        op.execute(
            seats.update()
            .where(seats.c.kind == "human", seats.c.seat == first_human.scalar_subquery())
            .values(host=True)
        )

    # The indexes as declared (SQLite had a partial index on bot_to_move itself).
    indexes = {index["name"]: index for index in inspector.get_indexes("games")}
    waiting = indexes.get("games_with_bot_to_move")
    if waiting is not None and waiting["column_names"] != ["id"]:
        op.drop_index("games_with_bot_to_move", table_name="games")
        waiting = None
    if waiting is None:
        op.create_index(
            "games_with_bot_to_move",
            "games",
            ["id"],
            sqlite_where=sa.text("bot_to_move = 1"),
            postgresql_where=sa.text("bot_to_move = true"),
        )
    if "games_unfinished" not in indexes:
        op.create_index(
            "games_unfinished",
            "games",
            ["updated"],
            sqlite_where=sa.text("status != 'over'"),
            postgresql_where=sa.text("status != 'over'"),
        )
    if not inspector.has_table("instances"):
        op.create_table(
            "instances",
            sa.Column("id", sa.Text, primary_key=True),
            sa.Column("started", sa.Double, nullable=False),
            sa.Column("alive_until", sa.TIMESTAMP(timezone=True), nullable=False),
        )

    op.execute(sa.text("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"))
    op.execute(sa.text("DELETE FROM schema_version"))
    op.execute(sa.text(f"INSERT INTO schema_version (version) VALUES ({MARK})"))


def downgrade() -> None:
    raise NotImplementedError("the schemas before issue 22 are not restored")
