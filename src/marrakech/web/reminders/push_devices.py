"""The devices that get Web Push notifications (issue 37, item 4): their subscriptions
on the store, the server's VAPID key, and the pushes queued in and sent from the
reminders' outbox (:class:`~marrakech.web.reminders.service.Reminders` claims the rows
and checks the turn; :class:`PushDevices` knows the devices and pushes).

When a turn begins for a seat whose page is closed, each device of the seat's account
that opted in to the kind gets a row (key ``GAME/SEAT/TURN/push:KIND/DEVICE``, due
now), checked again at sending time as an email reminder is, retried while its push
service is down; a ``404``/``410`` removes the device's subscription.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from marrakech.i18n import LANGUAGES
from marrakech.web.protocol import ApiError
from marrakech.web.reminders.queries import ReminderQueries
from marrakech.web.reminders.webpush import (
    MAX_DEVICES,
    VAPID_KEY_NAME,
    Device,
    Notice,
    PushSettings,
    SubscriptionError,
    WebPushChannel,
    check_endpoint,
    check_keys,
    check_kinds,
    key_file_pem,
    new_vapid_pem,
    notice,
    public_key_of,
    vapid_of,
)
from marrakech.web.store import GameStore, Step, StoreConflict

log = logging.getLogger("marrakech.web.reminders")


def _step(statement: Any, **values: Any) -> Step:
    return statement.sql, statement.params(values)


@dataclass(frozen=True)
class DeviceState:
    """A device's push subscription as its owner sees it: the kinds it opted in to and
    the language of its notifications."""

    kinds: tuple[str, ...]
    lang: str


def _state(row: dict[str, Any]) -> DeviceState:
    return DeviceState(tuple(row["kinds"].split()), row["lang"])


class PushDevices:
    """The push subscriptions on ``store`` (through the reminders' statements ``q``),
    pushed to as ``settings`` say, on ``clock``."""

    def __init__(
        self,
        store: GameStore,
        q: ReminderQueries,
        settings: PushSettings,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.q = q
        self.settings = settings
        self.clock = clock
        self._channel: WebPushChannel | None = None

    async def channel(self) -> WebPushChannel:
        """The channel, with the VAPID key: read from ``--push-key-file`` (made there on
        first start) or from the store (made once, shared by every instance)."""
        if self._channel is None:
            if self.settings.key_file is not None:
                pem = await asyncio.to_thread(key_file_pem, self.settings.key_file)
            else:
                (rows,) = await self.store.transact([_step(self.q.key, name=VAPID_KEY_NAME)])
                if not rows:
                    _, rows = await self.store.transact(
                        [
                            _step(self.q.insert_key, name=VAPID_KEY_NAME, secret=new_vapid_pem()),
                            _step(self.q.key, name=VAPID_KEY_NAME),
                        ]
                    )
                pem = rows[0]["secret"]
            self._channel = WebPushChannel(vapid_of(pem), self.settings)
        return self._channel

    async def public_key(self) -> str:
        """The VAPID public key (the page's ``applicationServerKey``)."""
        return public_key_of((await self.channel()).vapid)

    async def subscribe(
        self, account_id: str, endpoint: str, p256dh: str, auth: str, kinds: list[str], lang: str
    ) -> DeviceState:
        """Store the account's subscription on one device (replacing what the device
        had), after checking it: ``400`` saying what was expected, and nothing stored
        changes, for an endpoint that is not https or is on a private network, keys of
        the wrong size, unknown kinds; ``409`` for one device too many."""
        try:
            check_endpoint(endpoint, self.settings.allow_http_loopback)
            check_keys(p256dh, auth)
            chosen = check_kinds(kinds)
        except SubscriptionError as error:
            raise ApiError(400, "bad_request", str(error)) from None
        if lang not in LANGUAGES:
            raise ApiError(400, "bad_request", f"lang: expected en or fr, found {lang[:10]!r}")
        (count,) = await self.store.transact(
            [_step(self.q.device_count, account_id=account_id, endpoint=endpoint)]
        )
        if int(count[0]["count"]) >= MAX_DEVICES:
            raise ApiError(
                409,
                "http_error",
                f"expected at most {MAX_DEVICES} devices with notifications: "
                "turn them off on one first",
            )
        values = {"endpoint": endpoint, "p256dh": p256dh, "auth": auth, "lang": lang}
        try:
            (rows,) = await self.store.transact(
                [
                    _step(
                        self.q.subscribe,
                        id=secrets.token_urlsafe(12),
                        account_id=account_id,
                        kinds=" ".join(chosen),
                        created=self.clock(),
                        **values,
                    )
                ]
            )
        except StoreConflict:
            raise ApiError(409, "http_error", "the device changed meanwhile: try again") from None
        return _state(rows[0])

    async def state(self, account_id: str, endpoint: str) -> DeviceState | None:
        """The account's subscription on the device of ``endpoint``, or None."""
        (rows,) = await self.store.transact(
            [_step(self.q.subscription_at, account_id=account_id, endpoint=endpoint)]
        )
        return _state(rows[0]) if rows else None

    async def remove(self, account_id: str, endpoint: str) -> bool:
        (rows,) = await self.store.transact(
            [_step(self.q.unsubscribe_device, account_id=account_id, endpoint=endpoint)]
        )
        return bool(rows)

    async def queue(self, game_id: str, seat: int, turn: int, kind: str) -> int:
        """Queue a push of ``kind`` about the seat's player-turn ``turn`` for each
        device of the seat's account that opted in to it, unless the seat muted the
        game; due now, once per device however often it is queued. How many."""
        (devices,) = await self.store.transact(
            [_step(self.q.seat_devices, game_id=game_id, seat=seat)]
        )
        return await self.enqueue(devices, kind, f"{game_id}/{seat}/{turn}", game_id, seat, turn)

    async def enqueue(
        self,
        devices: Iterable[dict[str, Any]],
        kind: str,
        about: str,
        game_id: str | None = None,
        seat: int | None = None,
        turn: int | None = None,
    ) -> int:
        """Queue a push of ``kind`` to each of ``devices`` (rows with ``id`` and
        ``kinds``) that opted in to it, due now, under the outbox key
        ``ABOUT/push:KIND/DEVICE``, so that one is queued once per device however
        often it is asked; how many. Every kind's push is queued here."""
        now = self.clock()
        steps = [
            _step(
                self.q.enqueue_push,
                key=f"{about}/push:{kind}/{device['id']}",
                kind=f"push:{kind}",
                subscription_id=device["id"],
                game_id=game_id,
                seat=seat,
                turn=turn,
                due=now,
                created=now,
            )
            for device in devices
            if kind in device["kinds"].split()
        ]
        if steps:
            await self.store.transact(steps)
        return len(steps)

    async def deliver(
        self,
        row: dict[str, Any],
        turn_check: Callable[[dict[str, Any], str], Awaitable[tuple[str | None, dict[str, Any]]]],
        opponents: Callable[[str, int, str], Awaitable[str]],
    ) -> tuple[str, str]:
        """Push an outbox row's notice to its device, if it still holds (the device
        still wants it, ``turn_check`` finds no reason to skip it, the seat is still
        the device's account's): its game's page, tagged by the game, expiring with
        the turn's deadline or the kind's TTL. The row's new status and why; a
        :class:`~marrakech.web.reminders.senders.TemporaryFailure` (try again later)
        is raised. A ``404``/``410`` removes the device's subscription."""
        (devices,) = await self.store.transact(
            [_step(self.q.subscription, subscription_id=row["subscription_id"])]
        )
        kind = str(row["kind"]).removeprefix("push:")
        if not devices or kind not in devices[0]["kinds"].split():
            return "skipped", "the device turned notifications off"
        device = devices[0]
        if kind == "challenge":  # about no game's turn (issue 37, item 2)
            from marrakech.web.reminders.challenge_push import deliver_challenge

            return await deliver_challenge(self, row, device)
        if kind in ("pool_game", "tournament"):  # a game ready, not a turn
            from marrakech.web.reminders.game_ready_push import deliver_game_ready

            return await deliver_game_ready(self, row, device, opponents)
        reason, game = await turn_check(row, kind)
        if reason is None and device["account_id"] != game["account_id"]:
            reason = "the seat is not the account's any more"
        if reason is not None:
            return "skipped", reason
        now = self.clock()
        deadline = float(game["clock_deadline"]) if int(game["clock_seat"]) == row["seat"] else 0
        what = notice(
            kind,
            device["lang"],
            f"/g/{row['game_id']}",
            f"game:{row['game_id']}",
            ttl=int(deadline - now) if deadline > now else None,
            opponents=await opponents(row["game_id"], row["seat"], device["lang"]),
        )
        return await self.push(device, what)

    async def push(self, device: dict[str, Any], what: Notice) -> tuple[str, str]:
        """Push ``what`` to ``device`` (its row): ``sent``, or ``failed`` and why (a
        ``404``/``410`` removes the subscription); a
        :class:`~marrakech.web.reminders.senders.TemporaryFailure` is raised."""
        from marrakech.web.reminders.senders import MessageRefused, PermanentFailure

        now = self.clock()
        channel = await self.channel()
        try:
            await channel.deliver(
                Device(device["endpoint"], device["p256dh"], device["auth"]), what, now
            )
        except PermanentFailure as error:
            log.info("push: %s removed: %s", device["id"], error)
            await self.store.transact(
                [_step(self.q.remove_subscription, subscription_id=device["id"])]
            )
            return "failed", str(error)
        except MessageRefused as error:
            return "failed", str(error)
        return "sent", ""
