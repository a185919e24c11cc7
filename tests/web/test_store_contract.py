"""The :class:`GameStore` contract, run against both stores: the SQLite file (in its
thread, :class:`StoreWorker`) and PostgreSQL (a throwaway cluster of the test session)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from marrakech.web.store import (
    ActionRow,
    ChatRow,
    GameStore,
    Reporter,
    SeatRow,
    StoreConflict,
    StoredGame,
    StoreError,
    Usage,
    hash_token,
)
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.store.worker import StoreWorker
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store import a_game as the_sqlite_tests_game

KINDS = ["sqlite", "postgres"]


def a_game(game_id: str = "g1", **changes: object) -> StoredGame:
    """The game of the SQLite store's tests, created by one client."""
    return the_sqlite_tests_game(game_id, **{"creator": "203.0.113.7", **changes})


@pytest.fixture(params=KINDS)
def open_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[], Coroutine[Any, Any, GameStore]]:
    """Opens the store under test (in the test's own event loop)."""
    if request.param == "sqlite":

        async def sqlite() -> GameStore:
            return StoreWorker.over(SQLiteStore(tmp_path / "games.sqlite3"))

        return sqlite
    url = request.getfixturevalue("pg_url")

    async def postgres() -> GameStore:
        from marrakech.web.store.postgres import PostgresStore

        store = await PostgresStore.open(url)
        # The appends of this contract are written as the game's owner.
        store.instance = "owner"
        return store

    return postgres


async def _own(store: GameStore, game_id: str) -> None:
    pool = getattr(store, "pool", None)
    if pool is not None:  # PostgreSQL: appends need the game's lease
        async with pool.connection() as conn:
            await conn.execute("UPDATE games SET owner = 'owner' WHERE id = %s", (game_id,))


@in_fresh_loop
async def test_games_round_trip(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    await store.create_game(a_game(created=1000.0))
    await _own(store, "g1")
    await store.append_actions("g1", 0, [ActionRow("L", 1), ActionRow("r2", 1)], "waiting", False)
    await store.append_actions("g1", 2, [ActionRow("c3-c4", 1)], "waiting", True)
    game = await store.load_game("g1")
    assert game is not None
    assert [a.token for a in game.actions] == ["L", "r2", "c3-c4"]
    assert [a.seat for a in game.actions] == [1, 1, 1]
    assert game.version == 3 and game.bot_to_move and game.created == 1000.0
    assert game.seats == a_game().seats
    assert (game.players, game.rules, game.first_seat, game.lang) == (3, "standard", 1, "fr")
    assert [a.token for a in await store.load_actions("g1", 1)] == ["r2", "c3-c4"]
    assert await store.load_game("nope") is None
    assert await store.games_to_resume() == ["g1"]
    [summary] = await store.summaries(["g1", "nope"])
    assert summary.version == 3 and summary.actions == ()
    await store.close()


@in_fresh_loop
async def test_appends_are_conditional_and_batched_alone(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    for game_id in ("g1", "g2"):
        await store.create_game(a_game(game_id))
        await _own(store, game_id)
    # Concurrent appends go together to the store; the one that lost its race alone fails.
    outcomes = await asyncio.gather(
        store.append_actions("g1", 0, [ActionRow("L", 1)], "running", False),
        store.append_actions("g1", 0, [ActionRow("R", 1)], "running", False),
        store.append_actions("g2", 0, [ActionRow("S", 1), ActionRow("r3", 1)], "running", False),
        return_exceptions=True,
    )
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], StoreConflict) and "not 0" in str(outcomes[1])
    with pytest.raises(StoreError, match="no game nope"):
        await store.append_actions("nope", 0, [ActionRow("R", 1)], "running", False)
    one, two = await store.load_game("g1"), await store.load_game("g2")
    assert one is not None and [a.token for a in one.actions] == ["L"]
    assert two is not None and [a.token for a in two.actions] == ["S", "r3"]
    await store.close()


