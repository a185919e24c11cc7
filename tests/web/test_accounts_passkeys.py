"""Passkeys over the HTTP API (issue #24), answered by a software authenticator
(tests/web/soft_authenticator.py): sign-up, sign-in, adding one to an account, and every
answer that must be refused (forged, replayed, another site's, another challenge's, a
counter going back, an unknown passkey, a challenge out of time)."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi.testclient import TestClient

from marrakech.web.accounts import service
from marrakech.web.accounts.sessions import COOKIE
from tests.web.conftest import Apps
from tests.web.soft_authenticator import UP, SoftAuthenticator
from tests.web.test_accounts import PASSWORD, account_client, me, sign_up


@pytest.fixture
def web(apps: Apps) -> TestClient:
    return account_client(apps)


def start(client: TestClient, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = client.post(f"/api/account/passkey/{path}/options", json=body or {})
    assert reply.status_code == 200, reply.text
    started: dict[str, Any] = reply.json()
    return started


def passkey_sign_up(client: TestClient, name: str = "Ana") -> SoftAuthenticator:
    device = SoftAuthenticator()
    started = start(client, "register", {"name": name})
    options = started["options"]
    assert options["rp"] == {"id": "testserver", "name": "Marrakech"}
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    reply = client.post(
        "/api/account/passkey/register",
        json={"challenge_id": started["challenge_id"], "credential": device.register(options)},
    )
    assert reply.status_code == 201, reply.text
    assert reply.json()["account"]["passkeys"] == 1 and not reply.json()["account"]["password"]
    return device


def answer_sign_in(client: TestClient, challenge_id: str, credential: dict[str, Any]) -> Any:
    return client.post(
        "/api/account/passkey/signin", json={"challenge_id": challenge_id, "credential": credential}
    )


def test_sign_up_and_in_with_a_passkey(web: TestClient) -> None:
    device = passkey_sign_up(web)
    assert me(web) is not None
    web.post("/api/account/signout", json={})
    assert me(web) is None
    started = start(web, "signin")
    assert started["options"]["rpId"] == "testserver"
    assert started["options"]["allowCredentials"] == []  # the browser offers its own
    reply = answer_sign_in(web, started["challenge_id"], device.sign_in(started["options"]))
    assert reply.status_code == 200, reply.text
    assert reply.json()["account"]["name"] == "Ana"
    assert COOKIE in web.cookies
    # The export names the passkey, not its key.
    credentials = web.get("/api/account/export").json()["credentials"]
    assert [(c["kind"], c["transports"]) for c in credentials] == [("passkey", "internal")]


def test_a_passkey_name_is_checked_before_the_ceremony(web: TestClient) -> None:
    sign_up(web, "Ana")
    web.post("/api/account/signout", json={})
    reply = web.post("/api/account/passkey/register/options", json={"name": "ANA"})
    assert reply.status_code == 409 and reply.json()["error"] == "name_taken"
    reply = web.post("/api/account/passkey/register/options", json={"name": "root"})
    assert reply.status_code == 400 and reply.json()["error"] == "bad_name"


def test_a_name_taken_during_the_ceremony_is_refused_at_its_end(web: TestClient) -> None:
    device = SoftAuthenticator()
    started = start(web, "register", {"name": "Ana"})
    sign_up(web, "ana")  # someone else was quicker
    web.post("/api/account/signout", json={})
    reply = web.post(
        "/api/account/passkey/register",
        json={
            "challenge_id": started["challenge_id"],
            "credential": device.register(started["options"]),
        },
    )
    assert reply.status_code == 409 and reply.json()["error"] == "name_taken"


def test_a_replayed_answer_is_refused(web: TestClient) -> None:
    device = passkey_sign_up(web)
    web.post("/api/account/signout", json={})
    started = start(web, "signin")
    answer = device.sign_in(started["options"])
    assert answer_sign_in(web, started["challenge_id"], answer).status_code == 200
    web.post("/api/account/signout", json={})
    # The same answer again: its challenge was used.
    reply = answer_sign_in(web, started["challenge_id"], answer)
    assert reply.status_code == 400 and reply.json()["error"] == "bad_passkey"
    assert "answered once" in reply.json()["message"]
    # ...and against a fresh challenge it signs the old one.
    fresh = start(web, "signin")
    reply = answer_sign_in(web, fresh["challenge_id"], answer)
    assert reply.status_code == 400 and reply.json()["error"] == "bad_passkey"
    assert me(web) is None


def test_a_counter_going_back_is_refused(web: TestClient) -> None:
    device = passkey_sign_up(web)
    web.post("/api/account/signout", json={})
    started = start(web, "signin")
    assert answer_sign_in(
        web, started["challenge_id"], device.sign_in(started["options"])
    ).is_success
    web.post("/api/account/signout", json={})
    device.counter = 0  # a cloned authenticator
    started = start(web, "signin")
    reply = answer_sign_in(web, started["challenge_id"], device.sign_in(started["options"]))
    assert reply.status_code == 400 and reply.json()["error"] == "bad_passkey"
    assert me(web) is None


@pytest.mark.parametrize("forgery", ["other_key", "other_origin", "no_verification", "unknown"])
def test_forged_answers_are_refused(web: TestClient, forgery: str) -> None:
    device = passkey_sign_up(web)
    web.post("/api/account/signout", json={})
    started = start(web, "signin")
    options = started["options"]
    if forgery == "other_key":
        answer = device.sign_in(options, key=ec.generate_private_key(ec.SECP256R1()))
    elif forgery == "other_origin":
        answer = device.sign_in(options, origin="https://evil.example")
    elif forgery == "no_verification":
        answer = device.sign_in(options, flags=UP)
    else:
        answer = SoftAuthenticator().sign_in(options)
    reply = answer_sign_in(web, started["challenge_id"], answer)
    assert reply.status_code in (400, 401) and reply.json()["error"] == "bad_passkey", reply.text
    assert me(web) is None


def test_a_registration_for_another_site_or_challenge_is_refused(web: TestClient) -> None:
    device = SoftAuthenticator()
    started = start(web, "register", {"name": "Ana"})
    answer = device.register(started["options"], origin="https://evil.example")
    reply = web.post(
        "/api/account/passkey/register",
        json={"challenge_id": started["challenge_id"], "credential": answer},
    )
    assert reply.status_code == 400 and reply.json()["error"] == "bad_passkey"
    other = start(web, "register", {"name": "Ana"})
    wrong = start(web, "register", {"name": "Ana"})
    reply = web.post(
        "/api/account/passkey/register",
        json={
            "challenge_id": other["challenge_id"],
            "credential": device.register(wrong["options"]),
        },
    )
    assert reply.status_code == 400 and reply.json()["error"] == "bad_passkey"
    for body in ({"challenge_id": "x"}, {"challenge_id": "x", "credential": []}, {}):
        reply = web.post("/api/account/passkey/register", json=body)
        assert reply.status_code == 400, body
    reply = web.post(
        "/api/account/passkey/register", json={"challenge_id": "x", "credential": {"id": 1}}
    )
    assert reply.status_code == 400 and reply.json()["error"] == "bad_passkey"
    assert me(web) is None


def test_a_challenge_out_of_time_is_refused(web: TestClient, monkeypatch: Any) -> None:
    monkeypatch.setattr(service, "CHALLENGE_SECONDS", -1.0)
    device = SoftAuthenticator()
    started = start(web, "register", {"name": "Ana"})
    reply = web.post(
        "/api/account/passkey/register",
        json={
            "challenge_id": started["challenge_id"],
            "credential": device.register(started["options"]),
        },
    )
    assert reply.status_code == 400 and "answered once" in reply.json()["message"]


def test_a_passkey_added_to_a_password_account_signs_in(web: TestClient) -> None:
    sign_up(web, "Ana")
    device = SoftAuthenticator()
    reply = web.post("/api/account/passkey/register/options", json={"name": "Zed"})
    assert reply.status_code == 400  # signed in: no new account
    started = start(web, "register")
    assert started["options"]["user"]["name"] == "Ana"
    reply = web.post(
        "/api/account/passkey/register",
        json={
            "challenge_id": started["challenge_id"],
            "credential": device.register(started["options"]),
        },
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["account"]["passkeys"] == 1 and reply.json()["account"]["password"]
    # The same passkey twice is refused; it is excluded from the next ceremony.
    again = start(web, "register")
    assert len(again["options"]["excludeCredentials"]) == 1
    reply = web.post(
        "/api/account/passkey/register",
        json={
            "challenge_id": again["challenge_id"],
            "credential": device.register(again["options"]),
        },
    )
    assert reply.status_code == 409
    # Adding to an account needs its session: a stolen challenge id is useless.
    third = start(web, "register")
    web.post("/api/account/signout", json={})
    reply = web.post(
        "/api/account/passkey/register",
        json={
            "challenge_id": third["challenge_id"],
            "credential": SoftAuthenticator().register(third["options"]),
        },
    )
    assert reply.status_code == 401
    started = start(web, "signin")
    reply = answer_sign_in(web, started["challenge_id"], device.sign_in(started["options"]))
    assert reply.status_code == 200 and reply.json()["account"]["name"] == "Ana"
    assert web.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD}).is_success


def test_a_deleted_accounts_passkey_signs_nobody_in(web: TestClient) -> None:
    device = passkey_sign_up(web)
    assert web.post("/api/account/delete", json={"name": "Ana"}).status_code == 204
    started = start(web, "signin")
    reply = answer_sign_in(web, started["challenge_id"], device.sign_in(started["options"]))
    assert reply.status_code == 401 and reply.json()["error"] == "bad_passkey"


def test_two_instances_on_postgresql_share_accounts_and_ceremonies(pg_url: str) -> None:
    from marrakech.web.app import create_app
    from tests.web.test_accounts import CHEAP

    with (
        TestClient(create_app(pg_url, bot_delay=0, passwords=CHEAP)) as one,
        TestClient(create_app(pg_url, bot_delay=0, passwords=CHEAP)) as two,
    ):
        device = SoftAuthenticator()
        # A ceremony started on one instance is finished on the other.
        started = start(one, "register", {"name": "Ana"})
        reply = two.post(
            "/api/account/passkey/register",
            json={
                "challenge_id": started["challenge_id"],
                "credential": device.register(started["options"]),
            },
        )
        assert reply.status_code == 201, reply.text
        cookie = two.cookies[COOKIE]
        one.cookies.set(COOKIE, cookie)
        assert me(one) is not None  # the session holds on every instance...
        assert two.post("/api/account/signout", json={}).status_code == 204
        assert me(one) is None  # ...and ends on every instance
        # An answer is used once, whichever instance it is sent to.
        started = start(one, "signin")
        answer = device.sign_in(started["options"])
        assert answer_sign_in(two, started["challenge_id"], answer).status_code == 200
        assert answer_sign_in(one, started["challenge_id"], answer).status_code == 400


def test_a_passkey_is_removed_unless_it_is_the_last_way_in(web: TestClient) -> None:
    device = passkey_sign_up(web)
    only = me(web)
    assert only is not None
    (listed,) = only["passkey_list"]
    reply = web.post("/api/account/passkey/remove", json={"credential_id": listed["id"]})
    assert reply.status_code == 400 and "another way to sign in" in reply.json()["message"]
    # With a password added, the passkey may go; it then signs nobody in.
    assert web.post("/api/account/password", json={"password": PASSWORD}).status_code == 200
    reply = web.post("/api/account/passkey/remove", json={"credential_id": "not-one-of-them"})
    assert reply.status_code == 400
    reply = web.post("/api/account/passkey/remove", json={"credential_id": listed["id"]})
    assert reply.status_code == 200, reply.text
    assert (
        reply.json()["account"]["passkeys"] == 0 and reply.json()["account"]["passkey_list"] == []
    )
    web.post("/api/account/signout", json={})
    started = start(web, "signin")
    reply = answer_sign_in(web, started["challenge_id"], device.sign_in(started["options"]))
    assert reply.status_code == 401
    assert web.post("/api/account/passkey/remove", json={"credential_id": "x"}).status_code == 401


def test_a_page_opened_by_an_ip_address_is_told_to_use_the_name(web: TestClient) -> None:
    """WebAuthn refuses an IP address as the relying party (browsers say "This is an
    invalid domain", issue 36): the server says so, and where to go instead, before
    any ceremony."""
    for path, body in (("register", {"name": "Ana"}), ("signin", {})):
        reply = web.post(
            f"/api/account/passkey/{path}/options", json=body, headers={"host": "127.0.0.1:8000"}
        )
        assert reply.status_code == 400 and reply.json()["error"] == "passkeys_unavailable"
        assert "open http://localhost:8000/ instead" in reply.json()["message"], reply.text
    reply = web.post(
        "/api/account/passkey/signin/options", json={}, headers={"host": "[2001:db8::1]:8000"}
    )
    assert reply.status_code == 400 and reply.json()["error"] == "passkeys_unavailable"
    assert "not an IP address (2001:db8::1)" in reply.json()["message"]
