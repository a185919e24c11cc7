"""Fixtures for the web layer: an app on a temporary SQLite file and WebSocket helpers."""

from __future__ import annotations

import json
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

with warnings.catch_warnings():
    # Starlette suggests httpx2 for its test client; httpx is what the project ships.
    warnings.filterwarnings("ignore", message="Using `httpx` with", category=UserWarning)
    from fastapi.testclient import TestClient

from marrakech import State
from marrakech.views import state_view
from marrakech.web.app import create_app
from marrakech.web.protocol import SERVER_MESSAGE, CreatedGame
from tests.web.postgres import ThrowawayPostgres, server_programs

#: Seconds a test waits for a message before failing (a hang is a bug, not a slow test).
RECEIVE_TIMEOUT = 10.0
#: The header of a JSON body sent as bytes (``json=`` sets it by itself).
JSON = {"Content-Type": "application/json"}


#: The reasons of ``game`` messages that only say who is here.
PRESENCE = ("connected", "away")


class Conn:
    """A WebSocket client of the test server: sends messages, tracks the latest state.

    Every message it receives must validate against its type in the protocol
    (:data:`marrakech.web.protocol.SERVER_MESSAGE`, strictly: no missing or extra field).
    """

    def __init__(self, ws: Any, tokens: list[str] | None = None, lang: str = "en") -> None:
        self.ws = ws
        self.errors: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        #: The ``game`` messages that said a seat came or left (``receive`` passes
        #: over them: they come whenever another page opens or closes).
        self.presence: list[dict[str, Any]] = []
        self.version: int = -1
        ws.send_text(json.dumps({"type": "hello", "tokens": tokens or [], "lang": lang}))
        message = self.receive()
        while message["type"] == "error":
            self.errors.append(message)
            message = self.receive()
        assert message["type"] == "welcome", message

    def _welcome(self, message: dict[str, Any]) -> None:
        """Take a welcome: the first, or a later one (the page starts afresh)."""
        self.welcome = message
        self.game = message["game"]
        self.you: list[int] = message["you"]
        self.version = message["version"]
        self.state: dict[str, Any] = message["state"]
        self.legal: dict[str, list[str]] = message["legal"]
        self.log: list[str] = list(message["log"])

    def receive(self, presence: bool = False) -> dict[str, Any]:
        """The next message (fails after :data:`RECEIVE_TIMEOUT` seconds); a ``game``
        message saying a seat came or left is kept in :attr:`presence` and passed over,
        unless ``presence``."""
        while True:
            data = self._receive()
            if presence or data["type"] != "game" or data["reason"] not in PRESENCE:
                return data
            self.presence.append(data)

    def _receive(self) -> dict[str, Any]:
        async def get() -> Any:
            with anyio.fail_after(RECEIVE_TIMEOUT):
                return await self.ws._send_rx.receive()

        message = self.ws.portal.call(get)
        if message["type"] == "websocket.close":
            return {"type": "closed", "code": message.get("code")}
        SERVER_MESSAGE.validate_json(message["text"], strict=True)
        data: dict[str, Any] = json.loads(message["text"])
        if data["type"] == "welcome":
            self._welcome(data)
        elif data["type"] == "update":
            assert data["version"] == self.version + len(data["events"]), (data, self.version)
            assert (data["changes"] is None) != (data["state"] is None), data
            self.version = data["version"]
            if data["changes"] is None:
                self.state = data["state"]
            else:  # what changed, merged into the view as the page does (game/state.js)
                self.state = apply_changes(self.state, data["changes"])
                # ...which gives exactly the core's view of the new position.
                position = State.from_notation(self.state["notation"])
                assert self.state == state_view(position), data["changes"]
            self.legal = data["legal"]
            self.log.extend(data["log"])
            self.updates.append(data)
        elif data["type"] == "game":
            self.game = data["game"]
        return data

    def send(self, data: Any) -> None:
        self.ws.send_text(data if isinstance(data, str) else json.dumps(data))

    def act(self, seat: int, action: str, version: int | None = None) -> None:
        self.send(
            {
                "type": "action",
                "seat": seat,
                "version": self.version if version is None else version,
                "action": action,
            }
        )

    def until(self, done: Callable[[Conn], bool]) -> None:
        """Read messages until ``done(self)``; errors fail the test."""
        while not done(self):
            message = self.receive()
            assert message["type"] in ("update", "game", "pong", "welcome"), message

    def expect_error(self, code: str) -> dict[str, Any]:
        """The next message is an error with ``code``; then a ping proves nothing else came."""
        message = self.receive()
        assert message["type"] == "error", message
        assert message["code"] == code, message
        self.send({"type": "ping"})
        assert self.receive() == {"type": "pong"}
        return message

    @property
    def over(self) -> bool:
        phase: str = self.state["phase"]
        return phase == "over"


