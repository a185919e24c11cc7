"""A seat's action (a decision's token, or ``roll``): checked, then applied by the
game's owner (the server rolls the die), or forwarded to it by a follower."""

from __future__ import annotations

from marrakech.actions import parse_action
from marrakech.errors import NotationError
from marrakech.playout import sample_outcome
from marrakech.state import Phase
from marrakech.web.protocol import ProtocolError
from marrakech.web.room.checks import check_mover, check_playing
from marrakech.web.room.game_room import Room


async def submit_action(room: Room, seat: int, version: int, token: str) -> None:
    """Apply ``seat``'s action ``token`` at ``version``, whose sender was checked."""

    async def apply() -> None:
        state = room.state
        if state.phase is Phase.ROLL:
            await room.accept(sample_outcome(state, room.die))
        else:
            await room.accept(parse_action(token))

    await room.submit(seat, version, token, lambda: check_action(room, seat, version, token), apply)


def check_action(room: Room, seat: int, version: int, token: str) -> None:
    """Refuse an action that cannot be applied now (call with the room's lock held)."""
    check_playing(room, "the game is over")
    if version != room.version:
        raise ProtocolError(
            "stale_version",
            f"expected version {room.version} (the current one), found "
            f"{version}: apply the latest update first",
        )
    check_mover(room, seat)
    legal = room.legal_for(seat)
    if token not in legal:
        raise ProtocolError("illegal_action", illegal_message(room, seat, token, legal))


def illegal_message(room: Room, seat: int, token: str, legal: list[str]) -> str:
    """Why ``token`` is refused: for an action of the core, the core's own message
    (:meth:`State.illegal_action_error`); else the tokens the seat may send (at its
    ROLL only ``roll``: the server rolls the die)."""
    state = room.state
    if state.phase is not Phase.ROLL:
        try:
            action = parse_action(token)
        except NotationError:
            action = None
        if action is not None and str(action) == token:
            return str(state.illegal_action_error(action))
    expected = ", ".join(legal)
    return f"{token!r} is not a token seat {seat} may send now: expected one of {expected}"
