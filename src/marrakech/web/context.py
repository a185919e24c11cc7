"""What the routes share: the app's settings and, while it runs, its rooms.

``create_app`` puts one :class:`WebContext` in ``app.state.web``; a route asks for it
with a parameter typed :data:`Context` (a FastAPI dependency that works for HTTP requests
and WebSockets alike). The app's lifespan opens the rooms (:meth:`WebContext.open`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from fastapi import Depends
from fastapi.requests import HTTPConnection

from marrakech.web.rooms import RoomManager
from marrakech.web.sqlite_store import SQLiteStore
from marrakech.web.store import GameStore


@dataclass
class WebContext:
    """The settings ``create_app`` was given (see there), and the rooms while it runs."""

    static_dir: Path
    db_path: str | Path | None
    store: GameStore | None
    synchronous: Literal["NORMAL", "FULL"]
    bot_delay: float
    seed: int | str | None
    bot_workers: int
    bot_processes: int
    rate: float
    burst: int
    hello_timeout: float
    rooms: RoomManager | None = None

    def open(self) -> RoomManager:
        """Open the store (the SQLite file unless a store was given) and its rooms."""
        store = self.store
        if store is None:
            store = SQLiteStore(str(self.db_path), synchronous=self.synchronous)
        self.rooms = RoomManager(
            store,
            bot_delay=self.bot_delay,
            seed=self.seed,
            bot_workers=self.bot_workers,
            bot_processes=self.bot_processes,
        )
        return self.rooms

    @property
    def manager(self) -> RoomManager:
        """The app's rooms (opened by the lifespan: use the app as a context manager)."""
        if self.rooms is None:
            raise RuntimeError("the app has not started: its lifespan opens the store")
        return self.rooms


def web_context(connection: HTTPConnection) -> WebContext:
    """The :class:`WebContext` of the app serving this request or WebSocket."""
    context: WebContext = connection.app.state.web
    return context


#: A route parameter typed ``Context`` receives the app's :class:`WebContext`.
Context = Annotated[WebContext, Depends(web_context)]
