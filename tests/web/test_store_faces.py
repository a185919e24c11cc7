"""The store's interface is declared once (:class:`GameStore`) and written once per
database: the SQLite store's blocking methods have the protocol's parameters and types,
PostgreSQL's coroutines too, and the SQLite store's thread (:class:`StoreWorker`)
forwards every method of the protocol, none left as the protocol's empty body."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import sqlite3
import threading
import time
import typing
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from marrakech.web.store import ActionRow, GameStore
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.store.worker import StoreWorker
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store import a_game

#: The protocol's coroutines, by name (its one property, ``dialect``, aside).
DECLARED = {
    name: member for name, member in vars(GameStore).items() if inspect.iscoroutinefunction(member)
}


def _members() -> list[str]:
    """Every public member the protocol declares: coroutines and properties."""
    return [
        name
        for name, member in vars(GameStore).items()
        if not name.startswith("_") and (callable(member) or isinstance(member, property))
    ]


def _shape(function: Callable[..., Any], awaited: bool) -> tuple[list[Any], Any]:
    """A function's parameters (name, kind, default, type) and its result's type; a
    coroutine's result is what awaiting it gives."""
    hints = typing.get_type_hints(function)
    parameters = [
        (p.name, p.kind, p.default, hints.get(p.name))
        for p in inspect.signature(function).parameters.values()
    ]
    result = hints["return"]
    if awaited and typing.get_origin(result) is Coroutine:
        result = typing.get_args(result)[2]
    return parameters, result


def test_the_protocol_declares_the_store_methods() -> None:
    assert {"create_game", "load_game", "append_actions", "transact", "close"} <= set(DECLARED)
    assert "dialect" in _members()


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_the_sqlite_store_has_each_method_blocking_with_the_protocols_shape(
    name: str,
) -> None:
    method = getattr(SQLiteStore, name)
    assert not inspect.iscoroutinefunction(method)
    assert _shape(method, awaited=False) == _shape(DECLARED[name], awaited=True)


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_the_postgres_store_has_each_method_as_a_coroutine_of_the_protocols_shape(
    name: str,
) -> None:
    pytest.importorskip("psycopg_pool")
    from marrakech.web.store.postgres import PostgresStore

    method = getattr(PostgresStore, name)
    assert inspect.iscoroutinefunction(method)
    assert _shape(method, awaited=True) == _shape(DECLARED[name], awaited=True)


@pytest.mark.parametrize("name", _members())
def test_the_worker_writes_or_forwards_every_member_of_the_protocol(name: str) -> None:
    # A member left to the protocol would be its empty body, answering None.
    assert name in vars(StoreWorker)
    if name in DECLARED:
        method = getattr(StoreWorker, name)
        assert inspect.iscoroutinefunction(method)
        assert inspect.signature(method) == inspect.signature(DECLARED[name])
        if name not in ("append_actions", "close"):  # the two the worker writes itself
            assert method.__wrapped__ is DECLARED[name]  # made from the declaration


@in_fresh_loop
async def test_a_forwarded_call_runs_in_the_stores_thread(tmp_path: Path) -> None:
    seen: list[str] = []

    class Watched(SQLiteStore):
        def games_to_resume(self) -> list[str]:
            seen.append(threading.current_thread().name)
            return super().games_to_resume()

    worker = StoreWorker.over(Watched(tmp_path / "games.sqlite3"))
    try:
        assert await worker.games_to_resume() == []
        assert await worker.open_games(limit=5) == []  # keywords pass through too
    finally:
        await worker.close()
    assert len(seen) == 1 and seen[0].startswith("marrakech-store")


