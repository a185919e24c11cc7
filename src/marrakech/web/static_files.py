"""The page's files, versioned by their content and cached accordingly.

At start the server hashes every file under ``static/`` (:class:`StaticVersion`); the
page (``index.html``) is served with its ``/static/`` links rewritten to
``/static/v-HASH/``, and its scripts' relative imports follow. A versioned file never
changes, so browsers may keep it a year (``immutable``); the page itself is asked again
every time (``no-cache``), so an upgraded server is never run with yesterday's scripts.
Unversioned ``/static/...`` paths still work, uncached; a version the server does not
have is a ``404`` (a page from before an upgrade: reloading it fixes it).
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from marrakech.web.security import send_error

#: ``Cache-Control`` of a versioned file, and of anything that may change.
IMMUTABLE = "public, max-age=31536000, immutable"
NO_CACHE = "no-cache"


@dataclass(frozen=True)
class StaticVersion:
    """The page's folder, the hash of its files, and the page with versioned links."""

    folder: Path
    version: str
    page: bytes | None

    @classmethod
    def of(cls, folder: Path) -> StaticVersion:
        digest = hashlib.sha256()
        files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
        for path in files:
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
        version = "v-" + digest.hexdigest()[:12]
        index = folder / "index.html"
        page = None
        if index.is_file():
            page = index.read_bytes().replace(b'"/static/', f'"/static/{version}/'.encode())
        return cls(folder, version, page)


class VersionedStatic:
    """The ``/static`` mount: ``/static/v-HASH/path`` cached for good, ``/static/path``
    not cached, another version not found."""

    def __init__(self, static: StaticVersion) -> None:
        self.static = static
        self.files = StaticFiles(directory=static.folder, check_dir=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        root = scope.get("root_path", "")
        local = path[len(root) :] if root and path.startswith(root) else path
        local = local.removeprefix("/static")
        first = local.lstrip("/").partition("/")[0]
        cache = NO_CACHE
        if first.startswith("v-"):
            if first != self.static.version:
                await send_error(send, 404, "not_found", "no such version of the page's files")
                return
            cache = IMMUTABLE
            scope = {**scope, "path": scope["path"].replace(f"/{first}/", "/", 1)}

        async def cached(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status = message.get("status")
                headers = list(message.get("headers", []))
                value = cache if status in (200, 304) else NO_CACHE
                headers.append((b"cache-control", value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.files(scope, receive, cached)
