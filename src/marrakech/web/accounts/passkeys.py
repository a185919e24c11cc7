"""Passkeys: the WebAuthn ceremonies, with the ``webauthn`` library.

The server makes each ceremony's options with a fresh random challenge, which it keeps
(:mod:`marrakech.web.accounts.service`: stored, used once, expiring) and then checks
the browser's answer against: the challenge, the origin and relying party (this site,
by the ``Host`` the request came to, which the server's ``--allowed-host`` list
vets), the user's presence and verification, the signature with the stored public key,
and the signature counter. Everything here is plain data in and out: byte strings go
as base64url text, as the page's JSON carries them.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

#: The site's name as authenticators show it.
RP_NAME = "Marrakech"
#: Milliseconds the browser gives a ceremony (the challenge lives a little longer).
TIMEOUT_MS = 120_000
#: The transports a browser may report (others are dropped).
TRANSPORTS = frozenset(transport.value for transport in AuthenticatorTransport)


class PasskeyError(ValueError):
    """A ceremony's answer that does not check out (forged, replayed, another site's)."""


@dataclass(frozen=True)
class Site:
    """Who the relying party is for a request: its origin and its RP id (host name)."""

    origin: str
    rp_id: str


@dataclass(frozen=True)
class NewPasskey:
    """A registered passkey: what is stored of it."""

    credential_id: str
    public_key: str
    sign_count: int
    transports: str


def site_of(scheme: str, host_header: str) -> Site:
    """The relying party of a request to ``scheme://host_header``; :class:`PasskeyError`
    for an IP address, which WebAuthn refuses as a relying party (browsers answer "This
    is an invalid domain"): the page must be opened by a name.

    >>> site_of("https", "games.example.org")
    Site(origin='https://games.example.org', rp_id='games.example.org')
    >>> site_of("http", "localhost:8000")
    Site(origin='http://localhost:8000', rp_id='localhost')
    >>> try:  # doctest: +NORMALIZE_WHITESPACE
    ...     site_of("http", "127.0.0.1:8000")
    ... except PasskeyError as error:
    ...     print(error)
    passkeys need the site's name, not an IP address (127.0.0.1): open
    http://localhost:8000/ instead
    """
    host = host_header.strip().lower()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    secure = "https" if scheme in ("https", "wss") else "http"
    rp_id = name.strip("[]")
    if _is_ip_address(rp_id):
        instead = ""
        if ipaddress.ip_address(rp_id).is_loopback:
            port = host[len(name) :]
            instead = f": open {secure}://localhost{port}/ instead"
        raise PasskeyError(f"passkeys need the site's name, not an IP address ({rp_id}){instead}")
    return Site(origin=f"{secure}://{host}", rp_id=rp_id)


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def registration_options(
    site: Site, user_handle: bytes, name: str, exclude: list[str]
) -> tuple[str, dict[str, Any]]:
    """The challenge (base64url) and the options of ``navigator.credentials.create``
    for a discoverable passkey with user verification; ``exclude``: the account's
    passkeys already registered (base64url ids)."""
    options = generate_registration_options(
        rp_id=site.rp_id,
        rp_name=RP_NAME,
        user_name=name,
        user_id=user_handle,
        user_display_name=name,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(credential))
            for credential in exclude
        ],
    )
    return bytes_to_base64url(options.challenge), json.loads(options_to_json(options))


def authentication_options(site: Site) -> tuple[str, dict[str, Any]]:
    """The challenge and the options of ``navigator.credentials.get`` for any passkey
    of this site (discoverable: the browser offers the person's own)."""
    options = generate_authentication_options(
        rp_id=site.rp_id,
        timeout=TIMEOUT_MS,
        user_verification=UserVerificationRequirement.REQUIRED,
    )
    return bytes_to_base64url(options.challenge), json.loads(options_to_json(options))


def verify_registration(credential: dict[str, Any], challenge: str, site: Site) -> NewPasskey:
    """The passkey a registration answer creates, or :class:`PasskeyError`."""
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=site.rp_id,
            expected_origin=site.origin,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as error:
        raise PasskeyError(f"the passkey's registration does not check out: {error}") from None
    response = credential.get("response")
    listed = response.get("transports") if isinstance(response, dict) else None
    transports = [t for t in listed if t in TRANSPORTS] if isinstance(listed, list) else []
    return NewPasskey(
        credential_id=bytes_to_base64url(verified.credential_id),
        public_key=bytes_to_base64url(verified.credential_public_key),
        sign_count=verified.sign_count,
        transports=",".join(transports),
    )


def credential_of(credential: dict[str, Any]) -> str:
    """The credential id (base64url) an authentication answer names, or
    :class:`PasskeyError`."""
    raw = credential.get("rawId", credential.get("id"))
    if not isinstance(raw, str) or not 1 <= len(raw) <= 1400:
        raise PasskeyError("expected the passkey's id as base64url text")
    try:
        return bytes_to_base64url(base64url_to_bytes(raw))
    except ValueError:
        raise PasskeyError("expected the passkey's id as base64url text") from None


def verify_authentication(
    credential: dict[str, Any], challenge: str, site: Site, public_key: str, sign_count: int
) -> int:
    """The passkey's new signature counter if the answer checks out (signed by the
    stored key over this challenge, origin and site, the user verified, the counter
    moving on when the authenticator keeps one), else :class:`PasskeyError`."""
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=site.rp_id,
            expected_origin=site.origin,
            credential_public_key=base64url_to_bytes(public_key),
            credential_current_sign_count=sign_count,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as error:
        raise PasskeyError(f"the passkey's answer does not check out: {error}") from None
    return int(verified.new_sign_count)
