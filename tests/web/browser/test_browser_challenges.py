"""Challenges and friends in the browser (issue 37, item 2): Ana follows Bo from the
lobby's friends panel, challenges him from his profile; Bo, on a 360 px phone in
French, sees the challenge and accepts it with the keyboard; both browsers end in the
game, each seated in its own seat. A challenge pushed to a player with no page open
shows a notification with Accept and Decline (in the device's language), and Accept
there opens the player's seat in the new game (the push delivered to the worker and
its button pressed as in test_browser_push.py: headless Chromium has neither a push
service nor clickable notifications)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from marrakech.web.reminders.webpush import PushSettings
from tests.web.browser.helpers import SMALL, LiveServer, page_fits, wait_until
from tests.web.browser.test_browser_ratings import sign_up
from tests.web.push_service import PushService
from tests.web.test_accounts import CHEAP, PASSWORD


@pytest.fixture(scope="module")
def service() -> Iterator[PushService]:
    with PushService() as running:
        yield running


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {
        "passwords": CHEAP,
        "push": PushSettings("mailto:ops@example.org", allow_http_loopback=True),
    }


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_challenge_accepted_seats_both_browsers_in_the_game(
    server: LiveServer, new_page: Any
) -> None:
    base = server.base
    ana = new_page()
    bo = new_page(locale="fr-FR", **SMALL)
    sign_up(ana, base, "Ana")
    sign_up(bo, base, "Bo")

    # Ana follows Bo from the lobby's friends panel: Bo is listed, online (his page).
    ana.goto(base + "/")
    ana.wait_for_selector("[data-testid=friends] form")
    ana.fill("[data-testid=follow-name]", "bo")
    ana.press("[data-testid=follow-name]", "Enter")
    friend = ana.locator("[data-testid=friend][data-name=Bo]")
    friend.wait_for()
    assert friend.locator("[data-testid=friend-status]").inner_text() == "online"

    # Ana challenges Bo from his profile.
    ana.goto(base + "/players/Bo")
    ana.click("[data-testid=profile-actions] [data-testid=challenge-button]")
    said = ana.locator("[data-testid=profile-actions] [data-testid=challenge-said]")
    wait_until(ana, lambda: "Challenge sent to Bo" in said.inner_text(), "the challenge sent")
    ana.locator("[data-testid=challenge-out][data-status=open]").wait_for()

    # Bo opens the lobby on his phone: the challenge is there, in French, and fits.
    bo.goto(base + "/")
    incoming = bo.locator("[data-testid=challenge-in]")
    incoming.wait_for()
    assert incoming.inner_text().startswith("Ana vous défie")
    page_fits(bo)
    # Accepted with the keyboard: Bo goes to the game, and Ana's page follows.
    bo.focus("[data-testid=challenge-accept]")
    bo.keyboard.press("Enter")
    bo.wait_for_url("**/g/**")
    game_id = bo.url.split("/g/")[1].split("#")[0]
    ana.wait_for_url(f"**/g/{game_id}**")
    for page in (ana, bo):
        page.wait_for_selector("body[data-ready='1']")
    summary = server.api("GET", f"/api/games/{game_id}")
    assert [seat["name"] for seat in summary["seats"]] == ["Ana", "Bo"]

    def both_seated() -> bool:
        seats = server.api("GET", f"/api/games/{game_id}")["seats"]
        return [seat["presence"] for seat in seats] == ["connected", "connected"]

    wait_until(ana, both_seated, "both players seated in the game")
    # Each page holds its own seat: the game page says whose seat it plays.
    for page, seat in ((ana, 0), (bo, 1)):

        def holds(page: Any = page, seat: int = seat) -> bool:
            games = page.evaluate("JSON.parse(localStorage.getItem('marrakech.games') || '[]')")
            return any(g["id"] == game_id and g["seats"] == [seat] for g in games)

        wait_until(page, holds, f"seat {seat} held by its page")
    # The answered challenge is gone from both pages.
    assert ana.locator("[data-testid=challenge-in], [data-testid=challenge-out]").count() == 0
    page_fits(bo)

    # Ana resigns: on Bo's finished game's table, Ana's row has a Challenge button (his
    # own has none), which challenges her again with this game's settings.
    ana.click("[data-testid=resign-0]")
    ana.click("[data-testid=resign-confirm]")
    bo.wait_for_selector("[data-testid=end-screen][open]")
    assert bo.locator("[data-testid=rank-row-1] [data-testid=challenge-button]").count() == 0
    bo.click("[data-testid=rank-row-0] [data-testid=challenge-button]")
    said = bo.locator("[data-testid=rank-row-0] [data-testid=challenge-said]")
    wait_until(
        bo, lambda: said.inner_text() == "Défi envoyé à Ana : en attente de sa réponse.", "sent"
    )
    page_fits(bo)
    again = server.api("GET", f"/api/games/{game_id}")
    assert again["status"] == "over"


def test_a_challenge_accepted_from_its_notification(
    server: LiveServer, service: PushService, new_page: Any
) -> None:
    base = server.base
    cy = new_page(locale="fr-FR")
    cy.context.grant_permissions(["notifications"], origin=base)
    sign_up(cy, base, "Cy")
    device = {**service.subscribe("cy"), "kinds": ["challenge"], "lang": "fr"}
    status = cy.evaluate(
        """(device) => fetch('/api/push/device', {method: 'POST',
             headers: {'Content-Type': 'application/json'}, body: JSON.stringify(device)})
             .then(r => r.status)""",
        device,
    )
    assert status == 200
    cy.evaluate("navigator.serviceWorker.ready.then(() => true)")
    cdp = cy.context.new_cdp_session(cy)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    wait_until(cy, lambda: bool(registrations), "the worker's registration")
    (worker,) = cy.context.service_workers
    # Cy leaves the site (and long ago, as the server sees it): no page of hers is open.
    cy.goto(service.origin + "/elsewhere")
    with sqlite3.connect(server.db) as db:
        db.execute("UPDATE accounts SET seen = 0 WHERE name = 'Cy'")
    with httpx.Client(base_url=base, timeout=10) as dee:
        signed = dee.post("/api/account/signup", json={"name": "Dee", "password": PASSWORD})
        assert signed.status_code == 201, signed.text
        sent = dee.post("/api/challenges", json={"to": "Cy", "game": {"clock": "blitz"}})
        assert sent.status_code == 201, sent.text
    wait_until(cy, lambda: any(p.subscriber == "cy" for p in service.pushes), "the push")
    (push,) = [p for p in service.pushes if p.subscriber == "cy"]
    assert push.message["body"] == "Dee vous défie à une partie de Marrakech."
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": base,
            "registrationId": registrations[0]["registrationId"],
            "data": json.dumps(push.message, ensure_ascii=False),
        },
    )
    read = (
        "self.registration.getNotifications().then((notes) => notes.map((n) =>"
        " ({tag: n.tag, actions: n.actions.map((a) => [a.action, a.title])})))"
    )
    notes: list[dict[str, Any]] = []

    def shown() -> bool:
        notes[:] = worker.evaluate(read)
        return bool(notes)

    wait_until(cy, shown, "the challenge's notification")
    challenge_id = sent.json()["challenge"]["id"]
    assert notes == [
        {
            "tag": f"challenge:{challenge_id}",
            "actions": [["accept", "Accepter"], ["decline", "Refuser"]],
        }
    ]
    # Accept, on the notification: the game is made and Cy's seat opens (here, in the
    # site's window: headless Chromium opens no new one).
    cy.goto(base + "/")
    cy.wait_for_selector("body[data-ready='1']")
    worker.evaluate(
        "self.registration.getNotifications()"
        ".then((notes) => self.answerFromNotification(notes[0], 'accept'))"
    )
    wait_until(cy, lambda: "/g/" in cy.url, "Cy's game")
    cy.wait_for_selector("body[data-ready='1']")
    game_id = cy.url.split("/g/")[1].split("#")[0]
    summary = server.api("GET", f"/api/games/{game_id}")
    assert [seat["name"] for seat in summary["seats"]] == ["Dee", "Cy"]
    assert summary["clock"]["mode"] == "blitz"

    def cy_seated() -> bool:
        seats = server.api("GET", f"/api/games/{game_id}")["seats"]
        return bool(seats[1]["presence"] == "connected")

    wait_until(cy, cy_seated, "Cy seated in the game")
