"""The page: every path of the page serves ``static/index.html``, which routes itself.

The page's own files (scripts, styles, images) are served under ``/static/`` by the
app's static mount.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from marrakech.web.context import Context

router = APIRouter(include_in_schema=False)

#: The paths of the page: the lobby, a live game, the replay of an upload or of a game.
PAGES = ("/", "/g/{game_id}", "/r/upload", "/r/{game_id}")


async def page(context: Context) -> Response:
    index = context.static_dir / "index.html"
    if not index.is_file():
        return HTMLResponse(
            "<!doctype html><title>Marrakech</title><p>The page files are missing "
            "(marrakech/web/static/index.html); the API is at /api.</p>",
            status_code=503,
        )
    return FileResponse(index, headers={"Cache-Control": "no-cache"})


for _path in PAGES:
    router.add_api_route(_path, page, methods=["GET"])
