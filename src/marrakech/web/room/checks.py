"""The checks every message of a seat goes through: which seats a hello's tokens open,
who holds the seat, whether the game is being played, whose turn it is. Each refuses with a
:class:`~marrakech.web.protocol.ProtocolError` saying what was expected and found."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from marrakech.i18n import seat_name
from marrakech.web.connection import Client
from marrakech.web.protocol import ProtocolError
from marrakech.web.room.game_room import Room
from marrakech.web.store import SeatRow, hash_token


def check_holder(client: Client, seat: int) -> None:
    """Refuse unless ``client`` holds ``seat``'s token."""
    if seat not in client.seats:
        if not client.seats:
            raise ProtocolError("not_your_seat", "spectators cannot act")
        held = ", ".join(str(s) for s in sorted(client.seats))
        raise ProtocolError(
            "not_your_seat",
            f"this connection holds a token for seat {held}, not for seat {seat}",
        )


def check_playing(room: Room, over: str) -> None:
    """Refuse anything but play: the game is over (``over`` says so) or waits."""
    if room.state.is_terminal:
        raise ProtocolError("game_over", over)
    if room.status == "waiting":
        raise ProtocolError(
            "not_started", "the game waits for its open seats (or for the host to start)"
        )


def check_mover(room: Room, seat: int, prefix: str = "") -> None:
    """Refuse unless ``seat``'s player is the one the game waits for."""
    mover = room.mover()
    if mover != seat:
        whose = "nobody's" if mover is None else f"seat {mover}'s"
        raise ProtocolError(
            "not_your_turn",
            f"{prefix}it is {whose} turn ({who(room, mover)}), not seat {seat}'s",
        )
    if room.seats[seat].stand_in:
        raise ProtocolError(
            "not_your_turn",
            f"a bot plays for seat {seat} ({who(room, seat)}): take the seat back first",
        )


def check_seat(room: Room, seat: int) -> SeatRow:
    """The seat ``seat`` of this game, or a refusal naming the game's seats."""
    if not 0 <= seat < room.players:
        raise ProtocolError("no_such_seat", f"expected a seat 0..{room.players - 1}, found {seat}")
    return room.seats[seat]


def who(room: Room, seat: int | None) -> str:
    """The seat as a refusal names it (``Red``, ``Blue, a bot``, ``the server's``)."""
    if seat is None:
        return "the server's"
    name = seat_name(seat, room.players)
    row = room.seats[seat]
    return f"{name}, a bot" if row.kind == "bot" or row.stand_in else name


def seats_for(room: Room, tokens: Sequence[str]) -> tuple[dict[int, str], int]:
    """The seats a hello's ``tokens`` open (each with its token), and how many tokens
    matched no seat."""
    seats: dict[int, str] = {}
    unknown = 0
    for token in tokens:
        digest = hash_token(token)
        found = [
            row.seat
            for row in room.seats
            if row.token_hash is not None and secrets.compare_digest(row.token_hash, digest)
        ]
        seats.update((seat, token) for seat in found)
        unknown += not found
    return seats, unknown


def awaits_tokens(room: Room) -> bool:
    """Whether a human seat has no token yet (a rematch's, until its player comes back
    to the finished game)."""
    return any(row.kind == "human" and row.token_hash is None for row in room.seats)
