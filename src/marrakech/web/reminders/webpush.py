"""Web Push notifications (issue 37, item 4; docs/web.md, "Push notifications").

A player opts in per device (a browser's push subscription: its push service's
``endpoint`` and the keys to encrypt for it) and per :class:`PushKind`. The outbox of
the reminders (:mod:`marrakech.web.reminders.service`) carries the pushes as it carries
the emails: queued once per (game, seat, turn, kind, device), claimed by any instance,
checked again at sending time (the player's page is still closed, the turn still on),
retried while the push service is down, and a ``404``/``410`` from the push service
removes the subscription.

Each push is encrypted for the subscription (RFC 8291, ``aes128gcm``) and signed for
the push service with the server's VAPID key (RFC 8292, ES256), through ``pywebpush``
and ``py-vapid``; it has a ``TTL`` (it expires at the push service), a ``Topic`` and a
notification ``tag`` (a newer push of the same game replaces the older one).

The kinds are a declared list, :data:`PUSH_KINDS`, all sent: *your turn*; a
challenge, a tournament starting and a game found in a pool through their own
modules (:mod:`~marrakech.web.reminders.challenge_push`,
:mod:`~marrakech.web.reminders.game_ready_push`). A new kind is one
:class:`PushKind` here and one call of
:meth:`~marrakech.web.reminders.service.Reminders.queue_push` where it happens.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import ipaddress
import json
import os
import socket
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp.abc import ResolveResult
from aiohttp.resolver import ThreadedResolver
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from marrakech.web.reminders.senders import MessageRefused, PermanentFailure, TemporaryFailure


@dataclass(frozen=True)
class PushKind:
    """One kind of push: its ``name`` (what a subscription opts in to), whether
    anything sends it yet (``live``), how long the push service keeps it for a device
    that is offline (``ttl``, seconds: a stale one is worth nothing), and its
    ``urgency`` (RFC 8030: ``very-low``, ``low``, ``normal``, ``high``)."""

    name: str
    live: bool
    ttl: int
    urgency: str = "normal"


#: Every kind of push, in the order the account's dialog shows them.
PUSH_KINDS: tuple[PushKind, ...] = (
    PushKind("your_turn", live=True, ttl=12 * 3600),
    PushKind("challenge", live=True, ttl=3600, urgency="high"),
    PushKind("tournament", live=True, ttl=1800, urgency="high"),
    PushKind("pool_game", live=True, ttl=600, urgency="high"),
)
KINDS_BY_NAME = {kind.name: kind for kind in PUSH_KINDS}

#: What a push says, by language (``{opponents}``: the other players' names).
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "your_turn.title": "Marrakech: your turn",
        "your_turn.body": "It is your turn in your game of Marrakech with {opponents}.",
        "challenge.title": "Marrakech: a challenge",
        "challenge.body": "{opponents} challenges you to a game of Marrakech.",
        "tournament.title": "Marrakech: your tournament starts",
        "tournament.body": "Your tournament starts now: your first game is ready.",
        "pool_game.title": "Marrakech: game found",
        "pool_game.body": "A game of Marrakech with {opponents} is ready for you.",
    },
    "fr": {
        "your_turn.title": "Marrakech : à vous de jouer",
        "your_turn.body": "C’est votre tour dans votre partie de Marrakech avec {opponents}.",
        "challenge.title": "Marrakech : un défi",
        "challenge.body": "{opponents} vous défie à une partie de Marrakech.",
        "tournament.title": "Marrakech : votre tournoi commence",
        "tournament.body": "Votre tournoi commence : votre première partie est prête.",
        "pool_game.title": "Marrakech : partie trouvée",
        "pool_game.body": "Une partie de Marrakech avec {opponents} vous attend.",
    },
}

#: The most devices an account may subscribe (each is a row and a push per event).
MAX_DEVICES = 20
#: The longest endpoint accepted (push services' are under 500 characters).
MAX_ENDPOINT = 1024
#: The VAPID key's name in the store's ``mail_keys`` (when no key file is given).
VAPID_KEY_NAME = "vapid"


class SubscriptionError(ValueError):
    """A subscription that cannot be accepted: the message says what was expected."""


@dataclass(frozen=True)
class PushSettings:
    """Web Push on a server: ``contact`` (the VAPID ``sub`` claim: ``mailto:`` or
    ``https:``, how a push service reaches the operator), where the VAPID key is kept
    (``key_file``; None: in the store), whether an ``http://`` endpoint on a loopback
    address is accepted (``allow_http_loopback``: for tests' in-process push service,
    never in production), and the seconds a push service has to answer."""

    contact: str
    key_file: Path | None = None
    allow_http_loopback: bool = False
    timeout: float = 10.0


#: The longest wait a push service's ``Retry-After`` is followed for (a day): a longer
#: or nonsensical one is taken as a day, and the notice expires before anyway.
MOST_RETRY_AFTER = 86_400.0


def retry_after_seconds(header: str | None, now: float) -> float | None:
    """The seconds a ``Retry-After`` header asks for (RFC 9110: a number of seconds or an
    HTTP date), none for an absent or unreadable one, at most :data:`MOST_RETRY_AFTER`.

    >>> retry_after_seconds("120", 0.0), retry_after_seconds("soon", 0.0)
    (120.0, None)
    >>> retry_after_seconds("Thu, 01 Jan 1970 00:10:00 GMT", 0.0)
    600.0
    """
    if header is None:
        return None
    text = header.strip()
    if text.isdigit():
        seconds = float(text)
    else:
        try:
            seconds = parsedate_to_datetime(text).timestamp() - now
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MOST_RETRY_AFTER)


def parse_contact(text: str) -> str:
    """The VAPID contact (``--web-push``): a ``mailto:`` address or an ``https://`` URL.

    >>> parse_contact("mailto:games@example.org")
    'mailto:games@example.org'
    >>> parse_contact("games@example.org")
    Traceback (most recent call last):
    ...
    marrakech.web.reminders.webpush.SubscriptionError: --web-push: expected mailto:ADDRESS or https://URL (how push services reach you), found 'games@example.org'
    """  # noqa: E501
    text = text.strip()
    if (text.startswith("mailto:") and "@" in text) or (
        text.startswith("https://") and len(text) > len("https://")
    ):
        return text
    raise SubscriptionError(
        "--web-push: expected mailto:ADDRESS or https://URL (how push services reach you), "
        f"found {text[:60]!r}"
    )


def b64url_decode(text: str) -> bytes:
    """Base64url with or without its padding; ValueError for anything else."""
    stripped = text.rstrip("=")
    if not stripped or any(c not in _B64URL for c in stripped):
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    except binascii.Error as error:
        raise ValueError(str(error)) from None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _host_problem(host: str) -> str | None:
    """Why a push service at ``host`` is refused (a name or address on this machine or
    a private network: a forged endpoint would make the server post there), or None."""
    name = host.lower().rstrip(".")
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        if (
            name == "localhost"
            or name.endswith((".localhost", ".local", ".internal", ".lan", ".home.arpa"))
            or "." not in name
        ):
            return f"expected a push service on the internet, found the local name {host!r}"
        return None
    if not address.is_global:
        return f"expected a push service on the internet, found the private address {host}"
    return None


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_endpoint(endpoint: str, allow_http_loopback: bool = False) -> str:
    """The endpoint, if a push service may be posted to there; else
    :class:`SubscriptionError` saying what was expected."""
    if len(endpoint) > MAX_ENDPOINT:
        raise SubscriptionError(
            f"endpoint: expected at most {MAX_ENDPOINT} characters, found {len(endpoint)}"
        )
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        parts.port  # noqa: B018 (a bad port raises)
    except ValueError:
        raise SubscriptionError(
            f"endpoint: expected an https:// URL, found {endpoint[:60]!r}"
        ) from None
    if parts.scheme == "http" and allow_http_loopback and _is_loopback(host):
        return endpoint  # the tests' push service, with --push-allow-http-loopback
    if parts.scheme != "https":
        raise SubscriptionError(
            f"endpoint: expected an https:// URL, found {parts.scheme or 'no'} scheme "
            f"({endpoint[:60]!r})"
        )
    if not host or parts.username is not None or parts.password is not None:
        raise SubscriptionError(
            f"endpoint: expected https://HOST/PATH with no user name, found {endpoint[:60]!r}"
        )
    problem = _host_problem(host)
    if problem is not None:
        raise SubscriptionError(f"endpoint: {problem}")
    return endpoint


def check_keys(p256dh: str, auth: str) -> None:
    """The subscription's keys (RFC 8291): ``p256dh`` a P-256 public key (65 bytes,
    uncompressed), ``auth`` a 16-byte secret, both base64url; else
    :class:`SubscriptionError` saying what was found."""
    for name, text, size in (("p256dh", p256dh, 65), ("auth", auth, 16)):
        if len(text) > 200:
            raise SubscriptionError(
                f"keys.{name}: expected {size} bytes in base64url, found {len(text)} characters"
            )
        try:
            raw = b64url_decode(text)
        except ValueError:
            raise SubscriptionError(
                f"keys.{name}: expected base64url (A-Z a-z 0-9 - _), found {text[:30]!r}"
            ) from None
        if len(raw) != size:
            raise SubscriptionError(
                f"keys.{name}: expected {size} bytes (base64url decoded), found {len(raw)}"
            )
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(p256dh))
    except ValueError:
        raise SubscriptionError(
            "keys.p256dh: expected an uncompressed P-256 public key (0x04, x, y), "
            "found bytes that are not a point of the curve"
        ) from None


def check_kinds(kinds: list[str]) -> tuple[str, ...]:
    """The kinds a subscription opts in to, in :data:`PUSH_KINDS`' order."""
    unknown = [kind for kind in kinds if kind not in KINDS_BY_NAME]
    if unknown or not kinds:
        found = ", ".join(repr(k[:20]) for k in unknown) if unknown else "none"
        raise SubscriptionError(
            f"kinds: expected one or more of {', '.join(KINDS_BY_NAME)}, found {found}"
        )
    return tuple(kind.name for kind in PUSH_KINDS if kind.name in kinds)


