"""Follows, blocks, challenges and presence on SQLite and PostgreSQL (issue 37, item 2):
each change stored once, each refusal saying why and changing nothing, on a stopped
clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from marrakech.web.friendships import (
    CHALLENGE_SECONDS,
    CHALLENGES,
    CHANGES,
    MAX_OPEN,
    ONLINE_SECONDS,
    Friendships,
    blocked_by,
    blocked_pairs,
)
from marrakech.web.protocol import ApiError
from marrakech.web.store import GameStore
from tests.web.test_ratings_store import add_account, rated_game
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store_contract import open_store as open_store  # the same fixture

SETTINGS = '{"rules": "standard"}'


async def _players(store: GameStore, *names: str) -> None:
    for number, name in enumerate(names, 1):
        await add_account(store, f"a{number}", name)


async def _refused(work: Any, status: int, code: str) -> str:
    with pytest.raises(ApiError) as caught:
        await work
    assert (caught.value.status, caught.value.code) == (status, code), caught.value.message
    return caught.value.message


@in_fresh_loop
async def test_follows_and_the_friends_list(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    try:
        await _players(store, "Ana", "Bo", "Cy")
        await rated_game(store, "g1")  # a running game: a1 and a2 seated
        now = [1000.0]
        friends = Friendships(store, clock=lambda: now[0])
        assert (await friends.follow("a1", "bo")).name == "Bo"  # names case-insensitively
        await friends.follow("a1", "Bo")  # twice is once
        await friends.follow("a1", "Cy")
        await _refused(friends.follow("a1", "Ana"), 400, "bad_request")
        await _refused(friends.follow("a1", "Nobody"), 404, "not_found")
        await friends.touch("a3")
        listed = await friends.friends("a1")
        assert [(f.name, f.online, f.playing) for f in listed] == [
            ("Cy", True, None),
            ("Bo", False, "g1"),
        ]
        now[0] += ONLINE_SECONDS + 1
        assert not (await friends.friends("a1"))[0].online
        await friends.unfollow("a1", "Cy")
        assert [f.name for f in await friends.friends("a1")] == ["Bo"]
        # A flood of changes is refused with the wait; nothing stored is lost.
        with pytest.raises(ApiError) as caught:
            for _ in range(CHANGES.burst):
                await friends.follow("a1", "Cy")
                await friends.unfollow("a1", "Cy")
        assert caught.value.code == "rate_limited", caught.value.message
        assert "too many changes from your account" in caught.value.message
        assert "Bo" in [f.name for f in await friends.friends("a1")]
    finally:
        await store.close()


@in_fresh_loop
async def test_challenges_are_answered_once_and_expire(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    try:
        await _players(store, "Ana", "Bo", "Cy")
        now = [1000.0]
        friends = Friendships(store, clock=lambda: now[0])
        sent = await friends.challenge("a1", "203.0.113.7", "Bo", SETTINGS)
        assert (sent.challenger, sent.challenged, sent.status) == ("Ana", "Bo", "open")
        seen = await friends.challenges("a2")
        assert [(c.id, c.incoming, c.settings) for c in seen] == [(sent.id, True, SETTINGS)]
        assert not (await friends.challenges("a1"))[0].incoming
        await _refused(
            friends.challenge("a1", "203.0.113.7", "Bo", SETTINGS), 409, "already_challenged"
        )
        await _refused(friends.answer("a1", sent.id, True), 403, "forbidden")  # not hers
        await _refused(friends.answer("a3", sent.id, True), 404, "not_found")
        # Two accepts at once: one wins, the other is told the challenge is gone.
        results = await asyncio.gather(
            friends.answer("a2", sent.id, True),
            friends.answer("a2", sent.id, True),
            return_exceptions=True,
        )
        assert sorted(type(r).__name__ for r in results) == ["ApiError", "dict"]
        await friends.seat(sent.id, "g9", ("t-ana", "t-bo"))
        mine, theirs = (await friends.get("a1", sent.id)), (await friends.get("a2", sent.id))
        assert (mine.status, mine.game_id, mine.token) == ("accepted", "g9", "t-ana")
        assert theirs.token == "t-bo"
        # Expiry: an open challenge past its time is expired and takes no answer.
        late = await friends.challenge("a1", "203.0.113.7", "Cy", SETTINGS)
        now[0] += CHALLENGE_SECONDS + 1
        assert (await friends.get("a3", late.id)).status == "expired"
        message = await _refused(friends.answer("a3", late.id, True), 409, "challenge_gone")
        assert "expired" in message
        # Declined, and cancelled: each said to the other.
        again = await friends.challenge("a1", "203.0.113.7", "Cy", SETTINGS)
        await friends.answer("a3", again.id, False)
        assert (await friends.get("a1", again.id)).status == "declined"
        third = await friends.challenge("a1", "203.0.113.7", "Cy", SETTINGS)
        await friends.cancel("a1", third.id)
        assert (await friends.get("a3", third.id)).status == "cancelled"
        await _refused(friends.cancel("a1", third.id), 409, "challenge_gone")
        # Purged a day after.
        now[0] += 86400 + 1
        await friends.purge()
        await _refused(friends.get("a1", sent.id), 404, "not_found")
    finally:
        await store.close()


@in_fresh_loop
async def test_a_block_stops_challenges_and_pairing(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    try:
        await _players(store, "Ana", "Bo", "Cy")
        friends = Friendships(store, clock=lambda: 1000.0)
        open_one = await friends.challenge("a2", "198.51.100.2", "Ana", SETTINGS)
        await friends.block("a1", "Bo")
        assert (await friends.get("a1", open_one.id)).status == "cancelled"
        # Both ways: Bo cannot challenge Ana, nor Ana Bo.
        await _refused(friends.challenge("a2", "198.51.100.2", "Ana", SETTINGS), 403, "blocked")
        await _refused(friends.challenge("a1", "203.0.113.7", "Bo", SETTINGS), 403, "blocked")
        assert await blocked_pairs(store, ["a1", "a2", "a3"]) == {frozenset({"a1", "a2"})}
        assert await blocked_pairs(store, ["a1", "a3"]) == set()
        assert await blocked_by(store, "a1") == {"a2"}
        assert await blocked_by(store, "a2") == frozenset()
        assert [p.name for p in await friends.blocked("a1")] == ["Bo"]
        await friends.unblock("a1", "Bo")
        assert await blocked_pairs(store, ["a1", "a2"]) == set()
        await friends.challenge("a1", "203.0.113.7", "Bo", SETTINGS)
    finally:
        await store.close()


@in_fresh_loop
async def test_challenge_floods_are_refused_with_a_reason(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    try:
        names = ["Ana"] + [f"P{number}" for number in range(12)]
        await _players(store, *names)
        now = [1000.0]
        friends = Friendships(store, clock=lambda: now[0])
        for name in names[1 : MAX_OPEN + 1]:
            await friends.challenge("a1", "203.0.113.7", name, SETTINGS)
        message = await _refused(
            friends.challenge("a1", "203.0.113.7", names[MAX_OPEN + 1], SETTINGS),
            409,
            "too_many_challenges",
        )
        assert f"at most {MAX_OPEN}" in message
        # Past their time they no longer count; sent and cancelled, the budget runs out.
        now[0] += CHALLENGE_SECONDS + 1
        sent = []
        with pytest.raises(ApiError) as caught:
            for _ in range(20):
                challenge = await friends.challenge("a1", "203.0.113.7", "P11", SETTINGS)
                sent.append(challenge.id)
                await friends.cancel("a1", challenge.id)
        assert caught.value.code == "rate_limited", caught.value.message
        assert "too many challenges from your account" in caught.value.message
        assert len(sent) == CHALLENGES.burst
        # Another account from the same address: the address's budget is spent too.
        await _refused(friends.challenge("a2", "203.0.113.7", "P11", SETTINGS), 429, "rate_limited")
        # Nothing stored was lost: every challenge sent is still there, as it was left.
        for challenge_id in sent:
            assert (await friends.get("a1", challenge_id)).status == "cancelled"
    finally:
        await store.close()
