"""Turn-based clocks (issue 25): deadlines kept in the database, handled by any instance.

A turn-based game gives each move hours or days (:data:`TURN_BASED`) and each seat a
small time bank, so its room need not stay in memory while its players are away: the
running turn's deadline is stored with the game (``games.clock_deadline``, indexed by
``games_by_deadline``), and every instance sweeps the database every few seconds
(:meth:`marrakech.web.room_manager.RoomManager.sweep_clocks`):

- :func:`claim_due` takes the passed deadlines atomically (one instance handles each:
  a claim lasts :data:`CLAIM_SECONDS`, so a crashed sweep's is taken again later), and
  the instance loads the room, has the stand-in bot play for the seat, and unloads it;
- :func:`warn_due` takes, once a turn, the deadlines less than :func:`warn_before`
  away: the one place that decides when "your time runs out soon" comes (the email
  reminders listen to :mod:`marrakech.web.turn_based_events`' ``deadline_near``);
- :func:`note_sweep` tells whether any instance swept lately: if none did for
  :func:`downtime_seconds`, no instance ran, and :func:`extend_overdue` gives the turns
  whose deadline passed (or is about to) at least :data:`TURN_RESUME_SECONDS` (or
  their time per move, if shorter) from now, as the real-time clocks' ``RESUME_SECONDS``.

The time bank (Board Game Arena's "extra time"): every seat starts with one move's time
in its bank; a move that takes longer than its time spends the excess from the bank,
which is never refilled. A turn's deadline is its start, plus the time per move, plus
its seat's bank as the turn began. Seat 1, with 6 s in its bank, due at 110 s, moves at
108 s: 4 s past its move's own time (which ended at 104 s)::

    >>> spend((4.0, 6.0, 5.0, 3.0), seat=1, deadline=110.0, now=108.0)
    (4.0, 2.0, 5.0, 3.0)
    >>> parse_banks("", 2, 3600.0), encode_banks((3600.0, 12.25))
    ((3600.0, 3600.0), '3600.0,12.2')
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Float, bindparam, case, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from marrakech.web.store import GameStore
from marrakech.web.store.queries import Statement, compile_statement
from marrakech.web.store.schema import Dialects, games, sweeps, turn_values

P = bindparam

#: Seconds per move of the turn-based clocks (the real-time ones are the server's
#: ``--relaxed-seconds`` and ``--blitz-seconds``).
TURN_BASED: dict[str, int] = {
    "turn_1h": 3600,
    "turn_12h": 12 * 3600,
    "turn_1d": 24 * 3600,
    "turn_3d": 72 * 3600,
}
#: "Your time runs out soon" comes when less than this part of a move's time is left...
WARN_FRACTION = 0.25
#: ...but not more than this many seconds before the deadline (a 3-day move: 12 hours)...
WARN_AT_MOST = 12 * 3600.0
#: ...for turn-based clocks, and for the real-time clocks of at least this many seconds
#: per move (a server's long ``--relaxed-seconds``); a shorter turn's would come late.
WARN_MIN_TURN = 3600
#: A turn-based deadline that passed while no instance ran gets at least this long (or
#: its whole time per move, if shorter) once one runs again.
TURN_RESUME_SECONDS = 3600.0
#: How long one instance's claim on a passed deadline keeps the others off it.
CLAIM_SECONDS = 60.0
#: The most deadlines one sweep handles (the next sweep takes the rest).
CLAIM_LIMIT = 200


def is_turn_based(mode: str) -> bool:
    """Whether a clock mode is a turn-based one (days per move, deadlines swept)."""
    return mode in TURN_BASED


def warn_before(seconds: float) -> float:
    """How long before a deadline "your time runs out soon" comes, for a clock of
    ``seconds`` per move (whether it comes at all: :data:`WARN_MIN_TURN`).

    >>> warn_before(3600), warn_before(86400), warn_before(3 * 86400)
    (900.0, 21600.0, 43200.0)
    """
    return min(seconds * WARN_FRACTION, WARN_AT_MOST)


def downtime_seconds(sweep_seconds: float) -> float:
    """A gap between two sweeps (on any instance) longer than this means none ran."""
    return 3 * sweep_seconds + 1.0


def parse_banks(text: str, players: int, full: float) -> tuple[float, ...]:
    """The seats' banks as stored (``''``: all of them ``full``)."""
    if not text:
        return (float(full),) * players
    banks = tuple(float(part) for part in text.split(","))
    return banks + (float(full),) * (players - len(banks))


def encode_banks(banks: Sequence[float]) -> str:
    return ",".join(f"{bank:.1f}" for bank in banks)


def spend(banks: tuple[float, ...], seat: int, deadline: float, now: float) -> tuple[float, ...]:
    """The banks once ``seat``'s turn, due at ``deadline`` (which counted its whole
    bank), ended at ``now``: the time past the move's own comes out of its bank."""
    over = now - (deadline - banks[seat])
    if over <= 0:
        return banks
    return (*banks[:seat], max(0.0, banks[seat] - over), *banks[seat + 1 :])


@dataclass(frozen=True)
class Due:
    """A running turn's deadline as a sweep took it."""

    game_id: str
    seat: int
    turn: int
    deadline: float


