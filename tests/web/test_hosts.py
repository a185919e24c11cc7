"""DNS rebinding (issue 23): a server on the machine's own address answers only to the
machine's names, so no other site's name can be pointed at it."""

from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

from marrakech.web.cli import loopback_hosts
from tests.web.conftest import Apps

LOCAL = loopback_hosts("127.0.0.1", [])


def test_a_local_server_refuses_another_sites_name(apps: Apps) -> None:
    client = apps.start(allowed_hosts=LOCAL)
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST"):
        assert client.get("/api/health", headers={"Host": host}).status_code == 200, host
    refused = client.get("/api/health", headers={"Host": "evil.example:8000"})
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert "not to 'evil.example'" in refused.json()["message"]
    assert "content-security-policy" in refused.headers
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/ws/abc", headers={"Host": "evil.example"}) as ws,
    ):
        ws.receive_json()


def test_by_default_a_test_app_answers_to_any_name(apps: Apps) -> None:
    client = apps.start()
    assert client.get("/api/health", headers={"Host": "games.example.org"}).status_code == 200
