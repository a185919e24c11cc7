"""The session cookie: how a browser stays signed in.

The cookie holds 256 random bits (the store keeps only their SHA-256); it is
``HttpOnly`` (the page's scripts never see it), ``SameSite=Lax`` (other sites' forms and
scripts do not carry it; every state-changing request is also same-origin JSON, see
:class:`~marrakech.web.security.Guard`), ``Secure`` when the request came over TLS
(behind a trusted proxy, as it forwarded), for the whole site, for at most a year. The
server ends a session unused for 30 days (:data:`~marrakech.web.accounts.service.
SESSION_IDLE`), and at sign-out at once: a copied cookie is worth nothing after it.

The device cookie (:data:`DEVICE_COOKIE`) stays after sign-out: signed by the server,
it says this device signed in to an account before, which gives the device its own
budget of sign-in tries for that account (:data:`~marrakech.web.accounts.service.
SIGN_IN_TRIES`), out of reach of whoever floods the name with wrong passwords.
"""

from __future__ import annotations

from fastapi import Request, Response

from marrakech.web.accounts.service import SESSION_MAX, Accounts, SignedIn

#: The cookie's name.
COOKIE = "marrakech_session"
#: The device cookie's name (one account a device: the last one it signed in to).
DEVICE_COOKIE = "marrakech_device"


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    """Give the browser its session."""
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(SESSION_MAX),
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def set_device_cookie(request: Request, response: Response, value: str) -> None:
    """Tell the browser it signed in here (kept a year, as a session at most)."""
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=int(SESSION_MAX),
        path="/api/account",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    """Take the session back from the browser (the server has ended it already)."""
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


async def signed_in(request: Request, accounts: Accounts) -> SignedIn | None:
    """The account of the request's session cookie, or None."""
    return await accounts.session(request.cookies.get(COOKIE))
