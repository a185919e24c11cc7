"""A game's actions grouped into player turns: for "what just happened", lobbies and analyses.

Versions count actions (a roll and each reveal included), but people count turns: a
30-turn game must not read "turn 90". A **player turn** is the run of events during
which one seat is the seat whose turn it is (``State.turn``): its orientation, roll,
tithe and placement (R9-R17, or R32's order), the reveal of its pile's next carpet after
that placement (R7; under R32 it comes before the placer orients, otherwise it ends the
turn, though ``State.turn`` already names the next seat; the opening's reveals begin the
first turn) and any resignation that comes meanwhile (R22)::

    >>> from marrakech import State, parse_action
    >>> state, events = State.new(players=3), []
    >>> for token in ("L", "r1", "b3-c3", "S", "r2"):
    ...     events.append(state.describe(parse_action(token)))
    ...     state = events[-1].after
    >>> spans = extend_turns([], events)
    >>> [(span.seat, span.start, span.end) for span in spans]
    [(0, 0, 3), (1, 3, 5)]
    >>> turn_number(spans, state, waiting=False), [s.seat for s in finished(spans, state)]
    (2, [0])
    >>> turn_number(spans[:1], state, waiting=False, more=events[3:])  # not grouped yet
    2
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from marrakech.events import Event
from marrakech.position import Phase
from marrakech.state import State


@dataclass
class TurnSpan:
    """The events ``events[start:end]`` of one player turn of ``seat``."""

    seat: int
    start: int
    end: int


def _seat_of(event: Event, playing: int | None) -> int:
    """The seat whose turn ``event`` belongs to, ``playing`` being the seat of the turn
    under way (None before the first): a pile's reveal (R7) comes once the placer's
    ``State.turn`` has passed on, yet it ends the placer's turn; the opening's reveals
    begin the first seat's."""
    if playing is not None and event.before.phase is Phase.DRAW:
        return playing
    return event.before.turn


def extend_turns(spans: list[TurnSpan], events: Sequence[Event]) -> list[TurnSpan]:
    """Group the events after ``spans[-1].end`` (all of them for no spans) into turns,
    extending ``spans`` in place; returns it."""
    begin = spans[-1].end if spans else 0
    for index in range(begin, len(events)):
        seat = _seat_of(events[index], spans[-1].seat if spans else None)
        if spans and spans[-1].seat == seat and spans[-1].end == index:
            spans[-1].end = index + 1
        else:
            spans.append(TurnSpan(seat, index, index + 1))
    return spans


def _done(span: TurnSpan, state: State) -> bool:
    """Whether the turn ``span`` (the last one) is over in ``state``: a later seat's
    turn, or the end. A pile about to reveal its top (R7) belongs to the turn under way,
    whatever ``State.turn`` says: the placer's, or the first seat's at the opening."""
    if state.is_terminal:
        return True
    return state.phase is not Phase.DRAW and state.turn != span.seat


def finished(spans: Sequence[TurnSpan], state: State) -> Sequence[TurnSpan]:
    """The turns that are over in ``state`` (all but one still being played)."""
    if spans and not _done(spans[-1], state):
        return spans[:-1]
    return spans


def turn_number(
    spans: Sequence[TurnSpan], state: State, waiting: bool, more: Sequence[Event] = ()
) -> int:
    """The player-turn number: 0 before the game starts, the turn being played, or the
    last one once the game is over. ``more``: events after ``spans`` (not grouped yet;
    ``state`` follows them), counted without copying the spans."""
    if waiting:
        return 0
    count, seat = len(spans), spans[-1].seat if spans else None
    for event in more:
        belongs = _seat_of(event, seat)
        if belongs != seat:
            count, seat = count + 1, belongs
    if state.is_terminal or (count and (seat == state.turn or state.phase is Phase.DRAW)):
        return count  # a reveal to come belongs to the turn under way (R7)
    return count + 1


__all__ = ["TurnSpan", "extend_turns", "finished", "turn_number"]
