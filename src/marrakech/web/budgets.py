"""Budgets every instance of a database shares: the limits that matter for security
(sign-in, account creation, chat; passkey challenges would be one more declaration).

A budget is declared once, as a :class:`Rate` (a token bucket: ``per_minute`` on
average, bursts of ``burst``) or as :class:`Delays` (``tries`` at once, then a delay
that doubles with each further try, up to ``longest``). Its state is one row of the
``budgets`` table per key (:data:`~marrakech.web.store.schema.budgets`), taken by one
``INSERT ... ON CONFLICT DO UPDATE`` whose arithmetic runs in the database: two
instances (or two requests) taking from one budget at once are counted one after the
other, never both against the same state. So one SQLite file (one instance) and one
PostgreSQL database (several behind HAProxy) give the same count, and a restart
forgets nothing.

A rate is the generic cell rate algorithm: the row keeps the moment the budget would
be whole again (``due``); a take is granted while ``due`` is less than ``burst - 1``
intervals ahead, and moves ``due`` one interval on. Growing delays keep the tries
counted, the last delay and when the next try may come; a refused take changes
nothing (hammering does not make the wait longer), and the row is forgotten
``forget`` seconds after its delay ended. Each granted take writes a random mark, and
reads it back: that is how the caller knows whether it was granted.

::

    >>> SIGN_UPS = Rate("sign-up", per_minute=5, burst=5)
    >>> budgets = Budgets(store)  # doctest: +SKIP
    >>> await budgets.check(SIGN_UPS, "203.0.113.7", "new accounts")  # doctest: +SKIP
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import bindparam, case, delete, or_
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql.elements import BindParameter

from marrakech.web.protocol import ApiError
from marrakech.web.store import GameStore, Step
from marrakech.web.store.queries import Statement, compile_statement
from marrakech.web.store.schema import Dialects, budgets

P = bindparam

#: Takes between two deletions of the rows that say nothing any more (per instance).
SWEEP_EVERY = 500


@dataclass(frozen=True)
class Rate:
    """A token bucket shared by every instance: ``per_minute`` takes on average, bursts
    of ``burst``; keys are the budget's ``name`` and whose it is."""

    name: str
    per_minute: float
    burst: int

    def values(self, now: float) -> dict[str, Any]:
        interval = 60.0 / self.per_minute if self.per_minute > 0 else 1e12
        return {
            "now": now,
            "interval": interval,
            "slack": (max(1, self.burst) - 1) * interval,
            # A new row: its first take granted.
            "first_due": now + interval,
            "first_tries": 1,
            "first_delay": 0.0,
            "first_expires": now + interval,
        }

    def wait(self, row: dict[str, Any], values: dict[str, Any]) -> float:
        """Seconds before the next take of a refused one."""
        return float(row["due"]) - float(values["slack"]) - float(values["now"])


@dataclass(frozen=True)
class Delays:
    """Growing delays shared by every instance: ``tries`` at once, then ``first``
    seconds before the next, doubled at each further try up to ``longest``; all
    forgotten ``forget`` seconds after the last delay ended (or at once by
    :meth:`Budgets.forget`, as a right password does)."""

    name: str
    tries: int
    first: float
    longest: float
    forget: float

    def delay_after(self, tries: int) -> float:
        """The delay that ``tries`` tries in a row set (what the database computes).

        >>> budget = Delays("sign-in-tries", tries=5, first=30, longest=3600, forget=86400)
        >>> [budget.delay_after(n) for n in (1, 4, 5, 6, 7, 12, 20)]
        [0.0, 0.0, 30.0, 60.0, 120.0, 3600.0, 3600.0]
        """
        if tries < self.tries:
            return 0.0
        return float(min(self.longest, self.first * 2.0 ** (tries - self.tries)))

    def values(self, now: float) -> dict[str, Any]:
        first = self.delay_after(1)
        return {
            "now": now,
            "free": self.tries,
            "first": self.first,
            "longest": self.longest,
            "forget": self.forget,
            "first_due": now + first,
            "first_tries": 1,
            "first_delay": first,
            "first_expires": now + first + self.forget,
        }

    def wait(self, row: dict[str, Any], values: dict[str, Any]) -> float:
        return float(row["due"]) - float(values["now"])


Budget = Rate | Delays


