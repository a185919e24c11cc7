"""The tournaments' statements (docs/web.md, "Tournaments"), compiled for a store's
dialect and run through :meth:`~marrakech.web.store.GameStore.transact`, as the
reminders' are. What must happen once (a lease, a pairing's number, an entry) is a
conditional ``UPDATE ... RETURNING`` or a primary key, so it holds with several
instances on one PostgreSQL database as on one SQLite file.
"""

from __future__ import annotations

from sqlalchemy import and_, bindparam, false, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql import ClauseElement

from marrakech.web.store.queries import Statement, compile_statement
from marrakech.web.store.schema import (
    Dialects,
    games,
    ratings,
    seats,
)
from marrakech.web.store.tournament_schema import tournament_entries, tournament_games, tournaments

P = bindparam


class TournamentQueries:
    """Every statement of the tournaments, for ``dialect``."""

    def __init__(self, dialect: Dialects) -> None:
        t, e, tg = tournaments, tournament_entries, tournament_games
        upsert = postgresql_insert if dialect == "postgresql" else sqlite_insert

        def compiled(statement: ClauseElement, columns: tuple[str, ...] = ()) -> Statement:
            return compile_statement(statement, dialect, columns)

        self.insert = compiled(
            upsert(t).on_conflict_do_nothing().returning(t.c.id),
            columns=tuple(
                c.name for c in t.c if c.name not in ("owner", "lease_until", "ended", "status")
            ),
        )
        self.one = compiled(select(t).where(t.c.id == P("id")))
        self.listed = compiled(
            select(t)
            .where(t.c.status != "over", t.c.private == P("private"))
            .order_by(t.c.starts)
            .limit(P("limit"))
        )
        self.due = compiled(
            select(t.c.id).where(t.c.status != "over", t.c.starts <= P("now")).order_by(t.c.starts)
        )
        # The pairing of a tournament is one instance's at a time, leased as rooms are.
        self.lease = compiled(
            update(t)
            .where(
                t.c.id == P("id"),
                t.c.status != "over",
                or_(t.c.owner == P("me"), t.c.lease_until < P("now")),
            )
            .values(owner=P("me"), lease_until=P("until"))
            .returning(t.c.id)
        )
        self.set_status = compiled(
            update(t)
            .where(t.c.id == P("id"), t.c.owner == P("me"))
            .values(status=P("status"), ended=P("ended"))
            .returning(t.c.id)
        )
        self.release = compiled(
            update(t).where(t.c.owner == P("me")).values(owner="", lease_until=0)
        )

        # -- entries -----------------------------------------------------------------
        self.entries = compiled(select(e).where(e.c.tournament_id == P("id")).order_by(e.c.joined))
        self.insert_entry = compiled(
            upsert(e).on_conflict_do_nothing().returning(e.c.entrant),
            columns=("tournament_id", "entrant", "name", "joined"),
        )
        self.set_active = compiled(
            update(e)
            .where(
                e.c.tournament_id == P("id"),
                e.c.entrant == P("entrant"),
                e.c.active == P("was"),
            )
            .values(active=P("active"))
            .returning(e.c.entrant)
        )
        # Back after a withdrawal or a pause: joined again now (an absence before it
        # does not pause it again).
        self.rejoin = compiled(
            update(e)
            .where(e.c.tournament_id == P("id"), e.c.entrant == P("entrant"), e.c.active == false())
            .values(active=True, joined=P("now"))
            .returning(e.c.entrant)
        )
        self.entered = compiled(
            select(t)
            .join(e, e.c.tournament_id == t.c.id)
            .where(e.c.entrant == P("entrant"), t.c.status == "over")
            .order_by(t.c.ended.desc())
            .limit(P("limit"))
        )

        # -- pairings and their games' places ------------------------------------------
        self.pairings = compiled(
            select(tg).where(tg.c.tournament_id == P("id")).order_by(tg.c.number)
        )
        self.insert_pairing = compiled(
            insert(tg),
            columns=("tournament_id", "number", "game_id", "round", "entrants", "bye", "created"),
        )
        self.places = compiled(
            select(
                seats.c.game_id,
                seats.c.seat,
                seats.c.place,
                seats.c.stand_in,
                seats.c.account_id,
                games.c.status,
                games.c.updated,
            )
            .join(games, games.c.id == seats.c.game_id)
            .join(
                tg,
                and_(tg.c.game_id == seats.c.game_id, tg.c.tournament_id == P("id")),
            )
            .order_by(seats.c.game_id, seats.c.seat)
        )
        self.game_exists = compiled(select(games.c.id).where(games.c.id == P("game_id")))
        self.link_seat = compiled(
            update(seats)
            .where(seats.c.game_id == P("game_id"), seats.c.seat == P("seat"))
            .values(account_id=P("account_id"))
        )
        self.rating = compiled(
            select(ratings.c.mu, ratings.c.sigma).where(
                ratings.c.kind == "account",
                ratings.c.player == P("account_id"),
                ratings.c.players == P("players"),
            )
        )
        self.of_game = compiled(select(tg.c.tournament_id).where(tg.c.game_id == P("game_id")))
