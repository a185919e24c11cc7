"""What every response carries, what the logs never show, and who may change anything.

- :class:`SecurityHeaders` adds a strict Content-Security-Policy and friends to every
  HTTP response, errors included;
- :class:`Guard`, inside it, answers ``OPTIONS`` and ``HEAD`` for every path, refuses a
  state-changing request or a WebSocket from another site (:func:`cross_site`), and turns
  any unexpected failure into a JSON ``500`` (one log line, the connection kept);
- :class:`HideFrames` keeps the WebSocket libraries from logging whole frames (a
  ``hello`` frame holds seat tokens, and tokens are never logged).

The same-origin rule (:func:`cross_site`) follows what browsers send: every cross-site
``POST`` and every WebSocket handshake carries an ``Origin``; requests without one (no
browser: curl, scripts) cannot ride on a visitor's browser, so they pass::

    >>> headers = {"host": "games.example.org", "origin": "https://games.example.org"}
    >>> cross_site(headers, frozenset(), "https") is None
    True
    >>> evil = {**headers, "origin": "https://evil.example"}
    >>> cross_site(evil, frozenset(), "https")
    'https://evil.example'
    >>> cross_site(evil, frozenset({"https://evil.example"}), "https")

The scheme counts as much as the host and port: a page served over plain HTTP (an
attacker on the network may write it) is another origin than the site over TLS::

    >>> cross_site(headers, frozenset(), "http")
    'https://games.example.org'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders

from marrakech.web.protocol import HttpError

log = logging.getLogger("marrakech.web")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Methods that change nothing: never refused for their origin.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: What ``OPTIONS`` answers for any path (no CORS: other sites get no permission).
ALLOWED_METHODS = "GET, HEAD, POST, OPTIONS"
#: Paths other sites may POST to: RFC 8058's one-click unsubscribe comes from the mail
#: provider (or its webmail page), and the link's own signed token is its authority.
CROSS_SITE_PATHS = frozenset({"/mail/unsubscribe"})


class HideFrames(logging.Filter):
    """Drop the WebSocket libraries' debug lines that show whole frames: a ``hello``
    frame holds seat tokens, and tokens are never logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG:
            return True
        message = record.msg if isinstance(record.msg, str) else ""
        return not message.startswith(("< ", "> ", "% "))


