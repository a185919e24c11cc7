"""Web Push end to end (issue 37, item 4; docs/web.md, "Push notifications"): the
app's pushes go to an RFC 8030 push service in the test process
(:mod:`tests.web.push_service`), which checks their VAPID signature and decrypts them;
the app runs on the test's SQLite file with a clock the tests move on.

A turn that becomes an absent player's sends exactly one push (text, tag, TTL), none
while the page is open; French; a ``410`` removes the subscription; a push service that
is down is retried and never holds a move up; forged subscriptions are refused with
what was expected, and nothing stored is lost; the VAPID key is made once and kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import bindparam, update

from marrakech.web.accounts.service import Accounts
from marrakech.web.reminders.service import Reminders
from marrakech.web.reminders.webpush import PushSettings
from marrakech.web.store import SeatRow, hash_token
from marrakech.web.store.queries import compile_statement
from marrakech.web.store.schema import games, seats
from tests.web.conftest import Apps, Conn, seat_token
from tests.web.push_service import PushService, b64url
from tests.web.test_accounts import CHEAP, PASSWORD, sign_up
from tests.web.test_reminders import (
    Clock,
    deliver,
    outbox,
    play_turn,
    rows,
    stored_deadline,
    two_people,
    wait_until,
)
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store import a_game
from tests.web.test_store_contract import open_store  # noqa: F401 (the fixture)

PUSH = PushSettings("mailto:ops@example.org", allow_http_loopback=True, timeout=5.0)


@pytest.fixture
def service() -> Iterator[PushService]:
    with PushService() as running:
        yield running


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def web(apps: Apps, clock: Clock) -> TestClient:
    return apps.start(push=PUSH, mail_clock=clock, passwords=CHEAP)


def subscribe(web: TestClient, subscription: dict[str, Any], **fields: Any) -> Any:
    body = {**subscription, "kinds": ["your_turn"], "lang": "en", **fields}
    return web.post("/api/push/device", json=body)


def bobs_game(web: TestClient, service: PushService, lang: str = "en") -> dict[str, Any]:
    """Bob, signed in, has notifications on for his turns on one device and holds
    seat 1 of a new game of two people."""
    game = two_people(web)  # before signing in: seat 0 is not Bob's
    sign_up(web, "Bob")
    reply = subscribe(web, service.subscribe("bob"), lang=lang)
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"device": {"kinds": ["your_turn"], "lang": lang}}
    claim = web.post(
        "/api/account/claim",
        json={"seats": [{"game_id": game["game_id"], "token": seat_token(game, 1)}]},
    )
    assert claim.status_code == 200, claim.text
    return game


def pushes(db: Path) -> list[dict[str, Any]]:
    return [row for row in outbox(db) if row["kind"].startswith("push:")]


def test_an_absent_players_turn_pushes_once(
    web: TestClient, service: PushService, clock: Clock, db_path: Path
) -> None:
    info = web.get("/api/push").json()
    assert [kind["name"] for kind in info["kinds"]] == [
        "your_turn",
        "challenge",
        "tournament",
        "pool_game",
    ]
    assert [kind["live"] for kind in info["kinds"]] == [True, True, True, True]
    game = bobs_game(web, service)
    play_turn(web, game, 0)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(web, db_path, clock)
    (push,) = service.pushes
    assert service.refused == []
    assert push.subscriber == "bob"
    assert push.vapid_key == info["public_key"]  # signed with the key the page gets
    assert push.claims["sub"] == "mailto:ops@example.org"
    assert push.message == {
        "kind": "your_turn",
        "lang": "en",
        "title": "Marrakech: your turn",
        "body": "It is your turn in your game of Marrakech with Red-Yellow.",
        "url": f"/g/{game['game_id']}",
        "tag": f"game:{game['game_id']}",
    }
    assert push.ttl == 12 * 3600  # no turn clock: the kind's TTL
    assert push.topic is not None and len(push.topic) <= 32 and push.urgency == "normal"
    (row,) = pushes(db_path)
    assert (row["status"], row["kind"], row["seat"]) == ("sent", "push:your_turn", 1)
    # Never twice: the turn told again (a reloaded room), another round: nothing more.
    from marrakech.web.reminders.hooks import TurnStart

    reminders = web.app.state.web.reminders  # type: ignore[attr-defined]
    assert web.portal is not None
    web.portal.call(reminders._queue_turn, TurnStart(game["game_id"], 1, row["turn"], False))
    deliver(web, db_path, clock)
    assert len(service.pushes) == 1 and len(pushes(db_path)) == 1


@pytest.mark.parametrize("clock_mode", ["turn_1h", "turn_1d"])
def test_a_turn_based_games_push_expires_with_the_turn(
    web: TestClient, service: PushService, clock: Clock, db_path: Path, clock_mode: str
) -> None:
    game = two_people(web, clock=clock_mode)
    sign_up(web, "Bob")
    assert subscribe(web, service.subscribe("bob")).status_code == 200
    claim = {"seats": [{"game_id": game["game_id"], "token": seat_token(game, 1)}]}
    assert web.post("/api/account/claim", json=claim).status_code == 200
    play_turn(web, game, 0)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(web, db_path, clock)
    (push,) = service.pushes
    assert push.message["kind"] == "your_turn" and push.message["tag"] == f"game:{game['game_id']}"
    # It expires with the turn (an hour's turn, and its time bank), or after the kind's
    # 12 hours if the turn is longer (a day's).
    left = stored_deadline(db_path, game, 1) - clock()
    assert push.ttl == pytest.approx(min(12 * 3600, left), abs=60)
    assert (push.ttl < 12 * 3600) == (clock_mode == "turn_1h")


def test_no_push_while_the_page_is_open(
    web: TestClient, service: PushService, clock: Clock, db_path: Path
) -> None:
    game = bobs_game(web, service)
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        Conn(ws, [seat_token(game, 1)])  # Bob's page is open when his turn comes
        play_turn(web, game, 0)
        deliver(web, db_path, clock)
    assert pushes(db_path) == [] and service.pushes == []


def test_french_push_and_a_deadline_shortens_its_ttl(
    apps: Apps, service: PushService, clock: Clock, db_path: Path
) -> None:
    web = apps.start(push=PUSH, mail_clock=clock, passwords=CHEAP, relaxed_seconds=1800)
    game = two_people(web, clock="relaxed")
    sign_up(web, "Bob")
    assert subscribe(web, service.subscribe("bob"), lang="fr").status_code == 200
    web.post(
        "/api/account/claim",
        json={"seats": [{"game_id": game["game_id"], "token": seat_token(game, 1)}]},
    )
    play_turn(web, game, 0)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(web, db_path, clock)
    (push,) = service.pushes
    assert push.message["title"] == "Marrakech : à vous de jouer"
    assert push.message["body"] == (
        "C’est votre tour dans votre partie de Marrakech avec Rouge-Jaune."
    )
    assert 60 <= push.ttl <= 1800  # it expires with the turn's time


def test_a_410_removes_the_subscription(
    web: TestClient, service: PushService, clock: Clock, db_path: Path
) -> None:
    game = bobs_game(web, service)
    service.subscribers["bob"].status = 410  # the browser unsubscribed since
    play_turn(web, game, 0)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(web, db_path, clock)
    (row,) = pushes(db_path)
    assert row["status"] == "failed" and "410" in row["problem"]
    assert rows(db_path, "SELECT * FROM push_subscriptions") == []
    # Nothing more is queued for it.
    play_turn(web, game, 1)
    play_turn(web, game, 0)
    deliver(web, db_path, clock)
    assert len(pushes(db_path)) == 1 and service.pushes == []


def test_a_push_service_that_is_down_is_retried(
    web: TestClient, clock: Clock, db_path: Path
) -> None:
    down = PushService()  # not started: nothing listens on its port yet
    game = bobs_game(web, down)
    play_turn(web, game, 0)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(web, db_path, clock)
    (row,) = pushes(db_path)
    assert (row["status"], row["attempts"]) == ("queued", 1)
    assert "cannot reach the push service" in row["problem"]
    assert row["due"] == pytest.approx(clock() + 30, abs=5)  # the first retry
    with down:
        deliver(web, db_path, clock)
        assert down.pushes == []  # not due yet
        clock.advance(31)
        deliver(web, db_path, clock)
        (push,) = down.pushes
        assert push.message["kind"] == "your_turn"
    (row,) = pushes(db_path)
    assert (row["status"], row["attempts"]) == ("sent", 2)
    assert len(rows(db_path, "SELECT * FROM push_subscriptions")) == 1  # kept


def test_a_busy_push_service_is_tried_again_when_it_asks(
    web: TestClient, service: PushService, clock: Clock, db_path: Path
) -> None:
    # A 429 with Retry-After: 600 is tried again in ten minutes, not at the first
    # retry's 30 s (RFC 8030 section 8.4: a push service may ask for less traffic).
    game = bobs_game(web, service)
    subscriber = service.subscribers["bob"]
    subscriber.status, subscriber.retry_after = 429, "600"
    play_turn(web, game, 0)
    wait_until(lambda: pushes(db_path), "the push to be queued")
    deliver(web, db_path, clock)
    (row,) = pushes(db_path)
    assert (row["status"], row["attempts"]) == ("queued", 1)
    assert "answered 429, asking for 600 s" in row["problem"]
    assert row["due"] == pytest.approx(clock() + 600, abs=5)
    subscriber.status = 201
    clock.advance(300)
    deliver(web, db_path, clock)
    assert service.pushes == []  # asked for ten minutes: not yet
    clock.advance(301)
    deliver(web, db_path, clock)
    (push,) = service.pushes
    assert push.message["kind"] == "your_turn"


def test_a_move_never_waits_for_the_push_service(apps: Apps, clock: Clock, db_path: Path) -> None:
    # A push service that accepts connections and never answers: moves go on.
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        slow = PushSettings("mailto:ops@example.org", allow_http_loopback=True, timeout=60.0)
        web = apps.start(push=slow, mail_clock=clock, passwords=CHEAP)
        mute = PushService(listener.getsockname()[1])  # its keys; never started
        game = bobs_game(web, mute)
        started = time.monotonic()
        play_turn(web, game, 0)
        wait_until(lambda: pushes(db_path), "the push to be queued")
        play_turn(web, game, 1)
        play_turn(web, game, 0)
        assert time.monotonic() - started < 30
        wait_until(lambda: len(pushes(db_path)) == 2, "the second push to be queued")
    finally:
        listener.close()


def forged(service: PushService) -> list[tuple[dict[str, Any], str]]:
    good = service.subscribe("good")
    keys = good["keys"]

    def with_endpoint(url: str) -> dict[str, Any]:
        return {"endpoint": url, "keys": keys}

    return [
        (with_endpoint("http://push.example.com/x"), "expected an https:// URL"),
        (with_endpoint("ftp://push.example.com/x"), "expected an https:// URL"),
        (with_endpoint("https://10.0.0.7/push"), "found the private address 10.0.0.7"),
        (with_endpoint("https://192.168.1.2/push"), "found the private address"),
        (with_endpoint("https://127.0.0.1/push"), "found the private address"),
        (with_endpoint("https://[::1]/push"), "found the private address"),
        (with_endpoint("https://169.254.169.254/latest"), "found the private address"),
        (with_endpoint("https://localhost/push"), "found the local name"),
        (with_endpoint("http://10.0.0.7/push"), "expected an https:// URL"),
        (with_endpoint("https://u:p@push.example.com/x"), "with no user name"),
        (with_endpoint("https://push.example.com/" + "x" * 1100), "at most 1024"),
        (
            {"endpoint": "https://push.example.com/x", "keys": {**keys, "p256dh": keys["auth"]}},
            "keys.p256dh: expected 65 bytes (base64url decoded), found 16",
        ),
        (
            {"endpoint": "https://push.example.com/x", "keys": {**keys, "auth": keys["p256dh"]}},
            "keys.auth: expected 16 bytes (base64url decoded), found 65",
        ),
        (
            {
                "endpoint": "https://push.example.com/x",
                "keys": {**keys, "p256dh": b64url(b"\x04" + b"\x01" * 64)},
            },
            "not a point of the curve",
        ),
        (
            {"endpoint": "https://push.example.com/x", "keys": {**keys, "auth": "no/t+b64=="}},
            "keys.auth: expected base64url",
        ),
        (
            {"endpoint": "https://push.example.com/x", "keys": {**keys, "p256dh": "B" * 5000}},
            "keys.p256dh: String should have at most 200 characters",
        ),
        (
            with_endpoint("https://push.example.com/" + "x" * 5000),
            "endpoint: String should have at most 2048 characters",
        ),
    ]


def test_forged_subscriptions_are_refused_and_nothing_stored_is_lost(
    web: TestClient, service: PushService, db_path: Path
) -> None:
    assert web.get("/api/push").status_code == 200
    good = service.subscribe("bob")
    assert subscribe(web, good).status_code == 401  # signed in first
    sign_up(web, "Bob")
    assert subscribe(web, good).status_code == 200
    before = rows(db_path, "SELECT * FROM push_subscriptions")
    for subscription, expected in forged(service):
        reply = subscribe(web, subscription)
        assert reply.status_code == 400, (subscription["endpoint"][:60], reply.text)
        assert expected in reply.json()["message"], reply.json()["message"]
    for fields, expected in (
        ({"kinds": ["everything"]}, "kinds: expected one or more of your_turn, challenge"),
        ({"kinds": []}, "kinds: expected one or more of"),
        ({"lang": "de"}, "lang: expected en or fr"),
    ):
        reply = subscribe(web, service.subscribe("other"), **fields)
        assert reply.status_code == 400 and expected in reply.json()["message"], reply.text
    # The same endpoint with forged keys changes nothing of what was stored.
    reply = subscribe(web, {**good, "keys": {**good["keys"], "auth": "AAAA"}})
    assert reply.status_code == 400
    assert rows(db_path, "SELECT * FROM push_subscriptions") == before
    state = web.post("/api/push/device/state", json={"endpoint": good["endpoint"]})
    assert state.json() == {"device": {"kinds": ["your_turn"], "lang": "en"}}


def test_a_server_without_the_testing_option_refuses_http_loopback(
    apps: Apps, service: PushService
) -> None:
    web = apps.start(push=PushSettings("mailto:ops@example.org"), passwords=CHEAP)
    sign_up(web, "Bob")
    reply = subscribe(web, service.subscribe("bob"))
    assert reply.status_code == 400
    assert "expected an https:// URL" in reply.json()["message"]


def test_kinds_per_device_and_turning_off(
    web: TestClient, service: PushService, db_path: Path
) -> None:
    sign_up(web, "Bob")
    phone, laptop = service.subscribe("phone"), service.subscribe("laptop")
    assert subscribe(web, phone, kinds=["challenge", "your_turn"]).json() == {
        "device": {"kinds": ["your_turn", "challenge"], "lang": "en"}
    }
    assert subscribe(web, laptop, kinds=["pool_game"], lang="fr").status_code == 200
    # The phone again: what it gets is replaced, the laptop's stays.
    assert subscribe(web, phone, kinds=["tournament"]).json()["device"]["kinds"] == ["tournament"]
    kinds = {r["endpoint"]: r["kinds"] for r in rows(db_path, "SELECT * FROM push_subscriptions")}
    assert kinds == {phone["endpoint"]: "tournament", laptop["endpoint"]: "pool_game"}
    removed = web.post("/api/push/device/remove", json={"endpoint": phone["endpoint"]})
    assert removed.json() == {"device": None}
    state = web.post("/api/push/device/state", json={"endpoint": phone["endpoint"]})
    assert state.json() == {"device": None}
    assert len(rows(db_path, "SELECT * FROM push_subscriptions")) == 1
    (exported,) = web.get("/api/account/export").json()["push_devices"]
    assert exported["push_service"] == f"127.0.0.1:{service.port}"
    assert (exported["kinds"], exported["lang"]) == (["pool_game"], "fr")
    # Deleting the account deletes its devices.
    assert web.post("/api/account/delete", json={"name": "Bob"}).status_code == 204
    assert rows(db_path, "SELECT * FROM push_subscriptions") == []


def test_the_vapid_key_is_made_once_and_kept(apps: Apps, tmp_path: Path) -> None:
    first = apps.start(push=PUSH)
    key = first.get("/api/push").json()["public_key"]
    apps.stop(first)
    again = apps.start(push=PUSH)
    assert again.get("/api/push").json()["public_key"] == key  # in the store
    apps.stop(again)
    key_file = tmp_path / "vapid.pem"
    in_file = PushSettings("mailto:ops@example.org", key_file=key_file)
    third = apps.start(push=in_file)
    from_file = third.get("/api/push").json()["public_key"]
    assert from_file != key and key_file.read_text().startswith("-----BEGIN")
    assert key_file.stat().st_mode & 0o777 == 0o600
    apps.stop(third)
    assert apps.start(push=in_file).get("/api/push").json()["public_key"] == from_file


def test_a_server_without_web_push_has_none(client: TestClient) -> None:
    reply = client.get("/api/push")
    assert reply.status_code == 404 and "--web-push" in reply.json()["message"]


@in_fresh_loop
async def test_devices_and_their_pushes_on_both_stores(
    open_store: Callable[..., Any],  # noqa: F811 (the fixture)
) -> None:
    """The subscriptions' statements and the push rows of the outbox on SQLite and on
    PostgreSQL: one row per endpoint (a device subscribed again is replaced), a push
    queued twice is one, pushed once; a 410 removes the device."""
    store = await open_store()
    try:
        account, _ = await Accounts(store, CHEAP).sign_up("198.51.100.1", "Bob", PASSWORD, "t")
        game = a_game(
            "gp",
            players=2,
            status="running",
            seats=(
                SeatRow(0, "human", name="Ana", token_hash=hash_token("a")),
                SeatRow(1, "human", name="Bob", token_hash=hash_token("b")),
            ),
        )
        await store.create_game(game)
        link = compile_statement(
            update(seats)
            .where(seats.c.game_id == bindparam("g"), seats.c.seat == 1)
            .values(account_id=bindparam("a")),
            "postgresql" if store.dialect == "postgresql" else "sqlite",
        )
        await store.transact([(link.sql, link.params({"g": "gp", "a": account.id}))])
        with PushService() as service:
            reminders = Reminders(store, None, None, push=PUSH)
            assert reminders.devices is not None
            devices = reminders.devices
            subscription = service.subscribe("bob")
            keys = subscription["keys"]
            endpoint = subscription["endpoint"]
            for kinds in (["challenge"], ["your_turn"]):  # the second replaces the first
                await devices.subscribe(
                    account.id, endpoint, keys["p256dh"], keys["auth"], kinds, "fr"
                )
            state = await devices.state(account.id, endpoint)
            assert state is not None and state.kinds == ("your_turn",)
            await reminders.queue_push("gp", 1, 0, "your_turn")
            await reminders.queue_push("gp", 1, 0, "your_turn")
            assert await reminders.run_once() == 1
            (push,) = service.pushes
            assert push.message["body"] == (
                "C’est votre tour dans votre partie de Marrakech avec Ana (Rouge-Jaune)."
            )
            assert await reminders.run_once() == 0
            service.subscribers["bob"].status = 410
            await reminders.queue_push("gp", 1, 0, "your_turn")  # the same: not again
            assert await reminders.run_once() == 0
            game_turn = compile_statement(
                update(games).where(games.c.id == "gp").values(turns=2),
                "postgresql" if store.dialect == "postgresql" else "sqlite",
            )
            await store.transact([(game_turn.sql, game_turn.params({}))])
            await reminders.queue_push("gp", 1, 2, "your_turn")
            assert await reminders.run_once() == 1
            assert await devices.state(account.id, endpoint) is None  # removed by the 410
            assert len(service.pushes) == 1
    finally:
        await store.close()


def test_the_serve_options_of_web_push(tmp_path: Path) -> None:
    from marrakech.cli import build_parser
    from marrakech.web.reminders.webpush import SubscriptionError, push_settings

    def settings(*options: str) -> PushSettings | None:
        return push_settings(build_parser().parse_args(["serve", *options]))

    assert settings() is None
    key = tmp_path / "vapid.pem"
    assert settings("--web-push", "mailto:ops@example.org", "--push-key-file", str(key)) == (
        PushSettings("mailto:ops@example.org", key)
    )
    for options, expected in (
        (["--web-push", "ops@example.org"], "expected mailto:ADDRESS or https://URL"),
        (["--push-key-file", str(key)], "--push-key-file: expected --web-push too"),
        (["--push-allow-http-loopback"], "expected --web-push too"),
        (
            ["--web-push", "https://example.org", "--push-key-file", "/nowhere/k.pem"],
            "no such folder",
        ),
    ):
        with pytest.raises(SubscriptionError, match=expected):
            settings(*options)
    assert key.read_text().startswith("-----BEGIN")  # made on first start
    key.write_text("not a key")
    with pytest.raises(SubscriptionError, match="--push-key-file: expected a PEM private key"):
        settings("--web-push", "mailto:ops@example.org", "--push-key-file", str(key))


def test_the_page_config_says_which_of_push_and_emails_the_server_sends(apps: Apps) -> None:
    web = apps.start(push=PUSH)
    config = web.get("/api/config").json()
    assert (config["push"], config["reminders"]) == (True, False)
    assert web.get("/api/mail/account").status_code == 404  # no emails without --smtp-url


@in_fresh_loop
async def test_a_name_that_resolves_to_a_private_address_is_never_posted_to() -> None:
    # "localhost" is refused by name when a device subscribes; a public-looking name
    # could resolve to this machine all the same (or be made to, later): the resolver
    # of every push refuses such an answer.
    from marrakech.web.reminders.webpush import PublicResolver

    with pytest.raises(OSError, match="localhost resolves to a private address only"):
        await PublicResolver().resolve("localhost", 443)
    found = await PublicResolver(allow_loopback=True).resolve("localhost", 443)
    assert found and all(result["host"] in ("127.0.0.1", "::1") for result in found)


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
@pytest.mark.e2e
def test_marrakech_serve_with_web_push(tmp_path: Path, service: PushService) -> None:
    """``marrakech serve --web-push`` as deployed: its VAPID key made in
    ``--push-key-file`` on first start, the same after a restart, its public half the
    one the page gets; a subscription accepted and kept."""
    from py_vapid import Vapid02

    from marrakech.web.reminders.webpush import public_key_of
    from tests.web.servers import Served

    key_file = tmp_path / "vapid.pem"
    options = ("--web-push", "mailto:ops@example.org", "--push-key-file", str(key_file))
    served = Served(tmp_path / "games.sqlite3", *options, "--push-allow-http-loopback")
    try:
        with httpx.Client(base_url=served.url, timeout=10) as bob:
            assert bob.get("/api/config").json()["push"] is True
            key = bob.get("/api/push").json()["public_key"]
            assert key == public_key_of(Vapid02.from_file(str(key_file)))
            assert bob.post("/api/account/signup", json={"name": "Bob", "password": PASSWORD})
            reply = subscribe_with(bob, service.subscribe("bob"))
            assert reply.status_code == 200, reply.text
    finally:
        served.stop()
    # Without the testing option, the same server refuses an http:// endpoint.
    served = Served(tmp_path / "games.sqlite3", *options)
    try:
        with httpx.Client(base_url=served.url, timeout=10) as bob:
            assert bob.get("/api/push").json()["public_key"] == key
            bob.post("/api/account/signin", json={"name": "Bob", "password": PASSWORD})
            reply = subscribe_with(bob, service.subscribe("again"))
            assert reply.status_code == 400 and "expected an https:// URL" in reply.text
    finally:
        served.stop()


def subscribe_with(client: httpx.Client, subscription: dict[str, Any]) -> httpx.Response:
    return client.post(
        "/api/push/device", json={**subscription, "kinds": ["your_turn"], "lang": "en"}
    )


def test_a_push_service_that_never_answers_times_out_and_is_tried_again(
    apps: Apps, clock: Clock, db_path: Path
) -> None:
    # It accepts the connection and says nothing: the push gives up after the timeout
    # (the outbox goes on with the others) and is tried again later.
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        quick = PushSettings("mailto:ops@example.org", allow_http_loopback=True, timeout=1.0)
        web = apps.start(push=quick, mail_clock=clock, passwords=CHEAP)
        game = bobs_game(web, PushService(listener.getsockname()[1]))
        play_turn(web, game, 0)
        wait_until(lambda: pushes(db_path), "the push to be queued")
        deliver(web, db_path, clock)
        (row,) = pushes(db_path)
        assert (row["status"], row["attempts"]) == ("queued", 1)
        assert "cannot reach the push service" in row["problem"], row["problem"]
    finally:
        listener.close()
