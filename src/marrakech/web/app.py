"""The web app: HTTP API, WebSocket play, the page's files (docs/web-protocol.md).

``create_app`` assembles the routers (:mod:`marrakech.web.routes`) around a store and a
:class:`~marrakech.web.room_manager.RoomManager`; the store is opened when the app starts (its
lifespan) and closed when it stops::

    >>> app = create_app(":memory:", bot_delay=0)
    >>> sorted(app.openapi()["paths"])  # the HTTP API; beside it, pages, /mail/..., /ws/{id}
    ... # doctest: +NORMALIZE_WHITESPACE
    ['/api/account', '/api/account/claim', '/api/account/delete', '/api/account/export',
     '/api/account/passkey/register', '/api/account/passkey/register/options',
     '/api/account/passkey/remove',
     '/api/account/passkey/signin', '/api/account/passkey/signin/options',
     '/api/account/password', '/api/account/signin', '/api/account/signout',
     '/api/account/signout-everywhere', '/api/account/signup', '/api/challenges',
     '/api/challenges/{challenge_id}/{answer}', '/api/config', '/api/friends',
     '/api/friends/{change}', '/api/games',
     '/api/games/open', '/api/games/{game_id}',
     '/api/games/{game_id}/analysis', '/api/games/{game_id}/join',
     '/api/games/{game_id}/record', '/api/games/{game_id}/replay', '/api/health',
     '/api/leaderboard', '/api/lessons', '/api/lessons/{lesson_id}/answer',
     '/api/mail/account', '/api/mail/account/remove', '/api/mail/seat',
     '/api/mail/seat/mute', '/api/mail/seat/remove', '/api/my-games', '/api/players/{name}',
     '/api/push', '/api/push/device', '/api/push/device/remove', '/api/push/device/state',
     '/api/replay', '/api/tournaments', '/api/tournaments/player/{name}',
     '/api/tournaments/{tournament_id}', '/api/tournaments/{tournament_id}/join',
     '/api/tournaments/{tournament_id}/withdraw', '/api/watchlist']

Run it with uvicorn (``marrakech serve`` does), or in tests with Starlette's
``TestClient`` used as a context manager, so that the lifespan runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from marrakech.web.accounts import routes as account_routes
from marrakech.web.accounts.passwords import Passwords
from marrakech.web.context import ExternalBots, WebContext
from marrakech.web.limits import Limits
from marrakech.web.metrics import LOOPBACK, MetricsListener, Network
from marrakech.web.pools import PoolSettings
from marrakech.web.protocol import ApiError, ApiErrorCode, HttpError
from marrakech.web.routes import (
    api,
    friends,
    learn,
    my_games,
    pages,
    players,
    pool_socket,
    reminders,
    socket,
    watchlist,
)
from marrakech.web.routes import push as push_routes
from marrakech.web.routes import tournaments as tournament_routes
from marrakech.web.security import Guard, SecurityHeaders, hide_frames
from marrakech.web.static_files import StaticVersion, VersionedStatic
from marrakech.web.store import GameStore, default_db_path
from marrakech.web.store.retry import RETRY_SECONDS
from marrakech.web.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from marrakech.web.reminders.senders import Sender
    from marrakech.web.reminders.settings import MailSettings
    from marrakech.web.reminders.webpush import PushSettings
    from marrakech.web.tournaments.schedule import Recurring

STATIC_DIR = Path(__file__).with_name("static")


def create_app(
    db_path: str | Path | None = None,
    *,
    store: GameStore | SQLiteStore | None = None,
    bot_delay: float = 0.7,
    seed: int | str | None = None,
    rate: float = 20.0,
    burst: int = 40,
    hello_timeout: float = 30.0,
    bot_workers: int = 2,
    bot_processes: int = 0,
    synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    static_dir: str | Path | None = None,
    limits: Limits | None = None,
    allow_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] | None = None,
    relaxed_seconds: int = 180,
    blitz_seconds: int = 30,
    open_game_ttl: float = 3600.0,
    passwords: Passwords | None = None,
    external_bots: ExternalBots = "allow",
    leaderboard_min_games: int = 5,
    mail: MailSettings | None = None,
    mail_sender: Sender | None = None,
    mail_clock: Callable[[], float] | None = None,
    push: PushSettings | None = None,
    turn_scale: float = 1.0,
    sweep_seconds: float = 10.0,
    metrics_port: int | None = None,
    metrics_allow: Sequence[Network] = LOOPBACK,
    store_retry: float = RETRY_SECONDS,
    pools: PoolSettings | None = None,
    tournament_schedule: Sequence[Recurring] = (),
    tournament_tick: float = 1.0,
) -> FastAPI:
    """The Marrakech web app.

    ``db_path``: the SQLite file (default: :func:`default_db_path`) or a PostgreSQL URL
    (``postgresql://...``: instances on one database share its games); or pass a store
    as ``store``. ``bot_delay``: seconds a bot waits before each move, so people see it
    (0 in tests). ``seed``: make dice and bots reproducible. ``rate``/``burst``: messages
    per second and burst allowed per WebSocket connection. ``bot_processes``: think in
    that many worker processes (strong bots then never slow the event loop down); 0 (the
    default) uses ``bot_workers`` threads. ``limits``: rates and caps per client and for
    the server (:class:`~marrakech.web.limits.Limits`). ``allow_origins``: sites other
    than this one whose pages may act (``https://games.example.org``). ``allowed_hosts``:
    the names browsers may reach it by (its ``Host``; None: any).
    ``relaxed_seconds``/``blitz_seconds``: the seconds per player turn of those turn
    clocks. ``open_game_ttl``: seconds an open game nobody joins stays in the lobby.
    ``external_bots``: whether programs that declare themselves bots may take seats
    (``allow``, ``invited``: by invitation link only, ``refuse``).
    ``leaderboard_min_games``: rated games an account plays at a player count before
    it shows on that count's leaderboard.
    ``mail``: send email reminders (:mod:`marrakech.web.reminders`; None: none), through
    ``mail_sender`` (None: the SMTP relay of ``mail``), on ``mail_clock`` (tests).
    ``push``: send Web Push notifications (:mod:`marrakech.web.reminders.webpush`; None: none).
    ``turn_scale``: a factor on the turn-based clocks' times per move (tests);
    ``sweep_seconds``: the pause between two sweeps of deadlines and games to resume.
    ``metrics_port``: the local port on which ``/metrics`` is served (and nothing
    else), to the addresses in ``metrics_allow`` (:mod:`marrakech.web.metrics`); None:
    nowhere.
    ``store_retry``: seconds a store failing for a moment (a database restart) is tried
    again before an action is refused (:mod:`marrakech.web.store.retry`).
    ``pools``: quick pairing's waves, bots and lease (:mod:`marrakech.web.pools`).
    ``tournament_schedule``: the schedule file's tournaments
    (:func:`marrakech.web.tournaments.schedule.read_schedule`); ``tournament_tick``:
    seconds between two ticks of the tournaments (pairings, starts and ends).
    """
    hide_frames()
    context = WebContext(
        static=StaticVersion.of(Path(static_dir) if static_dir is not None else STATIC_DIR),
        db_path=default_db_path() if db_path is None and store is None else db_path,
        store=store,
        synchronous=synchronous,
        bot_delay=bot_delay,
        seed=seed,
        bot_workers=bot_workers,
        bot_processes=bot_processes,
        rate=rate,
        burst=burst,
        hello_timeout=hello_timeout,
        limits=limits or Limits(),
        relaxed_seconds=relaxed_seconds,
        blitz_seconds=blitz_seconds,
        open_game_ttl=open_game_ttl,
        passwords=passwords,
        external_bots=external_bots,
        leaderboard_min_games=leaderboard_min_games,
        mail=mail,
        mail_sender=mail_sender,
        mail_clock=mail_clock,
        push=push,
        turn_scale=turn_scale,
        sweep_seconds=sweep_seconds,
        store_retry=store_retry,
        pool_settings=pools,
        tournament_schedule=tournament_schedule,
        tournament_tick=tournament_tick,
    )
    app = FastAPI(
        title="Marrakech",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.web = context
    # The last added is the outermost: the headers go on every answer, errors included.
    hosts = None if allowed_hosts is None else frozenset(allowed_hosts)
    app.add_middleware(Guard, allowed_origins=frozenset(allow_origins), allowed_hosts=hosts)
    app.add_middleware(SecurityHeaders)
    if metrics_port is not None:  # outermost: the metrics port never reaches the site
        app.add_middleware(
            MetricsListener, metrics=context.metrics, port=metrics_port, allow=metrics_allow
        )
    app.exception_handler(ApiError)(api_error)
    app.exception_handler(StarletteHTTPException)(http_error)
    app.exception_handler(RequestValidationError)(validation_error)
    app.include_router(pages.router)
    app.mount("/static", VersionedStatic(context.static), name="static")
    app.include_router(api.router)
    app.include_router(my_games.router)
    app.include_router(account_routes.router)
    app.include_router(learn.router)
    app.include_router(players.router)
    app.include_router(reminders.router)
    app.include_router(push_routes.router)
    app.include_router(friends.router)
    app.include_router(tournament_routes.router)
    app.include_router(watchlist.router)
    app.include_router(socket.router)
    app.include_router(pool_socket.router)
    return app


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the store and start the rooms (resuming bot turns); stop both at the end."""
    context: WebContext = app.state.web
    manager = await context.open()
    await manager.start()
    context.pools.start()
    if context.reminders is not None:
        context.reminders.start()
    if context.tournaments is not None:
        context.tournaments.start()
    try:
        yield
    finally:
        await context.pools.stop()
        if context.tournaments is not None:
            await context.tournaments.stop()
        if context.reminders is not None:
            await context.reminders.stop()
        await manager.stop()


#: The error codes of Starlette's own HTTP errors (no such path, wrong method...).
HTTP_ERROR_CODES: dict[int, ApiErrorCode] = {404: "not_found", 405: "method_not_allowed"}


async def api_error(request: Request, error: ApiError) -> JSONResponse:
    body = HttpError(error=error.code, message=error.message)
    return JSONResponse(body.model_dump(), error.status, headers=error.headers)


async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
    """A query parameter that does not fit (the bodies are checked by the routes)."""
    where = ", ".join(".".join(str(part) for part in item["loc"]) for item in error.errors())
    body = HttpError(error="bad_request", message=f"{where}: expected another value"[:200])
    return JSONResponse(body.model_dump(), 400)


async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
    code = HTTP_ERROR_CODES.get(error.status_code, "http_error")
    return JSONResponse(
        HttpError(error=code, message=str(error.detail)).model_dump(),
        error.status_code,
        headers=getattr(error, "headers", None),
    )


__all__ = ["create_app"]
