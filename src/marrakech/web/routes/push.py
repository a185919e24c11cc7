"""Web Push's routes (issue 37, item 4; docs/web-protocol.md, "Push notifications"):

- ``GET /api/push``: the server's VAPID public key (the page's
  ``applicationServerKey``) and the kinds of notifications, each ``live`` (sent today)
  or not yet;
- ``POST /api/push/device``: the signed-in account turns notifications on for this
  device (its browser's push subscription) for some kinds, in English or French;
- ``POST /api/push/device/state``: what this device (by its endpoint) gets;
- ``POST /api/push/device/remove``: this device gets nothing any more.

A forged subscription (an endpoint that is not ``https://``, on a private address,
keys of the wrong size) is refused with ``400`` saying what was expected; nothing
stored changes. A server without ``--web-push`` answers ``404`` on all of them.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import Field

from marrakech.web.accounts.sessions import signed_in
from marrakech.web.context import Context, WebContext
from marrakech.web.http_protocol import read_json_body
from marrakech.web.protocol import ApiError, parse_body
from marrakech.web.protocol.client import StrictModel
from marrakech.web.reminders.push_devices import DeviceState, PushDevices
from marrakech.web.reminders.webpush import PUSH_KINDS

router = APIRouter()


class PushKindInfo(StrictModel):
    name: str
    #: Whether the server sends this kind yet (the others are declared, to come).
    live: bool


class PushInfo(StrictModel):
    public_key: str
    kinds: list[PushKindInfo]


class SubscriptionKeys(StrictModel):
    # Sizes are checked exactly, with what was expected, by the reminders' service.
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=200)


class DeviceAsk(StrictModel):
    """This device, by its push subscription's endpoint."""

    endpoint: str = Field(max_length=2048)


class NewDevice(DeviceAsk):
    """A browser's ``PushSubscription.toJSON()`` (``expirationTime`` ignored) and what
    it opts in to."""

    keys: SubscriptionKeys
    expirationTime: float | None = None  # the browser's name
    kinds: list[str] = Field(max_length=len(PUSH_KINDS))
    lang: str = Field(max_length=5)


class DeviceInfo(StrictModel):
    kinds: list[str]
    lang: str


class DeviceReply(StrictModel):
    device: DeviceInfo | None


def _devices(context: WebContext) -> PushDevices:
    found = context.reminders.devices if context.reminders is not None else None
    if found is None:
        raise ApiError(404, "not_found", "this server sends no push notifications (no --web-push)")
    return found


async def _account(request: Request, context: WebContext) -> str:
    found = await signed_in(request, context.accounts)
    if found is None:
        raise ApiError(401, "unauthorized", "expected to be signed in: sign in first")
    return found.account.id


def _reply(state: DeviceState | None) -> DeviceReply:
    return DeviceReply(
        device=None if state is None else DeviceInfo(kinds=list(state.kinds), lang=state.lang)
    )


@router.get("/api/push")
async def push_info(context: Context) -> PushInfo:
    """The VAPID public key and the kinds of notifications."""
    devices = _devices(context)
    return PushInfo(
        public_key=await devices.public_key(),
        kinds=[PushKindInfo(name=kind.name, live=kind.live) for kind in PUSH_KINDS],
    )


@router.post("/api/push/device")
async def subscribe_device(request: Request, context: Context) -> DeviceReply:
    """Notifications on this device for ``kinds`` (replacing what it had)."""
    devices = _devices(context)
    form = parse_body(NewDevice, await read_json_body(request))
    account = await _account(request, context)
    state = await devices.subscribe(
        account, form.endpoint, form.keys.p256dh, form.keys.auth, form.kinds, form.lang
    )
    return _reply(state)


@router.post("/api/push/device/state")
async def device_state(request: Request, context: Context) -> DeviceReply:
    devices = _devices(context)
    form = parse_body(DeviceAsk, await read_json_body(request))
    account = await _account(request, context)
    return _reply(await devices.state(account, form.endpoint))


@router.post("/api/push/device/remove")
async def remove_device(request: Request, context: Context) -> DeviceReply:
    devices = _devices(context)
    form = parse_body(DeviceAsk, await read_json_body(request))
    account = await _account(request, context)
    await devices.remove(account, form.endpoint)
    return DeviceReply(device=None)
