""" "My games" (issue 25): the games of this device's seats and of the signed-in account,
those where it is the player's turn first, with the time left.

The page keeps its seat tokens on the device (``static/js/store.js``) and sends them in
the body of ``POST /api/my-games`` (never in an address, which logs keep); the server
answers for the seats whose token matches, and adds the seats of the signed-in account
(whose tokens it never kept: those games open for watching unless this device holds
the seat). The answer reads the store's rows only: a turn-based game nobody watches
stays unloaded (its running turn is stored with the game, and so is its deadline).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import Field, StringConstraints
from sqlalchemy import bindparam, select

from marrakech.actions import parse_action
from marrakech.rules import parse_rules
from marrakech.state import State
from marrakech.web.accounts.sessions import signed_in
from marrakech.web.context import Context
from marrakech.web.http_protocol import read_json_body
from marrakech.web.protocol import GAME_ID, GameSummary, parse_body
from marrakech.web.protocol.client import StrictModel
from marrakech.web.room.status import seat_to_move
from marrakech.web.room_manager import RoomManager
from marrakech.web.routes.api import game_summary
from marrakech.web.store import StoredGame, hash_token
from marrakech.web.store.queries import Statement, compile_statement
from marrakech.web.store.schema import Dialects, games, seats

router = APIRouter(prefix="/api")

#: The most seats one request may ask about (the page keeps 60 games).
MAX_SEATS = 120
#: The most games of an account listed (its latest).
MAX_ACCOUNT_GAMES = 60


class HeldSeat(StrictModel):
    """A seat this device holds: its game and its secret token."""

    game_id: Annotated[str, StringConstraints(min_length=1, max_length=32)]
    token: Annotated[str, StringConstraints(min_length=1, max_length=128)]


class MyGamesRequest(StrictModel):
    """The body of ``POST /api/my-games``: the seats the device holds."""

    seats: list[HeldSeat] = Field(default_factory=list, max_length=MAX_SEATS)


class MyGame(StrictModel):
    """One of the player's games: ``seats`` are theirs (``held`` those this device has
    the tokens of), ``your_turn`` whether one of them is to move, ``to_move`` the seat
    to move (None: nobody, a bot, or the game waits or is over), ``remaining`` the
    seconds left on the running turn's clock (None: no clock runs)."""

    game: GameSummary
    seats: list[int]
    held: list[int]
    your_turn: bool
    to_move: int | None
    remaining: float | None


class MyGames(StrictModel):
    """``games``: yours to play first (least time left first), then the others under
    way, then the finished ones (latest first); ``your_turn``: how many are yours."""

    games: list[MyGame]
    your_turn: int
    signed_in: bool


DIALECT_NAMES: tuple[Dialects, ...] = ("sqlite", "postgresql")
_ACCOUNT_SEATS: dict[str, Statement] = {
    dialect: compile_statement(
        select(seats.c.game_id, seats.c.seat)
        .join(games, games.c.id == seats.c.game_id)
        .where(seats.c.account_id == bindparam("account_id"))
        .order_by(games.c.updated.desc())
        .limit(bindparam("limit")),
        dialect,
    )
    for dialect in DIALECT_NAMES
}


@router.post("/my-games")
async def my_games(request: Request, context: Context) -> MyGames:
    """The games of the seats in the body and of the signed-in account."""
    body = parse_body(MyGamesRequest, await read_json_body(request))
    manager = context.manager
    tokens: dict[str, set[str]] = {}
    for seat in body.seats:
        if GAME_ID.match(seat.game_id):
            tokens.setdefault(seat.game_id, set()).add(hash_token(seat.token))
    account_seats: dict[str, set[int]] = {}
    player = await signed_in(request, context.accounts)
    if player is not None:
        statement = _ACCOUNT_SEATS[manager.store.dialect]
        values = statement.params({"account_id": player.account.id, "limit": MAX_ACCOUNT_GAMES})
        [rows] = await manager.store.transact([(statement.sql, values)])
        for row in rows:
            account_seats.setdefault(row["game_id"], set()).add(int(row["seat"]))
    wanted = list(dict.fromkeys([*tokens, *account_seats]))
    listed = []
    for game in await manager.store.summaries(wanted):
        hashes = tokens.get(game.id, set())
        held = [row.seat for row in game.seats if row.token_hash and row.token_hash in hashes]
        mine = sorted(set(held) | account_seats.get(game.id, set()))
        if mine:
            listed.append(await _my_game(manager, game, mine, held))
    listed.sort(key=_order)
    return MyGames(
        games=listed, your_turn=sum(g.your_turn for g in listed), signed_in=player is not None
    )


def _order(game: MyGame) -> tuple[int, float]:
    status = game.game.status
    if game.your_turn:
        return 0, game.remaining if game.remaining is not None else float("inf")
    rank = 3 if status == "over" else 1
    return rank, -_epoch(game.game.updated)


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


async def _my_game(
    manager: RoomManager, game: StoredGame, mine: list[int], held: list[int]
) -> MyGame:
    summary = game_summary(manager, game)
    to_move = await _to_move(manager, game) if game.status == "running" else None
    if to_move is not None:
        row = game.seats[to_move]
        if row.kind != "human" or row.stand_in:
            to_move = None
    remaining = summary.clock.remaining
    return MyGame(
        game=summary,
        seats=mine,
        held=held,
        your_turn=to_move is not None and to_move in mine,
        to_move=to_move,
        remaining=remaining,
    )


async def _to_move(manager: RoomManager, game: StoredGame) -> int | None:
    """The seat to move in a running game: its live room's, the stored clock's (its
    running turn), or else from its replayed log."""
    room = manager.rooms.get(game.id)
    if room is not None:
        return room.mover()
    if game.turn_clock is not None:
        return game.turn_clock[0]
    full = await manager.store.load_game(game.id)
    if full is None:
        return None
    state = State.new(full.players, parse_rules(full.rules), full.first_seat)
    for row in full.actions:
        state = state.apply(parse_action(row.token))
    return seat_to_move(state)
