"""One player turn at a glance for the page (:class:`~marrakech.web.protocol.TurnSummary`):
what the seat chose and rolled, Assam's walk, the tithe, the carpet placed. Turns
themselves are the core's (:mod:`marrakech.player_turns`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from marrakech.actions import Resign, Roll
from marrakech.events import Event
from marrakech.geometry import FACING_LETTERS, square_name
from marrakech.player_turns import TurnSpan
from marrakech.rules import COLOUR_LETTERS
from marrakech.state import Phase
from marrakech.web.protocol import TurnSummary


def summary(
    number: int, span: TurnSpan, events: Sequence[Event], log: Sequence[str]
) -> TurnSummary:
    """The :class:`TurnSummary` of turn ``number`` (1-based); ``log`` is the game's log
    (one sentence per event) in the reader's language."""
    return TurnSummary.model_validate(summary_data(number, span, events, log))


def summary_data(
    number: int, span: TurnSpan, events: Sequence[Event], log: Sequence[str]
) -> dict[str, Any]:
    """:func:`summary` as plain data, the model's ``model_dump()``, made without the
    model: an update carries one at the end of every turn (a room writes it once)."""
    orient = roll = tithe = placed = colour = None
    path: list[str] = []
    walk: list[dict[str, Any]] = []
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
                {
                    "square": square_name(before.assam_square),
                    "facing": FACING_LETTERS[before.assam_facing],
                    "arc": False,
                }
            ]
            walk += [
                {"square": name, "facing": FACING_LETTERS[step.facing], "arc": step.arc}
                for name, step in zip(path, event.path, strict=True)
            ]
            if event.tithe is not None:
                paid = event.tithe
                tithe = {
                    "payer": paid.payer,
                    "payee": paid.payee,
                    "due": paid.due,
                    "paid": paid.paid,
                    "region": [square_name(square) for square in paid.region],
                }
        elif event.placed is not None:
            placed = [square_name(square) for square in event.placed]
            colour = None if event.placed_colour is None else COLOUR_LETTERS[event.placed_colour]
        if event.eliminated is not None:
            eliminated.append(event.eliminated)
    return {
        "seat": span.seat,
        "turn": number,
        "start": span.start,
        "end": span.end,
        "orient": orient,
        "roll": roll,
        "path": path,
        "walk": walk,
        "tithe": tithe,
        "placed": placed,
        "colour": colour,
        "eliminated": eliminated,
        "resigned": resigned,
        "log": list(log[span.start : span.end]),
    }
