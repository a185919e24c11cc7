"""The chat's SQL statements (issues 24 and 36), compiled once per dialect like the
store's (:mod:`marrakech.web.store.queries`): its lines, their reports and the
operator's decisions (the reports queue: docs/web.md, "Moderation"), and the bans; and
how their rows become :class:`~marrakech.web.store.ChatRow` and the rest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, false, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql import ClauseElement

from marrakech.web.store import (
    HOLD_REPORTS,
    ChatDecision,
    ChatReport,
    ChatRow,
    Reporter,
    distinct_players,
)
from marrakech.web.store.queries import P, Statement, compile_statement
from marrakech.web.store.schema import Dialects, bans, chat, chat_decisions, chat_reports

#: The chat columns a new line writes (the store gives the id; reports and hiding come
#: later).
CHAT_WRITTEN = ("game_id", "at", "seat", "account_id", "channel", "kind", "text", "address")


class ChatQueries:
    """The chat's statements, compiled for ``dialect`` (once a store class), and the
    codecs of their rows."""

    def __init__(self, dialect: Dialects) -> None:
        c, r, b, d = chat, chat_reports, bans, chat_decisions
        dialect_insert = postgresql_insert if dialect == "postgresql" else sqlite_insert

        def compiled(statement: ClauseElement, columns: Sequence[str] = ()) -> Statement:
            return compile_statement(statement, dialect, columns)

        self.insert_chat = compiled(
            insert(c).values({name: P(name) for name in CHAT_WRITTEN}).returning(c.c.id)
        )
        self.chat_lines = compiled(
            select(c).where(c.c.game_id == P("game_id")).order_by(c.c.id.desc()).limit(P("limit"))
        )
        # The reporters of a game's lines from ``first`` on (those a room keeps).
        self.chat_reporters = compiled(
            select(r.c.line_id, r.c.reporter)
            .join(c, c.c.id == r.c.line_id)
            .where(c.c.game_id == P("game_id"), c.c.id >= P("first"))
        )
        self.chat_line = compiled(select(c).where(c.c.id == P("line_id")))
        # Reports and decisions on a line wait for each other (PostgreSQL; SQLite's
        # transactions do anyway), so two reports at once still count each other.
        self.lock_chat_line = compiled(select(c).where(c.c.id == P("line_id")).with_for_update())
        self.line_reports = compiled(
            select(r).where(r.c.line_id == P("line_id")).order_by(r.c.at, r.c.reporter)
        )
        self.add_report = compiled(
            dialect_insert(r)
            .values(
                line_id=P("line_id"),
                reporter=P("reporter"),
                at=P("now"),
                kind=P("kind"),
                address=P("address"),
                account_id=P("account_id"),
            )
            .on_conflict_do_nothing()
        )
        counted = select(func.count()).where(r.c.line_id == c.c.id).scalar_subquery()
        self.count_reports = compiled(
            update(c).where(c.c.id == P("line_id")).values(reports=counted)
        )
        self.hold_chat = compiled(
            update(c)
            .where(c.c.id == P("line_id"), c.c.hidden == false(), c.c.dismissed == false())
            .values(held=True)
        )
        self.hide_chat = compiled(
            update(c).where(c.c.id == P("line_id")).values(hidden=True, held=False)
        )
        self.dismiss_chat = compiled(
            update(c).where(c.c.id == P("line_id")).values(dismissed=True, held=False)
        )
        self.add_decision = compiled(
            insert(d)
            .values(game_id=P("game_id"), line_id=P("line_id"), decision=P("decision"), at=P("now"))
            .returning(d.c.id)
        )
        self.decisions_after = compiled(
            select(d).where(d.c.id > P("after")).order_by(d.c.id).limit(1000)
        )
        self.last_decision = compiled(select(d).order_by(d.c.id.desc()).limit(1))
        # The queue: lines reported and not decided on, with one row per report.
        queued = (
            select(c.c.id)
            .where(c.c.reports > 0, c.c.hidden == false(), c.c.dismissed == false())
            .order_by(c.c.id.desc())
            .limit(P("limit"))
        )
        self.chat_reports = compiled(
            select(
                c,
                r.c.reporter,
                r.c.kind.label("reporter_kind"),
                r.c.address.label("reporter_address"),
                r.c.account_id.label("reporter_account"),
            )
            .join(r, r.c.line_id == c.c.id)
            .where(c.c.id.in_(queued))
            .order_by(c.c.id.desc(), r.c.at, r.c.reporter)
        )
        self.ban = compiled(
            dialect_insert(b)
            .values(kind=P("kind"), value=P("value"), at=P("now"), reason=P("reason"))
            .on_conflict_do_nothing()
        )
        self.unban = compiled(delete(b).where(b.c.kind == P("kind"), b.c.value == P("value")))
        self.banned = compiled(
            select(b.c.kind).where(b.c.kind == P("kind"), b.c.value == P("value"))
        )

    @staticmethod
    def chat_row(row: Mapping[str, Any], reporters: Sequence[str] = ()) -> ChatRow:
        """A :class:`ChatRow` from a chat row read by name (and its reporters' keys)."""
        return ChatRow(
            game_id=row["game_id"],
            seat=int(row["seat"]),
            channel=row["channel"],
            kind=row["kind"],
            text=row["text"],
            at=float(row["at"]),
            id=int(row["id"]),
            address=row["address"],
            account_id=row["account_id"],
            reports=int(row["reports"]),
            hidden=bool(row["hidden"]),
            held=bool(row["held"]),
            dismissed=bool(row["dismissed"]),
            reporters=tuple(reporters),
        )

    @staticmethod
    def chat_values(row: ChatRow, now: float) -> dict[str, Any]:
        """The parameters of :attr:`insert_chat` for ``row`` written at ``now``."""
        values = {name: getattr(row, name) for name in CHAT_WRITTEN}
        values["at"] = row.at or now
        return values

    @classmethod
    def with_reporters(
        cls, rows: Sequence[Mapping[str, Any]], reports: Sequence[Mapping[str, Any]]
    ) -> list[ChatRow]:
        """The rows of :attr:`chat_lines` (newest first) oldest first, each with its
        reporters from the rows of :attr:`chat_reporters`."""
        by_line: dict[int, list[str]] = {}
        for report in reports:
            by_line.setdefault(int(report["line_id"]), []).append(report["reporter"])
        return [cls.chat_row(row, by_line.get(int(row["id"]), ())) for row in reversed(rows)]

    @staticmethod
    def report_values(line_id: int, reporter: Reporter, now: float) -> dict[str, Any]:
        """The parameters of :attr:`add_report` (and :attr:`count_reports`)."""
        return {
            "line_id": line_id,
            "reporter": reporter.key,
            "now": now,
            "kind": reporter.kind,
            "address": reporter.address,
            "account_id": reporter.account_id,
        }

    @staticmethod
    def holds(reports: Sequence[Mapping[str, Any]]) -> bool:
        """Whether a line's reports (the rows of :attr:`line_reports`) hold it."""
        players = [
            (row["reporter"], row["address"], row["account_id"])
            for row in reports
            if row["kind"] == "player"
        ]
        return distinct_players(players) >= HOLD_REPORTS

    @staticmethod
    def decision(row: Mapping[str, Any]) -> ChatDecision:
        """A :class:`ChatDecision` from a row of :data:`chat_decisions`."""
        return ChatDecision(int(row["id"]), row["game_id"], int(row["line_id"]), row["decision"])

    @classmethod
    def reports_of(cls, rows: Sequence[Mapping[str, Any]]) -> list[ChatReport]:
        """The rows of :attr:`chat_reports` (a line per report) as the queue's entries."""
        grouped: dict[int, list[Mapping[str, Any]]] = {}
        for row in rows:
            grouped.setdefault(int(row["id"]), []).append(row)
        return [
            ChatReport(
                cls.chat_row(reports[0], [report["reporter"] for report in reports]),
                tuple(
                    Reporter(r["reporter_kind"], r["reporter_address"], r["reporter_account"])
                    for r in reports
                ),
            )
            for reports in grouped.values()
        ]
