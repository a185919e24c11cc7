"""Signed links: a purpose and a few fields, with an HMAC-SHA256 of them under the
server's link key (kept in the database, so every instance checks every link).

A token is ``PAYLOAD.MAC``, both base64url; the payload's fields are joined by ``|``
(none may hold one). Forged or altered tokens, and those of another purpose, read as
None::

    >>> key = b"k" * 32
    >>> token = sign(key, "unsubscribe", "a1", "n1")
    >>> unsign(key, token, "unsubscribe")
    ['a1', 'n1']
    >>> unsign(key, token, "verify") is None, unsign(b"x" * 32, token, "unsubscribe") is None
    (True, True)
    >>> unsign(key, token[:-2] + "AA", "unsubscribe") is None
    True
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(key: bytes, payload: bytes) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).digest()[:20]


def sign(key: bytes, purpose: str, *fields: str) -> str:
    """A token for ``purpose`` carrying ``fields``."""
    if any("|" in part for part in (purpose, *fields)):
        raise ValueError("a signed field cannot hold '|'")
    payload = "|".join((purpose, *fields)).encode("utf-8")
    return f"{_b64(payload)}.{_b64(_mac(key, payload))}"


def unsign(key: bytes, token: str, purpose: str) -> list[str] | None:
    """The fields of a genuine token for ``purpose``; None for anything else."""
    if not isinstance(token, str) or len(token) > 1000 or token.count(".") != 1:
        return None
    encoded, mac = token.split(".")
    try:
        payload, given = _unb64(encoded), _unb64(mac)
    except (binascii.Error, ValueError):
        return None
    if not hmac.compare_digest(given, _mac(key, payload)):
        return None
    fields = payload.decode("utf-8", "replace").split("|")
    if fields[0] != purpose:
        return None
    return fields[1:]


def new_nonce() -> str:
    """A link's single-use part: 128 random bits (only its SHA-256 is stored)."""
    return secrets.token_urlsafe(16)


def nonce_hash(nonce: str) -> str:
    return hashlib.sha256(nonce.encode("utf-8")).hexdigest()
