"""Turn-based play (issue 25): clocks of hours or days per move whose deadlines live in
the database and are handled by whichever instance sweeps first, rooms unloaded while
nobody watches, and "My games".

Real ``marrakech serve`` processes on a real SQLite file (and, for two instances, a
throwaway PostgreSQL). Hours are made seconds with ``--turn-based-scale`` and the
sweeps run often (``--sweep-seconds``): nothing sleeps an hour, nothing is faked.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sqlite3
import time
import urllib.request
import weakref
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from marrakech.web import turn_based_clocks
from marrakech.web.protocol import CreateGame
from marrakech.web.room_manager import RoomManager
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.turn_based_events import TurnEvent
from tests.web.conftest import Apps, apply_changes
from tests.web.servers import Served, run_showing_logs
from tests.web.test_accounts import CHEAP, sign_up

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e

websockets = pytest.importorskip("websockets.asyncio.client")

#: 1 hour per move becomes 3.6 s (4 s, whole seconds), its bank as much.
FAST = (
    "--turn-based-scale",
    "0.001",
    "--sweep-seconds",
    "0.2",
    "--bot-delay",
    "0",
    "--bot-processes",
    "0",
)


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.loads(reply.read())


def post_json(url: str, body: Any) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def two_humans(server: Served, clock: str = "turn_1h", first: int = 0) -> dict[str, Any]:
    seats = [{"kind": "human"}, {"kind": "human"}]
    spec = {"players": 2, "seats": seats, "clock": clock, "first_seat": first}
    created: dict[str, Any] = post_json(server.url + "api/games", spec)
    return created


def stored_clock(db: Path, game_id: str) -> tuple[int, int, float, str]:
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT clock_seat, clock_turn, clock_deadline, clock_banks FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
    return int(row[0]), int(row[1]), float(row[2]), str(row[3])


def wait_for(check: Any, seconds: float, what: str) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds} s")


def stand_in(server: Served, game_id: str, seat: int) -> str | None:
    game = get_json(server.url + f"api/games/{game_id}")
    found: str | None = game["seats"][seat]["stand_in"]
    return found


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_deadline_is_stored_and_the_sweep_has_the_stand_in_play(tmp_path: Path) -> None:
    """Nobody opens the game: its room is not in memory, its deadline is in the games
    table, and the sweep has the stand-in bot play for the seat once it passes."""
    db = tmp_path / "games.sqlite3"
    server = Served(db, *FAST)
    try:
        created = time.time()
        game = two_humans(server)
        game_id = game["game_id"]
        summary = get_json(server.url + f"api/games/{game_id}")
        assert summary["clock"]["mode"] == "turn_1h" and summary["clock"]["seconds"] == 4
        assert get_json(server.url + "api/health")["rooms"] == 0  # nobody watches
        # Stored in the background, at once.
        wait_for(lambda: stored_clock(db, game_id)[0] == 0, 10, "the deadline stored")
        seat, turn, deadline, banks = stored_clock(db, game_id)
        # A move's time (4 s) and the seat's bank (as much) from the creation.
        assert (seat, turn, banks) == (0, 1, "")
        assert created + 8 - 1 <= deadline <= time.time() + 8
        assert summary["clock"]["seat"] == 0 and 0 < summary["clock"]["remaining"] <= 8
        assert stand_in(server, game_id, 0) is None
        level = wait_for(lambda: stand_in(server, game_id, 0), 30, "the stand-in")
        assert level == summary["clock"]["stand_in_level"]
        # Not before the deadline: the sweep judges by the stored one.
        assert time.time() >= deadline
    finally:
        server.stop()


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_deadline_passed_while_no_instance_ran_resumes_fairly(tmp_path: Path) -> None:
    """The server is down when the deadline passes: on start the turn gets its whole
    time per move again (at most TURN_RESUME_SECONDS), not a stand-in at once."""
    db = tmp_path / "games.sqlite3"
    options = (
        "--turn-based-scale",
        "0.002",
        "--sweep-seconds",
        "0.2",
        "--bot-delay",
        "0",
        "--bot-processes",
        "0",
    )
    server = Served(db, *options)  # an hour is 7 s
    try:
        game_id = two_humans(server)["game_id"]
        wait_for(lambda: stored_clock(db, game_id)[0] == 0, 10, "the deadline stored")
    finally:
        server.stop()
    with sqlite3.connect(db) as conn:  # it passed a minute ago, while nothing ran
        conn.execute(
            "UPDATE games SET clock_deadline = ? WHERE id = ?", (time.time() - 60, game_id)
        )
    time.sleep(1.0)  # longer than downtime_seconds(0.2): no sweep ran meanwhile
    restarted = time.time()
    server = Served(db, *options)
    try:
        _, _, deadline, _ = stored_clock(db, game_id)
        assert deadline >= restarted + 7 - 0.5, deadline - restarted
        assert stand_in(server, game_id, 0) is None
        wait_for(lambda: stand_in(server, game_id, 0), 30, "the stand-in after the grace")
        assert time.time() >= restarted + 7 - 0.5
    finally:
        server.stop()


async def hello(url: str, game_id: str, token: str) -> tuple[Any, dict[str, Any]]:
    ws = await websockets.connect(url.replace("http", "ws") + f"ws/{game_id}", ping_interval=None)
    await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "welcome":
            return ws, message


async def play(ws: Any, message: dict[str, Any], seat: int) -> dict[str, Any]:
    """Play the seat's first legal action at ``message``'s version: the next update."""
    action = message["legal"][str(seat)][0]
    body = {"type": "action", "seat": seat, "version": message["version"], "action": action}
    await ws.send(json.dumps(body))
    while True:
        answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if answer["type"] == "update":
            return answer
        assert answer["type"] != "error", answer


def test_an_idle_room_is_unloaded_and_reloaded_on_a_message_intact(tmp_path: Path) -> None:
    """A player plays, leaves: the room leaves memory (the clock's deadline stays in
    the store); the next connection loads it with the same state and deadline."""
    server = Served(
        tmp_path / "games.sqlite3",
        "--turn-based-scale",
        "1",
        "--bot-delay",
        "0",
        "--bot-processes",
        "0",
    )
    try:
        game = two_humans(server, "turn_1d")
        game_id, token = game["game_id"], game["seats"][0]["token"]

        async def scenario() -> None:
            ws, welcome = await hello(server.url, game_id, token)
            assert get_json(server.url + "api/health")["rooms"] == 1
            state = welcome["state"]
            update = welcome
            for _ in range(2):  # orient, roll
                update = await play(ws, update, 0)
                changes = update["changes"]
                state = update["state"] if changes is None else apply_changes(state, changes)
            await ws.close()
            version, clock = update["version"], update["clock"]
            wait_for(lambda: get_json(server.url + "api/health")["rooms"] == 0, 10, "unload")
            ws, welcome = await hello(server.url, game_id, token)
            assert welcome["version"] == version and welcome["state"] == state
            assert welcome["game"]["clock"]["deadline"] == clock["deadline"]
            assert welcome["game"]["clock"]["bank"] == 86400
            await ws.close()

        run_showing_logs(scenario(), server=server)
    finally:
        server.stop()


def test_my_games_lists_your_turn_first_with_the_time_left(tmp_path: Path) -> None:
    """Three games of this device: the one where its seat is to move comes first, with
    its time left; a wrong token adds nothing; no room is loaded to answer."""
    server = Served(tmp_path / "games.sqlite3", "--bot-delay", "0", "--bot-processes", "0")
    try:
        others = two_humans(server, "turn_1d", first=1)  # seat 1 moves first
        mine = two_humans(server, "turn_3d", first=0)
        untimed = two_humans(server, "none", first=0)
        held = [
            {"game_id": game["game_id"], "token": game["seats"][0]["token"]}
            for game in (others, untimed, mine)
        ]
        held.append({"game_id": others["game_id"], "token": "not-a-token"})
        answer = post_json(server.url + "api/my-games", {"seats": held})
        ids = [entry["game"]["game_id"] for entry in answer["games"]]
        assert answer["your_turn"] == 2 and answer["signed_in"] is False
        # Least time left first; a game without a clock after those with one.
        assert ids == [mine["game_id"], untimed["game_id"], others["game_id"]]
        first, second, third = answer["games"]
        assert first["your_turn"] and first["seats"] == [0] and first["held"] == [0]
        assert 3 * 86400 < first["remaining"] <= 6 * 86400  # a move's time and the bank
        assert second["your_turn"] and second["remaining"] is None
        assert not third["your_turn"] and third["to_move"] == 1
        assert get_json(server.url + "api/health")["rooms"] == 0
        refused = urllib.request.Request(
            server.url + "api/my-games",
            json.dumps({"seats": "all"}).encode(),
            {"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(refused, timeout=10)
        assert error.value.code == 400 and "seats" in json.loads(error.value.read())["message"]
    finally:
        server.stop()


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_turn_events_tell_a_turn_started_and_its_time_running_out(tmp_path: Path) -> None:
    """The hook reminders use: the owner tells a turn started (with its deadline), the
    sweep that its time runs out soon (once), in process on a real SQLite file."""

    async def scenario() -> None:
        manager = RoomManager(
            SQLiteStore(str(tmp_path / "games.sqlite3")),
            bot_delay=0,
            turn_scale=0.001,
            sweep_seconds=60,  # this test sweeps itself
        )
        heard: list[TurnEvent] = []
        manager.turn_events.subscribe(heard.append)
        await manager.start()
        try:
            spec = {"players": 2, "seats": [{"kind": "human"}] * 2, "clock": "turn_1h"}
            room, _ = await manager.create(CreateGame.model_validate({**spec, "first_seat": 1}))
            assert [(e.kind, e.seat, e.turn) for e in heard] == [("turn_started", 1, 1)]
            assert room.game_id not in manager.rooms  # unloaded: nobody watches
            deadline = heard[0].deadline
            await manager.sweep_clocks()
            assert len(heard) == 1  # 8 s left of 8: not soon
            # A quarter of a move's time (4 s) before the deadline, the sweep says so.
            await asyncio.sleep(max(0.0, deadline - 1.0 - time.time()))
            await manager.sweep_clocks()
            await manager.sweep_clocks()
            assert [(e.kind, e.seat) for e in heard[1:]] == [("deadline_near", 1)]
            assert heard[1].deadline == pytest.approx(deadline)
        finally:
            await manager.stop()

    asyncio.run(scenario())


def test_an_unloaded_room_is_freed_at_once(tmp_path: Path) -> None:
    """A room unloaded is freed by reference counting, not left to the cycle collector
    (whose full passes come thousands of rooms apart: memory per idle game), after a
    move of people or of bots alike; loaded again, it is whole."""

    async def scenario() -> None:
        manager = RoomManager(
            SQLiteStore(str(tmp_path / "games.sqlite3")),
            bot_delay=0,
            bot_processes=0,
            turn_scale=0.001,
            sweep_seconds=60,
        )
        await manager.start()
        gc.collect()
        gc.disable()
        try:
            people = {"players": 2, "seats": [{"kind": "human"}] * 2, "clock": "turn_1d"}
            with_bot = {
                "players": 2,
                "seats": [{"kind": "bot", "level": "easy"}, {"kind": "human"}],
                "clock": "turn_1h",
                "first_seat": 0,
            }
            for spec in (people, with_bot):
                room, _ = await manager.create(CreateGame.model_validate(spec))
                game_id, version = room.game_id, room.version
                for _ in range(100):  # the bot plays its turn, then the room unloads
                    if game_id not in manager.rooms:
                        break
                    await asyncio.sleep(0.05)
                version = room.version
                assert game_id not in manager.rooms
                freed = weakref.ref(room)
                del room
                assert freed() is None, gc.get_referrers(freed())
                again = await manager.get(game_id)
                assert again is not None and again.version == version
                manager.release(again)
                freed = weakref.ref(again)
                del again
                assert freed() is None
        finally:
            gc.enable()
            await manager.stop()

    asyncio.run(scenario())


def test_two_sweeps_claim_a_passed_deadline_once(tmp_path: Path) -> None:
    """Two sweeps at once (two instances): each passed deadline is claimed by one."""

    async def scenario() -> None:
        store = SQLiteStore(str(tmp_path / "games.sqlite3"))
        manager = RoomManager(store, bot_delay=0, turn_scale=0.001, sweep_seconds=60)
        await manager.start()
        try:
            spec = {"players": 2, "seats": [{"kind": "human"}] * 2, "clock": "turn_12h"}
            ids = [
                (await manager.create(CreateGame.model_validate(spec)))[0].game_id for _ in range(5)
            ]
            later = time.time() + 3600
            one, two = await asyncio.gather(
                turn_based_clocks.claim_due(manager.store, later),
                turn_based_clocks.claim_due(manager.store, later),
            )
            assert sorted(due.game_id for due in [*one, *two]) == sorted(ids)
            assert not await turn_based_clocks.claim_due(manager.store, later)  # claimed a while
            again = await turn_based_clocks.claim_due(
                manager.store, later + turn_based_clocks.CLAIM_SECONDS
            )
            assert sorted(due.game_id for due in again) == sorted(ids)
        finally:
            await manager.stop()

    asyncio.run(scenario())


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_deadline_armed_on_one_instance_is_handled_by_another(pg_url: str) -> None:
    """PostgreSQL, two instances: the game is created (its deadline stored) on one,
    which then stops; the other's sweep has the stand-in play."""
    one = Served(pg_url, *FAST)
    two = Served(pg_url, *FAST)
    try:
        game_id = two_humans(one)["game_id"]
        assert get_json(two.url + f"api/games/{game_id}")["clock"]["seat"] == 0
        one.stop()
        level = wait_for(lambda: stand_in(two, game_id, 0), 30, "the stand-in on two")
        assert level == "medium"
    finally:
        one.stop()
        two.stop()


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_a_slow_move_spends_the_time_bank(tmp_path: Path) -> None:
    """A move that takes longer than its time spends the excess from its seat's bank
    (stored with the game); the next turn's deadline counts the next seat's full bank."""
    db = tmp_path / "games.sqlite3"
    options = ("--turn-based-scale", "0.002", "--sweep-seconds", "0.2", "--bot-delay", "0")
    server = Served(db, *options, "--bot-processes", "0")  # 7 s a move, 7 s in each bank
    try:
        game = two_humans(server)
        game_id, token = game["game_id"], game["seats"][0]["token"]
        first_deadline = 0.0

        async def scenario() -> float:
            nonlocal first_deadline
            ws, welcome = await hello(server.url, game_id, token)
            # The deadline as the room holds it, not as stored at creation: a room
            # loaded late on a busy machine gives the turn back the time it lost.
            clock = welcome["game"]["clock"]
            first_deadline = datetime.fromisoformat(clock["deadline"]).timestamp()
            await asyncio.sleep(max(0.0, first_deadline - 7 + 2 - time.time()))  # 2 s over
            update = welcome
            while True:  # orient, roll, place: the turn ends
                update = await play(ws, update, 0)
                if not update["legal"].get("0"):
                    break
            ended = time.time()
            await ws.close()
            return ended

        ended = asyncio.run(scenario())
        # The turn's clock is stored in the background (a move never waits for it).
        wait_for(lambda: stored_clock(db, game_id)[0] == 1, 10, "the next turn stored")
        seat, _, deadline, banks = stored_clock(db, game_id)
        bank = float(banks.split(",")[0])
        spent = ended - (first_deadline - 7)  # past the move's own 7 s
        assert seat == 1 and banks.endswith(",7.0")
        assert bank == pytest.approx(7 - spent, abs=0.3) and 0 < bank < 6
        assert deadline == pytest.approx(ended + 7 + 7, abs=1.0)
        assert stand_in(server, game_id, 0) is None
    finally:
        server.stop()


def test_my_games_adds_the_signed_in_accounts_games(apps: Apps) -> None:
    """Signed in, "My games" lists the account's seats even from a device that holds
    no token of them (``held`` is then empty: the game opens for watching)."""
    web = apps.start(passwords=CHEAP)
    sign_up(web)
    spec = {"players": 2, "seats": [{"kind": "human"}] * 2, "clock": "turn_1d", "first_seat": 0}
    created = web.post("/api/games", json=spec).json()
    answer = web.post("/api/my-games", json={"seats": []}).json()
    assert answer["signed_in"] is True and answer["your_turn"] == 1
    [entry] = answer["games"]
    assert entry["game"]["game_id"] == created["game_id"]
    assert entry["seats"] == [0] and entry["held"] == [] and entry["your_turn"]
    web.post("/api/account/signout", json={})
    assert web.post("/api/my-games", json={"seats": []}).json() == {
        "games": [],
        "your_turn": 0,
        "signed_in": False,
    }
