"""Rooms without the network: bots (levels, processes), the store hand-off."""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech import Orient, State, bots
from marrakech.actions import Action
from marrakech.bots import make_bot
from marrakech.playout import sample_outcome
from marrakech.web.bot_workers import BotScheduler
from marrakech.web.protocol import DEFAULT_LEVEL, LEVELS, CreateGame
from marrakech.web.room_manager import RoomManager, new_game_id
from marrakech.web.store.sqlite import SQLiteStore
from tests.web.conftest import Apps, Conn, create_game, newer_than, seat_token


def test_every_level_of_the_registry_is_offered_and_has_its_bot() -> None:
    assert tuple(bots.LEVELS) == LEVELS and DEFAULT_LEVEL in LEVELS
    workers = BotScheduler(threads=1)
    for level, name in bots.LEVELS.items():
        assert workers.make_bot(level).name == make_bot(name).name
        spec = {"players": 2, "seats": [{"kind": "bot", "level": level}] * 2}
        assert CreateGame.model_validate(spec).seats[0].level == level
    workers.shutdown()


async def wait_until_over(manager: RoomManager, game_id: str) -> State:
    for _ in range(2000):
        room = await manager.get(game_id)
        assert room is not None
        if room.state.is_terminal:
            return room.state
        await asyncio.sleep(0.005)
    raise AssertionError("the bots did not finish")


def bots_game(players: int = 3) -> CreateGame:
    return CreateGame.model_validate(
        {"players": players, "seats": [{"kind": "bot", "level": "easy"}] * players}
    )


