"""The HTTP API (docs/web-protocol.md): create and join games, list them, records, replays.

Bodies are read with a size limit and validated strictly (:mod:`marrakech.web.protocol`);
every refusal is an :class:`~marrakech.web.protocol.ApiError`, answered as
``{"error": code, "message": ...}``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from marrakech.errors import NotationError
from marrakech.record import GameRecord
from marrakech.web.context import Context
from marrakech.web.protocol import (
    GAME_ID,
    MAX_BODY_BYTES,
    MAX_IDS,
    ApiError,
    CreateGame,
    JoinGame,
    parse_body,
)
from marrakech.web.room import RefusedError, _dumps, game_summary
from marrakech.web.rooms import replay_view

router = APIRouter(prefix="/api")


@router.post("/games", status_code=201)
async def create_game(request: Request, context: Context) -> JSONResponse:
    spec: CreateGame = parse_body(CreateGame, await read_body(request))
    room, tokens = await context.manager.create(spec)
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


@router.get("/games")
async def list_games(context: Context, ids: str = "") -> JSONResponse:
    wanted = [game_id for game_id in ids.split(",") if game_id]
    if len(wanted) > MAX_IDS:
        raise ApiError(
            400, "bad_request", f"ids: expected at most {MAX_IDS} ids, found {len(wanted)}"
        )
    wanted = [game_id for game_id in wanted if GAME_ID.match(game_id)]
    manager = context.manager
    games = await manager.store_worker.run(manager.store.summaries, wanted)
    return JSONResponse([game_summary(game) for game in games])


@router.get("/games/open")
async def open_games(context: Context) -> JSONResponse:
    manager = context.manager
    games = await manager.store_worker.run(manager.store.open_games, 50)
    return JSONResponse([game_summary(game) for game in games])


@router.get("/games/{game_id}")
async def one_game(context: Context, game_id: str) -> JSONResponse:
    check_id(game_id)
    manager = context.manager
    games = await manager.store_worker.run(manager.store.summaries, [game_id])
    if not games:
        raise no_game(game_id)
    return JSONResponse(game_summary(games[0]))


@router.post("/games/{game_id}/join")
async def join_game(request: Request, context: Context, game_id: str) -> JSONResponse:
    check_id(game_id)
    spec: JoinGame = parse_body(JoinGame, await read_body(request))
    try:
        token = await context.manager.join(game_id, spec.seat, spec.name)
    except KeyError:
        raise no_game(game_id) from None
    except RefusedError as error:
        status = 409 if error.code == "seat_taken" else 400
        raise ApiError(status, error.code, error.message) from None
    return JSONResponse({"seat": spec.seat, "token": token, "link": f"/g/{game_id}#t={token}"})


@router.get("/games/{game_id}/record")
async def game_record(context: Context, game_id: str) -> Response:
    record = await stored_record(context, game_id)
    return Response(
        record.to_json(indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="marrakech-{game_id}.json"'},
    )


@router.get("/games/{game_id}/replay")
async def game_replay(context: Context, game_id: str, lang: str = "en") -> Response:
    record = await stored_record(context, game_id)
    return await replay_response(record, check_lang(lang))


@router.post("/replay")
async def uploaded_replay(request: Request, lang: str = "en") -> Response:
    lang = check_lang(lang)
    body = await read_body(request)
    try:
        record = await asyncio.to_thread(GameRecord.from_json, body)
    except NotationError as error:
        raise ApiError(400, "bad_record", str(error)) from None
    return await replay_response(record, lang)


async def stored_record(context: Context, game_id: str) -> GameRecord:
    check_id(game_id)
    record = await context.manager.record(game_id)
    if record is None:
        raise no_game(game_id)
    return record


async def replay_response(record: GameRecord, lang: str) -> Response:
    view = await asyncio.to_thread(replay_view, record, lang)
    return Response(_dumps(view), media_type="application/json")


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