@in_fresh_loop
async def test_each_append_of_a_group_gets_its_own_outcome(
    open_store: Callable[..., Any],
) -> None:
    store = await open_store()
    for number in range(4):
        await store.create_game(a_game(f"g{number}"))
        await _own(store, f"g{number}")
    # Gathered, they reach the store while none is written: one group.
    outcomes = await asyncio.gather(
        store.append_actions("g0", 0, [ActionRow("L", 1)], "running", False),
        store.append_actions("g1", 3, [ActionRow("L", 1)], "running", False),  # g1 is at 0
        store.append_actions("g2", 0, [ActionRow("L", 1)], "running", False),
        store.append_actions("g2", 1, [ActionRow("r2", 1)], "running", True),  # g2 again
        store.append_actions("nope", 0, [ActionRow("L", 1)], "running", False),
        store.append_actions("g3", 0, [ActionRow("R", 1), ActionRow("r1", 1)], "running", True),
        return_exceptions=True,
    )
    assert [type(outcome).__name__ for outcome in outcomes] == [
        "NoneType", "StoreConflict", "NoneType", "NoneType", "StoreError", "NoneType"
    ]  # fmt: skip
    assert "g1 is at version 0, not 3" in str(outcomes[1])
    tokens = {}
    for game in await store.summaries([f"g{number}" for number in range(4)]):
        tokens[game.id] = game.version
    assert tokens == {"g0": 1, "g1": 0, "g2": 2, "g3": 2}
    g2, g3 = await store.load_game("g2"), await store.load_game("g3")
    assert g2 is not None and [a.token for a in g2.actions] == ["L", "r2"] and g2.bot_to_move
    assert g3 is not None and [(a.token, a.seat) for a in g3.actions] == [("R", 1), ("r1", 1)]
    await store.close()


