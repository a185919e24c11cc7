"""The store failing for a while (a database restart, a full disk; issues 23 and 36):
nothing accepted is lost, bot games go on by themselves once it works again, and an
action is tried again for a few seconds, never stored twice, before it is refused."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from marrakech.web.protocol import CreateGame, ProtocolError
from marrakech.web.room.play import submit_action
from marrakech.web.room_manager import RoomManager
from marrakech.web.store import ActionRow, GameEnd, GameStatus
from marrakech.web.store.retry import transient
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.store.worker import StoreWorker
from tests.web.test_rooms import in_fresh_loop


class FailingAppends:
    """A store whose appends fail while :attr:`failing` (everything else works)."""

    def __init__(self, store: StoreWorker) -> None:
        self.store = store
        self.failing = False
        self.refused = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
        turns: int,
        end: GameEnd | None = None,
    ) -> None:
        if self.failing:
            self.refused += 1
            raise OSError("the database is restarting")
        await self.store.append_actions(game_id, version, actions, status, bot_to_move, turns, end)


@in_fresh_loop
async def test_a_bot_game_goes_on_after_the_store_failed_for_a_while(tmp_path: Path) -> None:
    flaky = FailingAppends(StoreWorker.over(SQLiteStore(tmp_path / "games.sqlite3")))
    manager = RoomManager(flaky, bot_delay=0.01, seed=5)  # type: ignore[arg-type]
    await manager.start()
    spec = {"players": 2, "seats": [{"kind": "bot", "level": "easy"}] * 2}
    room, _ = await manager.create(CreateGame.model_validate(spec))
    game_id = room.game_id
    await asyncio.sleep(0.3)
    flaky.failing = True  # the database goes away under the bot moves
    await asyncio.sleep(1.0)
    assert flaky.refused >= 2
    stopped_at = room.version
    flaky.failing = False
    deadline = time.monotonic() + 30
    # Only the store is watched: opening the game (manager.get) would restart its bots.
    while True:
        stored = await flaky.load_game(game_id)
        assert stored is not None
        if stored.status == "over":
            break
        assert time.monotonic() < deadline, f"frozen at version {stored.version}"
        await asyncio.sleep(0.1)
    assert stored.version > stopped_at and stored.version == len(stored.actions)
    await manager.stop()


@in_fresh_loop
async def test_a_clocked_game_everyone_left_goes_on_with_stand_ins(tmp_path: Path) -> None:
    """Nobody connected, a turn clock running: the room stays until the time runs out,
    then a bot stands in for the seat (and later for the other), and the game ends."""
    store = SQLiteStore(tmp_path / "games.sqlite3")
    manager = RoomManager(store, bot_delay=0, seed=2, blitz_seconds=1)
    await manager.start()
    spec = {"players": 2, "seats": [{"kind": "human"}] * 2, "clock": "blitz", "first_seat": 0}
    room, _ = await manager.create(CreateGame.model_validate(spec))
    assert manager.rooms.get(room.game_id) is room  # its clock runs: it is not unloaded
    deadline = time.monotonic() + 60
    while not room.state.is_terminal:
        assert time.monotonic() < deadline, f"frozen at version {room.version}"
        await asyncio.sleep(0.1)
    stored = await manager.store.load_game(room.game_id)
    assert stored is not None and stored.status == "over"
    assert all(seat.stand_in for seat in stored.seats)
    await manager.stop()


class LostAnswers:
    """A store whose next ``lose`` appends fail as a database restart fails them: the
    first ``landed`` of those after committing (the connection broke before the answer
    came back), the others before. ``error`` is what they raise."""

    def __init__(self, store: StoreWorker, error: Exception) -> None:
        self.store = store
        self.error = error
        self.lose = 0
        self.landed = 0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
        turns: int,
        end: GameEnd | None = None,
    ) -> None:
        self.calls += 1
        if self.lose and self.landed:
            await self.store.append_actions(
                game_id, version, actions, status, bot_to_move, turns, end
            )
        if self.lose:
            self.lose -= 1
            self.landed = max(0, self.landed - 1)
            raise self.error
        await self.store.append_actions(game_id, version, actions, status, bot_to_move, turns, end)


async def human_game(tmp_path: Path, error: Exception, retry: float) -> tuple[Any, LostAnswers]:
    store = LostAnswers(StoreWorker.over(SQLiteStore(tmp_path / "games.sqlite3")), error)
    manager = RoomManager(store, bot_delay=0, seed=3, store_retry=retry)  # type: ignore[arg-type]
    await manager.start()
    spec = {"players": 2, "seats": [{"kind": "human"}] * 2, "first_seat": 0}
    room, _ = await manager.create(CreateGame.model_validate(spec))
    return (manager, room), store


#: What psycopg raises when PostgreSQL restarts under a query (no SQLSTATE: the client
#: saw the connection close).
LOST = ConnectionError("server closed the connection unexpectedly")


@in_fresh_loop
async def test_an_action_is_stored_once_when_the_commits_answer_is_lost(tmp_path: Path) -> None:
    """The database committed the action but the answer never came (issue 36): the
    server reads the game back before trying again, and neither writes it twice nor
    takes its own action for another writer's."""
    (manager, room), store = await human_game(tmp_path, LOST, retry=5)
    version, token = room.version, room.legal_for(0)[0]
    store.calls, store.lose, store.landed = 0, 1, 1  # it lands, but its answer is lost
    await submit_action(room, 0, version, token)
    assert room.version == version + 1
    stored = await store.load_game(room.game_id)
    assert stored is not None and [row.token for row in stored.actions][version:] == [token]
    assert store.calls == 1, "the append that landed was not made again"
    await manager.stop()


