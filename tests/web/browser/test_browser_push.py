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

The account dialog's switch is driven as a player would, with ``PushManager`` standing
in for the browser's push service (it hands out the test push service's subscription).
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from marrakech.web.reminders.webpush import PushSettings
from tests.web.browser.helpers import LiveServer, mouse_turn, wait_until
from tests.web.browser.test_browser_reminders import sign_up
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

    def deliver(payload: dict[str, Any]) -> None:
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": server.base,
                "registrationId": registrations[0]["registrationId"],
                "data": json.dumps(payload, ensure_ascii=False),
            },
        )

    (worker,) = page.context.service_workers
    read = (
        "self.registration.getNotifications().then((notes) =>"
        " notes.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data})))"
    )
    # A page of the site in front: it gets the push as a message, and no notification.
    page.evaluate(
        "() => { window.pushed = [];"
        " navigator.serviceWorker.addEventListener('message', (e) => window.pushed.push(e.data)); }"
    )
    deliver(message)
    wait_until(page, lambda: page.evaluate("window.pushed.length") == 1, "the page's message")
    assert page.evaluate("window.pushed[0]") == {
        "type": "push",
        "title": "Marrakech: your turn",
        "body": "It is your turn in your game of Marrakech with Red-Yellow.",
        "tag": f"game:{game_id}",
        "url": f"/g/{game_id}",
        "kind": "your_turn",
    }
    assert worker.evaluate(read) == []
    # No page of the site open (the tab went elsewhere): the notification shows.
    page.goto(service.origin + "/elsewhere")  # another site
    deliver(message)
    notes: list[dict[str, Any]] = []

    def shown() -> bool:
        notes[:] = worker.evaluate(read)
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
    deliver({**message, "url": "https://evil.example/"})
    wait_until(
        page,
        lambda: shown() and notes[0]["data"]["url"] == "/",  # another site's: not followed
        "the second notification",
    )
    assert len(notes) == 1
    deliver(message)
    wait_until(page, lambda: shown() and notes[0]["data"]["url"] == message["url"], "the third")
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    # The tap: the worker's click handler opens the game (here, in the site's window).
    worker.evaluate(
        "self.registration.getNotifications().then((notes) => self.openFromNotification(notes[0]))"
    )
    wait_until(page, lambda: page.url == f"{server.base}/g/{game_id}", "the game's page")
    page.wait_for_selector("body[data-ready='1']")


#: Headless Chromium's PushManager refuses to subscribe (it has no push service): this
#: stands in for it with a subscription of the test's push service, kept across reloads.
STAND_IN = """
(() => {
  const json = %s;
  const made = () => ({
    endpoint: json.endpoint,
    toJSON: () => json,
    unsubscribe: async () => { localStorage.removeItem("test.push"); return true; },
  });
  PushManager.prototype.subscribe = async function () {
    localStorage.setItem("test.push", "1");
    return made();
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem("test.push") ? made() : null;
  };
})();
"""


def devices(server: LiveServer) -> list[dict[str, Any]]:
    with sqlite3.connect(server.db) as db:
        db.row_factory = sqlite3.Row
        return [dict(row) for row in db.execute("SELECT * FROM push_subscriptions")]


def test_a_player_turns_notifications_on_and_off_in_the_account_dialog(
    server: LiveServer, service: PushService, new_page: Any
) -> None:
    subscription = service.subscribe("phone")
    page = new_page(locale="fr-FR")
    page.context.grant_permissions(["notifications"], origin=server.base)
    page.add_init_script(STAND_IN % json.dumps(subscription))
    sign_up(server, page, "Zoé")
    page.click("[data-testid=account-button]")
    page.wait_for_selector("[data-testid=push-status][data-status=off]")
    assert page.inner_text("#account-push-title") == "Notifications sur cet appareil"
    assert page.is_checked("[data-testid=push-kind-your_turn]")
    assert page.is_checked("[data-testid=push-kind-challenge]")
    assert page.inner_text("label[for=push-kind-pool_game]") == "Une partie trouvée pour moi"
    assert page.locator("[data-testid^=push-kind-]").count() == 4  # the live kinds, all
    page.click("[data-testid=push-kind-tournament]")  # not this one on this device
    page.click("[data-testid=push-on]")
    page.wait_for_selector("[data-testid=push-status][data-status=on]")
    assert page.inner_text("[data-testid=push-note]") == (
        "Notifications activées : elles arrivent même le site fermé."
    )
    (device,) = [d for d in devices(server) if d["endpoint"] == subscription["endpoint"]]
    assert (device["kinds"], device["lang"]) == ("your_turn challenge pool_game", "fr")
    # Back later: the dialog knows this device is on.
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.click("[data-testid=account-button]")
    page.wait_for_selector("[data-testid=push-status][data-status=on]")
    page.click("[data-testid=push-off]")
    page.wait_for_selector("[data-testid=push-status][data-status=off]")
    assert [d for d in devices(server) if d["endpoint"] == subscription["endpoint"]] == []


def test_blocked_notifications_are_said_and_nothing_is_stored(
    server: LiveServer, service: PushService, new_page: Any
) -> None:
    subscription = service.subscribe("blocked")
    page = new_page()
    page.add_init_script(STAND_IN % json.dumps(subscription))
    page.context.clear_permissions()
    sign_up(server, page, "Noor")
    page.click("[data-testid=account-button]")
    page.wait_for_selector("[data-testid=push-status][data-status=off]")
    page.click("[data-testid=push-on]")
    page.wait_for_selector("[data-testid=push-error]")
    assert page.inner_text("[data-testid=push-error]") == (
        "That did not work: Notifications are blocked for this site in this browser: "
        "allow them in its settings."
    )
    assert page.get_attribute("[data-testid=push-status]", "data-status") == "off"
    assert [d for d in devices(server) if d["endpoint"] == subscription["endpoint"]] == []