@in_fresh_loop
async def test_a_group_of_appends_is_one_statement_and_one_notice_a_game(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PostgreSQL: psycopg's work for each statement runs on the event loop, so a group's
    # statements must not grow with its games; each game moved is still announced.
    import psycopg

    from marrakech.web.store.postgres import GAMES_CHANNEL, PostgresStore, notice

    store = await PostgresStore.open(pg_url)
    store.instance = "owner"
    for number in range(40):
        await store.create_game(a_game(f"g{number}"))
        await _own(store, f"g{number}")
    listener = await psycopg.AsyncConnection.connect(pg_url, autocommit=True)
    await listener.execute(f"LISTEN {GAMES_CHANNEL}")
    statements: list[str] = []
    execute = psycopg.AsyncConnection.execute

    async def counted(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        statements.append(str(query))
        return await execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", counted)
    moves = [ActionRow("L", 1), ActionRow("r2", 1)]
    before = time.time()
    await asyncio.gather(
        *(
            store.append_actions(f"g{n}", 0, moves, "running", n % 2 == 0, turns=n)
            for n in range(40)
        )
    )
    monkeypatch.undo()
    assert len(statements) == 1, statements
    for number in range(40):
        game = await store.load_game(f"g{number}")
        assert game is not None and game.version == 2 and game.status == "running"
        assert [(a.token, a.seat) for a in game.actions] == [("L", 1), ("r2", 1)]
        assert game.bot_to_move == (number % 2 == 0) and game.turns == number
        assert all(before <= a.at <= time.time() for a in game.actions)
    heard = []
    async for note in listener.notifies(timeout=5.0, stop_after=40):
        heard.append(note.payload)
    assert sorted(heard) == sorted(notice(f"g{n}", 2, "owner", moves) for n in range(40))
    await listener.close()
    await store.close()


@in_fresh_loop
async def test_a_refused_action_in_a_group_fails_its_append_only(pg_url: str) -> None:
    # PostgreSQL (SQLite's in tests/web/test_store.py): the group's one statement fails
    # as a whole, so each append goes again alone and only the damaged game's fails.
    import psycopg

    from marrakech.web.store.postgres import PostgresStore

    store = await PostgresStore.open(pg_url)
    store.instance = "owner"
    for game_id in ("g0", "g1"):
        await store.create_game(a_game(game_id))
        await _own(store, game_id)
    async with store.pool.connection() as conn:  # an action past g1's version
        await conn.execute(
            "INSERT INTO actions (game_id, number, token, seat, at) VALUES ('g1', 0, 'L', 1, 0)"
        )
    outcomes = await asyncio.gather(
        store.append_actions("g0", 0, [ActionRow("L", 1)], "running", False),
        store.append_actions("g1", 0, [ActionRow("R", 1)], "running", False),
        return_exceptions=True,
    )
    assert outcomes[0] is None and isinstance(outcomes[1], psycopg.IntegrityError)
    g0 = await store.load_game("g0")
    assert g0 is not None and [a.token for a in g0.actions] == ["L"]
    assert [game.version for game in await store.summaries(["g1"])] == [0]
    await store.close()


@in_fresh_loop
async def test_claim_seat_once(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    await store.create_game(a_game())
    assert [g.id for g in await store.open_games(10)] == ["g1"]
    assert await store.claim_seat("g1", 2, hash_token("t2"), "Bea")
    assert not await store.claim_seat("g1", 2, hash_token("t3"), "Cid")  # taken
    assert not await store.claim_seat("g1", 1, hash_token("t3"), "Cid")  # a bot
    assert await store.open_games(10) == []  # no open seat left: running
    game = await store.load_game("g1")
    assert game is not None and game.status == "running"
    # Taken from the lobby; the game had no host, so its first joiner hosts it.
    assert game.seats[2] == SeatRow(
        2, "human", None, "Bea", hash_token("t2"), host=True, joined=True
    )
    await store.close()


@in_fresh_loop
async def test_lobby_queries(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    for number in range(5):
        await store.create_game(a_game(f"g{number}", created=float(number)))
    await store.create_game(a_game("full", status="running"))
    assert [g.id for g in await store.open_games(3)] == ["g4", "g3", "g2"]
    assert [g.id for g in await store.summaries(["g3", "g1", "g3"])] == ["g3", "g1"]
    assert await store.summaries([]) == []
    await store.close()


@in_fresh_loop
async def test_usage_counts_unfinished_recent_games_and_their_bots(
    open_store: Callable[..., Any],
) -> None:
    store = await open_store()
    now = time.time()
    await store.create_game(a_game("mine"))  # one bot
    await store.create_game(a_game("old", updated=now - 7200))  # untouched for two hours
    await store.create_game(a_game("other", creator="198.51.100.1"))
    await store.create_game(a_game("done", status="over"))
    usage = await store.usage("203.0.113.7", now - 3600)
    assert usage == Usage(games=1, bots=1, all_games=2, all_bots=2)
    await store.close()


@in_fresh_loop
async def test_clock_turns_seats_rematch_and_analysis(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    await store.create_game(
        a_game(clock="blitz", clock_seconds=30, stand_in_level="easy", turns=0, updated=100.0)
    )
    await _own(store, "g1")
    assert [g.id for g in await store.open_games(10, since=50.0)] == ["g1"]
    assert await store.open_games(10, since=200.0) == []  # nobody joined since: expired
    host = SeatRow(0, "human", name="Ana", token_hash=hash_token("secret"), host=True)
    seats = [host, SeatRow(1, "bot", level="hard", stand_in=None), SeatRow(2, "bot", "easy")]
    await store.update_seats("g1", seats, "running", True)  # the host started it
    await store.append_actions("g1", 0, [ActionRow("L", 1)], "running", False, turns=1)
    seats[0] = SeatRow(
        0, "human", name="Ana", token_hash=hash_token("secret"), host=True, stand_in="medium"
    )
    await store.update_seats("g1", seats, "running", True)  # its time ran out
    game = await store.load_game("g1")
    assert game is not None and game.status == "running" and game.bot_to_move
    assert list(game.seats) == seats and game.bots == 2
    assert (game.clock, game.clock_seconds, game.stand_in_level) == ("blitz", 30, "easy")
    assert game.turns == 1 and game.rematch is None and game.analysis is None
    # The running turn's clock and the pending resignations: none yet, then what the
    # owner stored, then none again.
    assert game.turn_clock is None and game.pending_resigns == frozenset()
    await store.save_turn_state("g1", (0, 2, 1234.5), frozenset({1, 3}))
    [summary] = await store.summaries(["g1"])
    assert summary.turn_clock == (0, 2, 1234.5) and summary.pending_resigns == {1, 3}
    loaded = await store.load_game("g1")
    assert loaded is not None and loaded.turn_clock == (0, 2, 1234.5)
    assert loaded.pending_resigns == {1, 3}
    await store.save_turn_state("g1", None, frozenset())
    loaded = await store.load_game("g1")
    assert loaded is not None and loaded.turn_clock is None and not loaded.pending_resigns
    # A rematch is recorded once; its human seats get their token hash once.
    assert await store.set_rematch("g1", "g2") == "g2"
    assert await store.set_rematch("g1", "g3") == "g2"
    await store.create_game(a_game("g2", seats=(SeatRow(0, "human", name="Ana", host=True),)))
    assert await store.activate_seat("g2", 0, hash_token("new"))
    assert not await store.activate_seat("g2", 0, hash_token("other"))
    assert not await store.activate_seat("g1", 1, hash_token("other"))  # a bot's
    rematch = await store.load_game("g2")
    assert rematch is not None and rematch.seats[0].token_hash == hash_token("new")
    await store.save_analysis("g1", '{"luck": [1.5]}')
    [summary] = await store.summaries(["g1"])
    assert summary.rematch == "g2" and summary.analysis == '{"luck": [1.5]}'
    with pytest.raises(StoreError, match="no game nope"):
        await store.set_rematch("nope", "g4")
    await store.close()


@in_fresh_loop
async def test_hints_setting_and_counts(open_store: Callable[..., Any]) -> None:
    store = await open_store()
    await store.create_game(a_game("on", hints=True))
    await store.create_game(a_game("off"))
    assert await store.count_hint("on", 0, 5) == 1
    assert await store.count_hint("on", 0, 5) == 1  # once per seat and position
    assert await store.count_hint("on", 0, 9) == 2
    assert await store.count_hint("on", 1, 9) == 1
    game = await store.load_game("on")
    assert game is not None and game.hints is True
    assert [seat.hints for seat in game.seats] == [2, 1, 0]
    # A seat change (a stand-in, a take-back) does not undo the hints counted.
    seats = [replace(seat, hints=0, stand_in="easy") for seat in game.seats]
    await store.update_seats("on", seats, "running", False)
    [summary, off] = await store.summaries(["on", "off"])
    assert [seat.hints for seat in summary.seats] == [2, 1, 0]
    assert summary.seats[0].stand_in == "easy"
    assert summary.hints is True and off.hints is False
    with pytest.raises(StoreError, match="no seat 3 of game on"):
        await store.count_hint("on", 3, 9)
    await store.close()


@in_fresh_loop
async def test_a_game_loads_whole_while_another_instance_appends(pg_url: str) -> None:
    # PostgreSQL: the game row and its actions come from one snapshot, so an append made
    # between the two reads (by another instance) is not half seen ("damaged").
    from marrakech.web.store.postgres import PostgresStore

    store, other = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    other.instance = "owner"
    await store.create_game(a_game("race"))
    await _own(other, "race")
    read_seats = store._seats

    async def seats_then_an_append(*args: Any) -> Any:
        seats = await read_seats(*args)
        await other.append_actions("race", 0, [ActionRow("L", 1)], "running", False)
        return seats

    store._seats = seats_then_an_append  # type: ignore[method-assign,assignment]
    game = await store.load_game("race")
    assert game is not None and game.version == 0 and game.actions == ()
    store._seats = read_seats  # type: ignore[method-assign]
    game = await store.load_game("race")
    assert game is not None and [a.token for a in game.actions] == ["L"]
    await store.close()
    await other.close()


@in_fresh_loop
async def test_chat_lines_reports_and_bans(open_store: Callable[..., Any]) -> None:
    """Issue 24: a game's chat lines, their reports (once per reporter) and hiding, and
    the operator's bans, alike in both stores."""
    store = await open_store()
    await store.create_game(a_game())
    await store.create_game(a_game("g2"))
    first = await store.add_chat(ChatRow("g1", 0, "players", "text", "hello", address="a"))
    second = await store.add_chat(ChatRow("g1", -1, "spectators", "reaction", "gg"))
    other = await store.add_chat(ChatRow("g2", 1, "players", "text", "elsewhere"))
    assert 0 < first.id < second.id < other.id and first.at > 0
    assert [row.text for row in await store.load_chat("g1", 10)] == ["hello", "gg"]
    assert [row.text for row in await store.load_chat("g1", 1)] == ["gg"]  # the last ones
    red, spectator = Reporter("player", "a1", "acc1"), Reporter("spectator", "b")
    assert (await store.report_chat("g1", first.id, red)) is not None
    reported = await store.report_chat("g1", first.id, red)  # counted once
    assert reported is not None and reported.reports == 1
    reported = await store.report_chat("g1", first.id, spectator)
    assert reported is not None and reported.reports == 2 and not reported.held
    assert reported.reporters == ("account:acc1", "address:b")
    assert await store.report_chat("g2", first.id, red) is None  # another game's line
    (report,) = await store.chat_reports(10)
    assert report.line.id == first.id and report.line.reports == 2
    assert report.reporters == (red, spectator)
    assert [row.reporters for row in await store.load_chat("g1", 10)] == [
        ("account:acc1", "address:b"),
        (),
    ]
    assert await store.decide_chat("g2", first.id, "hidden") is None
    hidden = await store.decide_chat("g1", first.id, "hidden")
    assert hidden is not None and hidden.line_id == first.id and hidden.decision == "hidden"
    assert await store.chat_reports(10) == []
    assert [row.hidden for row in await store.load_chat("g1", 10)] == [True, False]
    assert await store.chat_decisions(None) == [hidden]
    assert await store.chat_decisions(hidden.id) == []
    line = await store.chat_line(first.id)
    assert line is not None and line.hidden and line.game_id == "g1"
    assert await store.chat_line(999) is None
    assert not await store.is_banned("address", "203.0.113.7")
    await store.ban("address", "203.0.113.7", "spam")
    await store.ban("address", "203.0.113.7", "again")
    assert await store.is_banned("address", "203.0.113.7")
    assert not await store.is_banned("account", "203.0.113.7")
    assert await store.unban("address", "203.0.113.7")
    assert not await store.unban("address", "203.0.113.7")
    await store.close()


@in_fresh_loop
async def test_players_reports_hold_a_line_until_the_operator_decides(
    open_store: Callable[..., Any],
) -> None:
    """Issue 36: reports of two distinct players (by address and by account) hold a line;
    spectators' reports, or one player's from two tabs or two addresses, do not; the
    operator's dismissal shows it again for good, alike in both stores."""
    store = await open_store()
    await store.create_game(a_game())
    line = await store.add_chat(ChatRow("g1", 0, "players", "text", "rude", address="a"))
    kept = await store.add_chat(ChatRow("g1", 0, "players", "text", "kept", address="a"))
    for reporter in (
        Reporter("spectator", "s1"),
        Reporter("spectator", "s2"),
        Reporter("player", "p1"),
        Reporter("player", "p1", "acc1"),  # the same address, signed in: one player
        Reporter("player", "p2", "acc1"),  # the same account elsewhere: still one
    ):
        reported = await store.report_chat("g1", line.id, reporter)
        assert reported is not None and not reported.held, reporter
    reported = await store.report_chat("g1", line.id, Reporter("player", "p3"))
    assert reported is not None and reported.held and reported.reports == 5
    (entry,) = await store.chat_reports(10)
    assert entry.line.held and [r.kind for r in entry.reporters].count("player") == 3
    dismissed = await store.decide_chat("g1", line.id, "dismissed")
    assert dismissed is not None and dismissed.decision == "dismissed"
    assert await store.chat_reports(10) == []  # decided: out of the queue
    reported = await store.report_chat("g1", line.id, Reporter("player", "p4"))
    assert reported is not None and not reported.held and reported.dismissed
    # The operator's hide is final: more reports change nothing.
    for address in ("q1", "q2"):
        await store.report_chat("g1", kept.id, Reporter("player", address))
    await store.decide_chat("g1", kept.id, "hidden")
    again = await store.report_chat("g1", kept.id, Reporter("player", "q3"))
    assert again is not None and again.hidden and not again.held
    decisions = await store.chat_decisions(0)
    assert [(d.line_id, d.decision) for d in decisions] == [
        (line.id, "dismissed"),
        (kept.id, "hidden"),
    ]
    assert await store.chat_decisions(decisions[0].id) == decisions[1:]
    await store.close()
