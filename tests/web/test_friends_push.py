"""A challenge pushed to the challenged player (issue 37, items 2 and 4): through the
in-process push service (:mod:`tests.web.push_service`, which checks the VAPID
signature and decrypts), once per challenge and device, in the device's language,
tagged by the challenge and expiring with it; never while a page of the site is open
(checked when sent and again at sending time), nor for an answered challenge, nor to a
device that did not opt in to challenges."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech.web.friendships import CHALLENGE_SECONDS
from marrakech.web.reminders.challenge_push import queue_challenge_push
from tests.web.conftest import Apps
from tests.web.push_service import PushService
from tests.web.test_accounts import CHEAP, sign_up
from tests.web.test_push import PUSH, pushes, subscribe
from tests.web.test_reminders import Clock, deliver, wait_until


@pytest.fixture
def service() -> Iterator[PushService]:
    with PushService() as running:
        yield running


@pytest.fixture
def clock() -> Clock:
    return Clock()


def people(apps: Apps, clock: Clock, service: PushService, kinds: list[str]) -> list[TestClient]:
    """Ana and Bo signed in, Bo's device opted in to ``kinds``, in French; neither has a
    page of the site open (no heartbeat yet)."""
    bo = apps.start(push=PUSH, mail_clock=clock, passwords=CHEAP)
    ana = TestClient(bo.app)
    sign_up(ana, "Ana")
    sign_up(bo, "Bo")
    reply = subscribe(bo, service.subscribe("bo"), kinds=kinds, lang="fr")
    assert reply.status_code == 200, reply.text
    return [ana, bo]


def challenge(ana: TestClient) -> dict[str, Any]:
    reply = ana.post("/api/challenges", json={"to": "Bo"})
    assert reply.status_code == 201, reply.text
    sent: dict[str, Any] = reply.json()["challenge"]
    return sent


def test_a_challenge_is_pushed_once_to_a_player_with_no_page_open(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    ana, bo = people(apps, clock, service, ["your_turn", "challenge"])
    sent = challenge(ana)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(bo, db_path, clock)
    (push,) = service.pushes
    assert service.refused == [] and push.subscriber == "bo"
    assert push.message == {
        "kind": "challenge",
        "lang": "fr",
        "title": "Marrakech : un défi",
        "body": "Ana vous défie à une partie de Marrakech.",
        "url": "/",
        "tag": f"challenge:{sent['id']}",
    }
    assert 60 <= push.ttl <= CHALLENGE_SECONDS  # it expires with the challenge
    assert push.urgency == "high"
    (row,) = pushes(db_path)
    assert (row["status"], row["kind"]) == ("sent", "push:challenge")
    # Never twice: queued again (another instance, a retry), nothing more is sent.
    reminders = bo.app.state.web.reminders  # type: ignore[attr-defined]
    assert bo.portal is not None
    bo.portal.call(queue_challenge_push, reminders.devices, sent["id"], row_account(bo))
    deliver(bo, db_path, clock)
    assert len(service.pushes) == 1 and len(pushes(db_path)) == 1


def row_account(browser: TestClient) -> str:
    account: str = browser.get("/api/account").json()["account"]["id"]
    return account


def test_no_challenge_push_while_a_page_is_open_or_once_answered(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    ana, bo = people(apps, clock, service, ["challenge"])
    # The outbox is emptied by this test alone (deliver), not in the background: what
    # happens between queueing and sending is the test's.
    reminders = bo.app.state.web.reminders  # type: ignore[attr-defined]
    assert bo.portal is not None
    bo.portal.call(reminders.stop)
    # A page of Bo's is open (its heartbeat): the page shows the challenge, no push.
    bo.get("/api/challenges")
    first = challenge(ana)
    deliver(bo, db_path, clock)
    assert pushes(db_path) == [] and service.pushes == []
    ana.post(f"/api/challenges/{first['id']}/cancel")
    # His page closed long ago: queued; he opens a page before it goes: skipped.
    clock.advance(3600)
    bo.app.state.web.friendships.clock = clock  # type: ignore[attr-defined]
    second = challenge(ana)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    bo.get("/api/challenges")
    deliver(bo, db_path, clock)
    (row,) = pushes(db_path)
    assert (row["status"], row["problem"]) == ("skipped", "a page of the site is open")
    ana.post(f"/api/challenges/{second['id']}/cancel")
    # Queued, then answered (cancelled here) before it goes: skipped too.
    clock.advance(3600)
    third = challenge(ana)
    wait_until(lambda: len(pushes(db_path)) == 2, "the push to be queued")
    ana.post(f"/api/challenges/{third['id']}/cancel")
    deliver(bo, db_path, clock)
    assert pushes(db_path)[-1]["problem"] == "the challenge is answered or expired"
    assert service.pushes == []


def test_a_device_without_challenges_gets_none(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    ana, bo = people(apps, clock, service, ["your_turn"])
    challenge(ana)
    deliver(bo, db_path, clock)
    assert pushes(db_path) == [] and service.pushes == []
    info = bo.get("/api/push").json()
    assert {kind["name"]: kind["live"] for kind in info["kinds"]}["challenge"] is True
