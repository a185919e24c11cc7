"""The friends' SQL statements (issue 37, item 2), compiled once per dialect like the
store's (:mod:`marrakech.web.store.queries`) and run through
:meth:`~marrakech.web.store.GameStore.transact`: follows, blocks, challenges and when
an account's pages were last open. Every change that must happen once (a challenge
answered, a block) is a conditional ``UPDATE ... RETURNING`` or an ``INSERT ... ON
CONFLICT DO NOTHING``, so it holds with several instances on one PostgreSQL database as
on one SQLite file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    Select,
    and_,
    any_,
    bindparam,
    column,
    delete,
    false,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql import ClauseElement, ColumnElement

from marrakech.web.store.queries import Statement, compile_statement
from marrakech.web.store.schema import (
    Dialects,
    accounts,
    blocks,
    follows,
    game_challenges,
    games,
    pool_entries,
    push_subscriptions,
    seats,
)

P = bindparam

#: The columns a new challenge writes.
CHALLENGE_WRITTEN = ("id", "challenger", "challenged", "settings", "created", "expires")


class FriendQueries:
    """Every statement of the friends, for ``dialect``."""

    def __init__(self, dialect: Dialects) -> None:
        self.dialect = dialect
        a, f, b, c = accounts, follows, blocks, game_challenges
        upsert = postgresql_insert if dialect == "postgresql" else sqlite_insert

        def compiled(statement: ClauseElement, columns: Sequence[str] = ()) -> Statement:
            return compile_statement(statement, dialect, columns)

        self.account_named = compiled(
            select(a.c.id, a.c.name).where(a.c.name_key == P("key"), a.c.deleted == false())
        )
        self.names = compiled(
            select(a.c.id, a.c.name).where(self._in(a.c.id), a.c.deleted == false())
        )

        # -- follows ---------------------------------------------------------------
        self.follow = compiled(
            upsert(f)
            .values(follower=P("follower"), followed=P("followed"), at=P("now"))
            .on_conflict_do_nothing()
        )
        self.unfollow = compiled(
            delete(f).where(f.c.follower == P("follower"), f.c.followed == P("followed"))
        )
        self.following = compiled(
            select(a.c.id, a.c.name)
            .join(f, f.c.followed == a.c.id)
            .where(f.c.follower == P("follower"), a.c.deleted == false())
            .order_by(a.c.name_key)
        )

        # -- blocks ----------------------------------------------------------------
        self.block = compiled(
            upsert(b)
            .values(blocker=P("blocker"), blocked=P("blocked"), at=P("now"))
            .on_conflict_do_nothing()
        )
        self.unblock = compiled(
            delete(b).where(b.c.blocker == P("blocker"), b.c.blocked == P("blocked"))
        )
        self.blocked_list = compiled(
            select(a.c.id, a.c.name)
            .join(b, b.c.blocked == a.c.id)
            .where(b.c.blocker == P("blocker"), a.c.deleted == false())
            .order_by(a.c.name_key)
        )
        # Either way: a block stops challenges both ways.
        self.blocked_between = compiled(
            select(b.c.blocker).where(
                or_(
                    and_(b.c.blocker == P("one"), b.c.blocked == P("other")),
                    and_(b.c.blocker == P("other"), b.c.blocked == P("one")),
                )
            )
        )
        self.blocked_pairs = compiled(
            select(b.c.blocker, b.c.blocked).where(self._in(b.c.blocker), self._in(b.c.blocked))
        )
        # A block ends the open challenges between the two, both ways.
        self.cancel_between = compiled(
            update(c)
            .where(
                c.c.status == "open",
                or_(
                    and_(c.c.challenger == P("one"), c.c.challenged == P("other")),
                    and_(c.c.challenger == P("other"), c.c.challenged == P("one")),
                ),
            )
            .values(status="cancelled", decided=P("now"))
        )

        # -- challenges ------------------------------------------------------------
        self.insert_challenge = compiled(insert(c), columns=CHALLENGE_WRITTEN)
        self.challenge = compiled(select(c).where(c.c.id == P("challenge_id")))
        self.open_between = compiled(
            select(c.c.id).where(
                c.c.challenger == P("challenger"),
                c.c.challenged == P("challenged"),
                c.c.status == "open",
                c.c.expires > P("now"),
            )
        )
        self.open_count = compiled(
            select(func.count().label("count")).where(
                c.c.challenger == P("challenger"), c.c.status == "open", c.c.expires > P("now")
            )
        )
        challenger, challenged = a.alias("challenger_account"), a.alias("challenged_account")
        named = (
            select(
                c,
                challenger.c.name.label("challenger_name"),
                challenged.c.name.label("challenged_name"),
            )
            .join(challenger, challenger.c.id == c.c.challenger)
            .join(challenged, challenged.c.id == c.c.challenged)
        )
        self.challenge_of = compiled(
            named.where(
                c.c.id == P("challenge_id"),
                or_(c.c.challenger == P("account_id"), c.c.challenged == P("account_id")),
            )
        )
        # An account's challenges: those open, and those answered lately (the
        # challenger's pages learn the answer, and go to the game, from them).
        self.challenges_of = compiled(
            named.where(
                or_(c.c.challenger == P("account_id"), c.c.challenged == P("account_id")),
                or_(
                    and_(c.c.status == "open", c.c.expires > P("now")),
                    c.c.decided > P("since"),
                ),
            )
            .order_by(c.c.created.desc())
            .limit(50)
        )
        # An answer happens once: the first of two accepts (or an accept and a
        # decline) wins, the other finds no open row.
        self.answer = compiled(
            update(c)
            .where(
                c.c.id == P("challenge_id"),
                c.c.status == "open",
                c.c.expires > P("now"),
                c.c.challenged == P("account_id"),
            )
            .values(status=P("new_status"), decided=P("now"))
            .returning(*c.c)
        )
        self.cancel = compiled(
            update(c)
            .where(
                c.c.id == P("challenge_id"),
                c.c.status == "open",
                c.c.challenger == P("account_id"),
            )
            .values(status="cancelled", decided=P("now"))
            .returning(c.c.id)
        )
        # An accepted challenge whose game could not be made is open again.
        self.reopen = compiled(
            update(c)
            .where(c.c.id == P("challenge_id"), c.c.status == "accepted", c.c.game_id.is_(None))
            .values(status="open", decided=None)
        )
        self.set_game = compiled(
            update(c)
            .where(c.c.id == P("challenge_id"))
            .values(
                game_id=P("game_id"),
                challenger_token=P("challenger_token"),
                challenged_token=P("challenged_token"),
            )
        )
        # Answered a day ago (and the seat tokens with them), or expired a day ago.
        self.purge = compiled(
            delete(c).where(
                or_(
                    c.c.decided < P("before"),
                    and_(c.c.status == "open", c.c.expires < P("before")),
                )
            )
        )

        # -- presence --------------------------------------------------------------
        self.touch = compiled(update(a).where(a.c.id == P("account_id")).values(seen=P("now")))
        self.seen = compiled(
            select(a.c.id.label("account_id"), a.c.seen.label("at")).where(
                self._in(a.c.id), a.c.seen > P("since")
            )
        )
        # The unfinished games the accounts are seated in, latest move first.
        self.playing = compiled(
            select(seats.c.account_id, games.c.id.label("game_id"), games.c.updated)
            .join(games, games.c.id == seats.c.game_id)
            .where(self._in(seats.c.account_id), games.c.status == "running")
            .order_by(games.c.updated.desc())
        )

        # The accounts waiting in a quick-pairing pool (no table found for them yet).
        self.waiting = compiled(
            select(pool_entries.c.account_id, pool_entries.c.pool).where(
                self._in(pool_entries.c.account_id), pool_entries.c.game_id.is_(None)
            )
        )

        # A deleted account's rows (its account row stays, marked deleted).
        self.forget = [
            compiled(delete(f).where(or_(f.c.follower == P("gone"), f.c.followed == P("gone")))),
            compiled(delete(b).where(or_(b.c.blocker == P("gone"), b.c.blocked == P("gone")))),
            compiled(
                delete(c).where(or_(c.c.challenger == P("gone"), c.c.challenged == P("gone")))
            ),
        ]
        # The account's push devices (a challenge is pushed to those that opted in).
        ps = push_subscriptions
        self.account_devices = compiled(select(ps).where(ps.c.account_id == P("account_id")))

    def ids(self, account_ids: Sequence[str]) -> Any:
        """The value of the ``ids`` parameter: a list on PostgreSQL, JSON on SQLite."""
        return list(account_ids) if self.dialect == "postgresql" else json.dumps(list(account_ids))

    def _in(self, expression: ColumnElement[Any]) -> ColumnElement[bool]:
        """``expression`` is one of the ``ids`` parameter's (any number of them)."""
        if self.dialect == "postgresql":
            return expression == any_(P("ids"))
        listed: Select[Any] = select(column("value")).select_from(func.json_each(P("ids")))
        return expression.in_(listed)
