"""External bots on a real server: ``marrakech connect`` and the
:class:`~marrakech.web.connect.GameClient` take seats (an invitation link, a game's open
seat, the lobby's), play whole games against the site's bots, reconnect after the
server restarts, are shown as "bot (external)" to everyone, and fail clearly when the
seat cannot be had (docs/connect.md)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets.asyncio.client as websockets

from marrakech.record import GameRecord
from marrakech.web.connect import (
    ConnectError,
    GameClient,
    GameResult,
    load_agent,
    parse_target,
    play_seat,
    take_seat,
)
from tests.web.servers import Served, run_showing_logs

ROOT = Path(__file__).resolve().parents[2]
MARRAKECH = [sys.executable, "-c", "import sys; from marrakech.cli import main; sys.exit(main())"]

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    served = Served(tmp_path / "games.sqlite3", "--bot-delay", "0")
    yield served
    served.stop()


def call(server: Served, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.url + path, data, {"Content-Type": "application/json"}, method=method
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def create(server: Served, seats: list[dict[str, Any]], **setting: Any) -> dict[str, Any]:
    body = {"players": len(seats), "seats": seats, **setting}
    created: dict[str, Any] = call(server, "POST", "api/games", body)
    return created


def link(server: Served, created: dict[str, Any], seat: int) -> str:
    return server.url.rstrip("/") + str(created["seats"][seat]["link"])


def seats_of(server: Served, game_id: str) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = call(server, "GET", f"api/games/{game_id}")["seats"]
    return seats


def wait_until(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout} s")
        time.sleep(0.1)


def check_finished(server: Served, result: GameResult, clean: bool = True) -> None:
    """The server's record ends where the client saw the game end, with its winners."""
    record = GameRecord.from_dict(call(server, "GET", f"api/games/{result.game_id}/record"))
    final = list(record.states())[-1]
    assert final.is_terminal
    assert tuple(final.outcome().winners) == result.winners
    assert result.decisions >= 10  # it played its own turns: orientations and placements
    # It never sent an action out of turn, at a draw or a roll it did not own (R10, R17):
    # the server would have refused it (across a restart, an action may cross the drop).
    assert result.refusals == 0 or not clean


