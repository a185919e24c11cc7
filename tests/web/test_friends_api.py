"""Friends and challenges over HTTP and the WebSocket (issue 37, item 2): a challenge
with a game's settings, accepted into a game both players are seated in (their
accounts'), declined, refused with a reason (a guest, bad settings, a block, a flood);
the friends list with who is online and playing; a blocked player's chat hidden."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from marrakech.web.limits import Limits
from tests.web.conftest import Apps, Conn
from tests.web.test_accounts import CHEAP, sign_up

SETTINGS = {"rules": "bga", "clock": "relaxed", "hints": False, "rated": True}
ROOMY = Limits(chat_burst=100, chats_per_minute=600, address_chat_burst=100)


def players(apps: Apps, *names: str) -> list[TestClient]:
    """One signed-in browser per name, on one server."""
    first = apps.start(passwords=CHEAP, limits=ROOMY)
    browsers = [first] + [TestClient(first.app) for _ in names[1:]]
    for browser, name in zip(browsers, names, strict=True):
        sign_up(browser, name)
    return browsers


def challenge(browser: TestClient, to: str, **game: Any) -> dict[str, Any]:
    reply = browser.post("/api/challenges", json={"to": to, "game": game})
    assert reply.status_code == 201, reply.text
    sent: dict[str, Any] = reply.json()["challenge"]
    return sent


def refusal(reply: Any, status: int, code: str) -> str:
    assert (reply.status_code, reply.json()["error"]) == (status, code), reply.text
    message: str = reply.json()["message"]
    return message


def test_a_challenge_accepted_seats_both_players_in_its_game(apps: Apps) -> None:
    ana, bo = players(apps, "Ana", "Bo")
    sent = challenge(ana, "bo", **SETTINGS)
    assert (sent["by"], sent["to"], sent["status"], sent["incoming"]) == (
        "Ana",
        "Bo",
        "open",
        False,
    )
    assert 0 < sent["expires_in"] <= 600
    (incoming,) = bo.get("/api/challenges").json()["challenges"]
    assert incoming["incoming"] and incoming["game"]["rules"] == "bga"
    # Ana's pages ask often while she waits for the answer.
    assert (
        ana.get("/api/challenges").json()["again_in"] < bo.get("/api/challenges").json()["again_in"]
    )
    accepted = bo.post(f"/api/challenges/{sent['id']}/accept").json()["challenge"]
    assert accepted["status"] == "accepted" and accepted["link"].startswith("/g/")
    (mine,) = ana.get("/api/challenges").json()["challenges"]
    assert mine["game_id"] == accepted["game_id"] and mine["link"] != accepted["link"]
    # The game has the challenge's settings, both seats taken, play begun.
    game = ana.get(f"/api/games/{accepted['game_id']}").json()
    assert (game["rules"], game["clock"]["mode"], game["hints"], game["rated"]) == (
        "bga",
        "relaxed",
        False,
        True,
    )
    assert [seat["name"] for seat in game["seats"]] == ["Ana", "Bo"]
    assert game["status"] == "playing"
    # Each link opens its player's seat; each seat is its player's account's.
    for browser, link, seat in ((ana, mine["link"], 0), (bo, accepted["link"], 1)):
        token = link.split("#t=")[1]
        with browser.websocket_connect(f"/ws/{accepted['game_id']}") as ws:
            assert Conn(ws, [token]).you == [seat]
        listed = browser.post("/api/my-games", json={"seats": []}).json()["games"]
        assert [(g["game"]["game_id"], g["seats"]) for g in listed] == [
            (accepted["game_id"], [seat])
        ]
    # Answered once: a second accept is refused, saying why.
    again = bo.post(f"/api/challenges/{sent['id']}/accept")
    assert "accepted" in refusal(again, 409, "challenge_gone")


def test_challenges_refused_with_a_reason_and_nothing_lost(apps: Apps) -> None:
    ana, bo, cy = players(apps, "Ana", "Bo", "Cy")
    guest = TestClient(ana.app)
    refusal(guest.post("/api/challenges", json={"to": "Bo"}), 401, "unauthorized")
    refusal(guest.get("/api/friends"), 401, "unauthorized")
    bad = ana.post("/api/challenges", json={"to": "Bo", "game": {"clock": "fast"}})
    assert "clock" in refusal(bad, 400, "bad_request")
    bad = ana.post("/api/challenges", json={"to": "Bo", "game": {"players": 3}})
    assert "players" in refusal(bad, 400, "bad_request")
    refusal(ana.post("/api/challenges", json={"to": "Nobody"}), 404, "not_found")
    refusal(ana.post("/api/challenges", json={"to": "ana"}), 400, "bad_request")
    sent = challenge(ana, "Bo")
    refusal(ana.post("/api/challenges", json={"to": "Bo"}), 409, "already_challenged")
    refusal(cy.post(f"/api/challenges/{sent['id']}/accept"), 404, "not_found")
    refusal(ana.post(f"/api/challenges/{sent['id']}/accept"), 403, "forbidden")
    declined = bo.post(f"/api/challenges/{sent['id']}/decline").json()["challenge"]
    assert declined["status"] == "declined"
    assert ana.get("/api/challenges").json()["challenges"][0]["status"] == "declined"
    # A block: no challenge either way, the open ones end.
    open_one = challenge(cy, "Ana")
    blocked = ana.post("/api/friends/block", json={"name": "Cy"}).json()
    assert blocked["blocked"] == ["Cy"]
    assert "does not take challenges" in refusal(
        cy.post("/api/challenges", json={"to": "Ana"}), 403, "blocked"
    )
    refusal(ana.post("/api/challenges", json={"to": "Cy"}), 403, "blocked")
    gone = ana.post(f"/api/challenges/{open_one['id']}/accept")
    assert "cancelled" in refusal(gone, 409, "challenge_gone")
    # A flood: cancelled as fast as sent, the address's budget runs out (every browser
    # here is one address, which sent 2 challenges already; the account's own budget:
    # test_friends_store.py).
    codes = []
    for _ in range(12):
        reply = bo.post("/api/challenges", json={"to": "Cy"})
        codes.append(reply.status_code)
        if reply.status_code != 201:
            message = refusal(reply, 429, "rate_limited")
            assert "too many challenges from your address" in message
            assert int(reply.headers["Retry-After"]) >= 1
            break
        bo.post(f"/api/challenges/{reply.json()['challenge']['id']}/cancel")
    assert codes[-1] == 429 and codes.count(201) == 8 - 2
    # Nothing already stored was lost: Ana's declined challenge is still hers to see.
    kept = {c["id"]: c["status"] for c in ana.get("/api/challenges").json()["challenges"]}
    assert kept == {sent["id"]: "declined", open_one["id"]: "cancelled"}


def test_the_friends_list_says_who_is_online_and_playing(apps: Apps) -> None:
    ana, bo, cy = players(apps, "Ana", "Bo", "Cy")
    assert ana.post("/api/friends/follow", json={"name": "Bo"}).status_code == 200
    listed = ana.post("/api/friends/follow", json={"name": "Cy"}).json()["friends"]
    # Bo and Cy signed up (their pages asked nothing yet): offline.
    assert {(f["name"], f["online"], f["playing"]) for f in listed} == {
        ("Bo", False, None),
        ("Cy", False, None),
    }
    bo.get("/api/challenges")  # a page of Bo's is open
    sent = challenge(cy, "Ana")
    game_id = ana.post(f"/api/challenges/{sent['id']}/accept").json()["challenge"]["game_id"]
    listed = ana.get("/api/friends").json()["friends"]
    assert [(f["name"], f["online"], f["playing"]) for f in listed] == [
        ("Bo", True, None),
        ("Cy", False, game_id),
    ]
    cy.get("/api/challenges")  # now a page of Cy's is open too: online and playing first
    listed = ana.get("/api/friends").json()["friends"]
    assert [(f["name"], f["online"], f["playing"]) for f in listed] == [
        ("Cy", True, game_id),
        ("Bo", True, None),
    ]
    # Bo looks for a game in a quick-pairing pool: his friends see him waiting there.
    with bo.websocket_connect("/pool/socket") as pool:
        pool.send_json({"type": "join", "players": 2, "clock": "blitz", "bots": False})
        assert pool.receive_json()["type"] == "waiting"
        listed = ana.get("/api/friends").json()["friends"]
        assert [(f["name"], f["waiting"]) for f in listed] == [
            ("Bo", "blitz:casual"),
            ("Cy", None),
        ]
    refusal(ana.post("/api/friends/follow", json={"name": "Zed"}), 404, "not_found")
    refusal(ana.post("/api/friends/befriend", json={"name": "Bo"}), 404, "not_found")
    after = ana.post("/api/friends/unfollow", json={"name": "Bo"}).json()["friends"]
    assert [f["name"] for f in after] == ["Cy"]


def test_a_blocked_players_chat_is_hidden_from_the_blocker(apps: Apps) -> None:
    ana, bo = players(apps, "Ana", "Bo")
    sent = challenge(ana, "Bo")
    accepted = bo.post(f"/api/challenges/{sent['id']}/accept").json()["challenge"]
    (mine,) = ana.get("/api/challenges").json()["challenges"]
    game_id = accepted["game_id"]
    ana.post("/api/friends/block", json={"name": "Bo"})
    path = f"/ws/{game_id}"
    # (One browser's socket at a time: each test browser but the first runs its own
    # event loop.)
    with bo.websocket_connect(path) as ws:
        blue = Conn(ws, [accepted["link"].split("#t=")[1]])
        blue.send({"type": "chat", "text": "rude words"})
        assert [line["text"] for line in _chat(blue)["lines"]] == ["rude words"]
    with ana.websocket_connect(path) as ws:
        red = Conn(ws, [mine["link"].split("#t=")[1]])
        red.send({"type": "chat", "text": "hello"})
        # Ana's page never gets Bo's line: the first line she sees is her own.
        assert [line["text"] for line in _chat(red)["lines"]] == ["hello"]
    with bo.websocket_connect(path) as ws:  # Bo sees both
        blue = Conn(ws, [accepted["link"].split("#t=")[1]])
        assert [line["text"] for line in _chat(blue)["lines"]] == ["rude words", "hello"]


def _chat(conn: Conn) -> dict[str, Any]:
    message = conn.receive()
    while message["type"] != "chat":
        message = conn.receive()
    return message


def test_the_export_lists_friends_and_a_deletion_forgets_them(apps: Apps) -> None:
    ana, bo = players(apps, "Ana", "Bo")
    ana.post("/api/friends/follow", json={"name": "Bo"})
    sent = challenge(ana, "Bo", rules="bga")
    exported = ana.get("/api/account/export").json()["friends"]
    assert exported["following"] == ["Bo"] and exported["blocked"] == []
    (line,) = exported["challenges"]
    assert (line["by"], line["to"], line["status"], line["game"]["rules"]) == (
        "Ana",
        "Bo",
        "open",
        "bga",
    )
    assert "token" not in str(line)
    bo.post("/api/friends/block", json={"name": "Ana"})
    reply = bo.post("/api/account/delete", json={"name": "Bo"})
    assert reply.status_code == 204, reply.text
    # Bo's follows, blocks and challenges went with his account.
    assert ana.get("/api/friends").json()["friends"] == []
    assert ana.get("/api/challenges").json()["challenges"] == []
    refusal(ana.get(f"/api/challenges/{sent['id']}/cancel"), 405, "method_not_allowed")
    refusal(ana.post(f"/api/challenges/{sent['id']}/cancel"), 404, "not_found")
