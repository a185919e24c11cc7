"""Who delivers a reminder: a :class:`Sender`. :class:`SmtpSender` hands messages to
an SMTP relay (Python's :mod:`smtplib`, in a thread: the event loop never waits on the
network).

A sender says how a delivery failed, and the outbox acts on it: a
:class:`TemporaryFailure` (the relay is unreachable, busy, or answers ``4xx``) is tried
again later; a :class:`PermanentFailure` (``5xx`` for the recipient: no such mailbox,
a bad address) marks the address undeliverable, and nothing more goes to it.

The reminders hand a :class:`Channel` a :class:`~marrakech.web.reminders.mail.Letter`
(what to say, to whom, in which language, with which links), never a rendered message:
:class:`EmailChannel` renders it as an email and gives it to its :class:`Sender`. Web
Push (:mod:`marrakech.web.reminders.webpush`) is the other channel, with the same failures
(a ``404``/``410`` from the push service is a :class:`PermanentFailure`: the device's
subscription is removed).
"""

from __future__ import annotations

import asyncio
import smtplib
import socket
import ssl
from email.message import EmailMessage
from typing import Protocol

from marrakech.web.reminders.mail import Letter, compose
from marrakech.web.reminders.settings import SmtpRelay


class DeliveryError(Exception):
    """A message was not delivered."""


class TemporaryFailure(DeliveryError):
    """Try again later: the relay is down, busy, or said ``4xx``; ``wait`` is how many
    seconds the other side asked for (an HTTP ``Retry-After``), if it said."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class PermanentFailure(DeliveryError):
    """The recipient cannot be delivered to (``5xx``): do not try again."""


class MessageRefused(DeliveryError):
    """The relay refused this message (``5xx`` after its data): not tried again, but
    the address stays."""


class Sender(Protocol):
    """Delivers one message to one recipient, or raises a :class:`DeliveryError`."""

    async def send(self, message: EmailMessage, recipient: str) -> None: ...


class Channel(Protocol):
    """One way reminders reach a player: delivers ``letter`` to ``letter.to``, or
    raises a :class:`DeliveryError`."""

    async def deliver(self, letter: Letter) -> None: ...


class EmailChannel:
    """Reminders as emails (plain text and HTML) from ``mail_from``, through ``sender``."""

    def __init__(self, sender: Sender, mail_from: str) -> None:
        self.sender = sender
        self.mail_from = mail_from

    async def deliver(self, letter: Letter) -> None:
        await self.sender.send(compose(letter, self.mail_from), letter.to)


class SmtpSender:
    """Delivers through :class:`~marrakech.web.reminders.settings.SmtpRelay`: one
    connection a message (reminders are few and far between), STARTTLS or TLS as the
    relay says, then ``AUTH`` if it has credentials."""

    def __init__(self, relay: SmtpRelay) -> None:
        self.relay = relay

    async def send(self, message: EmailMessage, recipient: str) -> None:
        await asyncio.to_thread(self._send, message, recipient)

    def _send(self, message: EmailMessage, recipient: str) -> None:
        relay = self.relay
        try:
            client = self._connect()
            try:
                if relay.user is not None:
                    client.login(relay.user, relay.password or "")
                refused = client.send_message(message, to_addrs=[recipient])
            finally:
                try:
                    client.quit()
                except (smtplib.SMTPException, OSError):
                    client.close()
        except smtplib.SMTPRecipientsRefused as error:
            code, reply = next(iter(error.recipients.values()))
            raise _failure(code, reply, "refused the recipient") from None
        except smtplib.SMTPDataError as error:
            if 500 <= error.smtp_code < 600:
                raise MessageRefused(_reply(error.smtp_code, error.smtp_error, "refused")) from None
            raise TemporaryFailure(_reply(error.smtp_code, error.smtp_error, "answered")) from None
        except smtplib.SMTPResponseException as error:
            # The sender refused, the credentials wrong...: the server's setting, not the
            # player's address; logged, and tried again later.
            raise TemporaryFailure(_reply(error.smtp_code, error.smtp_error, "answered")) from None
        except (smtplib.SMTPException, OSError, ssl.SSLError) as error:
            raise TemporaryFailure(f"cannot reach {relay.describe()}: {error}") from None
        if refused:  # a partial refusal: this one recipient
            code, reply = refused[recipient]
            raise _failure(code, reply, "refused the recipient")

    def _connect(self) -> smtplib.SMTP:
        relay = self.relay
        local = socket.getfqdn()
        if relay.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                relay.host,
                relay.port,
                local_hostname=local,
                timeout=relay.timeout,
                context=relay.ssl_context(),
            )
        else:
            client = smtplib.SMTP(
                relay.host, relay.port, local_hostname=local, timeout=relay.timeout
            )
        if relay.security == "starttls":
            client.ehlo()
            if not client.has_extn("starttls"):
                client.close()
                raise TemporaryFailure(
                    f"{relay.describe()} does not offer STARTTLS, which --smtp-url requires"
                )
            client.starttls(context=relay.ssl_context())
            client.ehlo()
        return client


def _reply(code: int, reply: bytes | str, what: str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
    return f"the mail relay {what}: {code} {text}"[:300]


def _failure(code: int, reply: bytes | str, what: str) -> DeliveryError:
    """A refused recipient: for good on ``5xx``, for now on ``4xx``."""
    message = _reply(code, reply, what)
    if 500 <= code < 600:
        return PermanentFailure(message)
    return TemporaryFailure(message)
