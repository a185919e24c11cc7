"""The page: every path of the page serves ``static/index.html``, which routes itself;
and what makes the site an installable app: its manifest, its service worker (served
from the root, so that it may control every page) and the page it shows offline.

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

#: The paths of the page: the lobby, a live game, the replay of an upload or of a game,
#: the tutorial, the leaderboard, a player's profile and the player's games (where the
#: installed app opens), a tournament.
PAGES = (
    "/",
    "/g/{game_id}",
    "/r/upload",
    "/r/{game_id}",
    "/learn",
    "/leaderboard",
    "/players/{name:path}",
    "/my-games",
    "/t/{tournament_id}",
)


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


async def _static_file(context: Context, name: str, media_type: str) -> Response:
    path = context.static_dir / name
    if not path.is_file():
        return Response(status_code=404)
    data = path.read_bytes()
    if name == "sw.js":  # a new version of the files makes a new worker
        data = data.replace(b"__VERSION__", context.static.version.encode())
    return Response(data, media_type=media_type, headers={"Cache-Control": NO_CACHE})


@router.get("/manifest.webmanifest")
async def manifest(context: Context) -> Response:
    """The web app manifest: name, icons, colours, start page."""
    return await _static_file(context, "manifest.webmanifest", "application/manifest+json")


@router.get("/sw.js")
async def service_worker(context: Context) -> Response:
    """The service worker (static/sw.js), with the files' version written in."""
    return await _static_file(context, "sw.js", "text/javascript")


@router.get("/offline")
async def offline_page(context: Context) -> Response:
    """The page the service worker shows when a page cannot be loaded."""
    return await _static_file(context, "offline.html", "text/html")
