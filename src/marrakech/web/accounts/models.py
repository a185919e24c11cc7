"""The accounts' HTTP bodies (``/api/account/...``), validated strictly like the rest
of the protocol (:class:`~marrakech.web.protocol.StrictModel`: no extra field, no type
coercion), and their answers."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, StringConstraints

from marrakech.web.protocol import StrictModel

#: Long enough for any name (the name's own rules say more) or password.
Text = Annotated[str, StringConstraints(max_length=1024)]
ShortText = Annotated[str, StringConstraints(max_length=200)]


class PasswordForm(StrictModel):
    """Sign up or sign in with a password."""

    name: ShortText
    password: Text


class NewPassword(StrictModel):
    """Add a password to the account, or change it (then the current one too)."""

    password: Text
    current_password: Text | None = None


class PasskeyStart(StrictModel):
    """Start registering a passkey: ``name`` for a new account, none when signed in."""

    name: ShortText | None = None


class PasskeyAnswer(StrictModel):
    """A browser's answer to a passkey ceremony (``PublicKeyCredential`` as JSON)."""

    challenge_id: ShortText
    credential: dict[str, Any]


class RemovePasskey(StrictModel):
    """Remove one of the account's passkeys, by its id (base64url)."""

    credential_id: ShortText


class ConfirmDeletion(StrictModel):
    """Deleting an account says its name, as a confirmation."""

    name: ShortText


class GuestSeat(StrictModel):
    """A seat this device holds the token of."""

    game_id: ShortText
    token: ShortText


class Claim(StrictModel):
    """The guest seats to link to the signed-in account."""

    seats: Annotated[list[GuestSeat], Field(max_length=200)]


class PasskeyInfo(BaseModel):
    """One of the account's passkeys: its id (base64url), when it was added and last used."""

    id: str
    created: str
    last_used: str | None


class AccountInfo(BaseModel):
    """The signed-in account as the page shows it."""

    id: str
    name: str
    created: str
    password: bool
    passkeys: int
    passkey_list: list[PasskeyInfo]


class AccountState(BaseModel):
    """``GET /api/account``: the account signed in, or none."""

    account: AccountInfo | None


class PasskeyOptions(BaseModel):
    """A ceremony started: its id (send it back with the answer) and the options for
    ``navigator.credentials.create`` or ``.get`` (bytes as base64url)."""

    challenge_id: str
    options: dict[str, Any]


class Claimed(BaseModel):
    """The games whose seat was linked to the account now."""

    games: list[str]
