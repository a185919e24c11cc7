"""A game's actions grouped into player turns, for "what just happened" and the lobby.

Versions count actions (a roll and each reveal included), but people count turns: a
30-turn game must not read "turn 90". A **player turn** is the run of events during
which one seat is the seat whose turn it is (``State.turn``): its orientation, roll,
tithe and placement (R9-R17, or R32's order), the pile reveals that follow (R7) and
any resignation that comes meanwhile (R22)::

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

from marrakech.actions import Resign, Roll
from marrakech.events import Event
from marrakech.geometry import FACING_LETTERS, square_name
from marrakech.rules import COLOUR_LETTERS
from marrakech.state import Phase, State
from marrakech.web.protocol import AssamStep, TitheInfo, TurnSummary


@dataclass
class TurnSpan:
    """The events ``events[start:end]`` of one player turn of ``seat``."""

    seat: int
    start: int
    end: int


def extend_turns(spans: list[TurnSpan], events: Sequence[Event]) -> list[TurnSpan]:
    """Group the events after ``spans[-1].end`` (all of them for no spans) into turns,
    extending ``spans`` in place; returns it."""
    begin = spans[-1].end if spans else 0
    for index in range(begin, len(events)):
        seat = events[index].before.turn
        if spans and spans[-1].seat == seat and spans[-1].end == index:
            spans[-1].end = index + 1
        else:
            spans.append(TurnSpan(seat, index, index + 1))
    return spans


def _done(span: TurnSpan, state: State) -> bool:
    """Whether the turn ``span`` is over in ``state`` (a later seat's turn, or the end)."""
    return state.is_terminal or state.turn != span.seat


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
        if event.before.turn != seat:
            count, seat = count + 1, event.before.turn
    if state.is_terminal or (count and seat == state.turn):
        return count
    return count + 1


def summary(
    number: int, span: TurnSpan, events: Sequence[Event], log: Sequence[str]
) -> TurnSummary:
    """The :class:`TurnSummary` of turn ``number`` (1-based); ``log`` is the game's log
    (one sentence per event) in the reader's language."""
    orient = roll = tithe = placed = colour = None
    path: list[str] = []
    walk: list[AssamStep] = []
    eliminated: list[int] = []
    resigned: list[int] = []
    for event in events[span.start : span.end]:
        action = event.action
        if isinstance(action, Resign):
            resigned.append(action.seat)
            continue
        if event.phase is Phase.ORIENT:
            orient = str(action)
        elif isinstance(action, Roll):
            roll = action.steps
            path = [square_name(step.square) for step in event.path]
            before = event.before
            walk = [
                AssamStep(
                    square=square_name(before.assam_square),
                    facing=FACING_LETTERS[before.assam_facing],
                )
            ]
            walk += [
                AssamStep(square=name, facing=FACING_LETTERS[step.facing], arc=step.arc)
                for name, step in zip(path, event.path, strict=True)
            ]
            if event.tithe is not None:
                paid = event.tithe
                tithe = TitheInfo(
                    payer=paid.payer,
                    payee=paid.payee,
                    due=paid.due,
                    paid=paid.paid,
                    region=[square_name(square) for square in paid.region],
                )
        elif event.placed is not None:
            placed = [square_name(square) for square in event.placed]
            colour = None if event.placed_colour is None else COLOUR_LETTERS[event.placed_colour]
        if event.eliminated is not None:
            eliminated.append(event.eliminated)
    return TurnSummary(
        seat=span.seat,
        turn=number,
        start=span.start,
        end=span.end,
        orient=orient,
        roll=roll,
        path=path,
        walk=walk,
        tithe=tithe,
        placed=placed,
        colour=colour,
        eliminated=eliminated,
        resigned=resigned,
        log=list(log[span.start : span.end]),
    )
