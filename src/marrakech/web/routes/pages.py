"""The page: every path of the page serves ``static/index.html``, which routes itself.

The page is served with its links to its own files versioned by their content, and is
never cached (:mod:`marrakech.web.static_files`); those files are served under
``/static/`` by the app's static mount.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from marrakech.web.context import Context
from marrakech.web.static_files import NO_CACHE

router = APIRouter(include_in_schema=False)

#: The paths of the page: the lobby, a live game, the replay of an upload or of a game.
PAGES = ("/", "/g/{game_id}", "/r/upload", "/r/{game_id}")


async def page(context: Context) -> Response:
    if context.static.page is None:
        return HTMLResponse(
            "<!doctype html><title>Marrakech</title><p>The page files are missing "
            "(marrakech/web/static/index.html); the API is at /api.</p>",
            status_code=503,
        )
    return HTMLResponse(context.static.page, headers={"Cache-Control": NO_CACHE})


for _path in PAGES:
    router.add_api_route(_path, page, methods=["GET"])
