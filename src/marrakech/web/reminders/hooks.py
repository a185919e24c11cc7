"""What the rooms tell the reminders: a human's turn began, a seat's page opened or
closed. The rooms call a :class:`TurnListener` (the reminders' service) through
:class:`ReminderHooks`; the listener never blocks nor fails a move (it queues its work
in the background). When a turn's time runs short is not the rooms' to say: the
clocks' sweep does (:mod:`marrakech.web.turn_based_events`' ``deadline_near``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class TurnStart:
    """A human seat's turn began: ``turn`` is the game's player-turn number;
    ``present`` whether the seat's page is open (on any instance) right now."""

    game_id: str
    seat: int
    turn: int
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


class TurnTeller:
    """One room's side of the hooks: tells the reminders of a human's turn once (a
    room recomputes its clock often; a take-back or a reload is the same turn)."""

    def __init__(self, hooks: ReminderHooks, game_id: str) -> None:
        self.hooks = hooks
        self.game_id = game_id
        #: The (seat, turn) last told of.
        self.told: tuple[int, int] | None = None

    def tell(self, seat: int | None, turn: int, presence: Callable[[int], str]) -> None:
        """``seat`` (None: no human's) is to move in player-turn ``turn``; the seats'
        ``presence`` (``connected``: the page is open)."""
        if seat is None:
            self.told = None
            return
        if (seat, turn) == self.told:
            return
        self.told = (seat, turn)
        self.hooks.turn_started(TurnStart(self.game_id, seat, turn, presence(seat) == "connected"))
