"""The reminders' routes (issue 25; docs/web-protocol.md, "Reminders"):

- ``/api/mail/account`` (GET, POST) and ``/api/mail/account/remove``: the signed-in
  account's address, for every game of its seats;
- ``/api/mail/seat``, ``/api/mail/seat/remove`` and ``/api/mail/seat/mute``: one seat
  of one game, shown by the seat's token (a guest's address for that game, and the
  seat's per-game mute, signed in or not);
- ``/mail/verify`` and ``/mail/unsubscribe``: the pages the emails link to. ``GET``
  only shows a page with a button (mail scanners that open links change nothing);
  the button, or a mail client's RFC 8058 one-click ``POST``, does it, once. A forged,
  used or expired link gets a page saying so, and changes nothing.

A server without ``--smtp-url`` answers ``404`` (``not_found``) on all of them.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qs

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import Field

from marrakech.web.accounts.sessions import signed_in
from marrakech.web.context import Context, WebContext
from marrakech.web.http_protocol import read_body, read_json_body
from marrakech.web.limits import client_key
from marrakech.web.protocol import ApiError, parse_body
from marrakech.web.protocol.client import StrictModel
from marrakech.web.reminders.service import (
    AddressState,
    LinkOutcome,
    Reminders,
    account_owner,
    seat_owner,
)
from marrakech.web.store import hash_token

router = APIRouter()


class EmailInfo(StrictModel):
    """An address as its owner sees it: ``status`` is ``pending`` (the link not
    followed yet), ``verified``, ``unsubscribed`` or ``undeliverable``."""

    address: str
    lang: str
    status: str


class AccountMail(StrictModel):
    email: EmailInfo | None


class NewAddress(StrictModel):
    address: str = Field(max_length=300)
    lang: str = Field(max_length=5)


class SeatAsk(StrictModel):
    """One seat of one game, by its token (the page holds it)."""

    game: str = Field(max_length=40)
    token: str = Field(max_length=100)


class SeatAddress(SeatAsk):
    address: str = Field(max_length=300)
    lang: str = Field(max_length=5)


class SeatMute(SeatAsk):
    muted: bool


class SeatMail(StrictModel):
    """A seat's reminders: its own address (a guest's, for this game), whether its
    account has a verified address, and whether the game is muted."""

    email: EmailInfo | None
    account_email: EmailInfo | None
    muted: bool


def _reminders(context: WebContext) -> Reminders:
    found = context.reminders
    if found is None or found.channel is None:
        raise ApiError(404, "not_found", "this server sends no reminders (no --smtp-url)")
    return found


def _info(state: AddressState | None) -> EmailInfo | None:
    return None if state is None else EmailInfo(**vars(state))


def _limit(context: WebContext, request: Request) -> None:
    """Each address given sends a message: a few per client, so nobody floods a stranger."""
    context.mail_rates.check(client_key(request.scope), "email addresses")


async def _account(request: Request, context: WebContext) -> str:
    found = await signed_in(request, context.accounts)
    if found is None:
        raise ApiError(401, "unauthorized", "expected to be signed in: sign in first")
    return found.account.id


async def _seat(reminders: Reminders, ask: SeatAsk) -> tuple[int, str | None]:
    """The seat the token holds in the game, and its account; 403 for any other token."""
    found = await reminders.seat_of_token(ask.game, hash_token(ask.token))
    if found is None:
        raise ApiError(403, "forbidden", "expected the token of a seat of this game")
    return found


async def _seat_mail(reminders: Reminders, game: str, seat: int, account: str | None) -> SeatMail:
    return SeatMail(
        email=_info(await reminders.address(seat_owner(game, seat))),
        account_email=_info(await reminders.address(account_owner(account))) if account else None,
        muted=await reminders.muted(game, seat),
    )


# -- the account's address ----------------------------------------------------------------


@router.get("/api/mail/account")
async def account_mail(request: Request, context: Context) -> AccountMail:
    """The signed-in account's address (``401`` without a session)."""
    reminders = _reminders(context)
    account = await _account(request, context)
    return AccountMail(email=_info(await reminders.address(account_owner(account))))


