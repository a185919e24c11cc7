"""Limits per client address (issue 23): open sockets are capped, and an IPv6 client is
its /64 network (one machine usually has a whole /64 to pick addresses from)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from marrakech.web.limits import Limits
from tests.web.conftest import TWO_HUMANS, Apps, Conn, create_game


def test_sockets_are_capped_per_client_address_with_a_reason(apps: Apps) -> None:
    client = apps.start(limits=Limits(sockets_per_client=2))
    game_id = create_game(client, **TWO_HUMANS)["game_id"]
    path = f"/ws/{game_id}"
    with client.websocket_connect(path) as one, client.websocket_connect(path) as two:
        Conn(one), Conn(two)  # two spectators' pages: welcomed
        with client.websocket_connect(path) as three:
            refused = three.receive_json()
            assert refused["type"] == "error" and refused["code"] == "too_many_connections"
            assert "2 pages" in refused["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                three.receive_json()
            assert closed.value.code == 4429
        # Said once as a message; the next refusals within 10 s are refused at the
        # handshake (an HTTP 429 with the JSON error), which costs far less when a script
        # opens thousands.
        with pytest.raises(WebSocketDenialResponse) as denied, client.websocket_connect(path):
            pass
        assert denied.value.status_code == 429
        assert denied.value.json()["error"] == "too_many_connections"
    with client.websocket_connect(path) as again:  # closed ones no longer count
        assert Conn(again).you == []


def test_an_ipv6_client_is_its_64_network_for_the_limits(apps: Apps) -> None:
    started = apps.start(limits=Limits(create_burst=1, creates_per_minute=1))
    one = TestClient(started.app, client=("2001:db8:1:2::5", 40000))
    same_64 = TestClient(started.app, client=("2001:db8:1:2:ffff::9", 40001))
    next_64 = TestClient(started.app, client=("2001:db8:1:3::5", 40002))
    assert one.post("/api/games", json=TWO_HUMANS).status_code == 201
    refused = same_64.post("/api/games", json=TWO_HUMANS)
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert next_64.post("/api/games", json=TWO_HUMANS).status_code == 201


def test_a_name_with_nothing_visible_is_refused(apps: Apps) -> None:
    client = apps.start()
    invisible = "\u200d\u200c\u200d"
    spec = {**TWO_HUMANS, "seats": [{"kind": "human", "name": invisible}, {"kind": "human"}]}
    reply = client.post("/api/games", json=spec)
    assert reply.status_code == 400
    assert "found only invisible ones" in reply.json()["message"]


def test_names_in_an_uploaded_record_follow_the_seat_names_rules(apps: Apps) -> None:
    client = apps.start()
    record = {"format": "marrakech-record", "version": 1, "players": 2, "rules": "standard"}
    for bad, said in (("Ana\u202eevil", "control characters"), ("Ana\x00", "control")):
        reply = client.post("/api/replay", json={**record, "seats": [bad, "Bea"], "actions": []})
        assert reply.status_code == 400 and reply.json()["error"] == "bad_record"
        assert reply.json()["message"].startswith("seats[0]: ") and said in reply.json()["message"]
