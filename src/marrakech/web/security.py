"""What every response carries and what the logs never show.

:class:`SecurityHeaders` adds a strict Content-Security-Policy and friends to every HTTP
response; :class:`HideFrames` keeps the WebSocket libraries from logging whole frames (a
``hello`` frame holds seat tokens, and tokens are never logged).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.datastructures import MutableHeaders


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


class SecurityHeaders:
    """Add a strict Content-Security-Policy and friends to every HTTP response.

    The page may load scripts, styles and images only from this server (no inline
    scripts), talk only to this server (HTTP and WebSocket), and cannot be framed.
    """

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = ""
        for name, value in scope.get("headers", ()):
            if name == b"host":
                host = value.decode("latin-1")
        # 'self' covers ws: in current browsers; naming the host keeps older ones working.
        sockets = f" ws://{host} wss://{host}" if re.fullmatch(r"[\w.:\[\]-]+", host) else ""
        policy = (
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            f"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'{sockets}; "
            "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
        )

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", policy)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
            await send(message)

        await self.app(scope, receive, with_headers)
