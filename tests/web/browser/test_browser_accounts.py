"""Accounts in the browser (issue #24): passkey sign-up and sign-in with Chromium's
virtual authenticator (driven through CDP), password sign-in from the keyboard, claiming
this device's guest games, account deletion, in English and French, on a 360 px phone.

The page is opened on ``localhost``: WebAuthn needs a secure context and a relying
party that is a domain name, and browsers count ``http://localhost`` as secure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.helpers import SMALL, LiveServer, page_fits, small_controls
from tests.web.test_accounts import CHEAP, PASSWORD


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"passwords": CHEAP}


def home(server: LiveServer) -> str:
    return f"http://localhost:{server.port}/"


def virtual_authenticator(page: Any) -> Any:
    """A platform passkey authenticator for the page (CTAP2, internal, resident keys,
    user verification that always succeeds)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, added["authenticatorId"]


def open_account(page: Any) -> None:
    page.click("[data-testid=account-button]")
    page.wait_for_selector("[data-testid=account-dialog][open]")


def note(page: Any) -> str:
    return str(page.locator("[data-testid=account-note]").inner_text())


def test_passkey_sign_up_then_sign_in(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    cdp, authenticator = virtual_authenticator(page)
    page.goto(home(server))
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("[data-testid=account-button]") == "Sign in"
    open_account(page)
    page.click("[data-testid=account-tab-signup]")
    page.fill("[data-testid=account-name]", "Passkey Pia")
    page.click("[data-testid=account-signup-passkey]")
    page.wait_for_selector("[data-testid=account-note]")
    assert note(page) == "Account created: you are signed in."
    assert page.inner_text("[data-testid=account-button]") == "Passkey Pia"
    assert "Passkeys: 1" in page.inner_text("[data-testid=account-credentials]")
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    (stored,) = credentials["credentials"]
    assert stored["isResidentCredential"]
    # The cookie is the page's only hold on the account, and its scripts cannot read it.
    assert page.evaluate("document.cookie") == ""
    page.click("[data-testid=account-signout]")
    page.wait_for_selector("[data-testid=account-signin-form]")
    assert page.inner_text("[data-testid=account-button]") == "Sign in"
    page.click("[data-testid=account-signin-passkey]")
    page.wait_for_selector("[data-testid=account-name-shown]")
    assert note(page) == "You are signed in."
    assert page.inner_text("[data-testid=account-button]") == "Passkey Pia"
    # The only way in cannot be removed; with a password added, it can.
    assert page.is_disabled("[data-testid=account-remove-passkey]")
    page.click("text=Add a password")
    page.fill("[data-testid=account-new]", PASSWORD)
    page.press("[data-testid=account-new]", "Enter")
    page.wait_for_selector("text=Password saved. Your other devices are signed out.")
    page.click("[data-testid=account-remove-passkey]")
    page.wait_for_selector("text=Passkey removed.")
    assert "Passkeys: 0" in page.inner_text("[data-testid=account-credentials]")
    # A reload keeps the session.
    page.reload()
    page.wait_for_selector("[data-testid=account-button][data-signed-in='1']")


def test_no_passkey_button_on_an_ip_address(server: LiveServer, new_page: Any) -> None:
    """On http://127.0.0.1:PORT (a secure context, but WebAuthn refuses IP addresses:
    "This is an invalid domain", issue 36) the dialog says why and where passkeys work,
    and offers no button that would fail; signed in, no "Add a passkey" either."""
    server.api("POST", "/api/account/signup", {"name": "Numeric Nell", "password": PASSWORD})
    localhost = home(server)
    for locale, words in (
        ("en-GB", f"Passkeys do not work on an IP address: open {localhost} to use them."),
        ("fr-FR", f"Les clés d'accès ne fonctionnent pas sur une adresse IP : ouvrez {localhost}"),
    ):
        page = new_page(locale=locale)
        virtual_authenticator(page)  # WebAuthn is there: the address alone rules it out
        page.goto(f"http://127.0.0.1:{server.port}/")
        page.wait_for_selector("body[data-ready='1']")
        open_account(page)
        for tab in ("signin", "signup"):
            page.click(f"[data-testid=account-tab-{tab}]")
            page.wait_for_selector(f"[data-testid=account-{tab}-form]")
            assert words in page.inner_text("[data-testid=account-passkey-unavailable]")
            assert page.locator(f"[data-testid=account-{tab}-passkey]").count() == 0
        page.click("[data-testid=account-tab-signin]")
        page.fill("[data-testid=account-name]", "Numeric Nell")
        page.fill("[data-testid=account-password]", PASSWORD)
        page.click("[data-testid=account-signin-password]")
        page.wait_for_selector("[data-testid=account-name-shown]")
        assert words in page.inner_text("[data-testid=account-passkey-unavailable]")
        assert page.locator("[data-testid=account-add-passkey]").count() == 0
        page.click("[data-testid=account-signout]")
        page.wait_for_selector("[data-testid=account-signin-form]")


def test_password_sign_in_from_the_keyboard_in_french(server: LiveServer, new_page: Any) -> None:
    server.api("POST", "/api/account/signup", {"name": "Clavier", "password": PASSWORD})
    page = new_page(locale="fr-FR")
    page.goto(home(server))
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("[data-testid=account-button]") == "Se connecter"
    page.focus("[data-testid=account-button]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=account-dialog][open]")
    # The first field has the focus: type, Tab, type, Enter.
    page.keyboard.type("clavier")
    page.keyboard.press("Tab")
    page.keyboard.type("not the password")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=account-error]")
    assert page.inner_text("[data-testid=account-error]") == "Nom ou mot de passe incorrect."
    page.fill("[data-testid=account-password]", PASSWORD)
    page.fill("[data-testid=account-name]", "clavier")
    page.press("[data-testid=account-password]", "Enter")
    page.wait_for_selector("[data-testid=account-name-shown]")
    assert note(page) == "Vous êtes connecté."
    assert page.inner_text("[data-testid=account-button]") == "Clavier"
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=account-dialog]:not([open])", state="attached")