@in_fresh_loop
async def test_an_action_waits_out_a_store_failing_for_a_moment(tmp_path: Path) -> None:
    """A database restarting refuses three appends in a row: the action is stored at the
    fourth try, and the player hears nothing of it (no server_error)."""
    (manager, room), store = await human_game(tmp_path, LOST, retry=5)
    version, token = room.version, room.legal_for(0)[0]
    store.calls, store.lose = 0, 3
    await submit_action(room, 0, version, token)
    assert room.version == version + 1 and store.calls == 4
    await manager.stop()


@in_fresh_loop
async def test_a_permanent_failure_or_one_that_lasts_is_refused(tmp_path: Path) -> None:
    """A failure that will not pass by itself is refused at once; a passing one that
    outlasts the bound (``--store-retry``) is refused then: ``server_error``, nothing
    changed, and the same action can be sent again."""
    damaged = sqlite3.DatabaseError("database disk image is malformed")
    (manager, room), store = await human_game(tmp_path, damaged, retry=5)
    version, token = room.version, room.legal_for(0)[0]
    store.calls, store.lose = 0, 1
    with pytest.raises(ProtocolError) as refused:
        await submit_action(room, 0, version, token)
    assert refused.value.code == "server_error" and store.calls == 1
    store.error, store.lose = LOST, 100
    started = time.monotonic()
    room.services = replace(room.services, store_retry=0.3)
    with pytest.raises(ProtocolError) as refused:
        await submit_action(room, 0, version, token)
    assert refused.value.code == "server_error" and store.calls > 2
    assert time.monotonic() - started < 5
    assert room.version == version
    store.lose = 0
    await submit_action(room, 0, version, token)  # the page sends it again: it goes in
    assert room.version == version + 1
    await manager.stop()


def test_transient_failures_are_told_from_permanent_ones() -> None:
    psycopg = pytest.importorskip("psycopg")
    from psycopg_pool import PoolTimeout

    assert transient(psycopg.errors.AdminShutdown("terminating connection"))
    assert transient(psycopg.errors.CannotConnectNow("the database system is starting up"))
    assert transient(psycopg.errors.SerializationFailure("could not serialize access"))
    assert transient(psycopg.errors.DeadlockDetected("deadlock detected"))
    assert transient(psycopg.OperationalError("consuming input failed: server closed"))
    assert transient(PoolTimeout("couldn't get a connection after 10.00 sec"))
    assert transient(sqlite3.OperationalError("database is locked"))
    assert not transient(psycopg.errors.UniqueViolation("duplicate key value"))
    assert not transient(psycopg.errors.DiskFull("could not extend file"))
    assert not transient(sqlite3.OperationalError("no such table: games"))
    assert not transient(sqlite3.DatabaseError("database disk image is malformed"))
    assert not transient(ValueError("bad"))