def apply_changes(target: Any, changes: Any) -> Any:
    """``changes`` of an update merged into a view, as the page does (``applyChanges`` in
    static/js/game/state.js): objects, and lists by index, get what changed; anything else is
    replaced."""
    if isinstance(changes, dict) and isinstance(target, dict | list):
        merged: Any = dict(target) if isinstance(target, dict) else list(target)
        for key, value in changes.items():
            index: Any = int(key) if isinstance(target, list) else key
            old = merged[index] if isinstance(target, list) else merged.get(key)
            merged[index] = apply_changes(old, value)
        return merged
    return changes


def newer_than(version: int) -> Callable[[Conn], bool]:
    """A condition for :meth:`Conn.until`: a version after ``version`` has come."""
    return lambda conn: conn.version > version


def at_least(version: int) -> Callable[[Conn], bool]:
    """A condition for :meth:`Conn.until`: ``version`` or a later one has come."""
    return lambda conn: conn.version >= version


def mover(state: dict[str, Any]) -> int | None:
    """The seat the server waits for, read off a state view (roll: the seat's turn)."""
    if state["phase"] == "over":
        return None
    seat: int = state["turn"] if state["phase"] == "roll" else state["to_move"]
    return seat


@pytest.fixture(scope="session")
def postgres() -> Iterator[ThrowawayPostgres]:
    """A PostgreSQL cluster of this test session's own (skipped without PostgreSQL), in
    a temporary folder that the unprivileged user it may run as can reach."""
    programs = server_programs()
    if programs is None:
        pytest.skip("PostgreSQL's server programs are not installed (apt-get install postgresql)")
    pytest.importorskip("psycopg_pool")
    with tempfile.TemporaryDirectory(prefix="marrakech-pg-") as folder:
        cluster = ThrowawayPostgres(Path(folder), programs)
        cluster.start()
        try:
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture
def pg_url(postgres: ThrowawayPostgres) -> str:
    """The URL of a new, empty database in the test session's PostgreSQL cluster."""
    return postgres.new_database()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


class Apps:
    """Apps started on the test's SQLite file, one after another (a restart) or at once."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.running: list[TestClient] = []

    def start(self, **options: Any) -> TestClient:
        options.setdefault("bot_delay", 0)
        options.setdefault("seed", 1)
        # Test clients play far faster than people; the limit has its own test.
        options.setdefault("rate", 10_000.0)
        options.setdefault("burst", 10_000)
        client = TestClient(create_app(self.db_path, **options))
        client.__enter__()
        self.running.append(client)
        return client

    def stop(self, client: TestClient) -> None:
        """Shut an app down as a server stop would (lifespan end: store closed)."""
        self.running.remove(client)
        client.__exit__(None, None, None)

    def stop_all(self) -> None:
        for client in reversed(self.running[:]):
            self.stop(client)


@pytest.fixture
def apps(db_path: Path) -> Iterator[Apps]:
    started = Apps(db_path)
    yield started
    started.stop_all()


@pytest.fixture
def client(apps: Apps) -> TestClient:
    return apps.start()


#: A game of two people (the plainest body of ``POST /api/games``).
TWO_HUMANS = {"players": 2, "seats": [{"kind": "human"}] * 2}


def create_game(client: TestClient, **spec: Any) -> dict[str, Any]:
    spec.setdefault("players", 2)
    spec.setdefault("seats", [{"kind": "human"}] * spec["players"])
    spec.setdefault("first_seat", 0)
    humans = [seat for seat in spec["seats"] if seat["kind"] == "human"]
    if any(seat["kind"] == "open" for seat in spec["seats"]) and humans:
        if not humans[0].get("name"):
            spec.setdefault("name", "Host")  # the lobby shows the host's name
    reply = client.post("/api/games", json=spec)
    assert reply.status_code == 201, reply.text
    CreatedGame.model_validate_json(reply.text, strict=True)
    data: dict[str, Any] = reply.json()
    return data


def finished_game(client: TestClient) -> dict[str, Any]:
    """A 2-player game of people, over: seat 0 resigned (R22) and seat 1 won."""
    game = create_game(client, players=2, seats=[{"kind": "human"}] * 2)
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [tokens(game)[0] or ""])
        red.send({"type": "resign", "seat": 0})
        red.until(lambda c: c.over)
    return game


def tokens(game: dict[str, Any]) -> list[str | None]:
    return [seat.get("token") for seat in game["seats"]]


def seat_token(game: dict[str, Any], seat: int) -> str:
    """The secret of ``seat`` of a created game: a seat of a person has one."""
    secret = game["seats"][seat].get("token")
    assert isinstance(secret, str), game["seats"][seat]
    return secret


def stored_actions(client: TestClient, game_id: str) -> list[str]:
    reply = client.get(f"/api/games/{game_id}/record")
    assert reply.status_code == 200, reply.text
    actions: list[str] = reply.json()["actions"]
    return actions
