"""Email reminders on the page (issue 25): from the keyboard, a guest gives an address
in the game's menu, follows the link the real SMTP server (aiosmtpd, in the test
process) received, sees it confirmed and mutes the game; a signed-in player gives the
account's address in the account dialog, in French."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from marrakech.web.reminders.settings import MailSettings, ReminderTiming, parse_smtp_url
from tests.web.browser.helpers import LiveServer, wait_until
from tests.web.smtp_server import Inbox, text_part
from tests.web.test_accounts import CHEAP, PASSWORD

PUBLIC = "http://games.invalid"


@pytest.fixture(scope="module")
def inbox() -> Iterator[Inbox]:
    with Inbox() as box:
        yield box


@pytest.fixture(scope="module")
def server_options(inbox: Inbox) -> dict[str, Any]:
    relay = parse_smtp_url(f"smtp://127.0.0.1:{inbox.port}")
    mail = MailSettings(relay, "games@example.org", PUBLIC, ReminderTiming(poll=1.0))
    return {"mail": mail, "passwords": CHEAP}


def follow_verification(server: LiveServer, message: Any) -> None:
    """Open the link's page and press its button, as the player would."""
    found = re.search(rf"{re.escape(PUBLIC)}(/mail/verify\?\S+)", text_part(message))
    assert found, text_part(message)
    link = server.base + found.group(1)
    page = httpx.get(link, timeout=10)
    assert page.status_code == 200 and 'method="post"' in page.text
    token = re.search(r'name="t" value="([^"]+)"', page.text)
    assert token
    done = httpx.post(f"{server.base}/mail/verify", data={"t": token.group(1)}, timeout=10)
    assert done.status_code == 200, done.text


def sign_up(server: LiveServer, page: Any, name: str) -> None:
    """Open the site and sign up from the page, so its cookie is the browser's."""
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    body = json.dumps({"name": name, "password": PASSWORD})
    page.evaluate(
        "body => fetch('/api/account/signup', {method: 'POST',"
        " headers: {'Content-Type': 'application/json'}, body})",
        body,
    )
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("[data-testid=account-button][data-signed-in='1']")


def test_a_guest_gives_an_address_and_mutes_the_game_from_the_keyboard(
    server: LiveServer, new_page: Any, inbox: Inbox
) -> None:
    game = server.api("POST", "/api/games", {"players": 2, "seats": [{"kind": "human"}] * 2})
    before = len(inbox.messages)
    page = new_page()
    page.goto(server.base + game["seats"][1]["link"])
    page.wait_for_selector("[data-testid=reminders-menu]")
    page.focus("[data-testid=reminders-menu] summary")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=reminders-address]")
    assert page.inner_text("[data-testid=reminders-status]") == "No address given: no reminders."
    # A guest has no account address: nothing stands for it (a literal "null" before).
    assert "null" not in page.inner_text("[data-testid=reminders-menu]")
    page.focus("[data-testid=reminders-address]")
    page.keyboard.type("guest@example.org")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=reminders-note]")
    assert page.inner_text("[data-testid=reminders-note]") == (
        "A confirmation link was sent to guest@example.org."
    )
    assert "Waiting for confirmation" in page.inner_text("[data-testid=reminders-status]")
    follow_verification(server, inbox.wait_for(before + 1)[-1])
    page.reload()
    page.wait_for_selector("[data-testid=reminders-menu]")
    page.click("[data-testid=reminders-menu] summary")
    page.wait_for_selector("[data-testid=reminders-status][data-status=verified]")
    assert page.inner_text("[data-testid=reminders-status]") == (
        "Reminders go to guest@example.org."
    )
    page.focus("[data-testid=reminders-mute]")
    page.keyboard.press("Space")
    ask = {"game": game["game_id"], "token": game["seats"][1]["token"]}
    wait_until(page, lambda: server.api("POST", "/api/mail/seat", ask)["muted"], "the game muted")


def test_the_account_address_in_french(server: LiveServer, new_page: Any, inbox: Inbox) -> None:
    page = new_page(locale="fr-FR")
    sign_up(server, page, "Zoé")
    page.click("[data-testid=account-button]")
    page.wait_for_selector("[data-testid=account-mail-status][data-status=none]")
    assert page.inner_text("#account-mail-title") == "Rappels par e-mail"
    assert page.inner_text("[data-testid=account-mail-status]") == (
        "Aucune adresse : pas de rappels."
    )
    before = len(inbox.messages)
    page.fill("[data-testid=account-mail-address]", "zoe@example.org")
    page.press("[data-testid=account-mail-address]", "Enter")
    page.wait_for_selector("[data-testid=account-mail-note]")
    assert page.inner_text("[data-testid=account-mail-note]") == (
        "Un lien de confirmation a été envoyé à zoe@example.org."
    )
    message = inbox.wait_for(before + 1)[-1]
    assert message["Subject"] == "Marrakech : confirmez votre adresse"
    page.click("[data-testid=account-mail-remove]")
    page.wait_for_selector("[data-testid=account-mail-status][data-status=none]")
    assert page.inner_text("[data-testid=account-mail-note]") == (
        "Adresse retirée : plus de rappels."
    )


def test_what_is_typed_survives_the_stored_address_arriving(
    server: LiveServer, new_page: Any, inbox: Inbox
) -> None:
    """The account's stored address comes from the server after the form is drawn: a
    player typing meanwhile keeps their text and focus, and Enter then sends it (this
    answer once arrived between a fill and its Enter, redrew the form empty, and the
    browser refused to submit it)."""
    page = new_page()
    sign_up(server, page, "Yasmine")
    held: list[Any] = []
    page.route("**/api/mail/account", lambda route: held.append(route))
    page.click("[data-testid=account-button]")
    page.wait_for_selector("[data-testid=account-mail-status][data-status=loading]")
    assert page.inner_text("[data-testid=account-mail-status]") == "Looking up the address given…"
    page.focus("[data-testid=account-mail-address]")
    page.keyboard.type("yasmine@exa")
    wait_until(page, lambda: bool(held), "the stored address asked for")
    held[0].continue_()
    page.unroute("**/api/mail/account")
    page.wait_for_selector("[data-testid=account-mail-status][data-status=none]")
    page.keyboard.type("mple.org")
    address = page.locator("[data-testid=account-mail-address]")
    assert address.input_value() == "yasmine@example.org"
    before = len(inbox.messages)
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=account-mail-note]")
    assert page.inner_text("[data-testid=account-mail-note]") == (
        "A confirmation link was sent to yasmine@example.org."
    )
    assert inbox.wait_for(before + 1)[-1]["To"] == "yasmine@example.org"
