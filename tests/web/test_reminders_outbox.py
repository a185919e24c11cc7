"""The reminders' outbox shared by several instances, on SQLite and on PostgreSQL
(issue 25): messages are claimed atomically, so two instances emptying one outbox at
once send each message once; a message claimed by an instance that died is sent by
another after the claim's lease."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

from marrakech.web.reminders.senders import SmtpSender
from marrakech.web.reminders.service import Reminders
from marrakech.web.reminders.settings import MailSettings, ReminderTiming, parse_smtp_url
from marrakech.web.store import GameStore
from tests.web.smtp_server import Inbox
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store_contract import open_store  # noqa: F401 (the fixture)


def reminders_on(store: GameStore, port: int, instance: str, **timing: Any) -> Reminders:
    settings = MailSettings(
        parse_smtp_url(f"smtp://127.0.0.1:{port}"),
        "games@example.org",
        "https://m.example",
        ReminderTiming(**timing),
    )
    return Reminders(store, settings, SmtpSender(settings.relay), instance=instance)


@in_fresh_loop
async def test_two_instances_send_each_message_once(
    open_store: Callable[..., Any],  # noqa: F811 (the fixture)
) -> None:
    first, second = await open_store(), await open_store()
    with Inbox() as inbox:
        a = reminders_on(first, inbox.port, "a")
        b = reminders_on(second, inbox.port, "b")
        addresses = [f"p{n}@example.org" for n in range(24)]
        for n, address in enumerate(addresses):
            await (a if n % 2 else b).set_address(f"test:{n}", address, "en")

        async def empty(reminders: Reminders) -> None:
            while await reminders.run_once(limit=3):
                pass

        await asyncio.gather(empty(a), empty(b), empty(a), empty(b))
        inbox.wait_for(len(addresses))
        await asyncio.sleep(0.2)
        sent = Counter(to for _, tos in inbox.handler.envelopes for to in tos)
        assert sent == Counter(addresses)  # each once
        assert await a.run_once() == 0 and await b.run_once() == 0
    await first.close()
    await second.close()


@in_fresh_loop
async def test_a_claim_of_an_instance_that_died_lapses(
    open_store: Callable[..., Any],  # noqa: F811 (the fixture)
) -> None:
    store = await open_store()
    now = [1_000_000.0]
    with Inbox() as inbox:
        dead = reminders_on(store, inbox.port, "dead", lease=120.0)
        dead.clock = lambda: now[0]
        await dead.set_address("test:1", "ana@example.org", "en")
        # It claims the message and dies before sending it.
        (claimed,) = await store.transact(
            [
                (
                    dead.q.claim.sql,
                    dead.q.claim.params(
                        {"me": "dead", "now": now[0], "until": now[0] + 120.0, "limit": 5}
                    ),
                )
            ]
        )
        assert len(claimed) == 1
        alive = reminders_on(store, inbox.port, "alive")
        alive.clock = lambda: now[0]
        assert await alive.run_once() == 0  # still claimed
        now[0] += 121.0
        assert await alive.run_once() == 1
        (message,) = inbox.wait_for(1)
        assert message["To"] == "ana@example.org"
    await store.close()