def topic_of(tag: str) -> str:
    """RFC 8030's ``Topic`` of a tag (at most 32 characters of base64url): a push
    service keeps only the newest undelivered push of one topic."""
    return b64url(hashlib.sha256(tag.encode()).digest())[:32]


@dataclass(frozen=True)
class Notice:
    """One push to one device: what it says (``title``, ``body``, in ``lang``), the
    ``url`` a tap opens (the site's path), its ``tag``, its ``ttl`` and ``urgency``."""

    kind: str
    lang: str
    title: str
    body: str
    url: str
    tag: str
    ttl: int
    urgency: str

    def payload(self) -> bytes:
        """What the service worker receives (docs/web-protocol.md, "Push")."""
        return json.dumps(
            {
                "kind": self.kind,
                "lang": self.lang,
                "title": self.title,
                "body": self.body,
                "url": self.url,
                "tag": self.tag,
            },
            ensure_ascii=False,
        ).encode()


def notice(
    kind: str, lang: str, url: str, tag: str, ttl: int | None = None, **fields: str
) -> Notice:
    """The notice of ``kind`` in ``lang`` (English for any other), its words filled
    with ``fields``; ``ttl`` (seconds) no longer than the kind's."""
    declared = KINDS_BY_NAME[kind]
    words = WORDS.get(lang, WORDS["en"])
    return Notice(
        kind,
        lang if lang in WORDS else "en",
        words[f"{kind}.title"].format(**fields),
        words[f"{kind}.body"].format(**fields),
        url,
        tag,
        max(60, min(declared.ttl, ttl if ttl is not None else declared.ttl)),
        declared.urgency,
    )


