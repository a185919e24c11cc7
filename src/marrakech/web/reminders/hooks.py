"""What the rooms tell the reminders: a human's turn began, a seat's page opened or
closed. The rooms call a :class:`TurnListener` (the reminders' service) through
:class:`ReminderHooks`; the listener never blocks nor fails a move (it queues its work
in the background).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class TurnStart:
    """A human seat's turn began: ``turn`` is the game's player-turn number;
    ``deadline`` (epoch seconds) and ``turn_seconds`` its clock's, if one runs;
    ``present`` whether the seat's page is open (on any instance) right now."""

    game_id: str
    seat: int
    turn: int
    deadline: float | None
    turn_seconds: float
    present: bool


class TurnListener(Protocol):
    """The reminders' side of the hooks."""

    def turn_started(self, start: TurnStart) -> None:
        """A turn began (the game's owner tells, once per turn and room)."""

    def visited(self, game_id: str, seats: Iterable[int]) -> None:
        """A page holding ``seats`` of the game opened or closed."""


class ReminderHooks:
    """The rooms' handle on the reminders: nothing happens until a listener is set
    (a server without ``--smtp-url``, or tests of other things)."""

    def __init__(self) -> None:
        self.listener: TurnListener | None = None

    def turn_started(self, start: TurnStart) -> None:
        if self.listener is not None:
            self.listener.turn_started(start)

    def visited(self, game_id: str, seats: Iterable[int]) -> None:
        if self.listener is not None and seats:
            self.listener.visited(game_id, seats)