def connect(*argv: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MARRAKECH, "connect", *argv], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def test_marrakech_connect_plays_an_invited_seat_to_the_end(server: Served) -> None:
    """An invitation link, a blitz clock (30 s a turn), a policy file (the example):
    the game ends, the result is printed, the seat was shown as an external bot."""
    created = create(
        server,
        [{"kind": "human", "name": "Agent"}, {"kind": "bot", "level": "medium"}],
        clock="blitz",
    )
    game = created["game_id"]
    process = subprocess.Popen(
        [*MARRAKECH, "connect", link(server, created, 0), "--policy", "examples/connect_agent.py"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        wait_until(lambda: seats_of(server, game)[0]["external"], timeout=60)
        seat = seats_of(server, game)[0]
        assert (seat["kind"], seat["presence"], seat["name"]) == ("human", "connected", "Agent")
        assert not seats_of(server, game)[1]["external"]  # the site's own bot
        out, err = process.communicate(timeout=240)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert f"game {game} is over" in out and "seat 0 Agent (this bot)" in out
    assert f"/r/{game}" in out
    assert "playing seat 0" in err
    record = GameRecord.from_dict(call(server, "GET", f"api/games/{game}/record"))
    assert list(record.states())[-1].is_terminal
    assert seats_of(server, game)[0]["stand_in"] is None  # never timed out


def test_the_client_class_takes_an_open_seat_from_the_lobby(server: Served) -> None:
    """A game waiting for a player in the lobby: the class joins it as a bot (named so),
    the game starts, and it plays to the end against an ``easy`` bot."""
    created = create(server, [{"kind": "open"}, {"kind": "bot", "level": "easy"}])
    game = created["game_id"]
    lines: list[str] = []
    result = play_seat(server.url, "greedy", players=2, seed=1, report=lines.append)
    assert result.game_id == game and result.seats == (0,)
    assert result.names[0] == "greedy (bot)"
    check_finished(server, result)
    assert any("playing seat 0" in line for line in lines)
    assert result.won == (0 in result.winners)
    assert "won" in result.summary() or "lost" in result.summary()


def test_the_client_keeps_within_the_servers_message_rate(tmp_path: Path) -> None:
    """A server allowing 4 messages a second (bursts of 8), bots that answer at once: the
    client paces its actions by the rate ``GET /api/config`` declares, so none is
    refused as ``rate_limited`` and the game ends clean."""
    served = Served(tmp_path / "games.sqlite3", "--bot-delay", "0", "--rate", "4")
    try:
        assert call(served, "GET", "api/config")["limits"]["messages_per_second"] == 4
        create(served, [{"kind": "open"}, {"kind": "bot", "level": "easy"}])
        result = play_seat(served.url, "easy", players=2, seed=2)
        check_finished(served, result)
        assert result.decisions >= 20  # well past the burst
    finally:
        served.stop()


def test_a_game_link_takes_its_open_seat_and_the_seat_is_labelled_at_once(
    server: Served,
) -> None:
    """``/g/GAME`` without a token: the client joins its open seat with ``"bot": true``;
    in a game live on the server (a page watches it), the seat is labelled external
    from the join on, before the bot's first hello."""
    created = create(
        server, [{"kind": "human", "name": "Host"}, {"kind": "open"}, {"kind": "open"}]
    )
    game = created["game_id"]
    socket_url = server.url.replace("http://", "ws://") + f"ws/{game}"

    async def scenario() -> None:
        async with websockets.connect(socket_url) as watcher:
            await watcher.send(json.dumps({"type": "hello", "tokens": []}))
            assert json.loads(await watcher.recv())["type"] == "welcome"
            target = await asyncio.to_thread(
                take_seat, f"{server.url}g/{game}", "Joiner (bot)", seat=2
            )
            assert target.game_id == game and len(target.tokens) == 1
            seats = await asyncio.to_thread(seats_of, server, game)
            assert [s["kind"] for s in seats] == ["human", "open", "human"]
            assert seats[2]["name"] == "Joiner (bot)" and seats[2]["external"]
            assert not seats[0]["external"]
            while True:  # the watcher's page is told too
                message = json.loads(await watcher.recv())
                if message["type"] == "game" and message["reason"] == "joined":
                    assert message["game"]["seats"][2]["external"]
                    break

    asyncio.run(scenario())


def test_the_client_reconnects_after_a_server_restart(tmp_path: Path) -> None:
    """``kill -9`` mid-game, a new server on the same port and store: the client
    reconnects, resyncs from the welcome and finishes the game."""
    db = tmp_path / "games.sqlite3"
    first = Served(db, "--bot-delay", "0.05")
    second: Served | None = None
    try:
        created = create(first, [{"kind": "human"}, {"kind": "bot", "level": "easy"}])
        client = GameClient(
            parse_target(link(first, created, 0)), load_agent("greedy"), seed=2, patience=60
        )

        async def scenario() -> GameResult:
            nonlocal second
            task = asyncio.create_task(client.play())
            while client.seen.version < 20:
                assert not task.done()
                await asyncio.sleep(0.05)
            killed_at = client.seen.version
            await asyncio.to_thread(first.kill)
            await asyncio.sleep(1.0)
            second = await asyncio.to_thread(Served, db, "--bot-delay", "0.05", port=first.port)
            result = await asyncio.wait_for(task, 180)
            assert client.seen.version > killed_at
            return result

        result = asyncio.run(scenario())
        assert result.reconnections >= 1
        assert second is not None
        check_finished(second, result, clean=False)
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_clear_errors(server: Served, tmp_path: Path) -> None:
    """A bad URL, a server that is not there, a full game, a wrong token, an unknown
    game, a lobby with no open seat: each ends the command with a clear message."""
    created = create(server, [{"kind": "human"}, {"kind": "bot"}])
    game = created["game_id"]
    cases = {
        "ftp://example.org/g/abc": "expected a seat's invitation link",
        "http://127.0.0.1:9/": "cannot reach the server at http://127.0.0.1:9/",
        f"{server.url}g/{game}": f"game '{game}' is full: all 2 seats are taken",
        f"{server.url}g/{game}#t=not-a-token": "matches no seat of this game",
        f"{server.url}g/nosuchgame": "no game 'nosuchgame'",
        server.url: "no game waits for a player",
    }
    for url, expected in cases.items():
        with pytest.raises(ConnectError, match=None) as caught:
            play_seat(url, "easy", patience=5)
        assert expected in str(caught.value), (url, str(caught.value))
    done = connect(f"{server.url}g/{game}", "--bot", "easy")
    assert done.returncode == 2
    assert f"marrakech connect: game '{game}' is full" in done.stderr
    bad_bot = connect(link(server, created, 0), "--bot", "nosuchbot")
    assert bad_bot.returncode == 2 and "bot spec 'nosuchbot'" in bad_bot.stderr
    policy = tmp_path / "nothing.py"
    policy.write_text("x = 1\n")
    bad_policy = connect(link(server, created, 0), "--policy", str(policy))
    assert bad_policy.returncode == 2
    assert "expected it to define bot, choose or policy" in bad_policy.stderr


@pytest.mark.parametrize("policy", ["refuse", "invited"])
def test_a_server_may_refuse_external_bots(tmp_path: Path, policy: str) -> None:
    """``--external-bots refuse``: no seat for a declared bot, by link or from the
    lobby. ``invited``: an invitation link works, the lobby does not."""
    server = Served(tmp_path / "games.sqlite3", "--bot-delay", "0", "--external-bots", policy)
    try:
        assert call(server, "GET", "api/config")["external_bots"] == policy
        call(server, "POST", "api/games", {"players": 2, "seats": [{"kind": "open"}] * 2})
        with pytest.raises(ConnectError) as caught:
            play_seat(server.url, "easy")
        assert "bots_refused" in str(caught.value)
        assert "no external bot from the lobby" in str(caught.value)
        created = create(server, [{"kind": "human"}, {"kind": "bot", "level": "easy"}])
        if policy == "refuse":
            with pytest.raises(ConnectError, match="refuses external bots"):
                play_seat(link(server, created, 0), "easy", patience=5)
        else:
            result = play_seat(link(server, created, 0), "greedy")
            check_finished(server, result)
            # A seat taken from the lobby as a person, then played by a declared bot.
            waiting = create(server, [{"kind": "open"}, {"kind": "bot", "level": "easy"}])
            joined = call(
                server, "POST", f"api/games/{waiting['game_id']}/join", {"seat": 0, "name": "Sly"}
            )
            with pytest.raises(ConnectError, match="on invitation only"):
                play_seat(server.url.rstrip("/") + joined["link"], "easy", patience=5)
    finally:
        server.stop()


def test_a_slow_agent_plays_quick_moves_within_the_clock(tmp_path: Path) -> None:
    """Blitz at 4 s a turn and an agent that thinks 8 s: the client plays a quick move
    before the seat's time runs out, every turn, so no stand-in ever takes the seat."""
    server = Served(tmp_path / "games.sqlite3", "--bot-delay", "0", "--blitz-seconds", "4")
    thinking = []

    def slow(state: Any, rng: Any) -> Any:
        thinking.append(state.turn)
        time.sleep(8)
        return state.legal_actions()[0]

    try:
        created = create(
            server, [{"kind": "human"}, {"kind": "bot", "level": "easy"}], clock="blitz"
        )
        client = GameClient(parse_target(link(server, created, 0)), slow, seed=3)

        async def scenario() -> None:
            task = asyncio.create_task(client.play())
            while client.decisions < 6:  # three turns: orient and place each
                assert not task.done(), task
                await asyncio.sleep(0.1)
            seats = await asyncio.to_thread(seats_of, server, created["game_id"])
            task.cancel()
            assert seats[0]["stand_in"] is None  # never timed out
            assert seats[0]["external"]

        asyncio.run(scenario())
        assert thinking  # the agent was asked
        assert client.quick_moves == client.decisions  # and was always too slow
    finally:
        server.stop()


def test_the_client_takes_its_seat_back_from_a_stand_in(server: Served) -> None:
    """The host put a bot in the program's seat while it was away (``replace``): when
    the program connects, it sends ``take_back`` and the seat is its own again."""
    created = create(server, [{"kind": "human", "name": "Host"}, {"kind": "human"}])
    game = created["game_id"]
    socket_url = server.url.replace("http://", "ws://") + f"ws/{game}"
    lines: list[str] = []
    client = GameClient(
        parse_target(link(server, created, 1)), load_agent("easy"), report=lines.append
    )

    async def scenario() -> None:
        async with websockets.connect(socket_url) as host:
            hello = {"type": "hello", "tokens": [created["seats"][0]["token"]]}
            await host.send(json.dumps(hello))
            await host.send(json.dumps({"type": "replace", "seat": 1, "level": "easy"}))
            while True:
                message = json.loads(await host.recv())
                if message["type"] == "game" and message["reason"] == "replaced":
                    break
            assert (await asyncio.to_thread(seats_of, server, game))[1]["stand_in"] == "easy"
            task = asyncio.create_task(client.play())
            while True:
                message = json.loads(await asyncio.wait_for(host.recv(), 30))
                if message["type"] == "game" and message["reason"] == "took_back":
                    break
            seat = message["game"]["seats"][1]
            assert seat["stand_in"] is None and seat["external"]
            task.cancel()

    asyncio.run(scenario())
    assert any("taking it back" in line for line in lines)


def test_the_label_crosses_instances(pg_url: str) -> None:
    """Two instances on one PostgreSQL database: the program plays on one, a person's
    page is on the other, and that page sees the seat as an external bot too."""
    options = ("--bot-delay", "0", "--bot-processes", "0")
    one = Served(pg_url, *options)
    two = Served(pg_url, *options)
    try:
        created = create(one, [{"kind": "human", "name": "Ana"}, {"kind": "human"}])
        game = created["game_id"]
        client = GameClient(parse_target(link(two, created, 1)), load_agent("easy"))

        async def scenario() -> None:
            uri = one.url.replace("http://", "ws://") + f"ws/{game}"
            async with websockets.connect(uri, ping_interval=None) as ana:
                hello = {"type": "hello", "tokens": [created["seats"][0]["token"]]}
                await ana.send(json.dumps(hello))
                task = asyncio.create_task(client.play())
                while True:
                    message = json.loads(await asyncio.wait_for(ana.recv(), 30))
                    kind = message["type"]
                    meta = message.get("game") if kind in ("game", "welcome") else None
                    if meta is not None and meta["seats"][1]["external"]:
                        break
                assert not meta["seats"][0]["external"]
                task.cancel()

        run_showing_logs(scenario(), one=one, two=two)
    finally:
        one.stop()
        two.stop()
