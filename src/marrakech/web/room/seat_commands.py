"""The seat commands: resign (R22), take back, rematch, and the host's start, replace
and kick. Each has three short steps, named after its message:

- who sends it (``*_sender``): the seat it acts for, checked against the connection's
  tokens on the instance the connection is on;
- ``check_*``: refused (:class:`~marrakech.web.protocol.ProtocolError`, nothing changed)
  when it cannot be applied now, checked again by the owner under the room's lock;
- ``apply_*``: done by the game's owner, stored before anyone is told.

:func:`submit_command` runs them; a follower forwards the typed message to the owner.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import assert_never

from marrakech.actions import Resign
from marrakech.bots import check_level_players
from marrakech.playout import sample_outcome
from marrakech.state import Phase
from marrakech.web.cluster import Command
from marrakech.web.connection import Client
from marrakech.web.protocol import (
    DEFAULT_LEVEL,
    ApiError,
    ErrorCode,
    KickMessage,
    ProtocolError,
    RematchMessage,
    ReplaceMessage,
    ResignMessage,
    SeatMessage,
    StartMessage,
    TakeBackMessage,
)
from marrakech.web.room.checks import check_holder, check_seat
from marrakech.web.room.game_room import COMMAND, Room
from marrakech.web.room.rematch import send_rematch
from marrakech.web.store import SeatRow

log = logging.getLogger("marrakech.web")


def command_sender(room: Room, client: Client, message: SeatMessage) -> int:
    """The seat ``message`` acts for, or :class:`ProtocolError` if ``client`` may not
    send it: a player for its own seat, any player for a rematch, the host for start,
    replace and kick."""
    if isinstance(message, ResignMessage | TakeBackMessage):
        check_holder(client, message.seat)
        return message.seat
    if isinstance(message, RematchMessage):
        if not client.seats:
            raise ProtocolError("not_your_seat", "spectators cannot ask for a rematch")
        if room.rematch is None:  # a new game: the asker's creation budget pays for it
            with refused_as_protocol_error():
                room.services.lobby.check_creation_rate(client.address, client.account)
        return min(client.seats)
    host = room.host
    if host is None or host not in client.seats:
        who = "this game has no host yet" if host is None else f"the host is seat {host}"
        raise ProtocolError("not_host", f"only the host may do this: {who}")
    return host


async def submit_command(room: Room, seat: int, command: Command) -> None:
    """Check and apply (as the owner) or forward (as a follower) ``seat``'s command."""
    await room.submit(
        seat,
        COMMAND,
        command,
        lambda: check_command(room, command.message),
        lambda: apply_command(room, command),
    )


def check_command(room: Room, message: SeatMessage) -> None:
    """Refuse a command that cannot be applied now (call with the room's lock held)."""
    match message:
        case ResignMessage():
            check_resign(room, message)
        case TakeBackMessage():
            check_take_back(room, message)
        case RematchMessage():
            check_rematch(room)
        case StartMessage():
            check_start(room, message)
        case ReplaceMessage():
            check_replace(room, message)
        case KickMessage():
            check_kick(room, message)
        case _:
            assert_never(message)


async def apply_command(room: Room, command: Command) -> None:
    """Apply a checked command (call with the room's lock held, as the owner)."""
    message = command.message
    match message:
        case ResignMessage():
            await apply_resign(room, message)
        case TakeBackMessage():
            await apply_take_back(room, message)
        case RematchMessage():
            await apply_rematch(room, command.address, command.account)
        case StartMessage():
            await apply_start(room, message)
        case ReplaceMessage():
            await apply_replace(room, message)
        case KickMessage():
            await apply_kick(room, message)
        case _:
            assert_never(message)


# -- resign (R22) -------------------------------------------------------------------------


def check_resign(room: Room, message: ResignMessage) -> None:
    _check_in_play(room, check_seat(room, message.seat))


async def apply_resign(room: Room, message: ResignMessage) -> None:
    """R22: now at a decision; at the seat's own roll, after the roll; at another
    seat's roll, at the next decision (stored before it is acknowledged)."""
    seat, state = message.seat, room.state
    if state.phase is not Phase.ROLL:
        await room.accept(Resign(seat))
    elif room.mover() == seat:
        await room.accept(sample_outcome(state, room.die), resign=seat)
    else:
        pending = frozenset({*room.pending_resigns, seat})
        try:
            await room.clock.store_pending(pending)
        except Exception as error:
            log.exception("could not store a resignation of game %s", room.game_id)
            raise ProtocolError(
                "server_error", "the server could not store the resignation: send it again"
            ) from error
        room.pending_resigns.add(seat)
        # Every page says so now, not only once the die is rolled.
        room.seats_changed("resign_pending", seat)


# -- take back --------------------------------------------------------------------------


