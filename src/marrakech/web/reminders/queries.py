"""The reminders' statements, compiled for a store's dialect and run through
:meth:`~marrakech.web.store.GameStore.transact` (one transaction a call), as the
accounts' are. Every change that must happen once is a conditional ``UPDATE ...
RETURNING`` or an ``INSERT ... ON CONFLICT DO NOTHING``, so it holds with several
instances on one PostgreSQL database as on one SQLite file.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, bindparam, delete, exists, func, insert, null, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql import ClauseElement, ColumnElement

from marrakech.web.store.queries import Statement, compile_statement
from marrakech.web.store.schema import (
    Dialects,
    games,
    mail_addresses,
    mail_keys,
    mail_mutes,
    mail_outbox,
    mail_visits,
    push_subscriptions,
    seats,
)

P = bindparam


class ReminderQueries:
    """Every statement of the reminders, for ``dialect``."""

    def __init__(self, dialect: Dialects) -> None:
        a, o, m, v = mail_addresses, mail_outbox, mail_mutes, mail_visits
        upsert = postgresql_insert if dialect == "postgresql" else sqlite_insert

        def compiled(statement: ClauseElement, columns: tuple[str, ...] = ()) -> Statement:
            return compile_statement(statement, dialect, columns)

        self.key = compiled(select(mail_keys.c.secret).where(mail_keys.c.name == P("name")))
        self.insert_key = compiled(
            upsert(mail_keys).on_conflict_do_nothing(), columns=("name", "secret")
        )

        # -- addresses ---------------------------------------------------------------
        self.address_of = compiled(select(a).where(a.c.owner == P("owner")))
        self.address = compiled(select(a).where(a.c.id == P("address_id")))
        self.remove_address = compiled(delete(a).where(a.c.owner == P("owner")).returning(a.c.id))
        self.insert_address = compiled(
            insert(a),
            columns=(
                "id",
                "owner",
                "account_id",
                "game_id",
                "seat",
                "token_hash",
                "address",
                "lang",
                "status",
                "verify_nonce",
                "created",
                "changed",
            ),
        )
        # A link works once: the nonce it carries goes with its use.
        self.verify = compiled(
            update(a)
            .where(
                a.c.id == P("address_id"),
                a.c.verify_nonce == P("nonce"),
                a.c.status == "pending",
            )
            .values(
                status="verified",
                verify_nonce=null(),
                unsubscribe_nonce=P("unsubscribe"),
                changed=P("now"),
            )
            .returning(a.c.id, a.c.owner, a.c.address, a.c.lang)
        )
        self.unsubscribe = compiled(
            update(a)
            .where(
                a.c.id == P("address_id"),
                a.c.unsubscribe_nonce == P("nonce"),
                a.c.status == "verified",
            )
            .values(status="unsubscribed", unsubscribe_nonce=null(), changed=P("now"))
            .returning(a.c.id, a.c.owner, a.c.address, a.c.lang)
        )
        self.undeliverable = compiled(
            update(a)
            .where(a.c.id == P("address_id"))
            .values(status="undeliverable", problem=P("problem"), changed=P("now"))
        )
        self.set_lang = compiled(
            update(a).where(a.c.owner == P("owner")).values(lang=P("lang")).returning(a.c.id)
        )

        # The address reminders of a seat go to: its own (a guest's, for this game) or
        # its account's, verified, unless the seat muted the game.
        def of_seat(column: ColumnElement[Any]) -> Any:
            return (
                select(column)
                .where(seats.c.game_id == P("game_id"), seats.c.seat == P("seat"))
                .scalar_subquery()
            )

        muted = exists().where(m.c.game_id == P("game_id"), m.c.seat == P("seat"))
        self.seat_address = compiled(
            select(a)
            .where(
                a.c.status == "verified",
                or_(
                    and_(
                        a.c.game_id == P("game_id"),
                        a.c.seat == P("seat"),
                        a.c.token_hash == of_seat(seats.c.token_hash),
                    ),
                    a.c.account_id == of_seat(seats.c.account_id),
                ),
                ~muted,
            )
            .order_by(a.c.game_id.is_(None))
            .limit(1)
        )

        # -- mutes and visits --------------------------------------------------------
        self.mute = compiled(upsert(m).on_conflict_do_nothing(), columns=("game_id", "seat", "at"))
        self.unmute = compiled(delete(m).where(m.c.game_id == P("game_id"), m.c.seat == P("seat")))
        self.muted = compiled(
            select(m.c.at).where(m.c.game_id == P("game_id"), m.c.seat == P("seat"))
        )
        visit = upsert(v)
        self.visit = compiled(
            visit.on_conflict_do_update(
                index_elements=[v.c.game_id, v.c.seat], set_={"at": visit.excluded.at}
            ),
            columns=("game_id", "seat", "at"),
        )
        self.last_visit = compiled(
            select(v.c.at).where(v.c.game_id == P("game_id"), v.c.seat == P("seat"))
        )

        # -- the outbox --------------------------------------------------------------
        self.enqueue = compiled(
            upsert(o).on_conflict_do_nothing(),
            columns=(
                "key",
                "kind",
                "address_id",
                "game_id",
                "seat",
                "turn",
                "link",
                "due",
                "created",
            ),
        )
        self.enqueue_push = compiled(
            upsert(o).on_conflict_do_nothing(),
            columns=(
                "key",
                "kind",
                "subscription_id",
                "game_id",
                "seat",
                "turn",
                "due",
                "created",
            ),
        )
        claimable = or_(
            and_(o.c.status == "queued", o.c.due <= P("now")),
            and_(o.c.status == "sending", o.c.claimed_until < P("now")),
        )
        due = select(o.c.key).where(claimable).order_by(o.c.due).limit(P("limit"))
        if dialect == "postgresql":
            # Two instances claiming at once take different rows, without waiting.
            due = due.with_for_update(skip_locked=True)
        # The condition again on the row itself: a row another claim took in between
        # (PostgreSQL re-reads it) is not taken twice.
        self.claim = compiled(
            update(o)
            .where(o.c.key.in_(due.scalar_subquery()), claimable)
            .values(
                status="sending",
                claimed_by=P("me"),
                claimed_until=P("until"),
                attempts=o.c.attempts + 1,
            )
            .returning(*o.c)
        )
        mine = and_(o.c.key == P("key"), o.c.claimed_by == P("me"), o.c.status == "sending")
        self.finish = compiled(
            update(o)
            .where(mine)
            .values(status=P("new_status"), done_at=P("now"), link=null(), problem=P("problem"))
            .returning(o.c.key)
        )
        self.retry = compiled(
            update(o)
            .where(mine)
            .values(status="queued", due=P("due"), claimed_by=null(), problem=P("problem"))
            .returning(o.c.key)
        )
        # Done messages are kept a while (their keys stop a turn told again from being
        # reminded twice), then forgotten.
        self.purge = compiled(
            delete(o).where(
                o.c.status != "queued", o.c.status != "sending", o.c.done_at < P("before")
            )
        )
        self.next_due = compiled(select(func.min(o.c.due)).where(o.c.status == "queued"))
        # The game and seat as stored now, for the checks at sending time.
        self.turn_now = compiled(
            select(
                games.c.status,
                games.c.turns,
                games.c.lang.label("game_lang"),
                games.c.players,
                seats.c.kind,
                seats.c.stand_in,
                seats.c.name,
                seats.c.token_hash,
                seats.c.account_id,
                games.c.clock_seat,
                games.c.clock_turn,
                games.c.clock_deadline,
            )
            .join(seats, seats.c.game_id == games.c.id)
            .where(games.c.id == P("game_id"), seats.c.seat == P("seat"))
        )
        self.last_sent = compiled(
            select(func.max(o.c.done_at).label("last")).where(
                o.c.game_id == P("game_id"),
                o.c.seat == P("seat"),
                o.c.kind == P("kind"),
                o.c.status == "sent",
            )
        )
        self.seat_names = compiled(
            select(seats.c.seat, seats.c.name).where(seats.c.game_id == P("game_id"))
        )
        self.seat_of_token = compiled(
            select(seats.c.seat, seats.c.account_id).where(
                seats.c.game_id == P("game_id"), seats.c.token_hash == P("token_hash")
            )
        )
        self.outbox_counts = compiled(
            select(o.c.status, func.count().label("count")).group_by(o.c.status)
        )
        self.outbox_of = compiled(
            select(o).where(o.c.game_id == P("game_id")).order_by(o.c.created)
        )

        # -- push subscriptions ------------------------------------------------------
        ps = push_subscriptions
        self.subscription = compiled(select(ps).where(ps.c.id == P("subscription_id")))
        self.subscription_at = compiled(
            select(ps).where(ps.c.endpoint == P("endpoint"), ps.c.account_id == P("account_id"))
        )
        self.device_count = compiled(
            select(func.count().label("count")).where(
                ps.c.account_id == P("account_id"), ps.c.endpoint != P("endpoint")
            )
        )
        # One row per endpoint: a browser subscribed again (or by another account, on a
        # shared device) replaces what it had.
        add = upsert(ps)
        self.subscribe = compiled(
            add.on_conflict_do_update(
                index_elements=[ps.c.endpoint],
                set_={
                    "p256dh": add.excluded.p256dh,
                    "auth": add.excluded.auth,
                    "account_id": add.excluded.account_id,
                    "kinds": add.excluded.kinds,
                    "lang": add.excluded.lang,
                },
            ).returning(ps.c.id, ps.c.kinds, ps.c.lang),
            columns=("id", "endpoint", "p256dh", "auth", "account_id", "kinds", "lang", "created"),
        )
        self.unsubscribe_device = compiled(
            delete(ps)
            .where(ps.c.endpoint == P("endpoint"), ps.c.account_id == P("account_id"))
            .returning(ps.c.id)
        )
        self.remove_subscription = compiled(
            delete(ps).where(ps.c.id == P("subscription_id")).returning(ps.c.id)
        )
        # The devices of a seat's account (a seat without an account has none), unless
        # the seat muted the game.
        self.seat_devices = compiled(
            select(ps).where(ps.c.account_id == of_seat(seats.c.account_id), ~muted)
        )
