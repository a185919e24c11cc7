"""A challenge pushed to the challenged player's devices (issue 37, items 2 and 4;
docs/web.md, "Push notifications"), through the reminders' outbox as a turn's push is.

Sent only when the player has no page of the site open (no heartbeat in the last
:data:`~marrakech.web.friendships.ONLINE_SECONDS`: a page shows the challenge itself),
when sent and checked again at sending time with the challenge still open; once per
(challenge, device), whatever retries or instances (the outbox key
``challenge/ID/push:challenge/DEVICE``); tagged ``challenge:ID`` (one notification per
challenge), expiring with the challenge. A tap opens the lobby, where it is answered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from marrakech.web.friendships import ONLINE_SECONDS, queries_of
from marrakech.web.reminders.queries import ReminderQueries
from marrakech.web.reminders.webpush import Notice, notice
from marrakech.web.store import GameStore, Step

KIND = "challenge"


class ChallengePusher(Protocol):
    """What a challenge's push needs of
    :class:`~marrakech.web.reminders.push_devices.PushDevices` (which calls
    :func:`deliver_challenge`)."""

    store: GameStore
    q: ReminderQueries
    clock: Callable[[], float]

    async def push(self, device: dict[str, Any], what: Notice) -> tuple[str, str]: ...

    async def enqueue(
        self,
        devices: Iterable[dict[str, Any]],
        kind: str,
        about: str,
        game_id: str | None = None,
        seat: int | None = None,
        turn: int | None = None,
    ) -> int: ...


def _step(statement: Any, **values: Any) -> Step:
    return statement.sql, statement.params(values)


async def page_open(devices: ChallengePusher, account_id: str) -> bool:
    """Whether a page of the site of the account's is open (its heartbeat in the last
    :data:`~marrakech.web.friendships.ONLINE_SECONDS`, any instance)."""
    q = queries_of(devices.store)
    (rows,) = await devices.store.transact(
        [_step(q.seen, ids=q.ids([account_id]), since=devices.clock() - ONLINE_SECONDS)]
    )
    return bool(rows)


async def queue_challenge_push(devices: ChallengePusher | None, challenge_id: str, to: str) -> int:
    """Queue the push of a new challenge to the devices of the account ``to`` that opted
    in to challenges, unless a page of the account's is open (or the server sends no
    pushes: no ``devices``): how many were queued (the reminders' background task sends
    them within its poll)."""
    if devices is None or await page_open(devices, to):
        return 0
    q = queries_of(devices.store)
    (found,) = await devices.store.transact([_step(q.account_devices, account_id=to)])
    return await devices.enqueue(found, KIND, f"challenge/{challenge_id}")


async def deliver_challenge(
    devices: ChallengePusher, row: dict[str, Any], device: dict[str, Any]
) -> tuple[str, str]:
    """Push a queued challenge to ``device`` if it still holds: the challenge open and
    the device's account's to answer, and no page of that account's open. The row's
    new status and why."""
    challenge_id = str(row["key"]).split("/")[1]
    q = queries_of(devices.store)
    (found,) = await devices.store.transact([_step(q.challenge, challenge_id=challenge_id)])
    now = devices.clock()
    if not found or found[0]["status"] != "open" or float(found[0]["expires"]) <= now:
        return "skipped", "the challenge is answered or expired"
    challenge = found[0]
    if challenge["challenged"] != device["account_id"]:
        return "skipped", "the device is another account's"
    if await page_open(devices, device["account_id"]):
        return "skipped", "a page of the site is open"
    (names,) = await devices.store.transact([_step(q.names, ids=q.ids([challenge["challenger"]]))])
    what = notice(
        KIND,
        device["lang"],
        "/",
        f"challenge:{challenge_id}",
        ttl=int(float(challenge["expires"]) - now),
        opponents=names[0]["name"] if names else "?",
    )
    return await devices.push(device, what)
