"""Who the game waits for, read from the core's state and the seats (pure functions).

>>> from marrakech import State
>>> from marrakech.web.store import SeatRow
>>> seats = [SeatRow(0, "human"), SeatRow(1, "bot", "easy"), SeatRow(2, "human")]
>>> start = State.new(players=3, first_seat=1)
>>> game_status(start, seats), seat_to_move(start), mover_kind(start, seats)
('running', 1, 'bot')
"""

from __future__ import annotations

from collections.abc import Sequence

from marrakech.state import Phase, State
from marrakech.web.store import GameStatus, SeatRow


def game_status(state: State, seats: Sequence[SeatRow]) -> GameStatus:
    """``over``, ``waiting`` (a seat is still open: nobody plays yet) or ``running``."""
    if state.is_terminal:
        return "over"
    return "waiting" if any(seat.kind == "open" for seat in seats) else "running"


def seat_to_move(state: State) -> int | None:
    """The seat the server waits for (``roll`` at its ROLL), or None: over, or a DRAW,
    which the server reveals at once."""
    if state.phase is Phase.ROLL:
        return state.turn
    if state.is_chance or state.is_terminal:
        return None
    return state.to_move


def mover_kind(state: State, seats: Sequence[SeatRow]) -> str | None:
    """Who decides for the seat the server waits for: ``bot`` (a bot seat, or a bot
    standing in for a player), ``human``, or None if it waits for none."""
    seat = seat_to_move(state)
    if seat is None:
        return None
    row = seats[seat]
    return "bot" if row.kind == "bot" or row.stand_in else row.kind


def bot_to_move(state: State, seats: Sequence[SeatRow]) -> bool:
    """Whether a bot is to move in a started game (bots wait for the open seats)."""
    return game_status(state, seats) == "running" and mover_kind(state, seats) == "bot"


def clock_target(state: State, seats: Sequence[SeatRow], turn: int) -> tuple[int, int] | None:
    """The (seat, player-turn ``turn``) whose clock runs in a running game with a
    clock: a human's, with no bot standing in; None if nobody's runs."""
    seat = seat_to_move(state)
    if seat is None:
        return None
    row = seats[seat]
    if row.kind != "human" or row.stand_in:
        return None
    return seat, turn
