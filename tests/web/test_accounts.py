"""Accounts over the HTTP API (issue #24): sign-up and sign-in with a password, the
session cookie, sign-out (here and everywhere), names, weak passwords, the rate limits
that give nothing away, deletion, the data export, and claiming guest games. Passkeys:
test_accounts_passkeys.py."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from marrakech.web.accounts.names import DELETED_NAME
from marrakech.web.accounts.passwords import Passwords
from marrakech.web.accounts.sessions import COOKIE
from marrakech.web.app import create_app
from marrakech.web.budgets import Rate
from tests.web.conftest import Apps, create_game, seat_token

#: Argon2id with the least work: the tests check the logic, not the cost.
CHEAP = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
PASSWORD = "a long passphrase of mine"


def account_client(apps: Apps) -> TestClient:
    return apps.start(passwords=CHEAP)


@pytest.fixture
def web(apps: Apps) -> TestClient:
    return account_client(apps)


def sign_up(client: TestClient, name: str = "Ana", password: str = PASSWORD) -> dict[str, Any]:
    reply = client.post("/api/account/signup", json={"name": name, "password": password})
    assert reply.status_code == 201, reply.text
    account: dict[str, Any] = reply.json()["account"]
    return account


def me(client: TestClient) -> dict[str, Any] | None:
    reply = client.get("/api/account")
    assert reply.status_code == 200, reply.text
    found: dict[str, Any] | None = reply.json()["account"]
    return found


def stopped_clock(client: TestClient, per_address: int = 10) -> Callable[[float], None]:
    """The sign-in limits as served (``per_address`` attempts a minute), on a clock that
    does not move: no budget refills while a slow machine runs the test. The clock is
    moved on by the function returned."""
    accounts = client.app.state.web.accounts  # type: ignore[attr-defined]
    accounts.sign_ins = Rate("sign-in", per_address, per_address)
    now = [time.time()]
    accounts.budgets.clock = lambda: now[0]

    def move_on(seconds: float) -> None:
        now[0] += seconds

    return move_on


def test_sign_up_signs_in_with_an_http_only_lax_cookie(web: TestClient) -> None:
    reply = web.post("/api/account/signup", json={"name": " Ana  Lía ", "password": PASSWORD})
    assert reply.status_code == 201, reply.text
    account = reply.json()["account"]
    assert account["name"] == "Ana Lía" and account["password"] and account["passkeys"] == 0
    cookie = reply.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # served over plain HTTP here: see the https test
    assert me(web) == account


def test_the_cookie_is_secure_when_the_request_came_over_tls() -> None:
    from fastapi import Request, Response

    from marrakech.web.accounts.sessions import set_session_cookie

    scope = {"type": "http", "scheme": "https", "headers": [], "server": ("x", 443), "path": "/"}
    response = Response()
    set_session_cookie(Request(scope), response, "t")
    assert "Secure" in response.headers["set-cookie"]


def test_names_are_unique_whatever_their_case(web: TestClient) -> None:
    sign_up(web, "Ana")
    web.post("/api/account/signout", json={})
    for taken in ("ana", "ANA", " Ａｎａ "):
        reply = web.post("/api/account/signup", json={"name": taken, "password": PASSWORD})
        assert reply.status_code == 409, reply.text
        assert reply.json()["error"] == "name_taken"
    assert me(web) is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("admin", "reserved"),
        ("Deleted Player", "reserved"),
        ("HARD", "reserved"),
        ("Bot 7", "reserved"),
        ("a", "at least 2 characters"),
        ("x" * 41, "at most 40 characters"),
        ("ana\u0007", "control characters"),
        ("\u200d\u200c", "visible character"),
    ],
)
def test_reserved_and_malformed_names_are_refused(
    web: TestClient, name: str, expected: str
) -> None:
    reply = web.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"] == "bad_name" and expected in reply.json()["message"]


@pytest.mark.parametrize(
    ("password", "expected"),
    [
        ("short", "at least 10 characters"),
        ("P@ssw0rd2024!", "most common"),
        ("Iloveyou!!!!", "most common"),
        ("azertyuiop", "common"),
        ("1qaz2wsx3edc", "keyboard row"),
        ("aaaaaaaaaaaa", "keyboard row"),
        ("ana-lia-is-me", "name"),
        ("x" * 257, "at most 256"),
    ],
)
def test_weak_passwords_are_refused_with_the_reason(
    web: TestClient, password: str, expected: str
) -> None:
    reply = web.post("/api/account/signup", json={"name": "Ana Lia", "password": password})
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"] == "weak_password" and expected in reply.json()["message"]
    assert me(web) is None


def test_bodies_are_checked_strictly(web: TestClient) -> None:
    for body in ({"name": "Ana"}, {"name": "Ana", "password": 12345678901}, {"x": 1}):
        reply = web.post("/api/account/signup", json=body)
        assert reply.status_code == 400 and reply.json()["error"] == "bad_request", body
    reply = web.post("/api/account/signup", content=b"name=Ana&password=x")
    assert reply.status_code == 415


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(web: TestClient) -> None:
    sign_up(web, "Ana")
    web.post("/api/account/signout", json={})
    wrong = web.post("/api/account/signin", json={"name": "Ana", "password": "not it at all"})
    unknown = web.post("/api/account/signin", json={"name": "Zed", "password": "not it at all"})
    no_password = web.post("/api/account/signin", json={"name": "Ana", "password": ""})
    for reply in (wrong, unknown, no_password):
        assert reply.status_code == 401
        assert reply.json() == {"error": "bad_credentials", "message": "wrong name or password"}
        assert "set-cookie" not in reply.headers
    assert me(web) is None
    right = web.post("/api/account/signin", json={"name": "ANA", "password": PASSWORD})
    assert right.status_code == 200 and right.json()["account"]["name"] == "Ana"


def test_sign_in_attempts_are_limited_per_name_existing_or_not(web: TestClient) -> None:
    stopped_clock(web, per_address=10_000)  # this test is about the names' limit
    sign_up(web, "Ana")
    web.post("/api/account/signout", json={})
    answers: dict[str, list[tuple[int, str]]] = {}
    for name in ("Ana", "Zed"):
        answers[name] = []
        for _ in range(6):
            reply = web.post("/api/account/signin", json={"name": name, "password": "wrong guess"})
            answers[name].append((reply.status_code, reply.json()["message"]))
    assert answers["Ana"] == answers["Zed"]  # nothing tells the names apart
    assert [status for status, _ in answers["Ana"]] == [401] * 5 + [429]
    # Past the limit even the right password waits: guessing cannot go on.
    reply = web.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD})
    assert reply.status_code == 429 and "Retry-After" in reply.headers
    assert "for this name" in reply.json()["message"]


def test_sign_in_attempts_are_limited_per_address(web: TestClient) -> None:
    stopped_clock(web)
    statuses = []
    for number in range(11):
        reply = web.post(
            "/api/account/signin", json={"name": f"name{number}", "password": "wrong guess"}
        )
        statuses.append(reply.status_code)
    assert statuses == [401] * 10 + [429]
    assert "from your address" in reply.json()["message"]


def test_a_cookie_is_worth_nothing_after_sign_out(web: TestClient) -> None:
    sign_up(web)
    stolen = web.cookies[COOKIE]
    reply = web.post("/api/account/signout", json={})
    assert reply.status_code == 204
    assert COOKIE not in web.cookies  # the browser was told to drop it...
    web.cookies.set(COOKIE, stolen)  # ...and a copy kept elsewhere is refused
    assert me(web) is None
    for path in ("/api/account/export",):
        assert web.get(path).status_code == 401
    reply = web.post("/api/account/claim", json={"seats": []})
    assert reply.status_code == 401 and reply.json()["error"] == "unauthorized"
    # A made-up cookie is no better.
    web.cookies.set(COOKIE, "x" * 43)
    assert me(web) is None


def test_signing_in_again_ends_the_browsers_previous_session(web: TestClient) -> None:
    sign_up(web, "Ana")
    first = web.cookies[COOKIE]
    sign_up(web, "Zed")  # the same browser, another account
    assert me(web) is not None and me(web)["name"] == "Zed"  # type: ignore[index]
    web.cookies.set(COOKIE, first)
    assert me(web) is None


def test_sign_out_everywhere_ends_every_session(web: TestClient) -> None:
    sign_up(web)
    first = web.cookies[COOKIE]
    web.cookies.clear()
    reply = web.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD})
    assert reply.status_code == 200
    second = web.cookies[COOKIE]
    assert first != second
    web.cookies.set(COOKIE, first)
    assert me(web) is not None
    assert web.post("/api/account/signout-everywhere", json={}).status_code == 204
    for cookie in (first, second):
        web.cookies.set(COOKIE, cookie)
        assert me(web) is None


def test_changing_the_password_needs_the_current_one_and_ends_other_sessions(
    web: TestClient,
) -> None:
    sign_up(web)
    other = web.cookies[COOKIE]
    web.cookies.clear()
    web.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD})
    this = web.cookies[COOKIE]
    new = "another long passphrase"
    reply = web.post("/api/account/password", json={"password": new})
    assert reply.status_code == 403 and reply.json()["error"] == "bad_credentials"
    reply = web.post(
        "/api/account/password", json={"password": new, "current_password": "wrong one!!"}
    )
    assert reply.status_code == 403
    reply = web.post(
        "/api/account/password", json={"password": "short", "current_password": PASSWORD}
    )
    assert reply.status_code == 400 and reply.json()["error"] == "weak_password"
    reply = web.post("/api/account/password", json={"password": new, "current_password": PASSWORD})
    assert reply.status_code == 200, reply.text
    assert me(web) is not None  # this session stays
    web.cookies.set(COOKIE, other)
    assert me(web) is None  # the other one ended
    web.cookies.set(COOKIE, this)
    web.post("/api/account/signout", json={})
    old = web.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD})
    assert old.status_code == 401
    assert web.post("/api/account/signin", json={"name": "Ana", "password": new}).status_code == 200


def test_deleting_keeps_the_games_and_frees_the_name(web: TestClient) -> None:
    sign_up(web)
    game = create_game(web, players=2, seats=[{"kind": "human", "name": "Ana"}, {"kind": "human"}])
    stolen = web.cookies[COOKIE]
    reply = web.post("/api/account/delete", json={"name": "Someone else"})
    assert reply.status_code == 400 and "own name" in reply.json()["message"]
    reply = web.post("/api/account/delete", json={"name": "ana"})
    assert reply.status_code == 204
    assert me(web) is None
    web.cookies.set(COOKIE, stolen)
    assert me(web) is None
    # The game stays; its seat names a deleted player now.
    record = web.get(f"/api/games/{game['game_id']}/record").json()
    assert record["seats"] == [DELETED_NAME, "human"]
    reply = web.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD})
    assert reply.status_code == 401
    web.cookies.clear()
    assert sign_up(web, "Ana")["name"] == "Ana"  # a new account, with a new id


def test_the_export_holds_everything_but_secrets(web: TestClient) -> None:
    account = sign_up(web)
    game = create_game(web, players=2, seats=[{"kind": "human", "name": "Ana"}, {"kind": "bot"}])
    reply = web.get("/api/account/export")
    assert reply.status_code == 200
    assert reply.headers["content-disposition"].startswith("attachment")
    data = reply.json()
    assert data["account"]["id"] == account["id"] and data["account"]["name"] == "Ana"
    assert [c["kind"] for c in data["credentials"]] == ["password"]
    assert [s["this_one"] for s in data["sessions"]] == [True]
    assert [(g["game_id"], g["seat"]) for g in data["games"]] == [(game["game_id"], 0)]
    text = reply.text
    assert "argon2" not in text and web.cookies[COOKIE] not in text


def test_a_guest_claims_the_games_this_device_played(web: TestClient) -> None:
    played = create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    other = create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "bot"}])
    sign_up(web)
    seats = [
        {"game_id": played["game_id"], "token": seat_token(played, 0)},
        {"game_id": played["game_id"], "token": seat_token(played, 1)},
        # A wrong token, another game's token, a game that is not there: passed over.
        {"game_id": other["game_id"], "token": "not the token"},
        {"game_id": played["game_id"], "token": seat_token(other, 0)},
        {"game_id": "nosuchgame12", "token": "x"},
    ]
    reply = web.post("/api/account/claim", json={"seats": seats})
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"games": [played["game_id"], played["game_id"]]}
    # Claimed once: a second claim (another account's too) links nothing.
    assert web.post("/api/account/claim", json={"seats": seats}).json() == {"games": []}
    web.post("/api/account/signout", json={})
    sign_up(web, "Zed")
    assert web.post("/api/account/claim", json={"seats": seats}).json() == {"games": []}
    reply = web.post("/api/account/claim", json={"seats": [{"game_id": 1, "token": ""}]})
    assert reply.status_code == 400
    reply = web.post("/api/account/claim", json={"seats": seats[:1] * 201})
    assert reply.status_code == 400 and "200" in reply.json()["message"]


def test_games_created_and_joined_signed_in_are_the_accounts(web: TestClient) -> None:
    sign_up(web)
    created = create_game(
        web, players=2, seats=[{"kind": "human", "name": "Ana"}, {"kind": "open"}]
    )
    host = create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    web.post("/api/account/signout", json={})
    sign_up(web, "Zed")
    reply = web.post(f"/api/games/{host['game_id']}/join", json={"seat": 1, "name": "Zed"})
    assert reply.status_code == 200, reply.text
    games = web.get("/api/account/export").json()["games"]
    assert [(g["game_id"], g["seat"]) for g in games] == [(host["game_id"], 1)]
    web.post("/api/account/signout", json={})
    web.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD})
    games = web.get("/api/account/export").json()["games"]
    assert sorted((g["game_id"], g["seat"]) for g in games) == sorted(
        [(created["game_id"], 0), (host["game_id"], 0)]
    )


def test_the_hosts_seat_takes_the_accounts_name_unless_given_one(web: TestClient) -> None:
    sign_up(web, "Ana Lía")
    unnamed = create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "bot"}])
    named = create_game(web, players=2, seats=[{"kind": "human", "name": "Nana"}, {"kind": "bot"}])
    names = [
        web.get(f"/api/games/{game['game_id']}").json()["seats"][0]["name"]
        for game in (unnamed, named)
    ]
    assert names == ["Ana Lía", "Nana"]


def test_playing_without_an_account_is_unchanged(web: TestClient) -> None:
    assert me(web) is None
    game = create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    reply = web.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": "Zed"})
    assert reply.status_code == 200


@pytest.fixture
def pg_web(pg_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(pg_url, bot_delay=0, passwords=CHEAP)) as client:
        yield client


def test_accounts_on_postgresql(pg_web: TestClient) -> None:
    web = pg_web
    game = create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    sign_up(web, "Ana")
    web.post("/api/account/signout", json={})
    reply = web.post("/api/account/signup", json={"name": "ANA", "password": PASSWORD})
    assert reply.status_code == 409
    assert (
        web.post("/api/account/signin", json={"name": "ana", "password": "wrong guess"}).status_code
        == 401
    )
    assert (
        web.post("/api/account/signin", json={"name": "ana", "password": PASSWORD}).status_code
        == 200
    )
    seat = {"game_id": game["game_id"], "token": seat_token(game, 0)}
    assert web.post("/api/account/claim", json={"seats": [seat]}).json()["games"] == [
        game["game_id"]
    ]
    assert len(web.get("/api/account/export").json()["games"]) == 1
    stolen = web.cookies[COOKIE]
    assert web.post("/api/account/delete", json={"name": "Ana"}).status_code == 204
    web.cookies.set(COOKIE, stolen)
    assert me(web) is None
    assert web.get(f"/api/games/{game['game_id']}/record").json()["seats"][0] == DELETED_NAME


def test_an_account_has_its_own_budgets_across_addresses(apps: Apps) -> None:
    from marrakech.web.limits import Limits
    from marrakech.web.protocol import ApiError

    limits = Limits(creates_per_minute=1, create_burst=2, joins_per_minute=1, join_burst=1)
    web = apps.start(passwords=CHEAP, limits=limits)
    manager = web.app.state.web.manager  # type: ignore[attr-defined]
    # Three addresses, each within its own budget: the account's runs out at the third.
    manager.check_creation_rate("198.51.100.1", "acc")
    manager.check_creation_rate("198.51.100.2", "acc")
    with pytest.raises(ApiError, match="too many new games from your account"):
        manager.check_creation_rate("198.51.100.3", "acc")
    manager.check_creation_rate("198.51.100.4")  # a guest from elsewhere is not held back
    # Through the API: a join signed in takes from both budgets (here the address's,
    # of one join, runs out first).
    sign_up(web)
    host = create_game(web, players=2, seats=[{"kind": "human", "name": "Ana"}, {"kind": "open"}])
    other = create_game(web, players=2, seats=[{"kind": "human", "name": "Ana"}, {"kind": "open"}])
    reply = web.post(f"/api/games/{host['game_id']}/join", json={"seat": 1, "name": "Bo"})
    assert reply.status_code == 200
    reply = web.post(f"/api/games/{other['game_id']}/join", json={"seat": 1, "name": "Bo"})
    assert reply.status_code == 429


def test_an_account_has_its_own_caps_on_games_under_way(apps: Apps) -> None:
    from marrakech.web.limits import Limits

    limits = Limits(games_per_client=2, bots_per_client=1)
    web = apps.start(passwords=CHEAP, limits=limits)
    sign_up(web)

    def from_address(address: str) -> None:
        """The next requests come from ``address`` (the test client's transport)."""
        web._transport.client = (address, 50000)

    from_address("198.51.100.1")
    create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "bot"}])
    from_address("198.51.100.2")  # a new address: its own caps are untouched...
    reply = web.post(
        "/api/games", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "bot"}]}
    )
    assert reply.status_code == 429 and "bots" in reply.json()["message"]  # ...the account's not
    create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    from_address("198.51.100.3")
    reply = web.post("/api/games", json={"players": 2, "seats": [{"kind": "human"}] * 2})
    assert reply.status_code == 429 and reply.json()["error"] == "too_many_games"
    # Signed out, that address may create: the caps held the account, not the address.
    web.post("/api/account/signout", json={})
    create_game(web, players=2, seats=[{"kind": "human"}] * 2)