def test_claim_then_delete_the_account_on_a_phone(server: LiveServer, new_page: Any) -> None:
    game = server.api(
        "POST", "/api/games", {"players": 2, "seats": [{"kind": "human"}, {"kind": "bot"}]}
    )
    page = new_page(**SMALL)
    page.goto(home(server))
    page.wait_for_selector("body[data-ready='1']")
    # This device played the game as a guest (the lobby keeps its seat token).
    entry = {"id": game["game_id"], "tokens": [game["seats"][0]["token"]], "seats": [0]}
    page.evaluate(f"localStorage.setItem('marrakech.games', JSON.stringify([{json.dumps(entry)}]))")
    open_account(page)
    page.click("[data-testid=account-tab-signup]")
    page_fits(page)
    assert not [c for c in small_controls(page) if "account" in c], small_controls(page)
    page.fill("[data-testid=account-name]", "Phone Pat")
    page.fill("[data-testid=account-password]", "password1")
    page.click("[data-testid=account-signup-password]")
    page.wait_for_selector("[data-testid=account-error]")
    assert page.inner_text("[data-testid=account-error]").startswith("This password is too weak")
    # The refusal keeps what was typed: only the password needs changing.
    assert page.input_value("[data-testid=account-name]") == "Phone Pat"
    page.fill("[data-testid=account-password]", PASSWORD)
    page.click("[data-testid=account-signup-password]")
    page.wait_for_selector("[data-testid=account-name-shown]")
    page_fits(page)
    page.click("[data-testid=account-claim]")
    page.wait_for_selector("text=Games added to your account: 1.")
    with page.expect_download() as downloading:
        page.click("[data-testid=account-export]")
    exported = json.loads(Path(downloading.value.path()).read_text(encoding="utf-8"))
    assert exported["account"]["name"] == "Phone Pat"
    assert [g["game_id"] for g in exported["games"]] == [game["game_id"]]
    page.click("text=Delete my account")
    page.fill("[data-testid=account-confirm]", "phone pat")
    page.click("[data-testid=account-delete]")
    page.wait_for_selector("[data-testid=account-signup-form]")
    assert note(page) == "Your account is deleted."
    assert page.inner_text("[data-testid=account-button]") == "Sign in"
    record = server.api("GET", f"/api/games/{game['game_id']}/record")
    assert record["seats"][0] == "deleted player"
