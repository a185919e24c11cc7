"""Quick pairing's socket, ``/pool/socket`` (docs/web-protocol.md, "Quick pairing").

The page sends one ``{"type": "join", ...}`` (:class:`~marrakech.web.pools.PoolJoin`);
the server answers ``waiting`` (the pool, the player's rating and the bots' level that
fills the table after the wait), then ``paired`` (the game, the seat and its link) and
closes; or ``refused`` (``code``, ``message``) and closes. Closing the socket (leaving
the page, the cancel button) leaves the pool. Nobody's name or rating is shown before
the game starts: there is no opponent to pick.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect

from marrakech.web.accounts.sessions import COOKIE
from marrakech.web.context import Context
from marrakech.web.limits import client_key
from marrakech.web.pools import PoolJoin, PoolRefused
from marrakech.web.protocol import seat_link

router = APIRouter()

#: Close codes: the wait ended with a table (1000), a refusal (4400).
CLOSE_REFUSED = 4400


def refused(code: str, message: str) -> str:
    return json.dumps({"type": "refused", "code": code, "message": message})


@router.websocket("/pool/socket")
async def pool_socket(websocket: WebSocket, context: Context) -> None:
    address = client_key(websocket.scope)
    if context.sockets.refusal(address) is not None:
        await websocket.close(4429, "too many connections")
        return
    context.sockets.open(address)
    await websocket.accept()
    try:
        await _wait(websocket, context, address)
    except WebSocketDisconnect:
        pass
    finally:
        context.sockets.close(address)


async def _wait(websocket: WebSocket, context: Context, address: str) -> None:
    pools = context.pools
    try:
        message = await asyncio.wait_for(websocket.receive(), context.hello_timeout)
        if message["type"] == "websocket.disconnect":
            return
        # A binary frame is read as UTF-8 JSON, as the game's socket reads it.
        text = message.get("text") or (message.get("bytes") or b"").decode("utf-8", "replace")
        spec = PoolJoin.model_validate_json(text[:2000])
    except (ValidationError, TimeoutError) as error:
        found = "nothing in time" if isinstance(error, TimeoutError) else str(error)[:300]
        expected = 'expected {"type": "join", "players": 2|3|4|"any", "clock": ..., "rated": ...}'
        await websocket.send_text(refused("bad_message", f"{expected}, found {found}"))
        await websocket.close(CLOSE_REFUSED)
        return
    signed = await context.accounts.session(websocket.cookies.get(COOKIE))
    account = None if signed is None else (signed.account.id, signed.account.name)
    try:
        ticket, waiting = await pools.join(spec, address, account)
    except PoolRefused as error:
        await websocket.send_text(refused(error.code, error.message))
        await websocket.close(CLOSE_REFUSED)
        return
    seated = None
    try:
        await websocket.send_text(waiting.model_dump_json())
        table = pools.wait(ticket)
        # Any message or the socket's close ends the wait: the page sends none but
        # ``leave``, and there is nothing to read from it but whether it is still there.
        reading = asyncio.ensure_future(websocket.receive())
        await asyncio.wait((table, reading), return_when=asyncio.FIRST_COMPLETED)
        reading.cancel()
        if table.done():
            seated = table.result()
    finally:
        if seated is None:
            await pools.leave(ticket)
    if seated is None:  # the page left (or closed) first
        return
    if seated.refusal is not None:
        code, _, why = seated.refusal.partition(": ")
        await websocket.send_text(refused(code, why))
        await websocket.close(CLOSE_REFUSED)
        return
    if signed is not None:  # the account's seat, as a lobby's join links it
        await context.accounts.claim(signed, [(seated.game_id, seated.token)])
    link = seat_link(seated.game_id, seated.token)
    answer = {
        "type": "paired",
        "game_id": seated.game_id,
        "seat": seated.seat,
        "token": seated.token,
        "link": link,
    }
    await websocket.send_text(json.dumps(answer))
    with contextlib.suppress(RuntimeError):
        await websocket.close()