@in_fresh_loop
async def test_an_append_is_answered_only_once_committed_and_close_ends_the_thread(
    tmp_path: Path,
) -> None:
    """The durability contract of docs/web.md through the store's own thread: the
    caller of an append hears back only after its batch is committed (another
    connection to the file reads it then, not before), appends waiting meanwhile are
    committed together after it, and closing the worker ends its thread."""
    entered, release = threading.Event(), threading.Event()

    class Gated(SQLiteStore):
        def append_batch(self, appends: Any) -> Any:
            if not release.is_set():  # the first batch waits at the gate
                entered.set()
                release.wait()
            return super().append_batch(appends)

    path = tmp_path / "games.sqlite3"
    worker = StoreWorker.over(Gated(path))
    try:
        for game_id in ("g1", "g2", "g3"):
            await worker.create_game(a_game(game_id))
        first = asyncio.create_task(
            worker.append_actions("g1", 0, [ActionRow("L", 1)], "running", False)
        )
        await asyncio.to_thread(entered.wait)  # the thread is in the first batch
        later = [
            asyncio.create_task(
                worker.append_actions(game_id, 0, [ActionRow("R", 1)], "running", False)
            )
            for game_id in ("g2", "g3")
        ]
        await asyncio.sleep(0)  # let them queue behind the first batch
        assert not first.done() and not any(task.done() for task in later)
        assert _stored(path) == []  # nothing answered, nothing committed
        release.set()
        await first
        assert ("g1", "L") in _stored(path)  # answered: committed
        await asyncio.gather(*later)
        assert sorted(_stored(path)) == [("g1", "L"), ("g2", "R"), ("g3", "R")]
    finally:
        release.set()
        await worker.close()
    assert not any(t.name.startswith("marrakech-store") for t in threading.enumerate())


@in_fresh_loop
async def test_the_calls_that_waited_go_together_without_the_loops_help(tmp_path: Path) -> None:
    """Once a batch is done, the thread takes every call that waited as the next batch
    at once: it does not wait for the event loop to hear about the batch before (under
    load each such step costs the loop's turn, milliseconds; docs/web.md "Capacity")."""
    entered, release, second = threading.Event(), threading.Event(), threading.Event()
    batches: list[list[str]] = []

    class Gated(SQLiteStore):
        def append_batch(self, appends: Any) -> Any:
            batches.append([append.game_id for append in appends])
            if len(batches) == 1:
                entered.set()
                release.wait(10)
            else:
                second.set()
            return super().append_batch(appends)

    worker = StoreWorker.over(Gated(tmp_path / "games.sqlite3"))
    try:
        for game_id in ("g1", "g2", "g3"):
            await worker.create_game(a_game(game_id))
        moves = [
            asyncio.ensure_future(
                worker.append_actions("g1", 0, [ActionRow("L", 1)], "running", False)
            )
        ]
        await asyncio.to_thread(entered.wait)  # the first batch is in the thread
        moves += [
            asyncio.ensure_future(
                worker.append_actions(game_id, 0, [ActionRow("L", 1)], "running", False)
            )
            for game_id in ("g2", "g3")
        ]
        await asyncio.sleep(0)  # the two are made: they wait behind the first
        release.set()
        # This coroutine holds the loop: no callback of the loop runs meanwhile.
        assert second.wait(10), "the calls that waited were not taken"
        assert batches == [["g1"], ["g2", "g3"]]
        await asyncio.gather(*moves)
    finally:
        release.set()
        await worker.close()


def _stored(path: Path) -> list[tuple[str, str]]:
    """The actions committed in the file, read by a connection of their own."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [(str(g), str(t)) for g, t in db.execute("SELECT game_id, token FROM actions")]


def test_a_call_from_a_second_event_loop_is_answered_on_its_own_loop(tmp_path: Path) -> None:
    """Tests run the app from several event loops (a ``TestClient`` per address): a call
    made while another loop's batch was in the thread joined that batch, and its future
    was settled from the other loop's thread, so its own loop never woke (a hang seen in
    ``test_client_limits``)."""
    entered, release = threading.Event(), threading.Event()

    def held() -> str:  # runs in the store's thread: loop A's batch stays in flight
        entered.set()
        release.wait(10)
        return "a"

    worker = StoreWorker.over(SQLiteStore(tmp_path / "games.sqlite3"))
    first: list[str] = []
    loop_a = threading.Thread(target=lambda: first.append(asyncio.run(worker.run(held))))
    loop_a.start()
    try:
        assert entered.wait(10)

        async def on_loop_b() -> tuple[str, float]:
            call = asyncio.ensure_future(worker.run(lambda: "b"))
            await asyncio.sleep(0.05)
            release.set()  # loop A's batch ends; loop B's call must be answered on B
            started = time.monotonic()
            # Before, loop B slept until this timeout's timer woke it: a hang, not a delay.
            answer = await asyncio.wait_for(call, 10)
            return answer, time.monotonic() - started

        answer, waited = asyncio.run(on_loop_b())
        assert answer == "b" and waited < 5
    finally:
        release.set()
        loop_a.join(10)
        asyncio.run(worker.close())
    assert first == ["a"]
