"""A public server against abuse: content types, origins, rates, caps, deep JSON, errors,
HEAD and OPTIONS, the page's files and their caching, uploaded records, the bots."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from marrakech import Action, State, random_game
from marrakech.record import GameRecord
from marrakech.web.bot_workers import BotScheduler, shortened
from marrakech.web.context import WebContext
from marrakech.web.limits import Limits
from marrakech.web.static_files import IMMUTABLE
from tests.web.conftest import JSON, TWO_HUMANS, Apps, Conn, create_game, seat_token
from tests.web.test_rooms import in_fresh_loop

HOST = "testserver"


def test_bodies_must_say_they_are_json(client: TestClient) -> None:
    body = json.dumps(TWO_HUMANS)
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {} if content_type is None else {"Content-Type": content_type}
        reply = client.post("/api/games", content=body, headers=headers)
        assert reply.status_code == 415, content_type
        assert reply.json()["error"] == "unsupported_media_type"
        assert "expected application/json" in reply.json()["message"]
        assert "content-security-policy" in reply.headers
    game = create_game(
        client, players=3, seats=[{"kind": "human"}, {"kind": "open"}] * 1 + [{"kind": "open"}]
    )
    join = f"/api/games/{game['game_id']}/join"
    assert (
        client.post(join, content='{"seat": 1}', headers={"Content-Type": "text/plain"}).status_code
        == 415
    )
    assert (
        client.post("/api/replay", content="{}", headers={"Content-Type": "text/plain"}).status_code
        == 415
    )
    charset = {"Content-Type": "application/json; charset=utf-8"}
    assert (
        client.post(join, content='{"seat": 1, "name": "Bea"}', headers=charset).status_code == 200
    )


def test_other_sites_cannot_act(apps: Apps) -> None:
    client = apps.start(allow_origins=["https://friends.example"])
    game = create_game(
        client, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    )
    evil = {"Origin": "https://evil.example"}
    for path, body in (
        ("/api/games", TWO_HUMANS),
        (f"/api/games/{game['game_id']}/join", {"seat": 1}),
    ):
        reply = client.post(path, json=body, headers=evil)
        assert reply.status_code == 403 and reply.json()["error"] == "forbidden"
        assert "https://evil.example" in reply.json()["message"]
        assert "content-security-policy" in reply.headers
    reply = client.post("/api/games", json=TWO_HUMANS, headers={"Sec-Fetch-Site": "cross-site"})
    assert reply.status_code == 403  # a browser that says so, even without an Origin
    assert client.post("/api/games", json=TWO_HUMANS, headers={"Origin": "null"}).status_code == 403
    # This site's pages, an allowed site, and non-browser clients (no Origin) may act.
    for headers in ({"Origin": f"http://{HOST}"}, {"Origin": "https://friends.example"}, {}):
        assert client.post("/api/games", json=TWO_HUMANS, headers=headers).status_code == 201
    # Reading is allowed from anywhere (the answers carry no CORS permission).
    assert client.get("/api/games/open", headers=evil).status_code == 200
    # The WebSocket: refused before it opens, with the error as JSON.
    with (
        pytest.raises(WebSocketDenialResponse) as denied,
        client.websocket_connect(f"/ws/{game['game_id']}", headers=evil),
    ):
        pass
    assert denied.value.status_code == 403 and denied.value.json()["error"] == "forbidden"
    with client.websocket_connect(
        f"/ws/{game['game_id']}", headers={"Origin": f"http://{HOST}"}
    ) as ws:
        assert Conn(ws, [seat_token(game, 0)]).you == [0]


def test_creating_and_joining_are_rate_limited_per_client(apps: Apps) -> None:
    client = apps.start(
        limits=Limits(creates_per_minute=6, create_burst=2, joins_per_minute=6, join_burst=1)
    )
    for _ in range(2):
        assert client.post("/api/games", json=TWO_HUMANS).status_code == 201
    reply = client.post("/api/games", json=TWO_HUMANS)
    assert reply.status_code == 429 and reply.json()["error"] == "rate_limited"
    assert 1 <= int(reply.headers["retry-after"]) <= 10
    assert "content-security-policy" in reply.headers
    other = apps.start(limits=Limits(joins_per_minute=6, join_burst=1))
    game = create_game(
        other, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    )
    join = f"/api/games/{game['game_id']}/join"
    assert other.post(join, json={"seat": 1, "name": "Bea"}).status_code == 200
    assert other.post(join, json={"seat": 2, "name": "Bea"}).json()["error"] == "rate_limited"


def test_games_and_bots_are_capped_per_client_and_for_the_server(apps: Apps) -> None:
    client = apps.start(limits=Limits(games_per_client=3, bots_per_client=2, games=4, bots=3))
    bots = {"players": 2, "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}]}
    four_experts = {"players": 4, "seats": [{"kind": "bot", "level": "expert"}] * 4}
    reply = client.post("/api/games", json=four_experts)
    assert reply.status_code == 429 and reply.json()["error"] == "too_many_games"
    assert "at most 2 bots" in reply.json()["message"]
    assert client.post("/api/games", json=bots).status_code == 201
    assert client.post("/api/games", json=bots).status_code == 201
    reply = client.post("/api/games", json=bots)  # a third bot for this client
    assert reply.status_code == 429 and "already seat 2 bots" in reply.json()["message"]
    assert client.post("/api/games", json=TWO_HUMANS).status_code == 201
    reply = client.post("/api/games", json=TWO_HUMANS)  # a fourth game for this client
    assert reply.status_code == 429 and "3 games under way" in reply.json()["message"]


def test_deep_json_is_a_clean_refusal(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    deep = "[" * 4000
    reply = client.post("/api/games", content=deep, headers=JSON)
    assert reply.status_code == 400 and "nested" in reply.json()["message"]
    reply = client.post("/api/replay", content=deep, headers=JSON)
    assert reply.status_code == 400 and reply.json()["error"] == "bad_record"
    assert client.get("/api/config").status_code == 200  # the same connection goes on
    game = create_game(client)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        red.send("[" * 4000)
        assert "nested" in red.expect_error("bad_message")["message"]
        red.send('{"type": "hello", "tokens": ' + "[" * 900 + "]" * 900 + "}")
        red.expect_error("bad_message")
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text


def test_every_error_is_json_with_the_headers(apps: Apps) -> None:
    client = apps.start()
    broken = client.app
    assert isinstance(broken, FastAPI)

    @broken.get("/api/broken")
    async def fail() -> None:
        raise RuntimeError("a bug")

    reply = client.get("/api/broken")
    assert reply.status_code == 500 and reply.json()["error"] == "server_error"
    assert reply.headers["content-type"] == "application/json"
    assert "content-security-policy" in reply.headers
    reply = client.get("/api/games/open", params={"ids": "x"})  # an unknown parameter is fine
    assert reply.status_code == 200
    for method in ("PUT", "DELETE", "PATCH"):
        reply = client.request(method, "/api/games", headers={"Origin": f"http://{HOST}"})
        assert reply.status_code == 405 and reply.json()["error"] == "method_not_allowed"
        assert "content-security-policy" in reply.headers


def test_head_and_options_answer(client: TestClient) -> None:
    for path in ("/", "/g/abc", "/api/config", "/api/health", "/api/games/open"):
        get, head = client.get(path), client.head(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]
        assert "content-security-policy" in head.headers
    reply = client.options("/api/games", headers={"Origin": "https://evil.example"})
    assert reply.status_code == 204 and "POST" in reply.headers["allow"]
    assert "access-control-allow-origin" not in reply.headers  # no CORS for other sites
    health = client.get("/api/health").json()
    assert health["status"] == "ok" and health["page"].startswith("v-")


def test_the_page_files_are_versioned_and_cached(client: TestClient) -> None:
    page = client.get("/")
    assert page.headers["cache-control"] == "no-cache"
    version = client.get("/api/health").json()["page"]
    assert f'src="/static/{version}/js/app.js"' in page.text
    assert f'href="/static/{version}/css/marrakech.css"' in page.text
    script = client.get(f"/static/{version}/js/app.js")
    assert script.status_code == 200 and script.headers["cache-control"] == IMMUTABLE
    assert "javascript" in script.headers["content-type"]
    plain = client.get("/static/js/app.js")
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
    assert plain.content == script.content
    old = client.get("/static/v-000000000000/js/app.js")
    assert old.status_code == 404 and old.json()["error"] == "not_found"
    assert client.get(f"/static/{version}/../app.py").status_code == 404


def test_uploaded_records_are_strict(client: TestClient) -> None:
    _, actions = random_game(State.new(players=2), random.Random(4))
    record = GameRecord.from_actions(State.new(players=2), actions).to_dict()
    assert client.post("/api/replay", json=record).status_code == 200
    reply = client.post("/api/replay", json={**record, "extra": 1, "more": 2})
    assert reply.status_code == 400 and reply.json()["error"] == "bad_record"
    assert "unexpected field 'extra', 'more'" in reply.json()["message"]
    reply = client.post("/api/replay", json={**record, "meta": {"note": "x" * 200_000}})
    assert (
        reply.status_code == 400
        and '"meta": expected at most 4096 bytes' in reply.json()["message"]
    )
    small = client.post("/api/replay", json={**record, "meta": {"note": "a game"}})
    assert small.status_code == 200 and small.json()["record"]["meta"] == {"note": "a game"}


def test_thinking_is_shortened_under_load() -> None:
    assert shortened(1.0, 1, 0.05) is None
    assert shortened(1.0, 2, 0.05) == 0.5
    assert shortened(1.0, 50, 0.05) == 0.05


@in_fresh_loop
async def test_the_bot_scheduler_is_fair_and_says_when_it_is_busy() -> None:
    """Three games ask at once, one worker: served in the order asked, one at a time, and
    the scheduler is busy until the queue has been calm for a while."""
    order: list[int] = []
    heard: list[bool] = []

    class Slow:
        name = "slow"

        def __init__(self, number: int) -> None:
            self.number = number

        def choose(self, state: State, rng: random.Random) -> Action:
            order.append(self.number)
            time.sleep(0.05)
            return state.legal_actions()[0]

    scheduler = BotScheduler(threads=1, factory=lambda level: Slow(0))
    scheduler.on_busy = heard.append
    state = State.new(players=3)
    decisions = [scheduler.choose(Slow(n), "expert", state, n) for n in range(3)]
    done = await asyncio.gather(*decisions)
    assert order == [0, 1, 2] and all(action == state.legal_actions()[0] for action in done)
    assert heard == [True] and scheduler.busy
    await asyncio.sleep(2.2)
    assert heard == [True, False] and not scheduler.busy
    scheduler.shutdown()


@in_fresh_loop
async def test_a_dead_bot_worker_is_replaced() -> None:
    """A worker killed from outside (out of memory...): new workers answer instead."""
    import os
    import signal

    scheduler = BotScheduler(processes=1)
    scheduler.start()
    state = State.new(players=3)
    first = await scheduler.choose(None, "hard", state, 1)
    executor = scheduler._executor
    for pid in list(executor._processes):  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGKILL)
    second = await asyncio.wait_for(scheduler.choose(None, "hard", state, 2), timeout=60)
    assert first in state.legal_actions() and second in state.legal_actions()
    assert scheduler._executor is not executor
    scheduler.shutdown()


def test_pages_hear_when_the_bots_are_busy(client: TestClient) -> None:
    game = create_game(client, players=2, seats=[{"kind": "human"}, {"kind": "bot"}])
    app, portal = client.app, client.portal
    assert isinstance(app, FastAPI) and portal is not None  # a started app's client
    context: WebContext = app.state.web
    manager = context.manager
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        portal.call(manager.bots._set_busy, True)
        assert red.receive() == {"type": "bots", "busy": True}
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        again = Conn(ws, [seat_token(game, 0)])  # told right after its welcome
        assert again.receive() == {"type": "bots", "busy": True}
        portal.call(manager.bots._set_busy, False)
        assert again.receive() == {"type": "bots", "busy": False}
