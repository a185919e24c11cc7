"""An RFC 8030 push service in the test process (Starlette under uvicorn, in its own
thread, on 127.0.0.1), for Web Push's tests: it plays the browser's side too, making
each subscription's keys (RFC 8291), so that it can check what the server posts.

For each push it checks the VAPID signature (RFC 8292: ``Authorization: vapid t=JWT,
k=KEY``, the JWT ES256-signed by KEY, ``aud`` the endpoint's origin, ``exp`` in the
future, a ``sub``), decrypts the ``aes128gcm`` body (RFC 8188, with RFC 8291's keys:
written here from the RFCs with ``cryptography``, not with the library the server
encrypts with) and keeps what it received; a push that fails a check is answered
``400`` and kept among :attr:`PushService.refused`. A subscription may be set to
answer another status (``410``: gone).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.web.postgres import free_port


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


@dataclass
class Subscriber:
    """A browser's side of one subscription: its private key and auth secret."""

    name: str
    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))
    #: The status this subscription's pushes are answered with (201: accepted).
    status: int = 201
    #: The ``Retry-After`` header sent with a status that is not 201, if any.
    retry_after: str | None = None

    @property
    def public(self) -> bytes:
        return self.private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 over RFC 8188 (one record)."""
        salt, rs, idlen = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        sender = body[21 : 21 + idlen]
        records = body[21 + idlen :]
        assert idlen == 65 and len(records) <= rs, (idlen, len(records), rs)
        shared = self.private.exchange(
            ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender)
        )
        prk_key = _hmac(self.auth, shared)
        ikm = _hmac(prk_key, b"WebPush: info\x00" + self.public + sender + b"\x01")
        prk = _hmac(salt, ikm)
        cek = _hmac(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
        nonce = _hmac(prk, b"Content-Encoding: nonce\x00\x01")[:12]
        padded = AESGCM(cek).decrypt(nonce, records, None)
        data = padded.rstrip(b"\x00")
        assert data.endswith(b"\x02"), "expected the last record's delimiter 0x02"
        return data[:-1]


@dataclass
class Push:
    """A push received: for which subscription, its headers, VAPID claims and key,
    and what it said (the decrypted JSON)."""

    subscriber: str
    ttl: int
    topic: str | None
    urgency: str | None
    claims: dict[str, Any]
    vapid_key: str
    message: dict[str, Any]


def check_vapid(header: str, origin: str) -> tuple[dict[str, Any], str]:
    """The claims and key of a VAPID ``Authorization`` header, checked (RFC 8292)."""
    scheme, _, params = header.partition(" ")
    assert scheme == "vapid", f"expected the vapid scheme, found {scheme!r}"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    token, key = fields["t"], fields["k"]
    head, payload, signature = token.split(".")
    assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64url(signature)
    assert len(raw) == 64, "expected an ES256 signature (r || s)"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    public.verify(  # raises InvalidSignature
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        f"{head}.{payload}".encode(),
        ec.ECDSA(hashes.SHA256()),
    )
    claims: dict[str, Any] = json.loads(unb64url(payload))
    assert claims["aud"] == origin, (claims["aud"], origin)
    assert claims["exp"] > time.time(), "expected exp in the future"
    assert claims["exp"] <= time.time() + 24 * 3600, "expected exp within 24 hours"
    assert str(claims.get("sub", "")).startswith(("mailto:", "https://"))
    return claims, key


class PushService:
    """The push service on ``port`` (default: a free one), while in a ``with``."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.subscribers: dict[str, Subscriber] = {}
        self.pushes: list[Push] = []
        self.refused: list[str] = []
        self.lock = threading.Lock()
        app = Starlette(routes=[Route("/push/{name}", self._receive, methods=["POST"])])
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def subscribe(self, name: str) -> dict[str, Any]:
        """A new subscription, as a browser's ``PushSubscription.toJSON()``."""
        subscriber = self.subscribers[name] = Subscriber(name)
        return {
            "endpoint": f"{self.origin}/push/{name}",
            "keys": {"p256dh": b64url(subscriber.public), "auth": b64url(subscriber.auth)},
        }

    async def _receive(self, request: Request) -> Response:
        subscriber = self.subscribers.get(request.path_params["name"])
        if subscriber is None:
            return Response(status_code=404)
        try:
            claims, key = check_vapid(request.headers["authorization"], self.origin)
            assert request.headers["content-encoding"] == "aes128gcm"
            message = json.loads(subscriber.decrypt(await request.body()))
            push = Push(
                subscriber.name,
                int(request.headers["ttl"]),
                request.headers.get("topic"),
                request.headers.get("urgency"),
                claims,
                key,
                message,
            )
        except Exception as error:  # the server sent something wrong: the test sees it
            with self.lock:
                self.refused.append(f"{type(error).__name__}: {error}")
            return Response(str(error), status_code=400)
        if subscriber.status >= 300:
            wait = {} if subscriber.retry_after is None else {"Retry-After": subscriber.retry_after}
            return Response(status_code=subscriber.status, headers=wait)
        with self.lock:
            self.pushes.append(push)
        return Response(status_code=201, headers={"Location": f"{self.origin}/m/1"})

    def __enter__(self) -> PushService:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the push service did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
