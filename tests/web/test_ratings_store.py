"""Ratings in the store (issue 24), on SQLite and PostgreSQL alike: a rated game's end
moves its accounts' and bots' ratings in the transaction that stores the end, and a
failed end moves nothing; places are kept for every game (R21 ties shared)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from marrakech.web.protocol import name_skeleton
from marrakech.web.ratings import START, Rating, bot_seeds, rate
from marrakech.web.ratings.queries import RatingQueries
from marrakech.web.store import (
    ActionRow,
    GameEnd,
    GameStore,
    SeatRow,
    StoreConflict,
    StoredGame,
    hash_token,
)
from marrakech.web.store.queries import AccountQueries
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store_contract import _own
from tests.web.test_store_contract import open_store as open_store  # the same fixture


def queries(store: GameStore) -> tuple[RatingQueries, AccountQueries]:
    if store.dialect == "postgresql":
        return RatingQueries("postgresql"), AccountQueries("postgresql")
    return RatingQueries("sqlite"), AccountQueries("sqlite")


async def add_account(store: GameStore, account_id: str, name: str) -> None:
    _, a = queries(store)
    values = {
        "id": account_id,
        "name": name,
        "name_key": name.lower(),
        "name_skeleton": name_skeleton(name),
        "created": 1000.0,
    }
    await store.transact([(a.insert_account.sql, a.insert_account.params(values))])


async def rated_game(store: GameStore, game_id: str, rated: bool = True) -> None:
    """A running 3-player game: seats 0 and 1 the accounts a1 and a2, seat 2 a hard bot."""
    game = StoredGame(
        id=game_id,
        players=3,
        rules="standard",
        first_seat=0,
        lang="en",
        seats=(
            SeatRow(0, "human", name="Ana", token_hash=hash_token(f"{game_id}-0")),
            SeatRow(1, "human", name="Bo", token_hash=hash_token(f"{game_id}-1")),
            SeatRow(2, "bot", level="hard"),
        ),
        status="running",
        rated=rated,
    )
    await store.create_game(game)
    await _own(store, game_id)
    _, a = queries(store)
    steps = [
        (
            a.link_seat.sql,
            a.link_seat.params(
                {
                    "game_id": game_id,
                    "token_hash": hash_token(f"{game_id}-{seat}"),
                    "account_id": f"a{seat + 1}",
                }
            ),
        )
        for seat in (0, 1)
    ]
    await store.transact(steps)


async def table(store: GameStore, name: str) -> list[dict[str, Any]]:
    (rows,) = await store.transact([(f"SELECT * FROM {name} ORDER BY 1, 2, 3", {})])
    return rows


async def ratings(store: GameStore) -> dict[tuple[str, str], dict[str, Any]]:
    return {(row["kind"], row["player"]): row for row in await table(store, "ratings")}


async def places(store: GameStore, game_id: str) -> list[int | None]:
    sql = "SELECT seat, place FROM seats WHERE game_id = :g ORDER BY seat"
    if store.dialect == "postgresql":
        sql = sql.replace(":g", "%(g)s")
    (rows,) = await store.transact([(sql, {"g": game_id})])
    return [row["place"] for row in rows]


async def setup(store: GameStore) -> None:
    await add_account(store, "a1", "Ana")
    await add_account(store, "a2", "Bo")


@in_fresh_loop
async def test_a_rated_end_moves_the_ratings_with_the_end(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    await setup(store)
    await rated_game(store, "r1")
    # Bo first, Ana and the bot share the second place (R21): one append ends the game.
    await store.append_actions("r1", 0, [ActionRow("L", 0)], "over", False, 1, GameEnd((2, 1, 2)))
    stored = await ratings(store)
    expected = rate([START, START, bot_seeds()["hard"]], [2, 1, 2])
    ana, bo, hard = stored[("account", "a1")], stored[("account", "a2")], stored[("bot", "hard")]
    for row, want in zip((ana, bo, hard), expected, strict=True):
        assert row["players"] == 3 and row["games"] == 1
        assert row["mu"] == pytest.approx(want.mu) and row["sigma"] == pytest.approx(want.sigma)
    assert bo["mu"] > START.mu > ana["mu"] and (bo["wins"], ana["wins"], hard["wins"]) == (1, 0, 0)
    assert hard["mu"] < bot_seeds()["hard"].mu  # the bot lost to Bo
    history = await table(store, "rating_history")
    assert {(row["player"], row["place"]) for row in history} == {("a1", 2), ("a2", 1), ("hard", 2)}
    assert all(row["game_id"] == "r1" for row in history)
    assert await places(store, "r1") == [2, 1, 2]
    game = await store.load_game("r1")
    assert game is not None and game.status == "over" and game.rated

    # A second game starts from the first's ratings.
    await rated_game(store, "r2")
    await store.append_actions("r2", 0, [ActionRow("L", 0)], "over", False, 1, GameEnd((1, 2, 3)))
    again = await ratings(store)
    assert again[("account", "a1")]["games"] == 2 and again[("account", "a1")]["wins"] == 1
    before = Rating(ana["mu"], ana["sigma"], 1)
    after = rate(
        [before, Rating(bo["mu"], bo["sigma"], 1), Rating(hard["mu"], hard["sigma"])], [1, 2, 3]
    )
    assert again[("account", "a1")]["mu"] == pytest.approx(after[0].mu)
    await store.close()


@in_fresh_loop
async def test_a_failed_end_leaves_the_ratings_and_the_game_as_they_were(
    open_store: Callable[..., Any],
) -> None:
    store = await open_store()
    await setup(store)
    await rated_game(store, "r1")
    await store.append_actions("r1", 0, [ActionRow("L", 0)], "running", False, 1)
    # The end at a stale version: refused, nothing rated.
    with pytest.raises(StoreConflict):
        await store.append_actions(
            "r1", 0, [ActionRow("R", 0)], "over", False, 1, GameEnd((1, 2, 3))
        )
    # The end whose ratings cannot be written (a place missing): the game's move,
    # written first in the transaction, goes with them.
    with pytest.raises(ValueError, match="expected a place for each of its 3 seats"):
        await store.append_actions("r1", 1, [ActionRow("r2", 0)], "over", False, 1, GameEnd((1, 2)))
    assert await ratings(store) == {}
    assert await table(store, "rating_history") == []
    assert await places(store, "r1") == [None, None, None]
    game = await store.load_game("r1")
    assert game is not None and game.status == "running" and game.version == 1
    # Then the end as it should be: stored, and rated once.
    await store.append_actions("r1", 1, [ActionRow("r2", 0)], "over", False, 1, GameEnd((1, 2, 3)))
    assert {key: row["games"] for key, row in (await ratings(store)).items()} == {
        ("account", "a1"): 1,
        ("account", "a2"): 1,
        ("bot", "hard"): 1,
    }
    await store.close()


@in_fresh_loop
async def test_an_unrated_end_keeps_places_and_rates_nobody(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    await setup(store)
    await rated_game(store, "u1", rated=False)
    await store.append_actions("u1", 0, [ActionRow("L", 0)], "over", False, 1, GameEnd((3, 1, 2)))
    assert await places(store, "u1") == [3, 1, 2]
    assert await ratings(store) == {}
    await store.close()


@in_fresh_loop
async def test_two_ends_at_once_rate_one_player_twice(open_store: Callable[..., Any]) -> None:
    """Two games of the same players end at the same moment through two connections
    (two instances on PostgreSQL): each end reads the rating the other wrote, none is
    lost."""
    one, two = await open_store(), await open_store()
    await setup(one)
    for game_id in ("c1", "c2", "c3", "c4"):
        await rated_game(one, game_id)
    for pair, places in ((("c1", "c2"), (1, 2, 3)), (("c3", "c4"), (2, 1, 3))):
        ends = [
            store.append_actions(game_id, 0, [ActionRow("L", 0)], "over", False, 1, GameEnd(places))
            for store, game_id in zip((one, two), pair, strict=True)
        ]
        await asyncio.gather(*ends)
    stored = await ratings(one)
    assert {key: row["games"] for key, row in stored.items()} == {
        ("account", "a1"): 4,
        ("account", "a2"): 4,
        ("bot", "hard"): 4,
    }
    assert len(await table(one, "rating_history")) == 12
    # Rated in turn: each game starts from the rating the one before left (a chain
    # from the start through all four, in the order they committed).
    rows = [row for row in await table(one, "rating_history") if row["player"] == "a1"]
    mu, chained = START.mu, 0
    while rows:
        (following,) = [row for row in rows if row["mu_before"] == pytest.approx(mu)]
        rows.remove(following)
        mu, chained = following["mu"], chained + 1
    assert chained == 4 and stored[("account", "a1")]["mu"] == pytest.approx(mu)
    await one.close()
    await two.close()


@in_fresh_loop
async def test_the_leaderboard_reads_a_range_of_games(open_store: Callable[..., Any]) -> None:
    """One statement for the listed and the provisional (issue 36): the accounts whose
    rated games at a count lie in a range, best first."""
    store = await open_store()
    await setup(store)
    await rated_game(store, "r1")
    await store.append_actions("r1", 0, [ActionRow("L", 0)], "over", False, 1, GameEnd((2, 1, 3)))
    await rated_game(store, "r2")
    await store.append_actions("r2", 0, [ActionRow("L", 0)], "over", False, 1, GameEnd((2, 1, 3)))
    q, _ = queries(store)

    async def names(low: int, high: int) -> list[str]:
        values = {"players": 3, "min_games": low, "max_games": high, "limit": 10}
        (rows,) = await store.transact([(q.leaderboard.sql, q.leaderboard.params(values))])
        return [row["name"] for row in rows]

    assert await names(2, 2**31 - 1) == ["Bo", "Ana"]  # Bo won both
    assert await names(1, 1) == [] and await names(3, 2**31 - 1) == []
    assert await names(1, 2) == ["Bo", "Ana"]
    await store.close()
