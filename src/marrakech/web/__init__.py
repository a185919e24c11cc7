"""Play Marrakech in the browser: lobby, live games with friends and bots, replays.

``marrakech serve`` (or ``python -m marrakech.web``) starts the app; :func:`create_app`
builds it for tests and embedding. The protocol is in ``docs/web-protocol.md``; the
deployment notes are in ``docs/web.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from marrakech.web.app import create_app as create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # FastAPI loads only when the app is wanted, so `marrakech --help` stays quick.
    if name == "create_app":
        from marrakech.web.app import create_app

        return create_app
    raise AttributeError(f"module 'marrakech.web' has no attribute {name!r}")