class DeadlineQueries:
    """The sweeps' statements, compiled for ``dialect``."""

    def __init__(self, dialect: Dialects) -> None:
        g = games
        postgres = dialect == "postgresql"
        turn_based = g.c.clock.like("turn\\_%", escape="\\")
        live = [g.c.clock_seat >= 0, g.c.status != "over"]  # a turn's clock runs
        running = [*live, turn_based]
        due = [*running, g.c.clock_deadline <= P("now"), g.c.clock_claimed <= P("now")]
        chosen = select(g.c.id).where(*due).order_by(g.c.clock_deadline).limit(P("limit"))
        if postgres:  # two instances' sweeps take different games, neither waits
            chosen = chosen.with_for_update(skip_locked=True)
        returned = (g.c.id, g.c.clock_seat, g.c.clock_turn, g.c.clock_deadline)
        self.claim_due = compile_statement(
            update(g)
            .where(g.c.id.in_(chosen), *due)
            .values(clock_claimed=P("until"))
            .returning(*returned),
            dialect,
        )
        # warn_before() in SQL: a quarter of the move's time, at most 12 hours.
        share = g.c.clock_seconds * P("fraction", type_=Float)
        before = case((share > P("at_most", type_=Float), P("at_most", type_=Float)), else_=share)
        long_enough = or_(turn_based, g.c.clock_seconds >= P("min_turn"))
        self.warn_due = compile_statement(
            update(g)
            .where(
                *live,
                long_enough,
                g.c.clock_warned != g.c.clock_turn,
                g.c.clock_deadline > P("now"),
                g.c.clock_deadline <= P("now") + before,
            )
            .values(clock_warned=g.c.clock_turn)
            .returning(*returned),
            dialect,
        )
        grace = case(
            (g.c.clock_seconds < P("grace"), g.c.clock_seconds),
            else_=P("grace"),
        )
        self.extend_overdue = compile_statement(
            update(g)
            .where(*running, g.c.clock_deadline < P("now") + grace)
            .values(clock_deadline=P("now") + grace, clock_claimed=0),
            dialect,
        )
        self.last_sweep = compile_statement(
            select(sweeps.c.at).where(sweeps.c.name == P("name")), dialect
        )
        insert = postgresql_insert if postgres else sqlite_insert
        upsert = insert(sweeps).values(name=P("name"), at=P("now"))
        self.note_sweep = compile_statement(
            upsert.on_conflict_do_update(index_elements=["name"], set_={"at": upsert.excluded.at}),
            dialect,
        )
        names = ("clock_seat", "clock_turn", "clock_deadline", "pending_resigns")
        self.save_turn = compile_statement(
            update(g)
            .where(g.c.id == P("game_id"))
            .values(
                {
                    **{name: P("new_" + name) for name in names},
                    "clock_banks": P("new_banks"),
                    "clock_claimed": 0,
                }
            ),
            dialect,
        )


@functools.cache
def queries(dialect: str) -> DeadlineQueries:
    return DeadlineQueries(dialect)  # type: ignore[arg-type]


def _step(statement: Statement, values: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return statement.sql, statement.params(values)


def _dues(rows: list[dict[str, Any]]) -> list[Due]:
    return [
        Due(row["id"], int(row["clock_seat"]), int(row["clock_turn"]), row["clock_deadline"])
        for row in rows
    ]


async def claim_due(store: GameStore, now: float, limit: int = CLAIM_LIMIT) -> list[Due]:
    """The turn-based deadlines passed at ``now`` that no sweep claimed (or whose
    claim ran out), claimed for this caller for :data:`CLAIM_SECONDS`."""
    values = {"now": now, "until": now + CLAIM_SECONDS, "limit": limit}
    [rows] = await store.transact([_step(queries(store.dialect).claim_due, values)])
    return _dues(rows)


async def warn_due(store: GameStore, now: float) -> list[Due]:
    """The running turns whose deadline is less than :func:`warn_before` away (those
    of clocks with days, hours or at least :data:`WARN_MIN_TURN` seconds per move),
    not announced yet (each is announced once, by the first sweep that takes it)."""
    values = {
        "now": now,
        "fraction": WARN_FRACTION,
        "at_most": WARN_AT_MOST,
        "min_turn": WARN_MIN_TURN,
    }
    [rows] = await store.transact([_step(queries(store.dialect).warn_due, values)])
    return _dues(rows)


async def note_sweep(store: GameStore, now: float) -> float | None:
    """Record a sweep at ``now``: when the last one ran (None: never)."""
    q = queries(store.dialect)
    values = {"name": "clocks", "now": now}
    rows, _ = await store.transact([_step(q.last_sweep, values), _step(q.note_sweep, values)])
    return float(rows[0]["at"]) if rows else None


async def extend_overdue(store: GameStore, now: float) -> None:
    """No instance ran for a while: each turn-based deadline gets at least
    :data:`TURN_RESUME_SECONDS` (or its time per move, if shorter) from ``now``."""
    values = {"now": now, "grace": TURN_RESUME_SECONDS}
    await store.transact([_step(queries(store.dialect).extend_overdue, values)])


async def save_turn(
    store: GameStore,
    game_id: str,
    deadline: tuple[int, int, float] | None,
    pending: frozenset[int],
    banks: str,
) -> None:
    """Store a turn-based game's running turn, pending resignations and banks (the
    deadline is new: no sweep's claim holds it)."""
    values = {"new_" + name: value for name, value in turn_values(deadline, pending).items()}
    values.update(game_id=game_id, new_banks=banks)
    await store.transact([_step(queries(store.dialect).save_turn, values)])
