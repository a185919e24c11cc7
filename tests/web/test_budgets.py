"""The shared budgets on SQLite and PostgreSQL (issue 36): a rate and growing delays
taken in the database, on a stopped clock; takes at once from two stores on one
database (two instances) counted one after the other."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from marrakech.web.budgets import Budgets, Delays, Rate
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store_contract import open_store as open_store  # the same fixture

RATE = Rate("test-rate", per_minute=6, burst=3)
DELAYS = Delays("test-delays", tries=2, first=10.0, longest=40.0, forget=100.0)


@in_fresh_loop
async def test_a_rate_and_growing_delays(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    try:
        now = [1000.0]
        budgets = Budgets(store, clock=lambda: now[0])
        assert [await budgets.wait((RATE, "a")) for _ in range(4)] == [0, 0, 0, 10.0]
        assert await budgets.wait((RATE, "b")) == 0  # another key, its own budget
        now[0] += 10.0
        assert [await budgets.wait((RATE, "a")) for _ in range(2)] == [0, 10.0]
        # Delays: 2 tries, then 10 s, 20 s, 40 s, 40 s; a refused try changes nothing.
        assert [await budgets.wait((DELAYS, "k")) for _ in range(2)] == [0, 0]
        waits = []
        for _ in range(5):
            waited = await budgets.wait((DELAYS, "k"))
            assert await budgets.wait((DELAYS, "k")) == waited  # hammering: no longer
            waits.append(waited)
            now[0] += waited
            assert await budgets.wait((DELAYS, "k")) == 0  # one try after each delay
        assert waits == [10.0, 20.0, 40.0, 40.0, 40.0]
        await budgets.forget(DELAYS, ["k"])  # a right password
        assert [await budgets.wait((DELAYS, "k")) for _ in range(3)] == [0, 0, 10.0]
        now[0] += 10.0 + 100.0 + 1  # the delay ended a while ago: forgotten
        assert [await budgets.wait((DELAYS, "k")) for _ in range(3)] == [0, 0, 10.0]
    finally:
        await store.close()


@in_fresh_loop
async def test_takes_at_once_from_two_instances_are_counted_once(
    open_store: Callable[..., Any],
) -> None:
    one, two = await open_store(), await open_store()
    try:
        budgets = [Budgets(one, clock=lambda: 5000.0), Budgets(two, clock=lambda: 5000.0)]
        takes = [budgets[number % 2].wait((RATE, "together")) for number in range(12)]
        waits = await asyncio.gather(*takes)
        assert sum(wait == 0 for wait in waits) == RATE.burst, waits
    finally:
        await one.close()
        await two.close()
