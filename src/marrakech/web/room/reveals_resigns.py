"""What the server adds to a game, with the core's rules: after an accepted action, the
2-player pile tops it reveals (R7) and the resignations that fall due (R22); the seats'
places at the end (R21, leavers last); and a stored action log read back in today's
order. Pure functions of the state, kept out of the room so each reads on its own."""

from __future__ import annotations

import random
from collections.abc import Iterable

from marrakech.actions import Action, Resign, parse_action
from marrakech.errors import MarrakechError
from marrakech.events import Event
from marrakech.playout import sample_outcome
from marrakech.record import reveal_before_orient
from marrakech.rules import parse_rules
from marrakech.state import Phase, State
from marrakech.web.ratings import ranks_with_leavers
from marrakech.web.store import GameEnd, SeatRow, StoredGame


def server_moves(
    state: State,
    action: Action | None,
    resign: int | None,
    pending_resigns: set[int],
    die: random.Random,
) -> list[Event]:
    """The events of ``action`` (if any) from ``state`` and what follows it on the
    server: each 2-player pile top revealed (R7, drawn with ``die``), and at each
    decision the resignation of ``resign`` or of a seat in ``pending_resigns`` (R22);
    a pending resignation is dropped once applied or once its seat is out."""
    events: list[Event] = []
    if action is not None:
        events.append(state.describe(action))
        state = events[-1].after
    resigning = [] if resign is None else [resign]
    while True:
        while state.phase is Phase.DRAW:
            events.append(state.describe(sample_outcome(state, die)))
            state = events[-1].after
        if state.phase not in (Phase.ORIENT, Phase.PLACE):
            break
        due = [s for s in (*resigning, *sorted(pending_resigns)) if s not in state.eliminated]
        if not due:
            break
        resigning = []
        pending_resigns.discard(due[0])
        events.append(state.describe(Resign(due[0])))
        state = events[-1].after
    pending_resigns.difference_update(state.eliminated)
    return events


def replay(state: State, actions: Iterable[Action], where: str, first: int = 1) -> list[Event]:
    """The events of ``actions`` played from ``state``; an action the rules refuse
    raises :class:`MarrakechError` naming ``where`` and its number (from ``first``)."""
    events: list[Event] = []
    for number, action in enumerate(actions, first):
        try:
            events.append(state.describe(action))
        except MarrakechError as error:
            raise MarrakechError(f"{where}, stored action {number}: {error}") from None
        state = events[-1].after
    return events


def final_places(
    state: State,
    events: Iterable[Event],
    resigned: set[int],
    seats: list[SeatRow],
    rated: bool,
) -> GameEnd:
    """The seats' places at the end (R21), stored with it: a seat that resigned (before,
    or in ``events``), or in a ``rated`` game one a bot stands in for (its time ran
    out), last."""
    leavers = resigned | {e.action.seat for e in events if isinstance(e.action, Resign)}
    if rated:
        leavers |= {row.seat for row in seats if row.stand_in}
    return GameEnd(tuple(ranks_with_leavers(state.ranks(), sorted(leavers))))


def stored_actions(game: StoredGame) -> tuple[Action, ...]:
    """The actions of a stored game in today's order: a 2-player orient-last game (R32)
    stored before the engine revealed the placer's pile before his orientation has them
    swapped back (:func:`marrakech.record.reveal_before_orient`; games stored since come
    back unchanged). A token that is not an action is refused with its number."""
    actions = []
    for number, row in enumerate(game.actions, 1):
        try:
            actions.append(parse_action(row.token))
        except MarrakechError as error:
            raise MarrakechError(f"game {game.id}, stored action {number}: {error}") from None
    return reveal_before_orient(game.players, parse_rules(game.rules), actions)