@router.post("/api/mail/account", status_code=202)
async def set_account_mail(request: Request, context: Context) -> AccountMail:
    """Give the account an address (replacing any); a verification link goes to it."""
    reminders = _reminders(context)
    form = parse_body(NewAddress, await read_json_body(request))
    account = await _account(request, context)
    _limit(context, request)
    state = await reminders.set_address(
        account_owner(account), form.address, form.lang, account_id=account
    )
    return AccountMail(email=_info(state))


@router.post("/api/mail/account/remove")
async def remove_account_mail(request: Request, context: Context) -> AccountMail:
    reminders = _reminders(context)
    account = await _account(request, context)
    await reminders.remove_address(account_owner(account))
    return AccountMail(email=None)


# -- one seat -------------------------------------------------------------------------


@router.post("/api/mail/seat")
async def seat_mail(request: Request, context: Context) -> SeatMail:
    """A seat's reminders; with ``address`` and ``lang``, give the seat that address
    for this game (a verification link goes to it)."""
    reminders = _reminders(context)
    body = await read_json_body(request)
    if b'"address"' in body:
        form: SeatAsk = parse_body(SeatAddress, body)
    else:
        form = parse_body(SeatAsk, body)
    seat, account = await _seat(reminders, form)
    if isinstance(form, SeatAddress):
        _limit(context, request)
        await reminders.set_address(
            seat_owner(form.game, seat),
            form.address,
            form.lang,
            game_id=form.game,
            seat=seat,
            token_hash=hash_token(form.token),
        )
    return await _seat_mail(reminders, form.game, seat, account)


@router.post("/api/mail/seat/remove")
async def remove_seat_mail(request: Request, context: Context) -> SeatMail:
    reminders = _reminders(context)
    form = parse_body(SeatAsk, await read_json_body(request))
    seat, account = await _seat(reminders, form)
    await reminders.remove_address(seat_owner(form.game, seat))
    return await _seat_mail(reminders, form.game, seat, account)


@router.post("/api/mail/seat/mute")
async def mute_seat(request: Request, context: Context) -> SeatMail:
    """Mute (or unmute) this game's reminders for the seat, whichever address it uses."""
    reminders = _reminders(context)
    form = parse_body(SeatMute, await read_json_body(request))
    seat, account = await _seat(reminders, form)
    await reminders.set_muted(form.game, seat, form.muted)
    return await _seat_mail(reminders, form.game, seat, account)


# -- the pages the emails link to -------------------------------------------------------

PAGE_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "verify.title": "Confirm your email address",
        "verify.ask": "Confirm this address to get reminders of your Marrakech games.",
        "verify.button": "Confirm",
        "verify.done": "Your address is confirmed: reminders will come to it.",
        "unsubscribe.title": "Unsubscribe from reminders",
        "unsubscribe.ask": "Stop every Marrakech reminder to this address?",
        "unsubscribe.button": "Unsubscribe",
        "unsubscribe.done": "Done: no more reminders will come to this address.",
        "forged": "This link is not valid (it was not made by this site, or it was cut): "
        "nothing changed.",
        "used": "This link was used already, or its address changed since: nothing changed.",
        "expired": "This link has expired: nothing changed. Give your address again on the "
        "site to get a new one.",
        "back": "Back to Marrakech",
    },
    "fr": {
        "verify.title": "Confirmez votre adresse",
        "verify.ask": "Confirmez cette adresse pour recevoir les rappels de vos parties de "
        "Marrakech.",
        "verify.button": "Confirmer",
        "verify.done": "Votre adresse est confirmée : les rappels y seront envoyés.",
        "unsubscribe.title": "Se désabonner des rappels",
        "unsubscribe.ask": "Arrêter tous les rappels de Marrakech à cette adresse ?",
        "unsubscribe.button": "Se désabonner",
        "unsubscribe.done": "C’est fait : plus aucun rappel ne viendra à cette adresse.",
        "forged": "Ce lien n’est pas valable (il ne vient pas de ce site, ou il a été "
        "coupé) : rien n’a changé.",
        "used": "Ce lien a déjà servi, ou son adresse a changé depuis : rien n’a changé.",
        "expired": "Ce lien a expiré : rien n’a changé. Donnez de nouveau votre adresse sur le "
        "site pour en recevoir un autre.",
        "back": "Retour à Marrakech",
    },
}


