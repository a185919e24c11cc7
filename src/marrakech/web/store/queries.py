"""The stores' statements, built once with SQLAlchemy Core on :mod:`~marrakech.web.store.schema`
and compiled for each store's own driver (sqlite3 in the store's thread, psycopg's
pipelines): no SQL spelled twice, no column read by position, nothing but a dictionary
merge added to a call. The chat's are in :mod:`~marrakech.web.store.chat_queries`.

A :class:`Statement` is the SQL and the values of its literals; :meth:`Statement.params`
adds the call's own (every placeholder is named)::

    >>> append = Queries("sqlite").move_game
    >>> print(append.sql)  # doctest: +NORMALIZE_WHITESPACE
    UPDATE games SET updated=:now, status=:new_status, version=:next, bot_to_move=:bot,
    turns=:new_turns WHERE games.id = :game_id AND games.version = :at_version
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Text,
    and_,
    any_,
    bindparam,
    case,
    cast,
    column,
    delete,
    exists,
    false,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine.interfaces import BindTyping
from sqlalchemy.sql import ClauseElement, ColumnElement, Select

from marrakech.web.store import SeatRow, Usage
from marrakech.web.store.append_queries import (
    appends_together,
    appends_together_and_notify,
    moved_on,
)
from marrakech.web.store.schema import (
    DIALECTS,
    GAME_FIELDS,
    SEAT_FIELDS,
    Dialects,
    accounts,
    actions,
    challenges,
    credentials,
    games,
    mail_addresses,
    mail_keys,
    push_subscriptions,
    seat_values,
    seats,
    sessions,
)

P = bindparam

# psycopg types the values itself, as the stores always let it: no ``::VARCHAR`` casts.
DIALECTS["postgresql"].bind_typing = BindTyping.NONE

#: The games columns a new game writes (:func:`~marrakech.web.store.schema.game_values`, plus
#: the owner).
GAME_WRITTEN = (
    *GAME_FIELDS,
    "bots",
    "owner",
    "clock_seat",
    "clock_turn",
    "clock_deadline",
    "pending_resigns",
)
#: The seat columns :meth:`GameStore.update_seats` writes: all of :class:`SeatRow`'s but
#: the seat number and the hint count (only :meth:`GameStore.count_hint` writes it, so a
#: seat change never undoes a hint counted meanwhile).
SEAT_SETTINGS = tuple(name for name in SEAT_FIELDS if name not in ("seat", "hints"))


@dataclass(frozen=True)
class Statement:
    """Compiled SQL and the values of its literals (placeholders too, by name)."""

    sql: str
    literals: Mapping[str, Any]

    def params(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters of a call: the literals and ``values``."""
        return {**self.literals, **values} if self.literals else dict(values)


