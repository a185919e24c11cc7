"""The web app: HTTP API, WebSocket play, the page's files (docs/web-protocol.md).

``create_app`` builds a FastAPI application around a store and a :class:`RoomManager`;
the store is opened when the app starts (its lifespan) and closed when it stops::

    >>> app = create_app(":memory:", bot_delay=0)
    >>> sorted(route.path for route in app.routes if route.path.startswith(("/api/g", "/ws")))
    ... # doctest: +NORMALIZE_WHITESPACE
    ['/api/games', '/api/games', '/api/games/open', '/api/games/{game_id}',
     '/api/games/{game_id}/join', '/api/games/{game_id}/record',
     '/api/games/{game_id}/replay', '/ws/{game_id}']

Run it with uvicorn (``marrakech serve`` does), or in tests with Starlette's
``TestClient`` used as a context manager, so that the lifespan runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect, WebSocketState

from marrakech.errors import NotationError
from marrakech.record import GameRecord
from marrakech.web.protocol import (
    MAX_BODY_BYTES,
    MAX_IDS,
    ActionMessage,
    CreateGame,
    Hello,
    JoinGame,
    ProtocolError,
    RateLimiter,
    error_message,
    parse_body,
    parse_client_message,
)
from marrakech.web.room import Client, RefusedError, Room, _dumps, game_summary
from marrakech.web.rooms import RoomManager, replay_view
from marrakech.web.store import GameStore, SQLiteStore, default_db_path

log = logging.getLogger("marrakech.web")

STATIC_DIR = Path(__file__).with_name("static")
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: A client that keeps sending after this many refused (rate-limited) messages is closed.
MAX_REFUSED = 200
#: WebSocket close codes: 4404 no such game, 4408 no hello in time, 1008 flooding.
CLOSE_NOT_FOUND, CLOSE_NO_HELLO, CLOSE_POLICY = 4404, 4408, 1008


class HideFrames(logging.Filter):
    """Drop the WebSocket libraries' debug lines that show whole frames: a ``hello``
    frame holds seat tokens, and tokens are never logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG:
            return True
        message = record.msg if isinstance(record.msg, str) else ""
        return not message.startswith(("< ", "> ", "% "))


