"""``GET /api/watchlist``: the lobby's games to watch (issue 37, item 5;
docs/web-protocol.md, "Games to watch"): a few live games anyone may watch, the most
interesting first (:mod:`marrakech.web.store.watchlist_queries` says which and in what
order), each as the lobby lists a game plus the link that watches it (the game page
without a seat token: a spectator's).
"""

from __future__ import annotations

import time

from fastapi import APIRouter

from marrakech.web.context import Context
from marrakech.web.protocol import GameSummary
from marrakech.web.routes.api import game_summary
from marrakech.web.store.queries import Statement
from marrakech.web.store.schema import Dialects
from marrakech.web.store.watchlist_queries import WatchlistQueries

router = APIRouter(prefix="/api")

#: How many games the lobby shows.
WATCHLIST_SIZE = 8
#: A game that has not moved for this long (seconds) is not live: its players left it
#: (a turn-based game's players move hours apart: it is not one to watch live either).
LIVE_SECONDS = 30 * 60

_queries: dict[str, Statement] = {}


class WatchedGame(GameSummary):
    """A game to watch: its summary and ``watch_link``, its spectator view."""

    watch_link: str


def _live(dialect: Dialects) -> Statement:
    """The statement for the store's dialect, compiled once."""
    if dialect not in _queries:
        _queries[dialect] = WatchlistQueries(dialect).live
    return _queries[dialect]


@router.get("/watchlist")
async def watchlist(context: Context) -> list[WatchedGame]:
    """The live games to watch, the most interesting first, at most
    :data:`WATCHLIST_SIZE`."""
    manager = context.manager
    store = manager.store
    live = _live("postgresql" if store.dialect == "postgresql" else "sqlite")
    params = live.params({"since": time.time() - LIVE_SECONDS, "limit": WATCHLIST_SIZE})
    (rows,) = await store.transact([(live.sql, params)])
    found = await store.summaries([row["id"] for row in rows])
    return [
        WatchedGame(**game_summary(manager, game).model_dump(), watch_link=f"/g/{game.id}")
        for game in found
        if game.status == "running"  # moved on between the two reads: not live now
    ]
