"""How the server sends reminders: the SMTP relay (``--smtp-url``), the sender address
(``--mail-from``), the site's public address for links (``--public-url``) and the
reminders' timing.

The SMTP URL says how to reach the relay and how to protect the connection::

    smtp://HOST[:PORT]                  plain SMTP (port 25); no credentials, unless HOST
                                        is this machine (a local relay)
    smtp://USER:PASS@HOST:587?starttls  SMTP upgraded with STARTTLS (required, not tried)
    smtp+starttls://USER:PASS@HOST      the same (port 587 by default)
    smtps://USER:PASS@HOST              SMTP inside TLS from the start (port 465)

A user name or password with ``@``, ``:`` or ``/`` is written percent-encoded
(``%40``...). Anything else is refused with what was expected::

    >>> relay = parse_smtp_url("smtp+starttls://ana:p%40ss@mail.example.org")
    >>> relay.host, relay.port, relay.security, relay.user, relay.password
    ('mail.example.org', 587, 'starttls', 'ana', 'p@ss')
    >>> parse_smtp_url("smtps://mail.example.org").port
    465
    >>> parse_smtp_url("http://mail.example.org")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    marrakech...MailSettingsError: --smtp-url: expected smtp://, ... or smtps://, found http://
"""

from __future__ import annotations

import ipaddress
import ssl
from dataclasses import dataclass, field
from email.errors import HeaderParseError
from email.headerregistry import Address
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlsplit

Security = Literal["plain", "starttls", "tls"]

#: The default port of each kind of connection.
DEFAULT_PORTS: dict[Security, int] = {"plain": 25, "starttls": 587, "tls": 465}
_SCHEMES: dict[str, Security] = {"smtp": "plain", "smtp+starttls": "starttls", "smtps": "tls"}


class MailSettingsError(ValueError):
    """A mail setting that does not fit: the message says what was expected."""


@dataclass(frozen=True)
class SmtpRelay:
    """Where and how to hand messages over: host, port, ``security`` (plain, STARTTLS
    or TLS from the start), the credentials of ``AUTH`` (if any), and the certificates
    trusted for TLS (``cafile``: a private CA's; None: the system's)."""

    host: str
    port: int
    security: Security = "plain"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    cafile: str | None = None
    timeout: float = 30.0

    def ssl_context(self) -> ssl.SSLContext:
        """A context that checks the relay's certificate and name."""
        return ssl.create_default_context(cafile=self.cafile)

    def describe(self) -> str:
        """Where mail goes, without the password (for the server's log)."""
        scheme = {"plain": "smtp", "starttls": "smtp+starttls", "tls": "smtps"}[self.security]
        who = f"{self.user}@" if self.user else ""
        return f"{scheme}://{who}{self.host}:{self.port}"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_smtp_url(url: str, cafile: str | None = None) -> SmtpRelay:
    """The relay of an SMTP URL (see the module); :class:`MailSettingsError` if it does
    not fit."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES or not url.strip().lower().startswith(scheme + "://"):
        found = f"{scheme}://" if scheme else repr(url[:40])
        raise MailSettingsError(
            f"--smtp-url: expected smtp://, smtp+starttls:// or smtps://, found {found}"
        )
    security = _SCHEMES[scheme]
    if parts.path not in ("", "/") or parts.fragment:
        raise MailSettingsError(
            f"--smtp-url: expected no path after the host, found {parts.path or '#'!r}"
        )
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name != "starttls" or value not in ("", "1", "true", "yes"):
            raise MailSettingsError(
                f"--smtp-url: the only option is ?starttls, found {name}={value}"[:120]
            )
        if security == "tls":
            raise MailSettingsError(
                "--smtp-url: smtps:// is TLS from the start: ?starttls does not go with it"
            )
        security = "starttls"
    host = parts.hostname
    if not host:
        raise MailSettingsError("--smtp-url: expected a host (smtp://mail.example.org), found none")
    try:
        port = parts.port or DEFAULT_PORTS[security]
    except ValueError:
        raise MailSettingsError(
            f"--smtp-url: expected a port 1..65535, found {parts.netloc.rsplit(':', 1)[-1]!r}"
        ) from None
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if password is not None and not user:
        raise MailSettingsError("--smtp-url: a password needs a user name (USER:PASS@HOST)")
    if user and security == "plain" and not _is_loopback(host):
        raise MailSettingsError(
            "--smtp-url: credentials would cross the network in clear: use smtps:// or "
            f"smtp+starttls:// (or ?starttls), found smtp://{user}@{host}"
        )
    return SmtpRelay(host, port, security, user, password, cafile)


def parse_mail_from(text: str) -> str:
    """The sender of the reminders: an address, with or without a display name.

    >>> parse_mail_from("Marrakech <games@example.org>")
    'Marrakech <games@example.org>'
    >>> parse_mail_from("nobody")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    marrakech...MailSettingsError: --mail-from: expected an address like ..., found 'nobody'
    """
    from email.headerregistry import HeaderRegistry

    try:
        header = HeaderRegistry()("From", text.strip())
        addresses = list(header.addresses)  # type: ignore[attr-defined]
    except (HeaderParseError, IndexError, ValueError):
        addresses = []
    if len(addresses) != 1 or not addresses[0].domain or not addresses[0].username:
        raise MailSettingsError(
            "--mail-from: expected an address like games@example.org or "
            f'"Marrakech <games@example.org>", found {text[:60]!r}'
        )
    found: Address = addresses[0]
    return str(found)


def parse_public_url(text: str) -> str:
    """The site's address as players reach it, for the links in emails (no trailing
    slash).

    >>> parse_public_url("https://games.example.org/")
    'https://games.example.org'
    """
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
        raise MailSettingsError(f"--public-url: expected https://HOST[/PATH], found {text[:60]!r}")
    return text.strip().rstrip("/")


@dataclass(frozen=True)
class ReminderTiming:
    """When reminders go (seconds): a your-turn email ``quiet_delay`` after the turn
    began (if the player has not been on the page since); a deadline email when the
    clocks' sweep says the turn's time runs short (:func:`marrakech.web.turn_based_clocks.
    warn_before` decides when, for every listener of the turn events). Failed sends are
    retried after ``retry_first`` seconds, doubling up to ``retry_most``, at most
    ``attempts`` times."""

    quiet_delay: float = 600.0
    retry_first: float = 30.0
    retry_most: float = 3600.0
    attempts: int = 12
    #: Seconds a claimed message stays claimed (an instance that died while sending
    #: it leaves it to another after this).
    lease: float = 120.0
    #: Seconds between two looks at the outbox when nothing is due sooner.
    poll: float = 5.0
    #: How long a verification link works.
    verify_valid: float = 2 * 86400.0
    #: How long sent, skipped and failed messages stay in the outbox (longer than any
    #: turn: their keys keep a turn from being reminded twice).
    keep_done: float = 30 * 86400.0

    def retry_after(self, attempts: int) -> float:
        """Seconds before the next try after ``attempts`` failed ones.

        >>> [ReminderTiming().retry_after(n) for n in (1, 2, 3)]
        [30.0, 60.0, 120.0]
        """
        return float(min(self.retry_most, self.retry_first * 2 ** max(0, attempts - 1)))


@dataclass(frozen=True)
class MailSettings:
    """Everything the reminders need: the relay, the sender, the site's address for
    links, and the timing."""

    relay: SmtpRelay
    mail_from: str
    public_url: str
    timing: ReminderTiming = field(default_factory=ReminderTiming)