def _lang(request: Request) -> str:
    lang = request.query_params.get("lang", "")
    if lang not in PAGE_WORDS:
        accepted = request.headers.get("accept-language", "").lower()
        lang = "fr" if accepted.startswith("fr") else "en"
    return lang


def _page(lang: str, title: str, text: str, status: int, form: str = "") -> HTMLResponse:
    e = html.escape
    w = PAGE_WORDS[lang]
    body = (
        f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} · Marrakech</title>"
        '<link rel="stylesheet" href="/static/css/mail.css"></head>\n'
        f'<body><main class="mail-page"><h1>{e(title)}</h1>\n'
        f'<p id="outcome" data-status="{status}">{e(text)}</p>\n{form}'
        f'<p><a href="/">{e(w["back"])}</a></p></main></body></html>\n'
    )
    return HTMLResponse(body, status, headers={"Cache-Control": "no-store"})


def _refusal(lang: str, title: str, outcome: LinkOutcome) -> HTMLResponse:
    status = {"forged": 400, "used": 410, "expired": 410}[outcome]
    return _page(lang, title, PAGE_WORDS[lang][outcome], status)


async def _token(request: Request) -> str:
    """The link's token: in its query (the link itself), or the page's form field."""
    token = request.query_params.get("t", "")
    if not token and request.method == "POST":
        # A form body (the page's button); parsed here: no multipart parser needed.
        fields = parse_qs((await read_body(request)).decode("utf-8", "replace"))
        token = fields.get("t", [""])[0]
    return token


async def _link_page(request: Request, context: WebContext, purpose: str) -> HTMLResponse:
    reminders = _reminders(context)
    lang = _lang(request)
    w = PAGE_WORDS[lang]
    title = w[f"{purpose}.title"]
    token = await _token(request)
    outcome = await reminders.check_link(token, purpose)
    if outcome != "done":
        return _refusal(lang, title, outcome)
    e = html.escape
    form = (
        f'<form method="post" action="/mail/{purpose}?lang={lang}">'
        f'<input type="hidden" name="t" value="{e(token)}">'
        f'<button type="submit">{e(w[f"{purpose}.button"])}</button></form>\n'
    )
    return _page(lang, title, w[f"{purpose}.ask"], 200, form)


@router.get("/mail/verify", include_in_schema=False)
async def verify_page(request: Request, context: Context) -> Response:
    return await _link_page(request, context, "verify")


@router.post("/mail/verify", include_in_schema=False)
async def verify(request: Request, context: Context) -> Response:
    reminders = _reminders(context)
    lang = _lang(request)
    title = PAGE_WORDS[lang]["verify.title"]
    outcome = await reminders.verify(await _token(request))
    if outcome != "done":
        return _refusal(lang, title, outcome)
    return _page(lang, title, PAGE_WORDS[lang]["verify.done"], 200)


@router.get("/mail/unsubscribe", include_in_schema=False)
async def unsubscribe_page(request: Request, context: Context) -> Response:
    return await _link_page(request, context, "unsubscribe")


@router.post("/mail/unsubscribe", include_in_schema=False)
async def unsubscribe(request: Request, context: Context) -> Response:
    """The page's button, or RFC 8058's one-click ``POST`` (``List-Unsubscribe=
    One-Click`` in a form body, the token in the link's query)."""
    reminders = _reminders(context)
    lang = _lang(request)
    title = PAGE_WORDS[lang]["unsubscribe.title"]
    outcome = await reminders.unsubscribe(await _token(request))
    if outcome != "done":
        return _refusal(lang, title, outcome)
    return _page(lang, title, PAGE_WORDS[lang]["unsubscribe.done"], 200)
