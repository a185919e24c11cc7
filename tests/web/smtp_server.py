"""A real SMTP server in the test process (aiosmtpd, in its own thread) that keeps the
messages it receives, with STARTTLS, TLS and AUTH when asked, and a throwaway
certificate authority made with ``cryptography`` for the TLS tests.

>>> with Inbox() as inbox:
...     import smtplib
...     with smtplib.SMTP("127.0.0.1", inbox.port) as client:
...         _ = client.sendmail("a@example.org", ["b@example.org"], "Subject: hi\\r\\n\\r\\nyo")
...     [message["Subject"] for message in inbox.messages]
['hi']
"""

from __future__ import annotations

import datetime
import email
import email.policy
import ipaddress
import ssl
import threading
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.web.postgres import free_port


class Handler:
    """Keeps each message; refuses the recipients in ``refuse`` with ``550``."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.refuse: set[str] = set()
        self.lock = threading.Lock()

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if address in self.refuse:
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self.lock:
            self.messages.append(message)
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 OK"


class Inbox:
    """An SMTP server on 127.0.0.1 (a free port, or ``port``), started by ``with``.

    ``tls``: a server context for TLS from the first byte (smtps); ``starttls``: one
    offered by STARTTLS (then required); ``users``: AUTH's accepted user names and
    passwords (AUTH needs TLS)."""

    def __init__(
        self,
        port: int = 0,
        *,
        tls: ssl.SSLContext | None = None,
        starttls: ssl.SSLContext | None = None,
        users: dict[str, str] | None = None,
    ) -> None:
        self.port = port or free_port()
        self.handler = Handler()
        self.logins: list[str] = []
        options: dict[str, Any] = {}
        if starttls is not None:
            options.update(tls_context=starttls, require_starttls=True)
        if users is not None:
            # On a TLS socket aiosmtpd does not see the TLS: it may not ask for it.
            options.update(authenticator=self._authenticator(users), auth_require_tls=tls is None)
        self.controller = Controller(
            self.handler,
            hostname="127.0.0.1",
            port=self.port,
            ssl_context=tls,
            server_hostname="localhost",
            **options,
        )

    def _authenticator(self, users: dict[str, str]) -> Any:
        def check(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
            if isinstance(data, LoginPassword):
                user, password = data.login.decode(), data.password.decode()
                if users.get(user) == password:
                    self.logins.append(user)
                    return AuthResult(success=True)
            return AuthResult(success=False, handled=False)

        return check

    @property
    def messages(self) -> list[EmailMessage]:
        with self.handler.lock:
            return list(self.handler.messages)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        """The messages, once there are ``count`` (fails after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while len(self.messages) < count:
            assert time.monotonic() < deadline, f"expected {count} messages, got {self.messages}"
            time.sleep(0.02)
        return self.messages

    def __enter__(self) -> Inbox:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


def text_part(message: EmailMessage, subtype: str = "plain") -> str:
    part = message.get_body(preferencelist=(subtype,))
    assert part is not None and part.get_content_type() == f"text/{subtype}", message
    content: str = part.get_content()
    return content


class Certificates:
    """A throwaway CA and a certificate it signed for ``localhost`` and 127.0.0.1, as
    PEM files in ``folder``."""

    def __init__(self, folder: Path) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        now = datetime.datetime.now(datetime.UTC)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "marrakech test CA")])
        ca = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
            )
            .sign(ca_key, hashes.SHA256())
        )
        key = ec.generate_private_key(ec.SECP256R1())
        leaf = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(
                x509.SubjectAlternativeName(
                    [
                        x509.DNSName("localhost"),
                        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    ]
                ),
                critical=False,
            )
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                critical=False,
            )
            .sign(ca_key, hashes.SHA256())
        )
        pem = serialization.Encoding.PEM
        self.ca_file = folder / "ca.pem"
        self.ca_file.write_bytes(ca.public_bytes(pem))
        self.cert_file = folder / "server.pem"
        self.cert_file.write_bytes(leaf.public_bytes(pem))
        self.key_file = folder / "server.key"
        self.key_file.write_bytes(
            key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert_file, self.key_file)
        return context
