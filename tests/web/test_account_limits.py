"""Limits per account as well as per address (issue 24): one account signed in from
several addresses has one budget of open sockets and of chat messages (creation and
joins: test_accounts.py)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from marrakech.web.accounts.sessions import COOKIE
from marrakech.web.limits import Limits
from tests.web.conftest import TWO_HUMANS, Apps, Conn, create_game, seat_token
from tests.web.test_accounts import CHEAP, sign_up
from tests.web.test_chat import chat_of, say
from tests.web.test_rematch_limits import HUMAN_AND_BOT, resign_and_ask_rematch


def at(home: TestClient, host: str) -> TestClient:
    """A client of the started app ``home`` from another address (on its event loop)."""
    other = TestClient(home.app, client=(host, 40000))
    other.portal = home.portal
    return other


def addresses(home: TestClient, first: TestClient, *hosts: str) -> list[TestClient]:
    """The first client's account signed in from other addresses (its cookie copied)."""
    others = []
    for host in hosts:
        other = at(home, host)
        other.cookies.set(COOKIE, first.cookies[COOKIE])
        others.append(other)
    return others


def test_one_account_has_one_cap_of_open_sockets_across_addresses(apps: Apps) -> None:
    home = apps.start(passwords=CHEAP, limits=Limits(sockets_per_client=2))
    one = at(home, "203.0.113.1")
    sign_up(one, "Ana")
    two, three = addresses(home, one, "203.0.113.2", "203.0.113.3")
    game_id = create_game(one, **TWO_HUMANS)["game_id"]
    path = f"/ws/{game_id}"
    with one.websocket_connect(path) as a, two.websocket_connect(path) as b:
        Conn(a), Conn(b)  # one page from each address: under each address's cap
        with three.websocket_connect(path) as c:
            refused = c.receive_json()
            assert refused["code"] == "too_many_connections"
            assert "your account has 2 pages" in refused["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                c.receive_json()
            assert closed.value.code == 4429
        # A guest on that third address is not the account: it may open a page.
        guest = at(home, "203.0.113.3")
        with guest.websocket_connect(path) as d:
            assert Conn(d).you == []
    with three.websocket_connect(path) as again:  # the closed ones no longer count
        assert Conn(again).you == []


def test_one_account_has_one_chat_budget_across_addresses_and_games(apps: Apps) -> None:
    limits = Limits(
        chat_burst=10, chats_per_minute=60, address_chat_burst=2, address_chats_per_minute=1
    )
    home = apps.start(passwords=CHEAP, limits=limits)
    one = at(home, "203.0.113.1")
    sign_up(one, "Ana")
    (two,) = addresses(home, one, "203.0.113.2")
    first, second = create_game(one, **TWO_HUMANS), create_game(two, **TWO_HUMANS)
    with (
        one.websocket_connect(f"/ws/{first['game_id']}") as a,
        two.websocket_connect(f"/ws/{second['game_id']}") as b,
    ):
        here, there = Conn(a, [seat_token(first, 0)]), Conn(b, [seat_token(second, 0)])
        say(here, "hello")
        chat_of(here)
        say(there, "hello from my phone")
        chat_of(there)
        # Each address has written once (its budget is 2), the account twice: spent.
        say(there, "and again")
        assert "try again in" in there.expect_error("chat_too_fast")["message"]


def test_a_rematch_counts_against_the_askers_account_across_addresses(apps: Apps) -> None:
    """One bot under way for the account, asked from another address: the rematch of a
    game with a bot would be the account's second, past ``bots_per_client`` = 1."""
    home = apps.start(passwords=CHEAP, limits=Limits(bots_per_client=1))
    one = at(home, "203.0.113.1")
    sign_up(one, "Ana")
    (two,) = addresses(home, one, "203.0.113.2")
    finished = create_game(one, **HUMAN_AND_BOT, first_seat=0)
    token = seat_token(finished, 0)
    with one.websocket_connect(f"/ws/{finished['game_id']}") as ws:
        conn = Conn(ws, [token])
        conn.send({"type": "resign", "seat": 0})
        conn.until(lambda c: c.over)
    create_game(two, **HUMAN_AND_BOT)  # the account's one bot, from its other address
    refused = resign_and_ask_rematch(one, finished["game_id"], token)
    assert refused["type"] == "error" and refused["code"] == "too_many_games", refused
    assert "already seat 1 bots" in refused["message"]
    assert one.get(f"/api/games?ids={finished['game_id']}").json()[0]["rematch"] is None
