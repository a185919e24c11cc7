"""Quick pairing's SQL statements (issue 37), compiled once per dialect like the
store's (:mod:`marrakech.web.store.queries`): the players waiting in the pools
(``pool_entries``) and the pools' lease (``pool_lease``), run through
:meth:`~marrakech.web.store.GameStore.transact` by :mod:`marrakech.web.pools`."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from sqlalchemy import case, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql import ClauseElement

from marrakech.web.store.queries import P, Statement, compile_statement
from marrakech.web.store.schema import Dialects, pool_entries, pool_lease

#: The columns a player's joining writes.
ENTRY_WRITTEN = (
    "id",
    "pool",
    "sizes",
    "player",
    "account_id",
    "address",
    "name",
    "rating",
    "level",
    "bots",
    "lang",
    "instance",
    "joined",
    "seen",
)


class PoolQueries:
    """The pools' statements, compiled for ``dialect``."""

    def __init__(self, dialect: Dialects) -> None:
        e, lease = pool_entries, pool_lease
        dialect_insert = postgresql_insert if dialect == "postgresql" else sqlite_insert

        def compiled(statement: ClauseElement, columns: Sequence[str] = ()) -> Statement:
            return compile_statement(statement, dialect, columns)

        # A player waits in one pool at a time: a second join inserts nothing.
        self.join = compiled(
            dialect_insert(e)
            .values({name: P(name) for name in ENTRY_WRITTEN})
            .on_conflict_do_nothing(index_elements=[e.c.player])
            .returning(e.c.id)
        )
        self.waiting_from = compiled(
            select(func.count()).select_from(e).where(e.c.address == P("address"))
        )
        # Leaving: only a wait no table has taken yet (a formed table is handed over).
        self.leave = compiled(delete(e).where(e.c.id == P("id"), e.c.game_id.is_(None)))
        self.forget = compiled(delete(e).where(e.c.id == P("id")))
        # An instance says its sockets are open, and reads the tables formed for them.
        self.seen = compiled(update(e).where(e.c.instance == P("instance")).values(seen=P("now")))
        self.formed = compiled(
            select(e.c.id, e.c.game_id, e.c.seat, e.c.token, e.c.refusal).where(
                e.c.instance == P("instance"),
                e.c.game_id.is_not(None),
                e.c.game_id != "",
            )
        )
        # The lease: taken when free, past its time, or already ours; who holds it.
        held = (lease.c.owner == P("instance")) | (lease.c.until < P("now"))
        self.take_lease = compiled(
            dialect_insert(lease)
            .values(name="pools", owner=P("instance"), until=P("until"), last_wave=0.0)
            .on_conflict_do_update(
                index_elements=[lease.c.name],
                set_={
                    "owner": case((held, P("instance")), else_=lease.c.owner),
                    "until": case((held, P("until")), else_=lease.c.until),
                },
            )
            .returning(lease.c.owner, lease.c.last_wave)
        )
        self.waved = compiled(
            update(lease)
            .where(lease.c.name == "pools", lease.c.owner == P("instance"))
            .values(last_wave=P("now"))
        )
        # The wave's owner: who waits, the waits whose instance stopped saying so.
        self.waiting = compiled(
            select(e).where(e.c.game_id.is_(None)).order_by(e.c.pool, e.c.joined)
        )
        self.stale = compiled(delete(e).where(e.c.game_id.is_(None), e.c.seen < P("before")))
        self.missed = compiled(
            update(e)
            .where(e.c.pool == P("pool"), e.c.game_id.is_(None))
            .values(misses=e.c.misses + 1)
        )
        # A table's players, taken before its game is made ('' meanwhile), then given
        # their seats; or let go (the game could not be made).
        self.take = compiled(
            update(e)
            .where(e.c.id == P("id"), e.c.game_id.is_(None))
            .values(game_id="")
            .returning(e.c.id)
        )
        self.let_go = compiled(
            update(e).where(e.c.id == P("id"), e.c.game_id == "").values(game_id=None)
        )
        self.seat = compiled(
            update(e)
            .where(e.c.id == P("id"))
            .values(
                game_id=P("new_game"),
                seat=P("new_seat"),
                token=P("new_token"),
                refusal=P("new_refusal"),
            )
        )
        # A turn-based table still open to people (its game waits, its host chose bots
        # after the wait): a row of no instance, holding the game; the waves fill it.
        self.add_table = compiled(
            insert(e).values({name: P(name) for name in ENTRY_WRITTEN} | {"game_id": P("game_id")})
        )
        self.open_tables = compiled(
            select(e).where(e.c.pool == P("pool"), e.c.instance == "", e.c.game_id.is_not(None))
        )
        self.count = compiled(
            select(e.c.pool, func.count().label("waiting"))
            .where(e.c.game_id.is_(None))
            .group_by(e.c.pool)
        )


@cache
def pool_queries(dialect: Dialects) -> PoolQueries:
    """The statements for ``dialect``, compiled once."""
    return PoolQueries(dialect)