class Queries:
    """Every statement of a store, compiled for ``dialect`` (once a store class)."""

    def __init__(self, dialect: Dialects) -> None:
        self.dialect = dialect
        g, s, a = games, seats, actions
        postgres = dialect == "postgresql"

        self.insert_game = self._compile(insert(g), columns=GAME_WRITTEN)
        self.insert_seat = self._compile(insert(s), columns=("game_id", *SEAT_FIELDS))
        self.insert_action = self._compile(insert(a), columns=[c.name for c in a.c])

        self.game = self._compile(select(g).where(g.c.id == P("game_id")))
        self.games = self._compile(select(g).where(self._in(g.c.id)))
        self.open_games = self._compile(
            select(g)
            .where(g.c.status == "waiting", g.c.updated >= P("since"))
            .order_by(g.c.created.desc())
            .limit(P("limit"))
        )
        self.seats = self._compile(
            select(s).where(self._in(s.c.game_id)).order_by(s.c.game_id, s.c.seat)
        )
        self.actions = self._compile(
            select(a.c.token, a.c.seat, a.c.at)
            .where(a.c.game_id == P("game_id"), a.c.number >= P("start"))
            .order_by(a.c.number)
        )
        self.version = self._compile(select(g.c.version, g.c.owner).where(g.c.id == P("game_id")))

        # An append: the game moves on only from the expected version (and, on PostgreSQL,
        # when this instance owns it); then its actions are inserted.
        moved = [g.c.id == P("game_id"), g.c.version == P("at_version")]
        if postgres:
            moved.append(g.c.owner == P("instance"))
        move = update(g).where(*moved)
        move = move.values(moved_on(P("next"), P("new_status"), P("bot"), P("new_turns")))
        self.move_game = self._compile(move)
        if postgres:
            self.append_many = self._compile(appends_together_and_notify())
        else:
            self.move_games, self.insert_moved_actions = (
                self._compile(statement) for statement in appends_together()
            )

        other = s.alias("s")
        self.claim_seat = self._compile(
            update(s)
            .where(s.c.game_id == P("game_id"), s.c.seat == P("at_seat"), s.c.kind == "open")
            .values(
                kind="human",
                token_hash=P("new_token_hash"),
                name=P("new_name"),
                joined=True,
                host=~exists().where(other.c.game_id == s.c.game_id, other.c.host == true()),
                # A new holder: the seat is no earlier player's account's (a kicked one).
                account_id=null(),
            )
        )
        no_open_seat = ~exists().where(s.c.game_id == P("game_id"), s.c.kind == "open")
        self.claimed = self._compile(
            update(g)
            .where(g.c.id == P("game_id"))
            .values(
                updated=P("now"),
                status=case(
                    (and_(g.c.status == "waiting", no_open_seat), "running"), else_=g.c.status
                ),
            )
        )
        self.update_seat = self._compile(
            update(s)
            .where(s.c.game_id == P("game_id"), s.c.seat == P("at_seat"))
            .values(
                {
                    **{name: P("new_" + name) for name in SEAT_SETTINGS},
                    # A seat opened again (the host's kick) is no longer its player's
                    # account's.
                    "account_id": case(
                        (cast(P("new_kind"), Text) == literal_column("'open'"), null()),
                        else_=s.c.account_id,
                    ),
                }
            )
        )
        bots = select(func.count()).where(s.c.game_id == P("game_id"), s.c.kind == "bot")
        self.seats_changed = self._compile(
            update(g)
            .where(g.c.id == P("game_id"))
            .values(
                status=P("new_status"),
                bot_to_move=P("bot"),
                updated=P("now"),
                bots=bots.scalar_subquery(),
            )
        )
        self.activate_seat = self._compile(
            update(s)
            .where(
                s.c.game_id == P("game_id"),
                s.c.seat == P("at_seat"),
                s.c.kind == "human",
                s.c.token_hash.is_(None),
            )
            .values(token_hash=P("new_token_hash"))
        )
        self.set_rematch = self._compile(
            update(g)
            .where(g.c.id == P("game_id"))
            .values(rematch=func.coalesce(g.c.rematch, P("new_rematch")))
            .returning(g.c.rematch)
        )
        self.save_analysis = self._compile(
            update(g).where(g.c.id == P("game_id")).values(analysis=P("new_analysis"))
        )
        self.save_turn_state = self._compile(
            update(g)
            .where(g.c.id == P("game_id"))
            .values(
                {
                    name: P("new_" + name)
                    for name in ("clock_seat", "clock_turn", "clock_deadline", "pending_resigns")
                }
            )
        )
        self.set_status = self._compile(
            update(g).where(g.c.id == P("game_id")).values(status=P("new_status"))
        )
        self.count_hint = self._compile(
            update(s)
            .where(
                s.c.game_id == P("game_id"),
                s.c.seat == P("at_seat"),
                s.c.hinted_at != P("at_version"),
            )
            .values(hints=s.c.hints + 1, hinted_at=P("at_version"))
            .returning(s.c.hints)
        )
        self.hints = self._compile(
            select(s.c.hints).where(s.c.game_id == P("game_id"), s.c.seat == P("at_seat"))
        )

        # A bot to move, or a player's turn clock running: what a server goes on with.
        # (Turn-based clocks are not: their deadlines are swept, marrakech.web.turn_based_clocks.)
        real_time = (g.c.clock_seat >= 0) & g.c.clock.not_like("turn\\_%", escape="\\")
        waiting = [(g.c.bot_to_move == true()) | real_time, g.c.status != "over"]
        if postgres:  # and no living instance owns it
            alive = owner_alive()
            waiting.append(g.c.owner.is_(None) | ~alive)
        query = select(g.c.id).where(*waiting)
        if postgres:
            query = query.order_by(g.c.updated).limit(200)
        self.games_to_resume = self._compile(query)

        mine = g.c.creator == P("creator")
        self.usage = self._compile(
            select(
                func.count().filter(mine).label("games"),
                func.coalesce(func.sum(g.c.bots).filter(mine), 0).label("bots"),
                func.count().label("all_games"),
                func.coalesce(func.sum(g.c.bots), 0).label("all_bots"),
            ).where(g.c.status != "over", g.c.updated >= P("since"))
        )

    @staticmethod
    def seat_settings(game_id: str, seat: SeatRow) -> dict[str, Any]:
        """The parameters of :attr:`update_seat` for ``seat``."""
        values = seat_values(seat)
        params = {"new_" + name: values[name] for name in SEAT_SETTINGS}
        params.update(game_id=game_id, at_seat=seat.seat)
        return params

    @staticmethod
    def usage_of(row: Mapping[str, Any]) -> Usage:
        """The :class:`Usage` of a row of :attr:`usage`."""
        return Usage(
            games=int(row["games"]),
            bots=int(row["bots"]),
            all_games=int(row["all_games"]),
            all_bots=int(row["all_bots"]),
        )

    def ids(self, game_ids: Sequence[str]) -> Any:
        """The value of the ``ids`` parameter: a list on PostgreSQL, JSON on SQLite."""
        return list(game_ids) if self.dialect == "postgresql" else json.dumps(list(game_ids))

    def _in(self, expression: ColumnElement[Any]) -> ColumnElement[bool]:
        """``expression`` is one of the ``ids`` parameter's (any number of them)."""
        if self.dialect == "postgresql":
            return expression == any_(P("ids"))
        listed: Select[Any] = select(column("value")).select_from(func.json_each(P("ids")))
        return expression.in_(listed)

    def _compile(self, statement: ClauseElement, columns: Sequence[str] = ()) -> Statement:
        return compile_statement(statement, self.dialect, columns)


