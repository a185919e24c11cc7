"""The reminders of a server: players' addresses and their links, per-game mutes, and
the outbox that a background task of every instance empties.

- An address is given by a signed-in account (for all its games) or for one guest seat
  of one game; it receives nothing until its owner follows the verification link
  (signed, single-use, valid :attr:`ReminderTiming.verify_valid`). Every reminder
  carries a one-click unsubscribe link (RFC 8058), which works once.
- When a human's turn begins, the game's owner tells :meth:`Reminders.turn_started`:
  if the seat has a verified, unmuted address, a *your turn* reminder is queued for
  after the quiet delay (unless the page is open).
- When a turn's time runs short, the clocks' sweep says so once
  (:mod:`marrakech.web.turn_based_events`' ``deadline_near``, timed by
  :func:`marrakech.web.turn_based_clocks.warn_before`, on whichever instance swept first):
  :meth:`Reminders.turn_event` queues a *deadline* reminder for the seat, due now.
- :meth:`Reminders.run_once` claims due messages atomically (any instance may), checks
  each again at sending time (the turn is still on; the page is not open; no visit
  since; not reminded already since the last visit) and sends it or skips it. A relay
  that cannot be reached gets the message again later, with a growing delay; a
  recipient the relay refuses (``5xx``) marks the address undeliverable.

Each reminder has one key (game, seat, turn, kind) in the outbox: queued twice, it is
one row; sent, it is marked so under its claim, so two instances never both send it.

Web Push goes through the same outbox (:mod:`marrakech.web.reminders.push_devices`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from marrakech.i18n import LANGUAGES, seat_label
from marrakech.web.protocol import ApiError
from marrakech.web.reminders.hooks import TurnStart
from marrakech.web.reminders.mail import Kind, Letter
from marrakech.web.reminders.push_devices import PushDevices
from marrakech.web.reminders.queries import ReminderQueries
from marrakech.web.reminders.senders import (
    Channel,
    EmailChannel,
    MessageRefused,
    PermanentFailure,
    Sender,
    TemporaryFailure,
)
from marrakech.web.reminders.settings import MailSettings, ReminderTiming
from marrakech.web.reminders.tokens import new_nonce, nonce_hash, sign, unsign
from marrakech.web.reminders.webpush import KINDS_BY_NAME, PushSettings
from marrakech.web.store import GameStore, Step, StoreConflict
from marrakech.web.store.queries import Statement
from marrakech.web.turn_based_events import TurnEvent

log = logging.getLogger("marrakech.web.reminders")

#: The longest address accepted (RFC 5321's path limit).
MAX_ADDRESS = 254
_ADDRESS = re.compile(
    r"^[^@\s<>(),;:\"\[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?\.[A-Za-z]{2,}$"
)

#: The statuses of the outbox's messages (``mail_outbox.status``).
OUTBOX_STATUSES = ("queued", "sending", "sent", "skipped", "failed")
#: What following a link did: ``done``, or why nothing changed.
LinkOutcome = Literal["done", "forged", "used", "expired"]


def address_problem(address: str) -> str | None:
    """Why ``address`` cannot receive reminders, or None.

    >>> address_problem("ana@example.org") is None, address_problem("ana@localhost")
    (True, "expected an email address like ana@example.org, found 'ana@localhost'")
    """
    if len(address) > MAX_ADDRESS or not _ADDRESS.match(address):
        return f"expected an email address like ana@example.org, found {address[:60]!r}"
    return None


def account_owner(account_id: str) -> str:
    return f"account:{account_id}"


def seat_owner(game_id: str, seat: int) -> str:
    return f"seat:{game_id}:{seat}"


def _step(statement: Statement, **values: Any) -> Step:
    return statement.sql, statement.params(values)


@dataclass(frozen=True)
class AddressState:
    """An address as its owner sees it: where, in which language, and ``status``
    (pending, verified, unsubscribed or undeliverable)."""

    address: str
    lang: str
    status: str


def _state(row: dict[str, Any] | None) -> AddressState | None:
    if row is None:
        return None
    return AddressState(row["address"], row["lang"], row["status"])


class Reminders:
    """The reminders on ``store``, delivered by ``sender`` (emails: with ``settings``;
    None: no emails) and by Web Push (with ``push``; None: no pushes).

    ``present(game_id, seat)`` says whether the seat's page is open (this instance's
    rooms know, for the games they hold); ``clock`` is the time (tests move it on).
    """

    def __init__(
        self,
        store: GameStore,
        settings: MailSettings | None,
        sender: Sender | None,
        *,
        push: PushSettings | None = None,
        present: Callable[[str, int], bool] = lambda game_id, seat: False,
        clock: Callable[[], float] = time.time,
        instance: str | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.timing = settings.timing if settings is not None else ReminderTiming()
        self.sender = sender
        #: How the reminders reach players by email (None: no --smtp-url).
        self.channel: Channel | None = (
            EmailChannel(sender, settings.mail_from)
            if settings is not None and sender is not None
            else None
        )
        self.present = present
        self.clock = clock
        self.instance = instance or secrets.token_hex(6)
        self.q = ReminderQueries("postgresql" if store.dialect == "postgresql" else "sqlite")
        #: The devices that get Web Push notifications (None: no --web-push).
        self.devices = PushDevices(store, self.q, push, clock) if push is not None else None
        self._key: bytes | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.Task[None] | None = None

    # -- links ------------------------------------------------------------------------

    async def key(self) -> bytes:
        """The key that signs the links: made by the first instance that needs it,
        then the same for all."""
        if self._key is None:
            candidate = secrets.token_hex(32)
            _, rows = await self.store.transact(
                [
                    _step(self.q.insert_key, name="links", secret=candidate),
                    _step(self.q.key, name="links"),
                ]
            )
            self._key = bytes.fromhex(rows[0]["secret"])
        return self._key

    def url(self, path: str, token: str = "", lang: str = "") -> str:
        assert self.settings is not None, "links are for emails"
        query = "&".join(
            part for part in (f"t={token}" if token else "", f"lang={lang}" if lang else "") if part
        )
        return f"{self.settings.public_url}{path}" + (f"?{query}" if query else "")

    # -- addresses --------------------------------------------------------------------

    async def address(self, owner: str) -> AddressState | None:
        (rows,) = await self.store.transact([_step(self.q.address_of, owner=owner)])
        return _state(rows[0] if rows else None)

    async def set_address(
        self,
        owner: str,
        address: str,
        lang: str,
        *,
        account_id: str | None = None,
        game_id: str | None = None,
        seat: int | None = None,
        token_hash: str | None = None,
    ) -> AddressState:
        """Give ``owner`` this address (replacing any other: the old one's links die)
        and queue its verification message. A seat's address (``game_id``, ``seat``)
        holds while the seat has the token of ``token_hash``."""
        address = address.strip()
        problem = address_problem(address)
        if problem is not None:
            raise ApiError(400, "bad_request", problem)
        if lang not in LANGUAGES:
            raise ApiError(400, "bad_request", f"lang: expected en or fr, found {lang[:10]!r}")
        now = self.clock()
        address_id = secrets.token_urlsafe(12)
        nonce = new_nonce()
        expires = str(int(now + self.timing.verify_valid))
        link = self.url(
            "/mail/verify", sign(await self.key(), "verify", address_id, nonce, expires), lang
        )
        try:
            await self.store.transact(
                [
                    _step(self.q.remove_address, owner=owner),
                    _step(
                        self.q.insert_address,
                        id=address_id,
                        owner=owner,
                        account_id=account_id,
                        game_id=game_id,
                        seat=seat,
                        token_hash=token_hash,
                        address=address,
                        lang=lang,
                        status="pending",
                        verify_nonce=nonce_hash(nonce),
                        created=now,
                        changed=now,
                    ),
                    _step(
                        self.q.enqueue,
                        key=f"verify/{address_id}",
                        kind="verify",
                        address_id=address_id,
                        game_id=None,
                        seat=None,
                        turn=None,
                        link=link,
                        due=now,
                        created=now,
                    ),
                ]
            )
        except StoreConflict:  # the owner gave another address at the same moment
            raise ApiError(409, "http_error", "the address changed meanwhile: try again") from None
        self._poke()
        return AddressState(address, lang, "pending")

    async def remove_address(self, owner: str) -> bool:
        (rows,) = await self.store.transact([_step(self.q.remove_address, owner=owner)])
        return bool(rows)

    async def check_link(self, token: str, purpose: str) -> LinkOutcome:
        """What following the link would do, without doing it (the page before the
        button)."""
        fields = unsign(await self.key(), token, purpose)
        if fields is None or len(fields) != (3 if purpose == "verify" else 2):
            return "forged"
        if purpose == "verify" and not fields[2].isdigit():
            return "forged"
        if purpose == "verify" and float(fields[2]) < self.clock():
            return "expired"
        (rows,) = await self.store.transact([_step(self.q.address, address_id=fields[0])])
        if not rows:
            return "used"
        row = rows[0]
        if purpose == "verify":
            live = row["status"] == "pending" and row["verify_nonce"] == nonce_hash(fields[1])
        else:
            live = row["status"] == "verified" and row["unsubscribe_nonce"] == fields[1]
        return "done" if live else "used"

    async def verify(self, token: str) -> LinkOutcome:
        """Follow a verification link: the address is verified, once."""
        fields = unsign(await self.key(), token, "verify")
        if fields is None or len(fields) != 3 or not fields[2].isdigit():
            return "forged"
        address_id, nonce, expires = fields
        if float(expires) < self.clock():
            return "expired"
        (rows,) = await self.store.transact(
            [
                _step(
                    self.q.verify,
                    address_id=address_id,
                    nonce=nonce_hash(nonce),
                    unsubscribe=new_nonce(),
                    now=self.clock(),
                )
            ]
        )
        return "done" if rows else "used"

    async def unsubscribe(self, token: str) -> LinkOutcome:
        """Follow an unsubscribe link (the page's button or RFC 8058's one-click POST):
        no reminder goes to the address any more, once."""
        fields = unsign(await self.key(), token, "unsubscribe")
        if fields is None or len(fields) != 2:
            return "forged"
        address_id, nonce = fields
        (rows,) = await self.store.transact(
            [_step(self.q.unsubscribe, address_id=address_id, nonce=nonce, now=self.clock())]
        )
        return "done" if rows else "used"

    async def seat_of_token(self, game_id: str, token_hash: str) -> tuple[int, str | None] | None:
        """The seat of the game whose token has this hash, and its account; None."""
        (rows,) = await self.store.transact(
            [_step(self.q.seat_of_token, game_id=game_id, token_hash=token_hash)]
        )
        return (int(rows[0]["seat"]), rows[0]["account_id"]) if rows else None

    async def set_muted(self, game_id: str, seat: int, muted: bool) -> None:
        statement = self.q.mute if muted else self.q.unmute
        await self.store.transact([_step(statement, game_id=game_id, seat=seat, at=self.clock())])

    async def muted(self, game_id: str, seat: int) -> bool:
        (rows,) = await self.store.transact([_step(self.q.muted, game_id=game_id, seat=seat)])
        return bool(rows)

    # -- what the rooms tell ----------------------------------------------------------

    def turn_started(self, start: TurnStart) -> None:
        self._background(self._queue_turn(start), f"reminders of {start.game_id}")

    def turn_event(self, event: TurnEvent) -> None:
        """A listener of the instance's turn events: a turn's time runs short
        (``deadline_near``), its seat gets a *deadline* reminder."""
        if event.kind == "deadline_near":
            self._background(self._queue_deadline(event), f"deadline of {event.game_id}")

    def visited(self, game_id: str, seats: Iterable[int]) -> None:
        steps = [_step(self.q.visit, game_id=game_id, seat=seat, at=self.clock()) for seat in seats]
        self._background(self.store.transact(steps), f"visit of {game_id}")

    def _background(self, work: Any, name: str) -> None:
        """Run ``work`` without anyone waiting for it (a move never does); its failure
        is logged."""

        async def guarded() -> None:
            try:
                await work
            except Exception as error:
                log.warning("%s failed: %s", name, error)

        try:
            task = asyncio.get_running_loop().create_task(guarded(), name=name)
        except RuntimeError:  # no loop: nothing runs, nothing is queued
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _queue_turn(self, start: TurnStart) -> None:
        if not start.present:  # else the page shows it is their turn
            await self._queue(start.game_id, start.seat, start.turn, "your_turn", delay=True)

    async def _queue_deadline(self, event: TurnEvent) -> None:
        await self._queue(event.game_id, event.seat, event.turn, "deadline", delay=False)

    async def _queue(self, game_id: str, seat: int, turn: int, kind: Kind, delay: bool) -> None:
        """Queue the ``kind`` reminder of the seat's player-turn ``turn``, due now or
        (``delay``) after the quiet delay, if the seat has a verified, unmuted address
        (else nothing is written at all); queued twice, it is one message. A kind that
        is also a push kind is pushed too, now, to the devices that opted in to it."""
        if kind in KINDS_BY_NAME:
            await self.queue_push(game_id, seat, turn, kind)
        if self.channel is None:
            return
        (rows,) = await self.store.transact(
            [_step(self.q.seat_address, game_id=game_id, seat=seat)]
        )
        if not rows:
            return
        now = self.clock()
        await self.store.transact(
            [
                _step(
                    self.q.enqueue,
                    key=f"{game_id}/{seat}/{turn}/{kind}",
                    kind=kind,
                    address_id=rows[0]["id"],
                    game_id=game_id,
                    seat=seat,
                    turn=turn,
                    link=None,
                    due=now + self.timing.quiet_delay if delay else now,
                    created=now,
                )
            ]
        )
        self._poke()

    async def queue_push(self, game_id: str, seat: int, turn: int, kind: str) -> None:
        """Queue a push of ``kind`` (a :data:`~marrakech.web.reminders.webpush.PUSH_KINDS`
        name) about the seat's turn to its account's devices (:meth:`PushDevices.queue`)."""
        if self.devices is not None and await self.devices.queue(game_id, seat, turn, kind):
            self._poke()

    # -- the outbox -------------------------------------------------------------------

    async def run_once(self, limit: int = 20) -> int:
        """Claim the due messages (up to ``limit``) and deliver or skip each; how many
        were claimed."""
        now = self.clock()
        (claimed,) = await self.store.transact(
            [
                _step(
                    self.q.claim,
                    me=self.instance,
                    now=now,
                    until=now + self.timing.lease,
                    limit=limit,
                )
            ]
        )
        for row in claimed:
            try:
                await self._deliver(row)
            except Exception:
                log.exception("reminder %s failed", row["key"])
        return len(claimed)

    async def outbox_counts(self) -> dict[str, float]:
        """The outbox's messages by status (queued, sending, sent, skipped, failed)."""
        (rows,) = await self.store.transact([_step(self.q.outbox_counts)])
        counts: dict[str, float] = dict.fromkeys(OUTBOX_STATUSES, 0)
        counts.update((row["status"], row["count"]) for row in rows)
        return counts

    async def _finish(self, row: dict[str, Any], status: str, problem: str = "") -> None:
        await self.store.transact(
            [
                _step(
                    self.q.finish,
                    key=row["key"],
                    me=self.instance,
                    new_status=status,
                    now=self.clock(),
                    problem=problem[:300],
                )
            ]
        )

    async def _deliver(self, row: dict[str, Any]) -> None:
        if row["subscription_id"] is not None:
            await self._deliver_push(row)
            return
        if self.channel is None:
            await self._finish(row, "skipped", "this server sends no emails")
            return
        (addresses,) = await self.store.transact(
            [_step(self.q.address, address_id=row["address_id"])]
        )
        address = addresses[0] if addresses else None
        if row["kind"] == "verify":
            if address is None or address["status"] != "pending":
                await self._finish(row, "skipped", "the address changed")
                return
            letter = Letter("verify", address["lang"], address["address"], verify_url=row["link"])
        else:
            reason, game_now = await self._skip_reason(row, address)
            if reason is not None:
                await self._finish(row, "skipped", reason)
                return
            assert address is not None
            letter = await self._letter(row, address, float(game_now["clock_deadline"]))
        try:
            await self.channel.deliver(letter)
        except TemporaryFailure as error:
            await self._again_later(row, error)
        except PermanentFailure as error:
            log.warning("reminders: %s is undeliverable: %s", row["address_id"], error)
            await self.store.transact(
                [
                    _step(
                        self.q.undeliverable,
                        address_id=row["address_id"],
                        problem=str(error)[:300],
                        now=self.clock(),
                    )
                ]
            )
            await self._finish(row, "failed", str(error))
        except MessageRefused as error:
            await self._finish(row, "failed", str(error))
        else:
            await self._finish(row, "sent")

    async def _again_later(self, row: dict[str, Any], error: TemporaryFailure) -> None:
        """A delivery that failed for now: tried again later, with a growing delay (or
        the longer wait the other side asked for), or given up after
        :attr:`ReminderTiming.attempts` tries."""
        attempts = int(row["attempts"])
        if attempts >= self.timing.attempts:
            log.warning("reminder %s given up after %d tries: %s", row["key"], attempts, error)
            await self._finish(row, "failed", str(error))
            return
        log.info("reminder %s: %s (again later)", row["key"], error)
        await self.store.transact(
            [
                _step(
                    self.q.retry,
                    key=row["key"],
                    me=self.instance,
                    due=self.clock() + max(self.timing.retry_after(attempts), error.wait or 0),
                    problem=str(error)[:300],
                )
            ]
        )

    async def _deliver_push(self, row: dict[str, Any]) -> None:
        """Push one queued notice to its device (:meth:`PushDevices.deliver`)."""
        if self.devices is None:
            await self._finish(row, "skipped", "this server sends no push notifications")
            return
        try:
            status, problem = await self.devices.deliver(
                row, self._turn_skip_reason, self._opponents
            )
        except TemporaryFailure as error:
            await self._again_later(row, error)
        else:
            await self._finish(row, status, problem)

    async def _skip_reason(
        self, row: dict[str, Any], address: dict[str, Any] | None
    ) -> tuple[str | None, dict[str, Any]]:
        """Why a reminder is not sent now (None: it is), and the game as stored."""
        if address is None or address["status"] != "verified":
            return "the address is not verified any more", {}
        reason, game = await self._turn_skip_reason(row, row["kind"])
        if reason is not None:
            return reason, game
        if address["game_id"] is None:
            if address["account_id"] != game["account_id"]:
                return "the seat is not the account's any more", game
        elif address["token_hash"] != game["token_hash"]:
            return "the seat changed hands", game
        return None, game

    async def _turn_skip_reason(
        self, row: dict[str, Any], kind: str
    ) -> tuple[str | None, dict[str, Any]]:
        """Why a message of ``kind`` about a seat's turn is not sent now (None: it is),
        whoever it goes to, and the game as stored: the game is muted, the turn is
        over, the seat's page is open, the player came since; a your-turn email goes
        once between two visits (a push, collapsed by its tag, once per turn)."""
        game_id, seat = row["game_id"], row["seat"]
        now_rows, muted, visits, sent = await self.store.transact(
            [
                _step(self.q.turn_now, game_id=game_id, seat=seat),
                _step(self.q.muted, game_id=game_id, seat=seat),
                _step(self.q.last_visit, game_id=game_id, seat=seat),
                _step(self.q.last_sent, game_id=game_id, seat=seat, kind="your_turn"),
            ]
        )
        game = now_rows[0] if now_rows else {}
        if muted:
            return "the game is muted", game
        if (
            not game
            or game["status"] != "running"
            or int(game["turns"]) != row["turn"]
            or game["kind"] != "human"
            or game["stand_in"]
        ):
            return "the turn is over", game
        if kind == "deadline" and (game["clock_seat"] != seat or game["clock_turn"] != row["turn"]):
            return "no deadline runs", game
        if self.present(game_id, seat):
            return "the page is open", game
        if kind == "your_turn":
            visit = float(visits[0]["at"]) if visits else 0.0
            if visit >= row["created"]:
                return "the player came since", game
            last = sent[0]["last"] if sent and row["kind"] == "your_turn" else None
            if last is not None and float(last) > visit:
                return "reminded already since the last visit", game
        return None, game

    async def _letter(
        self, row: dict[str, Any], address: dict[str, Any], deadline: float
    ) -> Letter:
        lang = address["lang"]
        opponents = await self._opponents(row["game_id"], row["seat"], lang)
        unsubscribe = sign(
            await self.key(), "unsubscribe", address["id"], address["unsubscribe_nonce"]
        )
        return Letter(
            row["kind"],
            lang,
            address["address"],
            game_url=self.url(f"/g/{row['game_id']}"),
            unsubscribe_url=self.url("/mail/unsubscribe", unsubscribe, lang),
            opponents=opponents,
            deadline=deadline,
            now=self.clock(),
        )

    async def _opponents(self, game_id: str, seat: int, lang: str) -> str:
        """The other players of the game, by name (or colour), in ``lang``."""
        (rows,) = await self.store.transact([_step(self.q.seat_names, game_id=game_id)])
        players = len(rows)
        names = [r["name"] for r in sorted(rows, key=lambda r: r["seat"])]
        others = [seat_label(r["seat"], players, lang, names) for r in rows if r["seat"] != seat]
        join = " et " if lang == "fr" else " and "
        return ", ".join(others[:-1]) + join + others[-1] if len(others) > 1 else "".join(others)

    # -- the background task ----------------------------------------------------------

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def start(self) -> None:
        """Empty the outbox in the background until :meth:`stop`."""
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop().create_task(self._run(), name="reminders")

    async def purge(self) -> None:
        """Forget the messages done for longer than :attr:`ReminderTiming.keep_done`."""
        before = self.clock() - self.timing.keep_done
        await self.store.transact([_step(self.q.purge, before=before)])

    async def _run(self) -> None:
        assert self._wake is not None
        purged = 0.0
        while True:
            self._wake.clear()
            try:
                if self.clock() - purged > 3600.0:
                    purged = self.clock()
                    await self.purge()
                while await self.run_once() > 0:
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the store is down: the next round tries again
                log.warning("the reminders' round failed: %s", error)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.timing.poll)

    async def stop(self) -> None:
        tasks: Sequence[asyncio.Task[Any]] = [*self._tasks, *([self._loop] if self._loop else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._loop = None