def in_fresh_loop(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test with ``asyncio.run`` in its own thread: nothing else's event loop
    (Playwright's, in the browser tests sharing this process) can get in the way."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, test(*args, **kwargs)).result(timeout=120)

    return run


@in_fresh_loop
async def test_bots_play_a_whole_game_alone_and_it_is_stored(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    manager = RoomManager(store, bot_delay=0, seed=3)
    room, issued = await manager.create(bots_game())
    assert issued == {}
    final = await wait_until_over(manager, room.game_id)
    record = await manager.record(room.game_id)
    assert record is not None and record.final_state() == final
    assert manager.store_worker is not None  # SQLite's calls go through its thread
    stored = await manager.store_worker.run(store.load_game, room.game_id)
    assert stored is not None and stored.status == "over" and not stored.bot_to_move
    await manager.stop()


class Cheater:
    """A broken bot: always turns left, even when it should place a carpet."""

    name = "cheater"

    def choose(self, state: State, rng: random.Random) -> Action:
        return Orient(-1)


@in_fresh_loop
async def test_a_broken_bot_cannot_stall_or_corrupt_a_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manager = RoomManager(
        SQLiteStore(tmp_path / "games.sqlite3"), bot_delay=0, bot_factory=lambda name: Cheater()
    )
    room, _ = await manager.create(bots_game(players=2))
    final = await wait_until_over(manager, room.game_id)
    record = await manager.record(room.game_id)
    assert record is not None and record.final_state() == final  # every action legal
    # The log says what the bot did wrong, in the core's words.
    assert f"game {room.game_id}, the bot of seat" in caplog.text
    assert ": illegal action L in the PLACE phase of seat" in caplog.text
    await manager.stop()


@in_fresh_loop
async def test_a_seed_makes_the_dice_reproducible(tmp_path: Path) -> None:
    def dice(manager: RoomManager, version: int = 0) -> list[float]:
        rng = manager.rng("game1", "die", version)
        return [rng.random() for _ in range(5)]

    managers = [
        RoomManager(SQLiteStore(tmp_path / f"{n}.sqlite3"), seed=seed)
        for n, seed in enumerate((9, 9, 10, None))
    ]
    same, again, other, unseeded = managers
    assert dice(same) == dice(again) != dice(other)
    assert dice(unseeded) != dice(same)
    assert dice(same, version=7) != dice(same)  # a resumed room does not replay old rolls
    for manager in managers:
        await manager.stop()


@in_fresh_loop
async def test_store_calls_keep_their_order_under_load(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    manager = RoomManager(store, bot_delay=0)
    rooms = [
        (
            await manager.create(
                CreateGame.model_validate({"players": 2, "seats": [{"kind": "human"}] * 2})
            )
        )[0]
        for _ in range(20)
    ]
    # Many concurrent calls, batched into few trips to the store thread, in order.
    assert manager.store_worker is not None
    results = await asyncio.gather(
        *(manager.store_worker.run(store.load_game, room.game_id) for room in rooms)
    )
    assert [game.id for game in results if game] == [room.game_id for room in rooms]
    with pytest.raises(Exception, match="no game nope"):
        await manager.store_worker.run(store.append_actions, "nope", 0, [], "running", False)
    await manager.stop()


def test_bots_can_think_in_worker_processes(apps: Apps) -> None:
    client: TestClient = apps.start(bot_processes=1)
    game = create_game(
        client, players=2, seats=[{"kind": "human"}, {"kind": "bot", "level": "medium"}]
    )
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        while red.version < 12:
            seat = str(red.you[0])
            if red.legal[seat]:
                red.act(0, red.legal[seat][0])
            red.until(newer_than(red.version))
    kinds = {event["seat"] for update in red.updates for event in update["events"]}
    assert 1 in kinds  # the bot (seat 1) moved, from its worker process


class Slow:
    """A bot that takes its time and says when it chose."""

    name = "slow"

    def __init__(self, order: list[str]) -> None:
        self.order = order

    def choose(self, state: State, rng: random.Random) -> Action:
        time.sleep(0.1)
        self.order.append("decision")
        return state.legal_actions()[0]


def record_job(order: list[str]) -> str:
    order.append("job")
    return "done"


@in_fresh_loop
async def test_jobs_wait_for_the_decisions(tmp_path: Path) -> None:
    """A long job (a finished game's analysis) never delays a bot's decision: it starts
    only when a worker is free and no decision waits."""
    order: list[str] = []
    workers = BotScheduler(threads=1, factory=lambda level: Slow(order))
    state = State.new(3)
    first = asyncio.ensure_future(workers.choose(None, "easy", state, 1))
    await asyncio.sleep(0.02)  # the only worker thinks
    job = asyncio.ensure_future(workers.run(record_job, order))
    second = asyncio.ensure_future(workers.choose(None, "easy", state, 2))
    assert await job == "done"
    await asyncio.gather(first, second)
    assert order == ["decision", "decision", "job"]
    workers.shutdown()


@in_fresh_loop
async def test_a_level_decided_on_the_event_loop_makes_its_bot_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once a level is known to take microseconds (``easy``), the event loop decides for
    it with one bot made for the level, not a bot made (its spec parsed) at every move;
    the decisions are still the bot's own for each seed."""
    from marrakech.web import bot_workers

    made: list[str] = []

    def counting(level: str, **options: Any) -> Any:
        made.append(level)
        return make_bot(level, **options)

    monkeypatch.setattr(bot_workers, "make_bot", counting)
    workers = BotScheduler(threads=1)
    state = State.new(3)
    await workers.choose(None, "easy", state, 1)  # in a thread: its cost is learned
    made.clear()
    for seed in range(2, 12):
        chosen = await workers.choose(None, "easy", state, seed)
        assert chosen == make_bot("easy").choose(state, random.Random(seed))
    assert made == ["easy"]
    workers.shutdown()


def test_r32_a_two_player_orient_last_game_stored_in_the_old_order_loads() -> None:
    """Before record version 2 the server stored a 2-player orient-last game (R32) with
    the placer's orientation before his pile's reveal; such a game loads in today's order
    (Board Game Arena's: the reveal first) and replays to the same position."""
    from marrakech.actions import Draw, Orient
    from marrakech.rules import parse_rules
    from marrakech.state import State
    from marrakech.web.room import stored_actions
    from marrakech.web.store import ActionRow, SeatRow, StoredGame

    rules = parse_rules("bga+orient-last")
    state, rng = State.new(2, rules, 0), random.Random(7)
    played: list[Action] = []
    while not state.is_terminal and len(played) < 60:
        legal = state.legal_actions()
        action = sample_outcome(state, rng) if state.is_chance else rng.choice(legal)
        played.append(action)
        state = state.apply(action)
    old = list(played)  # the old order: each orientation before the reveal it follows
    swaps = 0
    for index in range(len(old) - 1):
        if isinstance(old[index], Draw) and isinstance(old[index + 1], Orient):
            old[index], old[index + 1] = old[index + 1], old[index]
            swaps += 1
    assert swaps > 3
    seats = (SeatRow(0, "human"), SeatRow(1, "bot"))
    rows = tuple(ActionRow(str(action), 0) for action in old)
    game = StoredGame("g1", 2, "bga+orient-last", 0, "en", seats, rows)
    loaded = stored_actions(game)
    assert [str(a) for a in loaded] == [str(a) for a in played]
    replayed = State.new(2, rules, 0)
    for action in loaded:
        replayed = replayed.apply(action)
    assert replayed == state


def test_game_ids_never_start_with_a_dash() -> None:
    """A game id is a command-line argument too (``marrakech admin hide-message GAME
    ID``): one starting with ``-`` would be taken for an option (one in 64 did)."""
    ids = [new_game_id() for _ in range(5000)]
    assert not [game_id for game_id in ids if game_id.startswith("-")]
    assert len(set(ids)) == len(ids) and {len(game_id) for game_id in ids} == {12}
    assert any(game_id.startswith("_") for game_id in ids)  # the alphabet is kept