def compile_statement(
    statement: ClauseElement, dialect: Dialects, columns: Sequence[str] = ()
) -> Statement:
    """``statement`` compiled for ``dialect``'s driver, with its literals' values
    (``columns``: those an ``INSERT`` writes)."""
    compiled = statement.compile(dialect=DIALECTS[dialect], column_keys=list(columns) or None)
    literals = {
        name: bind.value
        for bind, name in compiled.bind_names.items()  # type: ignore[attr-defined]
        if not bind.required and bind.value is not None
    }
    return Statement(str(compiled), literals)


class AccountQueries:
    """The accounts' statements (issue #24), compiled for ``dialect``; the stores run
    them in one transaction a call (:meth:`~marrakech.web.store.GameStore.transact`)."""

    def __init__(self, dialect: Dialects) -> None:
        a, c, s, ch = accounts, credentials, sessions, challenges

        def compiled(statement: ClauseElement, columns: Sequence[str] = ()) -> Statement:
            return compile_statement(statement, dialect, columns)

        self.insert_account = compiled(
            insert(a), columns=("id", "name", "name_key", "name_skeleton", "created")
        )
        self.account = compiled(select(a).where(a.c.id == P("account_id")))
        self.account_named = compiled(
            select(a).where(a.c.name_key == P("key"), a.c.deleted == false())
        )
        # The account whose name looks like one (its skeleton's, or its key's).
        self.account_like = compiled(
            select(a)
            .where(
                or_(a.c.name_skeleton == P("skeleton"), a.c.name_key == P("key")),
                a.c.deleted == false(),
            )
            .order_by(a.c.created)
            .limit(1)
        )
        # Accounts without a skeleton (look-alikes of an older one, kept by revision
        # 0008_name_skeletons), and giving one its skeleton once that is free.
        self.unguarded_accounts = compiled(
            select(a.c.id, a.c.name)
            .where(a.c.name_skeleton.is_(None), a.c.deleted == false())
            .order_by(a.c.created, a.c.id)
        )
        self.guard_account = compiled(
            update(a)
            .where(a.c.id == P("account_id"), a.c.name_skeleton.is_(None), a.c.deleted == false())
            .values(name_skeleton=P("skeleton"))
        )
        self.delete_account = compiled(
            update(a)
            .where(a.c.id == P("account_id"), a.c.deleted == false())
            .values(
                deleted=True, deleted_at=P("now"), name="", name_key=null(), name_skeleton=null()
            )
            .returning(a.c.id)
        )

        self.insert_credential = compiled(insert(c), columns=[column.name for column in c.c])
        self.credential = compiled(select(c).where(c.c.id == P("credential")))
        self.credentials_of = compiled(
            select(c).where(c.c.account_id == P("account_id")).order_by(c.c.created)
        )
        # The password of the account of a name, with the account in the same trip: a
        # name that exists costs no more round trips than one that does not.
        named = select(a.c.id).where(a.c.name_key == P("key"), a.c.deleted == false())
        self.password_named = compiled(
            select(c.c.password_hash).where(
                c.c.account_id == named.scalar_subquery(), c.c.kind == "password"
            )
        )
        self.touch_credential = compiled(
            update(c).where(c.c.id == P("credential")).values(last_used=P("now"))
        )
        self.delete_credential = compiled(
            delete(c).where(c.c.id == P("credential")).returning(c.c.id)
        )
        # A passkey goes only if the account keeps another way to sign in.
        kept = c.alias("kept")
        others = select(func.count()).where(kept.c.account_id == P("account_id"))
        self.remove_passkey = compiled(
            delete(c)
            .where(
                c.c.id == P("credential"),
                c.c.account_id == P("account_id"),
                c.c.kind == "passkey",
                others.scalar_subquery() > 1,
            )
            .returning(c.c.id)
        )
        self.delete_credentials_of = compiled(delete(c).where(c.c.account_id == P("account_id")))
        # A passkey's counter moves on only from the value its check was made against:
        # of two uses of one assertion at once, one alone is accepted.
        self.use_credential = compiled(
            update(c)
            .where(c.c.id == P("credential"), c.c.sign_count == P("old_count"))
            .values(sign_count=P("new_count"), last_used=P("now"))
            .returning(c.c.id)
        )

        self.insert_session = compiled(insert(s), columns=[column.name for column in s.c])
        self.session = compiled(
            select(s, a.c.name, a.c.created.label("account_created"))
            .join(a, a.c.id == s.c.account_id)
            .where(
                s.c.token_hash == P("token_hash"),
                s.c.last_seen >= P("idle_since"),
                s.c.created >= P("oldest"),
                a.c.deleted == false(),
            )
        )
        self.touch_session = compiled(
            update(s).where(s.c.token_hash == P("token_hash")).values(last_seen=P("now"))
        )
        self.sessions_of = compiled(
            select(s).where(s.c.account_id == P("account_id")).order_by(s.c.created)
        )
        self.delete_session = compiled(delete(s).where(s.c.token_hash == P("token_hash")))
        self.delete_sessions_of = compiled(delete(s).where(s.c.account_id == P("account_id")))
        # Issue 25: the reminders' address of an account, exported, and deleted with it.
        self.mail_of = compiled(
            select(
                mail_addresses.c.address,
                mail_addresses.c.lang,
                mail_addresses.c.status,
                mail_addresses.c.created,
            ).where(mail_addresses.c.account_id == P("account_id"))
        )
        self.delete_mail_of = compiled(
            delete(mail_addresses).where(mail_addresses.c.account_id == P("account_id"))
        )
        self.devices_of = compiled(
            select(push_subscriptions)
            .where(push_subscriptions.c.account_id == P("account_id"))
            .order_by(push_subscriptions.c.created)
        )
        self.delete_devices_of = compiled(
            delete(push_subscriptions).where(push_subscriptions.c.account_id == P("account_id"))
        )
        self.delete_other_sessions = compiled(
            delete(s).where(s.c.account_id == P("account_id"), s.c.token_hash != P("token_hash"))
        )
        self.delete_old_sessions = compiled(
            delete(s).where((s.c.last_seen < P("idle_since")) | (s.c.created < P("oldest")))
        )

        self.insert_challenge = compiled(insert(ch), columns=[column.name for column in ch.c])
        # Taken once: the row goes whether or not it is still fresh.
        self.take_challenge = compiled(
            delete(ch)
            .where(ch.c.id == P("challenge_id"), ch.c.purpose == P("purpose"))
            .returning(*ch.c)
        )
        self.delete_old_challenges = compiled(delete(ch).where(ch.c.expires < P("now")))

        # Issue 36: the key that signs device cookies, a row of the links' key table.
        upsert = postgresql_insert if dialect == "postgresql" else sqlite_insert
        self.key = compiled(select(mail_keys.c.secret).where(mail_keys.c.name == P("name")))
        self.insert_key = compiled(
            upsert(mail_keys).on_conflict_do_nothing(), columns=("name", "secret")
        )

        # A guest's seat joins the account of whoever holds its token, once (a token
        # is one seat's: 192 random bits).
        self.link_seat = compiled(
            update(seats)
            .where(
                seats.c.game_id == P("game_id"),
                seats.c.token_hash == P("token_hash"),
                seats.c.kind == "human",
                seats.c.account_id.is_(None),
            )
            .values(account_id=P("account_id"))
            .returning(seats.c.game_id)
        )
        self.seats_of = compiled(
            select(
                seats.c.game_id,
                seats.c.seat,
                seats.c.name,
                games.c.created,
                games.c.players,
                games.c.rules,
                games.c.status,
            )
            .join(games, games.c.id == seats.c.game_id)
            .where(seats.c.account_id == P("account_id"))
            .order_by(games.c.created, seats.c.game_id, seats.c.seat)
        )
        # The account's unfinished games that moved since a moment (those it hosts),
        # and their bots: the caps per client, per account too.
        hosted = exists().where(
            seats.c.game_id == games.c.id,
            seats.c.account_id == P("account_id"),
            seats.c.host == true(),
        )
        self.usage = compiled(
            select(
                func.count().label("games"),
                func.coalesce(func.sum(games.c.bots), 0).label("bots"),
            ).where(games.c.status != "over", games.c.updated >= P("since"), hosted)
        )
        self.rename_seats = compiled(
            update(seats).where(seats.c.account_id == P("account_id")).values(name=P("new_name"))
        )


def owner_alive() -> ColumnElement[bool]:
    """A game's owner is an instance whose heartbeat is alive (PostgreSQL)."""
    from marrakech.web.store.schema import instances

    return exists().where(instances.c.id == games.c.owner, instances.c.alive_until > func.now())