def exported_devices(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The account's devices with notifications in its export: their push service,
    kinds, language and date (not the endpoint nor the keys: the browser's and the push
    service's secrets)."""
    from marrakech.web.protocol import iso_time

    return [
        {
            "push_service": urlsplit(row["endpoint"]).netloc,
            "kinds": row["kinds"].split(),
            "lang": row["lang"],
            "created": iso_time(float(row["created"])),
        }
        for row in rows
    ]


def add_push_options(parser: argparse.ArgumentParser) -> None:
    """``marrakech serve``'s Web Push options (docs/deploy.md, "Push notifications")."""
    push = parser.add_argument_group(
        "push notifications", "notify players' browsers of their turns (docs/web.md)"
    )
    push.add_argument(
        "--web-push",
        default=os.environ.get("MARRAKECH_WEB_PUSH"),
        metavar="CONTACT",
        help="send Web Push notifications; CONTACT (mailto:ADDRESS or https://URL) tells "
        "push services how to reach you. Default: no push notifications",
    )
    push.add_argument(
        "--push-key-file",
        default=None,
        metavar="PATH",
        help="keep the VAPID private key in this PEM file (made on first start); "
        "default: in the store",
    )
    push.add_argument(
        "--push-allow-http-loopback",
        action="store_true",
        help="FOR TESTS ONLY: accept http:// push endpoints on 127.0.0.1/::1/localhost",
    )


def push_settings(args: argparse.Namespace) -> PushSettings | None:
    """Web Push's settings of ``serve``'s options (None without ``--web-push``); a
    ValueError says what is wrong."""
    if not args.web_push:
        if args.push_key_file or args.push_allow_http_loopback:
            raise SubscriptionError("--push-key-file: expected --web-push too")
        return None
    key_file = Path(args.push_key_file).expanduser() if args.push_key_file else None
    if key_file is not None and not key_file.parent.is_dir():
        raise SubscriptionError(f"--push-key-file: no such folder {str(key_file.parent)!r}")
    if key_file is not None:
        key_file_pem(key_file)  # made now, or checked: a bad file stops the server at once
    return PushSettings(parse_contact(args.web_push), key_file, args.push_allow_http_loopback)


# -- the VAPID key ------------------------------------------------------------------------


def new_vapid_pem() -> str:
    """A new VAPID private key (P-256), as PEM."""
    from py_vapid import Vapid02

    vapid = Vapid02()
    vapid.generate_keys()
    pem: bytes = vapid.private_pem()
    return pem.decode("ascii")


def vapid_of(pem: str) -> Any:
    """The ``py_vapid`` signer of a PEM private key."""
    from py_vapid import Vapid02

    return Vapid02.from_pem(pem.encode("ascii"))


def public_key_of(vapid: Any) -> str:
    """The VAPID public key as the page's ``applicationServerKey`` wants it (base64url
    of the uncompressed point)."""
    raw: bytes = vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64url(raw)


def key_file_pem(path: Path) -> str:
    """The PEM in ``path``, made there (readable by its owner only) on first start."""
    if not path.exists():
        pem = new_vapid_pem()
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(pem)
        return pem
    pem = path.read_text()
    try:
        vapid_of(pem)
    except Exception as error:
        raise SubscriptionError(
            f"--push-key-file: expected a PEM private key (P-256) in {path}, found: {error}"
        ) from None
    return pem


class PublicResolver(ThreadedResolver):
    """Names resolved to public addresses only (loopback too with
    ``allow_loopback``): a push service's name that resolves to this machine or a
    private network (set up so, or changed since it was checked) is never posted to."""

    def __init__(self, allow_loopback: bool = False) -> None:
        super().__init__()
        self.allow_loopback = allow_loopback

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        found = await super().resolve(host, port, family)
        kept = [
            result
            for result in found
            if ipaddress.ip_address(result["host"]).is_global
            or (self.allow_loopback and ipaddress.ip_address(result["host"]).is_loopback)
        ]
        if not kept:
            raise OSError(f"{host} resolves to a private address only, which is refused")
        return kept


# -- delivery -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    """A stored subscription: where to post, and the keys to encrypt for."""

    endpoint: str
    p256dh: str
    auth: str


class WebPushChannel:
    """Posts notices to push services (``pywebpush``, on the event loop through
    ``aiohttp``), signed with ``vapid`` for ``contact``; a failure is a
    :class:`~marrakech.web.reminders.senders.DeliveryError` the outbox acts on."""

    def __init__(self, vapid: Any, settings: PushSettings) -> None:
        self.vapid = vapid
        self.settings = settings

    async def deliver(self, device: Device, notice: Notice, now: float) -> None:
        import aiohttp
        from pywebpush import WebPushException, webpush_async

        # The endpoint is checked again: a subscription stored before a stricter rule,
        # or with --push-allow-http-loopback, is not posted to otherwise.
        try:
            check_endpoint(device.endpoint, self.settings.allow_http_loopback)
        except SubscriptionError as error:
            raise PermanentFailure(str(error)) from None
        parts = urlsplit(device.endpoint)
        claims: dict[str, str | int] = {
            "sub": self.settings.contact,
            "aud": f"{parts.scheme}://{parts.netloc}",
            "exp": int(now) + 12 * 3600,
        }
        try:
            async with aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    resolver=PublicResolver(self.settings.allow_http_loopback)
                ),
                timeout=aiohttp.ClientTimeout(total=self.settings.timeout),
            ) as session:
                await webpush_async(
                    {
                        "endpoint": device.endpoint,
                        "keys": {"p256dh": device.p256dh, "auth": device.auth},
                    },
                    notice.payload().decode(),
                    vapid_private_key=self.vapid,
                    vapid_claims=claims,
                    ttl=notice.ttl,
                    headers={"Topic": topic_of(notice.tag), "Urgency": notice.urgency},
                    aiohttp_session=session,
                    # pywebpush's default (None) would lift the session's timeout: a push
                    # service that never answers would hold the outbox up for good.
                    timeout=self.settings.timeout,
                )
        except WebPushException as error:
            status = error.status_code
            where = f"the push service at {parts.netloc}"
            if status in (404, 410):
                raise PermanentFailure(
                    f"{where} answered {status}: the subscription is gone"
                ) from None
            if status is None or status == 429 or status >= 500:
                wait = retry_after_seconds(error.retry_after, now)
                asked = "" if wait is None else f", asking for {wait:.0f} s"
                raise TemporaryFailure(f"{where} answered {status}{asked}", wait) from None
            raise MessageRefused(f"{where} refused the push: {status}") from None
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            raise TemporaryFailure(
                f"cannot reach the push service at {parts.netloc}: {error or type(error).__name__}"
            ) from None
