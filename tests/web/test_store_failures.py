"""The store failing for a while (a database restart, a full disk; issue 23): nothing
accepted is lost, and bot games go on by themselves once it works again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from marrakech.web.protocol import CreateGame
from marrakech.web.room_manager import RoomManager
from marrakech.web.store import ActionRow, GameEnd, GameStatus
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
