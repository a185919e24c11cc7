"""A game ready for a player with no page of the site open, pushed to their devices
(issue 37, item 4; marrakech.web.reminders.game_ready_push): a game found in a
turn-based pool for a player who left its page, and the first game of a tournament
they joined; through the in-process push service (:mod:`tests.web.push_service`, which
checks the VAPID signature and decrypts), once, in the device's language, tagged and
expiring; never while a page of theirs is open, nor to a device that did not opt in."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech.web.reminders.game_ready_push import queue_pool_game_push
from tests.web.conftest import Apps
from tests.web.push_service import PushService
from tests.web.test_accounts import CHEAP, sign_up
from tests.web.test_pools import FAST, close_sockets, join
from tests.web.test_push import PUSH, pushes, subscribe
from tests.web.test_ratings_api import resign
from tests.web.test_reminders import Clock, deliver, wait_until

__all__ = ["close_sockets"]  # the pools' sockets a test opened, closed before its app stops

ARENA = {"name": "Friday arena", "kind": "arena", "minutes": 60, "clock": "turn_1d"}


@pytest.fixture
def service() -> Iterator[PushService]:
    with PushService() as running:
        yield running


@pytest.fixture
def clock() -> Clock:
    return Clock()


def ana(apps: Apps, clock: Clock, service: PushService, kinds: list[str]) -> TestClient:
    """Ana signed in, her device opted in to ``kinds`` in French, no page of hers open
    (no heartbeat yet)."""
    client = apps.start(push=PUSH, mail_clock=clock, passwords=CHEAP, pools=FAST)
    sign_up(client, "Ana")
    reply = subscribe(client, service.subscribe("ana"), kinds=kinds, lang="fr")
    assert reply.status_code == 200, reply.text
    return client


def open_table(client: TestClient) -> str:
    """Ana waits in a 2-player turn-based pool; after the wait her game is made with its
    other seat open, and she leaves the page (the pool keeps her table open)."""
    socket, waiting = join(client, players=2, clock="turn_1d")
    assert waiting["type"] == "waiting", waiting
    made = socket.receive_json()
    assert made["type"] == "paired" and made["seat"] == 0, made
    game_id: str = made["game_id"]
    return game_id


def bo_joins(client: TestClient, game_id: str) -> None:
    """Bo, a guest, joins the same pool and is seated at Ana's open table."""
    bo = TestClient(client.app)
    bo.portal = client.portal  # on the app's own event loop, as a real server's
    socket, _ = join(bo, players=2, clock="turn_1d", name="Bo", bots=False)
    assert socket.receive_json()["game_id"] == game_id


def test_a_game_found_in_a_pool_is_pushed_once_to_a_player_who_left(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    client = ana(apps, clock, service, ["pool_game"])
    game_id = open_table(client)
    bo_joins(client, game_id)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(client, db_path, clock)
    (push,) = service.pushes
    assert service.refused == [] and push.subscriber == "ana"
    assert push.message == {
        "kind": "pool_game",
        "lang": "fr",
        "title": "Marrakech : partie trouvée",
        "body": "Une partie de Marrakech avec Bo (Bleu-Violet) vous attend.",
        "url": f"/g/{game_id}",
        "tag": f"pool_game:{game_id}",
    }
    assert push.ttl == 600 and push.urgency == "high"
    (row,) = pushes(db_path)
    assert (row["status"], row["kind"]) == ("sent", "push:pool_game")
    # Never twice: queued again (another instance, a retry), nothing more is sent.
    devices = client.app.state.web.reminders.devices  # type: ignore[attr-defined]
    assert client.portal is not None
    client.portal.call(queue_pool_game_push, devices, game_id, 0, [1])
    deliver(client, db_path, clock)
    assert len(service.pushes) == 1 and len(pushes(db_path)) == 1


def test_no_game_found_push_while_a_page_is_open_nor_without_opting_in(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    client = ana(apps, clock, service, ["pool_game"])
    game_id = open_table(client)
    client.get("/api/challenges")  # a page of hers is open: it shows the game itself
    bo_joins(client, game_id)
    # A device that did not opt in to games found gets none either.
    assert subscribe(client, service.subscribe("ana"), kinds=["your_turn"]).status_code == 200
    clock.advance(3600)
    client.app.state.web.friendships.clock = clock  # type: ignore[attr-defined]
    second = open_table(client)
    bo_joins(client, second)
    deliver(client, db_path, clock)  # her turn in the second game is pushed: not this
    assert [row for row in pushes(db_path) if row["kind"] == "push:pool_game"] == []
    assert [push for push in service.pushes if push.message["kind"] == "pool_game"] == []


def first_game(client: TestClient, tid: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        mine: dict[str, Any] | None = client.get(f"/api/tournaments/{tid}").json()["my_game"]
        if mine is not None:
            return mine
        assert time.monotonic() < deadline, "no game"
        time.sleep(0.05)


def tournament(client: TestClient) -> str:
    made = client.post("/api/tournaments", json={**ARENA, "bots": ["easy"]})
    assert made.status_code == 201, made.text
    tid: str = made.json()["id"]
    assert client.post(f"/api/tournaments/{tid}/join").status_code == 204
    return tid


def test_a_tournaments_start_is_pushed_once_to_an_entrant_with_no_page_open(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    client = apps.start(push=PUSH, mail_clock=clock, passwords=CHEAP, tournament_tick=0.05)
    sign_up(client, "Ana")
    reply = subscribe(client, service.subscribe("ana"), kinds=["tournament"], lang="en")
    assert reply.status_code == 200, reply.text
    tid = tournament(client)
    mine = first_game(client, tid)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(client, db_path, clock)
    (push,) = service.pushes
    assert push.message == {
        "kind": "tournament",
        "lang": "en",
        "title": "Marrakech: your tournament starts",
        "body": "Your tournament starts now: your first game is ready.",
        "url": f"/g/{mine['game_id']}",
        "tag": f"tournament:{tid}",
    }
    assert push.ttl == 1800 and push.urgency == "high"
    # Her next game is no start: nothing more.
    resign(client, mine, mine["seat"], mine["link"].split("#t=")[1])
    wait_until(lambda: first_game(client, tid)["game_id"] != mine["game_id"], "her next game")
    deliver(client, db_path, clock)
    assert len(service.pushes) == 1 and len(pushes(db_path)) == 1


def test_no_tournament_push_while_a_page_is_open(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    client = apps.start(push=PUSH, mail_clock=clock, passwords=CHEAP, tournament_tick=0.05)
    sign_up(client, "Ana")
    subscribe(client, service.subscribe("ana"), kinds=["tournament"], lang="en")
    client.get("/api/challenges")  # a page of hers is open
    first_game(client, tournament(client))
    deliver(client, db_path, clock)
    assert pushes(db_path) == [] and service.pushes == []