def check_take_back(room: Room, message: TakeBackMessage) -> None:
    target = check_seat(room, message.seat)
    if target.stand_in is None:
        raise ProtocolError("no_stand_in", f"no bot stands in for seat {target.seat}")


async def apply_take_back(room: Room, message: TakeBackMessage) -> None:
    room.clock.restart()  # a full turn's time from now
    await room.change_seat(replace(room.seats[message.seat], stand_in=None), "took_back")


# -- rematch ----------------------------------------------------------------------------


def check_rematch(room: Room) -> None:
    if not room.state.is_terminal:
        raise ProtocolError("not_over", "the game is not over: a rematch comes after the end")


async def apply_rematch(room: Room, asker: str, account: str | None = None) -> None:
    """Create the rematch (once, counted against the ``asker``'s caps and its signed-in
    ``account``'s), then give each connection its seats' links."""
    lobby = room.services.lobby
    if room.rematch is None:
        with refused_as_protocol_error():  # past its creator's caps
            room.rematch = await lobby.create_rematch(room, asker, account)
        room.seats_changed("rematch", None)
    for client in list(room.clients):
        room.later(send_rematch(client, room.rematch, lobby.activate))


# -- the host's commands ------------------------------------------------------------------


def check_start(room: Room, message: StartMessage) -> None:
    if room.status != "waiting":
        raise ProtocolError("already_started", "the game has already started")
    if any(row.kind == "open" for row in room.seats):
        _check_level(room, message.level or DEFAULT_LEVEL)


async def apply_start(room: Room, message: StartMessage) -> None:
    """Bots of the message's level take the open seats: play begins."""
    level = message.level or DEFAULT_LEVEL
    seats = [
        SeatRow(row.seat, "bot", level, row.name) if row.kind == "open" else row
        for row in room.seats
    ]
    await room.save_seats(seats, "started", None)


def check_replace(room: Room, message: ReplaceMessage) -> None:
    target = check_seat(room, message.seat)
    _check_in_play(room, target)
    if target.kind != "human":
        raise ProtocolError(
            "not_human",
            f"seat {target.seat} is {'a bot' if target.kind == 'bot' else 'open'}:"
            " only a player's seat can be given to a bot",
        )
    _check_away(room, target)
    _check_level(room, message.level or room.stand_in_level)


async def apply_replace(room: Room, message: ReplaceMessage) -> None:
    """A bot stands in for an absent player until the player takes the seat back."""
    level = message.level or room.stand_in_level
    await room.change_seat(replace(room.seats[message.seat], stand_in=level), "replaced")


def check_kick(room: Room, message: KickMessage) -> None:
    target = check_seat(room, message.seat)
    if room.status != "waiting":
        raise ProtocolError(
            "already_started", "the game has started: seats can no longer be opened"
        )
    if target.kind != "human" or not target.joined or target.host:
        raise ProtocolError(
            "not_human",
            f"seat {target.seat} is not a seat taken from the lobby: only those"
            " can be opened again",
        )
    _check_away(room, target)


async def apply_kick(room: Room, message: KickMessage) -> None:
    """The seat is open again, for anyone in the lobby to take."""
    await room.change_seat(SeatRow(message.seat, "open"), "kicked")


_CREATION_REFUSALS: dict[str, ErrorCode] = {
    code: code for code in ("rate_limited", "too_many_games", "server_busy")
}


@contextmanager
def refused_as_protocol_error() -> Iterator[None]:
    """An HTTP API refusal (a creation limit) as the socket's refusal of the same code."""
    try:
        yield
    except ApiError as error:
        code = _CREATION_REFUSALS.get(error.code, "server_error")
        raise ProtocolError(code, error.message) from None


def _check_in_play(room: Room, target: SeatRow) -> None:
    """Refuse a command of play (resign, replace) for ``target`` outside play, or for a
    seat already out of the game."""
    state = room.state
    if state.is_terminal:
        raise ProtocolError("game_over", "the game is over")
    if room.status == "waiting":
        raise ProtocolError(
            "not_started", "the game waits for its open seats (or for the host to start)"
        )
    if target.seat in room.resigned or target.seat in room.pending_resigns:
        raise ProtocolError("already_resigned", f"seat {target.seat} has already resigned")
    if target.seat in state.eliminated:
        raise ProtocolError("already_resigned", f"seat {target.seat} is out of the game (R13)")


def _check_level(room: Room, level: str) -> None:
    """Refuse a bot level that does not play the game's player count (``learned``: the
    shipped policies' 2 and 4), so that no bot refuses its first decision mid-game."""
    try:
        check_level_players(level, room.players)
    except ValueError as error:
        raise ProtocolError("bad_message", f"level: {error}") from None


def _check_away(room: Room, target: SeatRow) -> None:
    if room.presence(target.seat) == "connected":
        raise ProtocolError(
            "seat_connected",
            f"seat {target.seat}'s player is here: only an absent player's seat can be given away",
        )
