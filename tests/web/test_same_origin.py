"""The same-origin check compares the scheme as well as the host and port (issue 36):
a page over ``https`` is another site than the server over plain ``http`` (and the
other way round), unless a trusted proxy forwarded ``https`` (``X-Forwarded-Proto``).
A real ``marrakech serve``, so that uvicorn's own proxy headers are in play."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import TWO_HUMANS
from tests.web.servers import Served

websockets = pytest.importorskip("websockets.asyncio.client")
from websockets.exceptions import InvalidStatus  # noqa: E402


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    served = Served(tmp_path / "games.sqlite3", "--bot-processes", "0")
    yield served
    served.stop()


def post(server: Served, path: str, body: Any, **headers: str) -> tuple[int, Any]:
    request = urllib.request.Request(
        server.url + path.lstrip("/"), data=json.dumps(body).encode(), method="POST"
    )
    request.add_header("Content-Type", "application/json")
    for name, value in headers.items():
        request.add_header(name.replace("_", "-"), value)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_an_origin_of_another_scheme_is_another_site(server: Served) -> None:
    here = f"127.0.0.1:{server.port}"
    for path, body in (("/api/games", TWO_HUMANS), ("/api/account/signout-everywhere", {})):
        status, refusal = post(server, path, body, Origin=f"https://{here}")
        assert status == 403, (path, refusal)
        assert refusal["error"] == "forbidden" and f"https://{here}" in refusal["message"]
    status, game = post(server, "/api/games", TWO_HUMANS, Origin=f"http://{here}")
    assert status == 201, game
    # The WebSocket too: an https page may not open the http server's socket.
    uri = f"ws://{here}/ws/{game['game_id']}"

    async def sockets() -> None:
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(uri, origin=f"https://{here}")
        assert refused.value.response.status_code == 403
        async with websockets.connect(uri, origin=f"http://{here}") as ws:
            await ws.send(json.dumps({"type": "hello"}))
            assert json.loads(await ws.recv())["type"] == "welcome"

    asyncio.run(sockets())


def test_behind_a_proxy_the_forwarded_scheme_is_the_sites(server: Served) -> None:
    """A TLS proxy on this machine (trusted: ``--forwarded-allow-ips`` is loopback by
    default) forwards ``https``: its pages' ``https`` origin is this site's, a plain
    ``http`` one is not."""
    here = f"127.0.0.1:{server.port}"
    tls = {"X_Forwarded_Proto": "https"}
    status, game = post(server, "/api/games", TWO_HUMANS, Origin=f"https://{here}", **tls)
    assert status == 201, game
    status, refusal = post(server, "/api/games", TWO_HUMANS, Origin=f"http://{here}", **tls)
    assert status == 403 and refusal["error"] == "forbidden"
    # The default port is the scheme's: https://host is https://host:443.
    tls["Host"] = "localhost:443"
    status, game = post(server, "/api/games", TWO_HUMANS, Origin="https://localhost", **tls)
    assert status == 201, game
