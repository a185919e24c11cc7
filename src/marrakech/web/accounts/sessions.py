"""The session cookie: how a browser stays signed in.

The cookie holds 256 random bits (the store keeps only their SHA-256); it is
``HttpOnly`` (the page's scripts never see it), ``SameSite=Lax`` (other sites' forms and
scripts do not carry it; every state-changing request is also same-origin JSON, see
:class:`~marrakech.web.security.Guard`), ``Secure`` when the request came over TLS
(behind a trusted proxy, as it forwarded), for the whole site, for at most a year. The
server ends a session unused for 30 days (:data:`~marrakech.web.accounts.service.
SESSION_IDLE`), and at sign-out at once: a copied cookie is worth nothing after it.
"""

from __future__ import annotations

from fastapi import Request, Response

from marrakech.web.accounts.service import SESSION_MAX, Accounts, SignedIn

#: The cookie's name.
COOKIE = "marrakech_session"


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


def clear_session_cookie(request: Request, response: Response) -> None:
    """Take the session back from the browser (the server has ended it already)."""
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


async def signed_in(request: Request, accounts: Accounts) -> SignedIn | None:
    """The account of the request's session cookie, or None."""
    return await accounts.session(request.cookies.get(COOKIE))
