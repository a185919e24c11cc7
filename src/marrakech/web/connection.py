"""One connected browser as the server sees it: its seats, its language, its outbox.

A room hands each :class:`Client` its messages; the connection's own task
(:mod:`marrakech.web.routes.socket`) writes them to the WebSocket in order. While that
task has nothing waiting, a message is written at once, without the trip through the
outbox and the task (:attr:`Client.write_now`): under load that trip was a large part of
what an update costs the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

log = logging.getLogger("marrakech.web")


class Client:
    """One WebSocket connection as a room sees it: its seats, its language, its outbox.

    Messages are queued and written by the connection's own task, so one slow browser
    never delays a game; a browser that falls ``queue_size`` messages behind is dropped
    (it reconnects and gets a fresh ``welcome``).
    """

    def __init__(
        self,
        seats: frozenset[int],
        lang: str,
        queue_size: int = 256,
        tokens: dict[int, str] | None = None,
        address: str = "",
        bot: bool = False,
        account: str | None = None,
        blocked: frozenset[str] = frozenset(),
    ) -> None:
        self.seats = seats
        #: The connection declared itself a program playing its seats (an external bot).
        self.bot = bot
        #: Who is connected, for per-client limits (:func:`marrakech.web.limits.client_key`).
        self.address = address
        #: The signed-in account of the connection (None: a guest), for per-account limits.
        self.account = account
        #: The accounts it blocked (their chat lines are hidden from it).
        self.blocked = blocked
        self.lang = lang
        #: The token of each seat held (in memory only: a rematch's tokens derive from
        #: them, :func:`marrakech.web.room.rematch_token`).
        self.tokens = tokens or {}
        #: The seats whose chat this connection asked not to see (the page remembers
        #: them on its device and says them again after each welcome).
        self.muted: set[int] = set()
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.closed = False
        #: Writes a text to the socket at once, or says False (its socket's buffer is
        #: full, the connection is closing): set by the connection's task once the
        #: WebSocket is open (:data:`marrakech.web.http_protocol.WRITE_TEXT`).
        self.write_now: Callable[[str], bool] | None = None
        #: The connection's task took a message from the outbox and has not written it
        #: yet: a message now must queue behind it.
        self.writing = False

    def send(self, text: str) -> None:
        if self.closed:
            return
        if (
            self.write_now is not None
            and not self.writing
            and self.outbox.empty()
            and self.write_now(text)
        ):
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dropping a connection that fell %d messages behind", self.outbox.qsize())
            self.close()

    def close(self) -> None:
        """Stop sending: the connection's writer sees ``None`` and closes the socket."""
        if self.closed:
            return
        self.closed = True
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.outbox.put_nowait(None)