class BudgetQueries:
    """The budgets' statements for ``dialect``: a take of each kind, a key forgotten,
    the rows that say nothing any more deleted."""

    def __init__(self, dialect: Dialects) -> None:
        b = budgets
        upsert = postgresql_insert if dialect == "postgresql" else sqlite_insert
        now: BindParameter[float] = P("now")

        def take(updates: dict[str, Any], granted: Any) -> Statement:
            new = upsert(b).values(
                key=P("key"),
                due=P("first_due"),
                tries=P("first_tries"),
                delay=P("first_delay"),
                taken=P("mark"),
                expires=P("first_expires"),
            )
            marked = {**updates, "taken": case((granted, P("mark")), else_=b.c.taken)}
            statement = new.on_conflict_do_update(index_elements=[b.c.key], set_=marked)
            return compile_statement(statement.returning(b.c.due, b.c.taken), dialect)

        # A rate (GCRA): granted while due is at most ``slack`` ahead; due moves on one
        # interval from itself, or from now if it has passed.
        granted = b.c.due - now <= P("slack")
        moved = case((b.c.due > now, b.c.due), else_=now) + P("interval")
        due = case((granted, moved), else_=b.c.due)
        self.take_rate = take({"due": due, "expires": due}, granted)

        # Growing delays: granted once due has passed; a row past its expiry starts again.
        forgotten = b.c.expires < now
        granted = or_(forgotten, b.c.due <= now)
        tries = case((forgotten, 1), else_=b.c.tries + 1)
        doubled = b.c.delay * 2
        delay = case(
            (tries < P("free"), 0.0),
            (tries == P("free"), P("first")),
            (doubled > P("longest"), P("longest")),
            else_=doubled,
        )
        self.take_delays = take(
            {
                "tries": case((granted, tries), else_=b.c.tries),
                "delay": case((granted, delay), else_=b.c.delay),
                "due": case((granted, now + delay), else_=b.c.due),
                "expires": case((granted, now + delay + P("forget")), else_=b.c.expires),
            },
            granted,
        )
        self.forget = compile_statement(delete(b).where(b.c.key == P("key")), dialect)
        self.sweep = compile_statement(delete(b).where(b.c.expires < now), dialect)


@cache
def queries(dialect: Dialects) -> BudgetQueries:
    """The statements for ``dialect``, compiled once."""
    return BudgetQueries(dialect)


class Budgets:
    """The shared budgets on ``store``; ``clock`` is wall time (every instance's is the
    same one; tests stop it)."""

    def __init__(self, store: GameStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.q = queries("postgresql" if store.dialect == "postgresql" else "sqlite")
        self._takes = 0

    def _step(self, budget: Budget, key: str, now: float, mark: str) -> Step:
        statement = self.q.take_rate if isinstance(budget, Rate) else self.q.take_delays
        values = {**budget.values(now), "key": f"{budget.name}:{key}"[:300], "mark": mark}
        return statement.sql, statement.params(values)

    async def wait(self, *takes: tuple[Budget, str]) -> float:
        """Take one from each ``(budget, key)`` (those that have one), in one
        transaction: 0 if every take was granted, else the longest wait in seconds."""
        now = self.clock()
        mark = secrets.token_urlsafe(12)
        steps = [self._step(budget, key, now, mark) for budget, key in takes]
        self._takes += 1
        if self._takes % SWEEP_EVERY == 0:
            steps.append((self.q.sweep.sql, self.q.sweep.params({"now": now})))
        results = await self.store.transact(steps)
        waited = 0.0
        for (budget, _), rows in zip(takes, results, strict=False):
            row = rows[0]
            if row["taken"] != mark:
                waited = max(waited, budget.wait(row, budget.values(now)), 1e-3)
        return waited

    async def check(self, budget: Budget, key: str, what: str, who: str = "your address") -> None:
        """Take one from ``budget`` for ``key`` or refuse with ``429`` (``rate_limited``,
        ``Retry-After``); ``who`` the key is, as the refusal says it."""
        refuse_after(await self.wait((budget, key)), f"too many {what} from {who}")

    async def forget(self, budget: Budget, keys: Sequence[str]) -> None:
        """Start ``keys`` of ``budget`` afresh (a right password ends its delays)."""
        steps = [
            (self.q.forget.sql, self.q.forget.params({"key": f"{budget.name}:{key}"[:300]}))
            for key in keys
        ]
        if steps:
            await self.store.transact(steps)


def refuse_after(waited: float, saying: str) -> None:
    """Refuse with ``429`` (``rate_limited``) if ``waited`` is more than 0: "``saying``:
    try again in N s", and ``Retry-After``."""
    if waited > 0:
        seconds = max(1, math.ceil(waited))
        raise ApiError(
            429,
            "rate_limited",
            f"{saying}: try again in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
