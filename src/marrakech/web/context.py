"""What the routes share: the app's settings and, while it runs, its rooms.

``create_app`` puts one :class:`WebContext` in ``app.state.web``; a route asks for it
with a parameter typed :data:`Context` (a FastAPI dependency that works for HTTP requests
and WebSockets alike). The lifespan sets :attr:`WebContext.manager` at start.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from fastapi import Depends
from fastapi.requests import HTTPConnection

from marrakech.web.rooms import RoomManager


@dataclass
class WebContext:
    """The settings ``create_app`` was given, and the rooms once the app has started."""

    static_dir: Path
    db_path: str | Path | None
    rate: float
    burst: int
    hello_timeout: float
    rooms: RoomManager | None = None

    @property
    def manager(self) -> RoomManager:
        """The app's rooms (set by the lifespan: use the app as a context manager in tests)."""
        if self.rooms is None:
            raise RuntimeError("the app has not started: its lifespan opens the store")
        return self.rooms


def web_context(connection: HTTPConnection) -> WebContext:
    """The :class:`WebContext` of the app serving this request or WebSocket."""
    context: WebContext = connection.app.state.web
    return context


#: A route parameter typed ``Context`` receives the app's :class:`WebContext`.
Context = Annotated[WebContext, Depends(web_context)]