def _hide_frames() -> None:
    for name in ("uvicorn.error", "websockets", "websockets.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, HideFrames) for f in logger.filters):
            logger.addFilter(HideFrames())


class ApiError(Exception):
    """An HTTP error answered as ``{"error": code, "message": ...}``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def create_app(
    db_path: str | Path | None = None,
    *,
    store: GameStore | None = None,
    bot_delay: float = 0.7,
    seed: int | str | None = None,
    rate: float = 20.0,
    burst: int = 40,
    hello_timeout: float = 30.0,
    bot_workers: int = 2,
    bot_processes: int = 0,
    synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    static_dir: str | Path | None = None,
) -> FastAPI:
    """The Marrakech web app.

    ``db_path``: the SQLite file (default: :func:`default_db_path`); or pass any
    :class:`GameStore` as ``store``. ``bot_delay``: seconds a bot waits before each move,
    so people see it (0 in tests). ``seed``: make dice and bots reproducible.
    ``rate``/``burst``: messages per second and burst allowed per WebSocket connection.
    ``bot_processes``: think in that many worker processes (strong bots then never slow
    the event loop down); 0 (the default) uses ``bot_workers`` threads.
    """
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    _hide_frames()
    path = default_db_path() if db_path is None and store is None else db_path

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        opened = store if store is not None else SQLiteStore(str(path), synchronous=synchronous)
        manager = RoomManager(
            opened,
            bot_delay=bot_delay,
            seed=seed,
            bot_workers=bot_workers,
            bot_processes=bot_processes,
        )
        app.state.manager = manager
        await manager.start()
        try:
            yield
        finally:
            await manager.stop()

    app = FastAPI(
        title="Marrakech",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.db_path = path
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"error": error.code, "message": error.message}, error.status)

    @app.exception_handler(ProtocolError)
    async def bad_request(request: Request, error: ProtocolError) -> JSONResponse:
        return JSONResponse({"error": "bad_request", "message": error.message}, 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http_error")
        return JSONResponse(
            {"error": code, "message": str(error.detail)},
            error.status_code,
            headers=getattr(error, "headers", None),
        )

    def manager_of(request: Request | WebSocket) -> RoomManager:
        manager: RoomManager = request.app.state.manager
        return manager

    # -- pages ------------------------------------------------------------------------

    async def page(request: Request) -> Response:
        index = static / "index.html"
        if not index.is_file():
            return HTMLResponse(
                "<!doctype html><title>Marrakech</title><p>The page files are missing "
                "(marrakech/web/static/index.html); the API is at /api.</p>",
                status_code=503,
            )
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    for route in ("/", "/g/{game_id}", "/r/upload", "/r/{game_id}"):
        app.add_api_route(route, page, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")

    # -- HTTP API ---------------------------------------------------------------------

    @app.post("/api/games", status_code=201)
    async def create_game(request: Request) -> JSONResponse:
        spec: CreateGame = parse_body(CreateGame, await read_body(request))
        room, tokens = await manager_of(request).create(spec)
        game_id = room.game_id
        seats = []
        for seat in room.seats:
            entry: dict[str, Any] = {"seat": seat.seat, "kind": seat.kind}
            if seat.seat in tokens:
                entry["token"] = tokens[seat.seat]
                entry["link"] = f"/g/{game_id}#t={tokens[seat.seat]}"
            if seat.kind == "bot":
                entry["level"] = seat.level
            seats.append(entry)
        return JSONResponse(
            {
                "game_id": game_id,
                "seats": seats,
                "spectator_link": f"/g/{game_id}",
                "replay_link": f"/r/{game_id}",
            },
            status_code=201,
        )

    @app.get("/api/games")
    async def list_games(request: Request, ids: str = "") -> JSONResponse:
        wanted = [game_id for game_id in ids.split(",") if game_id]
        if len(wanted) > MAX_IDS:
            raise ApiError(
                400, "bad_request", f"ids: expected at most {MAX_IDS} ids, found {len(wanted)}"
            )
        wanted = [game_id for game_id in wanted if GAME_ID.match(game_id)]
        manager = manager_of(request)
        games = await manager.store_worker.run(manager.store.summaries, wanted)
        return JSONResponse([game_summary(game) for game in games])

    @app.get("/api/games/open")
    async def open_games(request: Request) -> JSONResponse:
        manager = manager_of(request)
        games = await manager.store_worker.run(manager.store.open_games, 50)
        return JSONResponse([game_summary(game) for game in games])

    @app.get("/api/games/{game_id}")
    async def one_game(request: Request, game_id: str) -> JSONResponse:
        check_id(game_id)
        manager = manager_of(request)
        games = await manager.store_worker.run(manager.store.summaries, [game_id])
        if not games:
            raise no_game(game_id)
        return JSONResponse(game_summary(games[0]))

    @app.post("/api/games/{game_id}/join")
    async def join_game(request: Request, game_id: str) -> JSONResponse:
        check_id(game_id)
        spec: JoinGame = parse_body(JoinGame, await read_body(request))
        try:
            token = await manager_of(request).join(game_id, spec.seat, spec.name)
        except KeyError:
            raise no_game(game_id) from None
        except RefusedError as error:
            status = 409 if error.code == "seat_taken" else 400
            raise ApiError(status, error.code, error.message) from None
        return JSONResponse({"seat": spec.seat, "token": token, "link": f"/g/{game_id}#t={token}"})

    @app.get("/api/games/{game_id}/record")
    async def game_record(request: Request, game_id: str) -> Response:
        record = await stored_record(request, game_id)
        return Response(
            record.to_json(indent=1),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="marrakech-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/replay")
    async def game_replay(request: Request, game_id: str, lang: str = "en") -> Response:
        record = await stored_record(request, game_id)
        return await replay_response(record, check_lang(lang))

    @app.post("/api/replay")
    async def uploaded_replay(request: Request, lang: str = "en") -> Response:
        lang = check_lang(lang)
        body = await read_body(request)
        try:
            record = await asyncio.to_thread(GameRecord.from_json, body)
        except NotationError as error:
            raise ApiError(400, "bad_record", str(error)) from None
        return await replay_response(record, lang)

    async def stored_record(request: Request, game_id: str) -> GameRecord:
        check_id(game_id)
        record = await manager_of(request).record(game_id)
        if record is None:
            raise no_game(game_id)
        return record

    async def replay_response(record: GameRecord, lang: str) -> Response:
        view = await asyncio.to_thread(replay_view, record, lang)
        return Response(_dumps(view), media_type="application/json")

    # -- WebSocket --------------------------------------------------------------------

    @app.websocket("/ws/{game_id}")
    async def play(websocket: WebSocket, game_id: str) -> None:
        await websocket.accept()
        session = Session(websocket, manager_of(websocket), game_id, RateLimiter(rate, burst))
        await session.run(hello_timeout)

    return app


def check_id(game_id: str) -> None:
    if not GAME_ID.match(game_id):
        raise no_game(game_id)


def no_game(game_id: str) -> ApiError:
    shown = game_id if GAME_ID.match(game_id) else "(malformed id)"
    return ApiError(404, "not_found", f"no game {shown}")


def check_lang(lang: str) -> str:
    if lang not in ("en", "fr"):
        raise ApiError(400, "bad_request", f"lang: expected 'en' or 'fr', found {lang[:20]!r}")
    return lang


async def read_body(request: Request) -> bytes:
    """The request body, refused with 413 once it passes :data:`MAX_BODY_BYTES`."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large(int(declared))
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large(size)
        chunks.append(chunk)
    return b"".join(chunks)


def too_large(size: int) -> ApiError:
    return ApiError(
        413, "too_large", f"request bodies are at most {MAX_BODY_BYTES} bytes, found {size}+"
    )


class Session:
    """One WebSocket connection: a hello, then actions and pings, answered in order.

    After the hello everything is sent through the :class:`Client` outbox, written by one
    task, so the welcome, the updates and the errors reach the browser in order.
    """

    def __init__(
        self, websocket: WebSocket, manager: RoomManager, game_id: str, limiter: RateLimiter
    ) -> None:
        self.websocket = websocket
        self.manager = manager
        self.game_id = game_id
        self.limiter = limiter
        self.room: Room | None = None
        self.client: Client | None = None

    async def run(self, hello_timeout: float) -> None:
        writer: asyncio.Task[None] | None = None
        try:
            client = await self._hello(hello_timeout)
            if client is None:
                return
            writer = asyncio.create_task(self._write(client))
            await self._serve(client)
        except WebSocketDisconnect:
            pass
        finally:
            if self.room is not None and self.client is not None:
                self.room.detach(self.client)
                self.client.close()
            if writer is not None:
                try:
                    await asyncio.wait_for(writer, timeout=5)
                except (TimeoutError, asyncio.CancelledError):
                    writer.cancel()

    async def _receive(self, timeout: float | None = None) -> str | bytes | None:
        """The next message, or None when the browser left."""
        message = await asyncio.wait_for(self.websocket.receive(), timeout)
        if message["type"] == "websocket.disconnect":
            return None
        text: str | None = message.get("text")
        if text is not None:
            return text
        data: bytes = message.get("bytes") or b""
        return data

    async def _check(self, raw: str | bytes) -> Hello | ActionMessage | dict[str, Any]:
        """The message to handle, or the answer to send instead (an error, a pong)."""
        version = None if self.room is None else self.room.version
        if not self.limiter.allow():
            if self.limiter.refused > MAX_REFUSED:
                await self.websocket.close(CLOSE_POLICY, "too many messages")
                raise WebSocketDisconnect(CLOSE_POLICY)
            return error_message(
                "rate_limited",
                f"at most {self.limiter.rate:g} messages per second (bursts of "
                f"{self.limiter.burst:g}): this one was dropped",
                version,
            )
        try:
            message = parse_client_message(raw)
        except ProtocolError as error:
            return error_message(error.code, error.message, version)
        if isinstance(message, Hello | ActionMessage):
            return message
        return {"type": "pong"}

    async def _hello(self, timeout: float) -> Client | None:
        """Wait for the hello; attach to the room. None if the connection ends here."""
        while True:
            try:
                raw = await self._receive(timeout)
            except TimeoutError:
                await self._send_now(error_message("bad_message", "expected a hello message"))
                await self.websocket.close(CLOSE_NO_HELLO, "no hello")
                return None
            if raw is None:
                return None
            message = await self._check(raw)
            if isinstance(message, dict):
                await self._send_now(message)
                continue
            if not isinstance(message, Hello):
                await self._send_now(
                    error_message("bad_message", 'expected {"type": "hello"} first')
                )
                continue
            room = await self.manager.get(self.game_id) if GAME_ID.match(self.game_id) else None
            if room is None:
                await self._send_now(error_message("not_found", "no such game"))
                await self.websocket.close(CLOSE_NOT_FOUND, "no such game")
                return None
            seats, unknown = room.seats_for(message.tokens)
            client = Client(seats, message.lang, self.manager.queue_size)
            self.room, self.client = room, client
            if unknown:
                client.send(
                    _dumps(
                        error_message(
                            "bad_token",
                            f"{unknown} of the tokens matches no seat of this game: "
                            "you see the game without that seat",
                            room.version,
                        )
                    )
                )
            room.attach(client)
            return client

    async def _send_now(self, data: dict[str, Any]) -> None:
        await self.websocket.send_text(_dumps(data))

    async def _serve(self, client: Client) -> None:
        room = self.room
        assert room is not None
        while not client.closed:
            raw = await self._receive()
            if raw is None or client.closed:
                return
            message = await self._check(raw)
            if isinstance(message, dict):
                client.send(_dumps(message))
            elif isinstance(message, Hello):
                client.send(
                    _dumps(error_message("bad_message", "hello was already received", room.version))
                )
            else:
                try:
                    await room.act(client, message)
                except RefusedError as error:
                    client.send(_dumps(error_message(error.code, error.message, room.version)))

    async def _write(self, client: Client) -> None:
        try:
            while True:
                text = await client.outbox.get()
                if text is None:
                    break
                await self.websocket.send_text(text)
        except Exception:  # the browser left mid-write: the reader sees the disconnect
            return
        if self.websocket.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await self.websocket.close(1000)


class SecurityHeaders:
    """Add a strict Content-Security-Policy and friends to every HTTP response.

    The page may load scripts, styles and images only from this server (no inline
    scripts), talk only to this server (HTTP and WebSocket), and cannot be framed.
    """

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = ""
        for name, value in scope.get("headers", ()):
            if name == b"host":
                host = value.decode("latin-1")
        # 'self' covers ws: in current browsers; naming the host keeps older ones working.
        sockets = f" ws://{host} wss://{host}" if re.fullmatch(r"[\w.:\[\]-]+", host) else ""
        policy = (
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            f"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'{sockets}; "
            "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
        )

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", policy)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
            await send(message)

        await self.app(scope, receive, with_headers)


__all__ = ["ApiError", "create_app"]
