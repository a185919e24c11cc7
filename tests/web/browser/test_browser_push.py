"""Web Push in Chromium (issue 37, item 4): the server's push for an absent player's turn
reaches the service worker, which shows it as a notification; a tap opens the game.

Headless Chromium has no push service of its own (``PushManager.subscribe`` answers
"Registration failed - permission denied" there), so the device's subscription is the
test's RFC 8030 push service's (:mod:`tests.web.push_service`): the server pushes to it,
it checks and decrypts the push, and the test hands the very payload it received to the
worker through the DevTools protocol (``ServiceWorker.deliverPushMessage``), as the
browser's push service would. Headless Chromium cannot click a notification either, and
an event a script dispatches is not the browser's (its ``waitUntil`` throws), so the tap
is the worker's own ``openFromNotification``, which its ``notificationclick`` runs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from marrakech.web.reminders.webpush import PushSettings
from tests.web.browser.helpers import LiveServer, mouse_turn, wait_until
from tests.web.push_service import PushService
from tests.web.test_accounts import CHEAP, PASSWORD

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def service() -> Iterator[PushService]:
    with PushService() as running:
        yield running


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {
        "push": PushSettings("mailto:ops@example.org", allow_http_loopback=True),
        "passwords": CHEAP,
    }


def bobs_turn_comes(server: LiveServer, service: PushService, new_page: Any) -> dict[str, Any]:
    """Bob (signed in, notifications on for this device) holds seat 1 of a game whose
    seat 0 plays its turn in the browser: the push the server sends, as received."""
    with httpx.Client(base_url=server.base, timeout=10) as bob:
        game = bob.post(
            "/api/games",
            json={"players": 2, "seats": [{"kind": "human"}] * 2, "first_seat": 0},
        ).json()
        tokens = [seat["token"] for seat in game["seats"]]
        signed = bob.post("/api/account/signup", json={"name": "Bob", "password": PASSWORD})
        assert signed.status_code == 201, signed.text
        device = {**service.subscribe("bob"), "kinds": ["your_turn"], "lang": "en"}
        assert bob.post("/api/push/device", json=device).status_code == 200
        claim = {"seats": [{"game_id": game["game_id"], "token": tokens[1]}]}
        assert bob.post("/api/account/claim", json=claim).status_code == 200
    page = new_page()
    page.goto(f"{server.base}/g/{game['game_id']}#t={tokens[0]}")
    rng = random.Random(3)
    while mouse_turn(page, rng) != "place":  # orient, roll, place: the turn is over
        pass
    wait_until(page, lambda: bool(service.pushes), "the server's push")
    (push,) = service.pushes
    assert service.refused == []
    page.close()
    return {"game_id": game["game_id"], "message": push.message}


def test_a_push_shows_its_notification_and_a_tap_opens_the_game(
    server: LiveServer, service: PushService, new_page: Any
) -> None:
    pushed = bobs_turn_comes(server, service, new_page)
    message, game_id = pushed["message"], pushed["game_id"]
    assert message["url"] == f"/g/{game_id}"
    # Bob's phone: the site (its lobby) was opened once, so its worker is installed.
    page = new_page()
    page.context.grant_permissions(["notifications"], origin=server.base)
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    wait_until(page, lambda: bool(registrations), "the worker's registration")
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": server.base,
            "registrationId": registrations[0]["registrationId"],
            "data": json.dumps(message, ensure_ascii=False),
        },
    )
    read = (
        "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((notes) =>"
        " notes.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data})))"
    )
    notes: list[dict[str, Any]] = []

    def shown() -> bool:
        notes[:] = page.evaluate(read)
        return bool(notes)

    wait_until(page, shown, "the push's notification")
    assert notes == [
        {
            "title": "Marrakech: your turn",
            "body": "It is your turn in your game of Marrakech with Red-Yellow.",
            "tag": f"game:{game_id}",
            "data": {"url": f"/g/{game_id}", "kind": "your_turn"},
        }
    ]
    # A second push of the game replaces the first (one tag), never piles up.
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": server.base,
            "registrationId": registrations[0]["registrationId"],
            "data": json.dumps({**message, "url": "https://evil.example/"}),
        },
    )
    wait_until(
        page,
        lambda: shown() and notes[0]["data"]["url"] == "/",  # another site's: not followed
        "the second notification",
    )
    assert len(notes) == 1
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": server.base,
            "registrationId": registrations[0]["registrationId"],
            "data": json.dumps(message),
        },
    )
    wait_until(page, lambda: shown() and notes[0]["data"]["url"] == message["url"], "the third")
    # The tap: the worker's click handler opens the game (here, in the site's window).
    (worker,) = page.context.service_workers
    worker.evaluate(
        "self.registration.getNotifications().then((notes) => self.openFromNotification(notes[0]))"
    )
    wait_until(page, lambda: page.url == f"{server.base}/g/{game_id}", "the game's page")
    page.wait_for_selector("body[data-ready='1']")
