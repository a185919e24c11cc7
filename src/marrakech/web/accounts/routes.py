"""The accounts' HTTP API, under ``/api/account`` (docs/web-protocol.md, "Accounts").

Accounts are optional: every game works without one. Bodies are JSON, validated
strictly; answers that sign in set the session cookie (:mod:`~marrakech.web.accounts.
sessions`); a route for the signed-in account answers ``401`` (``unauthorized``)
without a live session.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request, Response

from marrakech.web.accounts import passkeys
from marrakech.web.accounts.export import iso
from marrakech.web.accounts.models import (
    AccountInfo,
    AccountState,
    Claim,
    Claimed,
    ConfirmDeletion,
    NewPassword,
    PasskeyAnswer,
    PasskeyInfo,
    PasskeyOptions,
    PasskeyStart,
    PasswordForm,
    RemovePasskey,
)
from marrakech.web.accounts.names import name_key
from marrakech.web.accounts.service import Account, Accounts, SignedIn, not_signed_in
from marrakech.web.accounts.sessions import (
    DEVICE_COOKIE,
    clear_session_cookie,
    set_device_cookie,
    set_session_cookie,
    signed_in,
)
from marrakech.web.context import Context
from marrakech.web.http_protocol import read_json_body
from marrakech.web.limits import client_key
from marrakech.web.protocol import ApiError, parse_body

router = APIRouter(prefix="/api/account")


async def _required(request: Request, accounts: Accounts) -> SignedIn:
    found = await signed_in(request, accounts)
    if found is None:
        raise not_signed_in()
    return found


async def _info(accounts: Accounts, account: Account) -> AccountInfo:
    rows = await accounts.credentials(account.id)
    passkeys = [
        PasskeyInfo(
            id=row["credential_id"],
            created=iso(row["created"]) or "",
            last_used=iso(row["last_used"]),
        )
        for row in rows
        if row["kind"] == "passkey"
    ]
    return AccountInfo(
        id=account.id,
        name=account.name,
        created=iso(account.created) or "",
        password=any(row["kind"] == "password" for row in rows),
        passkeys=len(passkeys),
        passkey_list=passkeys,
    )


async def _hand_over(
    request: Request, response: Response, accounts: Accounts, token: str, account: Account
) -> None:
    """Give the browser its new session, ending the one its cookie held (an older one,
    or another account's): one browser, one live session. Its device cookie says it
    signed in to ``account``: its own budget of sign-in tries from now on."""
    old = await signed_in(request, accounts)
    if old is not None:
        await accounts.sign_out(old)
    set_session_cookie(request, response, token)
    device = await accounts.devices.cookie(account.id, request.cookies.get(DEVICE_COOKIE))
    set_device_cookie(request, response, device)


def _site(request: Request) -> passkeys.Site:
    """The relying party of the request, or ``400 passkeys_unavailable`` (a page opened
    by an IP address: WebAuthn needs a name)."""
    try:
        return passkeys.site_of(request.url.scheme, request.headers.get("host", ""))
    except passkeys.PasskeyError as error:
        raise ApiError(400, "passkeys_unavailable", str(error)) from None


def _agent(request: Request) -> str:
    return request.headers.get("user-agent", "")


@router.get("")
async def account(request: Request, context: Context) -> AccountState:
    """The account this browser is signed in to, or ``{"account": null}``."""
    found = await signed_in(request, context.accounts)
    if found is None:
        return AccountState(account=None)
    return AccountState(account=await _info(context.accounts, found.account))


@router.post("/signup", status_code=201)
async def sign_up(request: Request, response: Response, context: Context) -> AccountState:
    """A new account with a password; the browser is signed in to it."""
    form = parse_body(PasswordForm, await read_json_body(request))
    accounts = context.accounts
    new, token = await accounts.sign_up(
        client_key(request.scope), form.name, form.password, _agent(request)
    )
    await _hand_over(request, response, accounts, token, new)
    return AccountState(account=await _info(accounts, new))


@router.post("/signin")
async def sign_in(request: Request, response: Response, context: Context) -> AccountState:
    """Sign in with a name and password (``401 bad_credentials`` for a wrong one, the
    same whether the name exists or not; limited per address, and per name from this
    address or from this device if it signed in to the account before)."""
    form = parse_body(PasswordForm, await read_json_body(request))
    accounts = context.accounts
    found, token = await accounts.sign_in(
        client_key(request.scope),
        form.name,
        form.password,
        _agent(request),
        request.cookies.get(DEVICE_COOKIE),
    )
    await _hand_over(request, response, accounts, token, found)
    return AccountState(account=await _info(accounts, found))


@router.post("/signout", status_code=204)
async def sign_out(request: Request, context: Context) -> Response:
    """End this browser's session (nothing to do without one)."""
    found = await signed_in(request, context.accounts)
    if found is not None:
        await context.accounts.sign_out(found)
    response = Response(status_code=204)
    clear_session_cookie(request, response)
    return response


@router.post("/signout-everywhere", status_code=204)
async def sign_out_everywhere(request: Request, context: Context) -> Response:
    """End every session of the account, on every device."""
    found = await _required(request, context.accounts)
    await context.accounts.sign_out_everywhere(found)
    response = Response(status_code=204)
    clear_session_cookie(request, response)
    return response


@router.post("/password")
async def set_password(request: Request, context: Context) -> AccountState:
    """Add a password, or change it (with the current one); other sessions end."""
    found = await _required(request, context.accounts)
    form = parse_body(NewPassword, await read_json_body(request))
    await context.accounts.set_password(found, form.password, form.current_password)
    return AccountState(account=await _info(context.accounts, found.account))


@router.post("/passkey/register/options")
async def passkey_register_options(request: Request, context: Context) -> PasskeyOptions:
    """Start registering a passkey: for a new account (``name``), or, signed in, one
    more for this account."""
    form = parse_body(PasskeyStart, await read_json_body(request))
    found = await signed_in(request, context.accounts)
    if found is not None and form.name is not None:
        raise ApiError(400, "bad_request", "name: expected none when signed in (sign out first)")
    challenge_id, options = await context.accounts.register_options(
        client_key(request.scope), _site(request), form.name, found
    )
    return PasskeyOptions(challenge_id=challenge_id, options=options)


@router.post("/passkey/register")
async def passkey_register(request: Request, response: Response, context: Context) -> AccountState:
    """Finish registering a passkey; a new account is signed in."""
    form = parse_body(PasskeyAnswer, await read_json_body(request))
    accounts = context.accounts
    found = await signed_in(request, accounts)
    account_now, token = await accounts.register(
        form.challenge_id, form.credential, _site(request), found, _agent(request)
    )
    if token is not None:
        await _hand_over(request, response, accounts, token, account_now)
        response.status_code = 201
    return AccountState(account=await _info(accounts, account_now))


@router.post("/passkey/remove")
async def remove_passkey(request: Request, context: Context) -> AccountState:
    """Remove one of the account's passkeys (not its last way to sign in)."""
    found = await _required(request, context.accounts)
    form = parse_body(RemovePasskey, await read_json_body(request))
    await context.accounts.remove_passkey(found, form.credential_id)
    return AccountState(account=await _info(context.accounts, found.account))


@router.post("/passkey/signin/options")
async def passkey_sign_in_options(request: Request, context: Context) -> PasskeyOptions:
    """Start signing in with a passkey of this site."""
    await read_json_body(request)
    challenge_id, options = await context.accounts.sign_in_options(
        client_key(request.scope), _site(request)
    )
    return PasskeyOptions(challenge_id=challenge_id, options=options)


@router.post("/passkey/signin")
async def passkey_sign_in(request: Request, response: Response, context: Context) -> AccountState:
    """Finish signing in with a passkey."""
    form = parse_body(PasskeyAnswer, await read_json_body(request))
    accounts = context.accounts
    found, token = await accounts.passkey_sign_in(
        form.challenge_id, form.credential, _site(request), _agent(request)
    )
    await _hand_over(request, response, accounts, token, found)
    return AccountState(account=await _info(accounts, found))


@router.post("/delete", status_code=204)
async def delete_account(request: Request, context: Context) -> Response:
    """Delete the account (its name as confirmation): its games stay, its seats are
    named "deleted player"; every session ends."""
    found = await _required(request, context.accounts)
    form = parse_body(ConfirmDeletion, await read_json_body(request))
    if name_key(form.name) != name_key(found.account.name):
        raise ApiError(400, "bad_request", "name: expected the account's own name, to confirm")
    await context.accounts.delete(found)
    response = Response(status_code=204)
    clear_session_cookie(request, response)
    return response


@router.get("/export")
async def export(request: Request, context: Context) -> Response:
    """All the account's data, as a JSON download."""
    found = await _required(request, context.accounts)
    data = await context.accounts.export(found)
    return Response(
        json.dumps(data, ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={
            "Content-Disposition": 'attachment; filename="marrakech-account.json"',
            "Cache-Control": "no-store",
        },
    )


@router.post("/claim")
async def claim(request: Request, context: Context) -> Claimed:
    """Link to the account the guest seats this device holds the tokens of."""
    found = await _required(request, context.accounts)
    form = parse_body(Claim, await read_json_body(request))
    seats = [(seat.game_id, seat.token) for seat in form.seats]
    return Claimed(games=await context.accounts.claim(found, seats))