def hide_frames() -> None:
    """Put :class:`HideFrames` on the loggers of uvicorn and websockets (once)."""
    for name in ("uvicorn.error", "websockets", "websockets.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, HideFrames) for f in logger.filters):
            logger.addFilter(HideFrames())


def header_map(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the last one of a repeated name)."""
    return {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}


def normal_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, without a path (how browsers send it).

    >>> normal_origin("HTTPS://Games.Example.org:8443/")
    'https://games.example.org:8443'
    """
    parts = urlsplit(origin.strip())
    return f"{parts.scheme}://{parts.netloc}".lower()


def host_name(host: str) -> str:
    """A ``Host`` header's name, without its port (an IPv6 address without brackets).

    >>> host_name("Games.Example.org:8000"), host_name("[::1]:8000"), host_name("localhost")
    ('games.example.org', '::1', 'localhost')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


#: The port a scheme means when a URL names none.
DEFAULT_PORTS = {"http": "80", "https": "443"}


def site_of(scheme: str, host: str) -> str:
    """The origin a request was sent to: ``scheme://host[:port]`` in lower case, a
    WebSocket's scheme as its page's (``wss`` is ``https``), the scheme's default port
    left out (as browsers write an ``Origin``).

    >>> site_of("wss", "Games.Example.org:443"), site_of("http", "127.0.0.1:8300")
    ('https://games.example.org', 'http://127.0.0.1:8300')
    """
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme).lower()
    host = host.strip().lower()
    port = DEFAULT_PORTS.get(scheme)
    if port is not None and host.endswith(f":{port}") and not host.endswith("]"):
        host = host[: -len(port) - 1]
    return f"{scheme}://{host}"


def cross_site(headers: Mapping[str, str], allowed: frozenset[str], scheme: str) -> str | None:
    """The origin of a request from another site, or None if it may go on.

    Same-origin means the ``Origin``'s scheme, host and port are those the request was
    sent to: ``scheme`` (the ASGI scope's, which behind a trusted proxy is the one it
    forwarded in ``X-Forwarded-Proto``) and the ``Host`` (which the proxy passes on);
    ``allowed`` lists other origins (``https://games.example.org``) that may act too. A
    browser that says the request is cross-site (``Sec-Fetch-Site``) without an
    ``Origin`` is refused as well.
    """
    origin = headers.get("origin")
    if origin is None:
        site = headers.get("sec-fetch-site", "same-origin")
        return None if site in ("same-origin", "none") else f"a {site} request"
    if origin == "null":
        return origin
    normal = normal_origin(origin)
    if normal in allowed:
        return None
    host = headers.get("host", "")
    if host and site_of(*normal.split("://", 1)) == site_of(scheme, host):
        return None
    return origin[:100]


def error_body(status: int, code: str, message: str) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """An :class:`~marrakech.web.protocol.HttpError` body and its headers."""
    body = HttpError.model_validate({"error": code, "message": message})
    data = body.model_dump_json().encode()
    return data, [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
    ]


async def send_error(send: Send, status: int, code: str, message: str) -> None:
    data, headers = error_body(status, code, message)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


class Guard:
    """Around the app: ``OPTIONS`` and ``HEAD`` for every path, the same-origin rule for
    state-changing requests and WebSockets, and a JSON ``500`` for any failure."""

    def __init__(
        self,
        app: ASGIApp,
        allowed_origins: frozenset[str] = frozenset(),
        allowed_hosts: frozenset[str] | None = None,
    ) -> None:
        self.app = app
        self.allowed_origins = frozenset(normal_origin(origin) for origin in allowed_origins)
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind in ("http", "websocket") and self.allowed_hosts is not None:
            host = host_name(header_map(scope).get("host", ""))
            # No Host at all is no browser (a health check, a script): browsers always
            # send one, and only a browser can be made to visit a rebound name.
            if host and host not in self.allowed_hosts:
                message = self._host_message(host)
                if kind == "http":
                    await send_error(send, 403, "forbidden", message)
                else:
                    await self._deny_websocket(scope, send, message)
                return
        if kind == "websocket":
            refused = cross_site(header_map(scope), self.allowed_origins, scope["scheme"])
            if refused is not None:
                await self._deny_websocket(scope, send, self._origin_message(refused))
                return
            await self.app(scope, receive, send)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        if method == "OPTIONS":
            await send(
                {
                    "type": "http.response.start",
                    "status": 204,
                    "headers": [(b"allow", ALLOWED_METHODS.encode())],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        if method not in SAFE_METHODS and scope["path"] not in CROSS_SITE_PATHS:
            refused = cross_site(header_map(scope), self.allowed_origins, scope["scheme"])
            if refused is not None:
                await send_error(send, 403, "forbidden", self._origin_message(refused))
                return
        if method == "HEAD":  # answered as GET, without the body
            scope = {**scope, "method": "GET"}
            send = _without_body(send)
        await self._run(scope, receive, send)

    async def _run(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as error:
            log.error(
                "%s %s failed: %s: %s",
                scope["method"],
                scope["path"][:100],
                type(error).__name__,
                str(error)[:200],
                exc_info=not isinstance(error, RecursionError),
            )
            if not started:
                await send_error(send, 500, "server_error", "the server failed on this request")

    def _host_message(self, host: str) -> str:
        names = ", ".join(sorted(self.allowed_hosts or ()))
        return (
            f"this server answers to {names}, not to {host[:80]!r}: another site's name "
            "cannot be pointed at it (its --allowed-host lists the names)"
        )

    def _origin_message(self, origin: str) -> str:
        return (
            f"requests that change something must come from this site's own pages, found "
            f"{origin} (the server's --allow-origin lists other sites)"
        )

    async def _deny_websocket(self, scope: Scope, send: Send, message: str) -> None:
        await deny_websocket(scope, send, 403, "forbidden", message)


async def deny_websocket(
    scope: Scope, send: Send, status: int, code: str, message: str, close_code: int = 1008
) -> None:
    """Refuse a WebSocket at its handshake, before it is accepted: an HTTP ``status``
    with the JSON error (the cheapest answer, and no socket is opened); where the server
    cannot send a body, a plain ``403``."""
    if "websocket.http.response" in scope.get("extensions", {}):
        data, headers = error_body(status, code, message)
        start = {"type": "websocket.http.response.start", "status": status, "headers": headers}
        await send(start)
        await send({"type": "websocket.http.response.body", "body": data})
    else:  # the server then answers 403 itself
        await send({"type": "websocket.close", "code": close_code})


def security_headers(host: str) -> list[tuple[str, str]]:
    """The headers every answer carries: the page may load scripts, styles and images
    only from this server (no inline scripts), talk only to it (HTTP and WebSocket), and
    cannot be framed. ``host`` is the request's ``Host`` (named for older browsers)."""
    # 'self' covers ws: in current browsers; naming the host keeps older ones working.
    sockets = f" ws://{host} wss://{host}" if re.fullmatch(r"[\w.:\[\]-]+", host) else ""
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'{sockets}; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    )
    return [
        ("Content-Security-Policy", policy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]


def _without_body(send: Send) -> Send:
    async def head(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return head


class SecurityHeaders:
    """Add a strict Content-Security-Policy and friends to every HTTP response.

    The page may load scripts, styles and images only from this server (no inline
    scripts), talk only to this server (HTTP and WebSocket), and cannot be framed.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = ""
        for name, value in scope.get("headers", ()):
            if name == b"host":
                host = value.decode("latin-1")
        headers_for_host = security_headers(host)

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in headers_for_host:
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)
