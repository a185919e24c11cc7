"""One handler per message a connection sends after its hello, found by the message's
type in :data:`HANDLERS` (the connection's ``hello`` and ``ping`` are answered by the
socket itself, :mod:`marrakech.web.routes.socket`).

A handler refuses with :class:`~marrakech.web.protocol.ProtocolError` (nothing
changed); the socket sends the refusal to the connection alone. A message type with no
handler is refused there too, saying which types are expected.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from marrakech.web.cluster import Command
from marrakech.web.connection import Client
from marrakech.web.protocol import (
    ActionMessage,
    ChatMessage,
    HintMessage,
    KickMessage,
    MuteMessage,
    ProtocolError,
    ReactMessage,
    RematchMessage,
    ReplaceMessage,
    ReportMessage,
    ResignMessage,
    SeatMessage,
    StartMessage,
    TakeBackMessage,
    message_types,
)
from marrakech.web.room.checks import check_holder, check_mover, check_playing
from marrakech.web.room.game_room import Room
from marrakech.web.room.hints import check_hint_phase
from marrakech.web.room.play import submit_action
from marrakech.web.room.seat_commands import command_sender, submit_command


async def on_action(room: Room, client: Client, message: ActionMessage) -> None:
    """A decision (or ``roll``) for a seat this connection holds."""
    check_holder(client, message.seat)
    await submit_action(room, message.seat, message.version, message.action)


async def on_hint(room: Room, client: Client, message: HintMessage) -> None:
    """Advice for this connection's seat that is to decide, sent to it alone."""
    if not room.hints:
        raise ProtocolError(
            "hints_off", "this game does not allow hints (its creator turned them off)"
        )
    if not client.seats:
        raise ProtocolError("not_your_seat", "spectators cannot ask for hints")
    seat = message.seat
    if seat is None:
        mover = room.mover()
        seat = mover if mover in client.seats else min(client.seats)
    check_holder(client, seat)
    check_playing(room, "the game is over: there is nothing to advise")
    check_mover(room, seat, "a hint is for your own decision: ")
    check_hint_phase(room.state)
    room.later(room.advice.ask(room, client, seat))


async def on_seat_command(room: Room, client: Client, message: SeatMessage) -> None:
    """Resign, take back, rematch, or the host's start, replace and kick
    (:mod:`~marrakech.web.room.seat_commands`)."""
    seat = command_sender(room, client, message)
    await submit_command(room, seat, Command(message, client.address, client.account))


async def on_chat(room: Room, client: Client, message: ChatMessage) -> None:
    """A chat message (:mod:`~marrakech.web.room.chat`): stored on its own, never
    under the room's lock, so it never waits for nor delays a move."""
    await room.chat.say(client, message)


async def on_react(room: Room, client: Client, message: ReactMessage) -> None:
    """A quick reaction."""
    await room.chat.react(client, message)


async def on_report(room: Room, client: Client, message: ReportMessage) -> None:
    """A chat line reported to the operator."""
    await room.chat.report(client, message)


async def on_mute(room: Room, client: Client, message: MuteMessage) -> None:
    """A seat's chat muted (or not) for this connection."""
    room.chat.mute(client, message)


#: The handler of each message type a connection may send after its hello.
HANDLERS: dict[type[Any], Callable[[Room, Client, Any], Awaitable[None]]] = {
    ActionMessage: on_action,
    HintMessage: on_hint,
    ResignMessage: on_seat_command,
    TakeBackMessage: on_seat_command,
    RematchMessage: on_seat_command,
    StartMessage: on_seat_command,
    ReplaceMessage: on_seat_command,
    KickMessage: on_seat_command,
    ChatMessage: on_chat,
    ReactMessage: on_react,
    ReportMessage: on_report,
    MuteMessage: on_mute,
}


def expected_types() -> str:
    """The ``type`` of every message :data:`HANDLERS` takes, as refusals list them."""
    return message_types(HANDLERS)


async def handle(room: Room, client: Client, message: object) -> None:
    """Run ``message``'s handler, or refuse a message no handler takes."""
    handler = HANDLERS.get(type(message))
    if handler is None:
        found = getattr(message, "type", type(message).__name__)
        raise ProtocolError(
            "bad_message", f"type: expected one of {expected_types()}, found {found!r}"
        )
    await handler(room, client, message)
