"""What happened when an action was applied, so interfaces never re-derive a rule.

>>> from marrakech import State, parse_action, square_name
>>> state = State.new(players=3)
>>> event = state.describe(parse_action("L"))
>>> event.facing_before, event.facing_after
(0, 3)
>>> event = event.after.describe(parse_action("r4"))
>>> [square_name(step.square) for step in event.path]
['c4', 'b4', 'a4', 'a5']
>>> event.path[-1].arc
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from marrakech.actions import Action, Draw, Orient, Place, Resign, Roll
from marrakech.geometry import PATHS, Step
from marrakech.i18n import describe_event
from marrakech.position import Phase
from marrakech.rules import owner_of

if TYPE_CHECKING:
    # Only named in annotations: describe() is handed a state, the state module calls it.
    from marrakech.state import State


@dataclass(frozen=True, slots=True)
class Tithe:
    """A tithe paid by ``payer`` to ``payee`` (R11): ``due`` asked, ``paid`` handed over.

    ``paid < due`` only when the payer could not pay and was eliminated (R13).
    """

    payer: int
    payee: int
    colour: int
    due: int
    paid: int
    region: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Covered:
    """A visible carpet half hidden by the new carpet."""

    square: int
    colour: int


@dataclass(frozen=True, slots=True)
class Event:
    """Everything an interface needs to show one applied action.

    ``seat`` is the acting seat (for a DRAW, the seat whose pile revealed a carpet).
    """

    action: Action
    phase: Phase
    seat: int
    before: State
    after: State
    facing_before: int | None = None
    facing_after: int | None = None
    path: tuple[Step, ...] = ()
    tithe: Tithe | None = None
    eliminated: int | None = None
    placed_colour: int | None = None
    placed: tuple[int, int] | None = None
    covered: tuple[Covered, ...] = field(default=())
    drawn_colour: int | None = None
    game_over: bool = False

    @property
    def landing(self) -> int | None:
        """The square where Assam stopped, for a roll."""
        return self.path[-1].square if self.path else None

    def __str__(self) -> str:
        return describe_event(self, "en")


def describe(before: State, action: Action) -> Event:
    after = before.apply(action)  # validates; raises IllegalActionError
    if isinstance(action, Resign):
        seat = action.seat
    else:
        seat = before.draw_pile if before.draw_pile is not None else before.turn
    event = partial(Event, action, before.phase, seat, before, after, game_over=after.is_terminal)
    if isinstance(action, Orient):
        return event(facing_before=before.assam_facing, facing_after=after.assam_facing)
    if isinstance(action, Roll):
        path = PATHS[(before.assam_square * 4 + before.assam_facing) * 5 + action.steps]
        landing = path[-1].square
        colour = before.colour_at(landing)
        tithe = None
        if colour is not None:
            payee = owner_of(colour, before.players)
            if payee != seat and before.is_in(payee):  # R11, R12
                region = before.region_at(landing)
                paid = after.money[payee] - before.money[payee]
                tithe = Tithe(seat, payee, colour, len(region), paid, region)
        out = seat in after.eliminated and seat not in before.eliminated
        return event(path=path, tithe=tithe, eliminated=seat if out else None)
    if isinstance(action, Place):
        covered = tuple(
            Covered(square, colour)
            for square in action.squares
            if (colour := before.colour_at(square)) is not None
        )
        return event(
            placed_colour=after.colour_at(action.squares[0]),
            placed=action.squares,
            covered=covered,
        )
    if isinstance(action, Resign):
        return event(eliminated=action.seat)
    assert isinstance(action, Draw)
    return event(drawn_colour=action.colour)
