"""Who is winning: each seat's winning chances in a position and along a whole game.

:func:`expected_margins` gives, from the same features, by how many points (R20) each
seat is expected to finish ahead of the others (or behind them).

:func:`winning_chances` reads the learned value (:mod:`marrakech.bots.value`): each seat's
chance of winning, summing to 1, exact once the game is over (tied winners share, R21).
It is plain Python (no Numba needed) and takes tens of microseconds, so a whole game
(about 150 positions at four players) is analysed in well under a second.

:func:`analyse_game` follows a game record turn by turn (a turn ends when the next
decision belongs to another seat, or the game ends) and finds the turns that moved the
chances most (a roll belongs to the turn of the seat that rolls, a two-player pile's
reveal to the turn of the seat that placed; the opening's reveals come before the first
turn)::

    >>> import random
    >>> from marrakech import State
    >>> from marrakech.playout import random_game
    >>> start = State.new(players=3)
    >>> _, actions = random_game(start, random.Random(1))
    >>> record = GameRecord.from_actions(start, actions)
    >>> analysis = analyse_game(record)
    >>> analysis.turns[0].chances
    (0.34559, 0.327205, 0.327205)
    >>> sum(analysis.turns[-1].chances)
    1.0
    >>> len(analysis.swings(3))
    3
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from marrakech.actions import Action
from marrakech.bots.value import load_value
from marrakech.events import Event
from marrakech.record import GameRecord
from marrakech.state import State
from marrakech.turns import extend_turns

_DIGITS = 6  # chances are rounded for stable output and JSON
_MARGIN_DIGITS = 2  # margins in points, to a hundredth


def winning_chances(state: State) -> tuple[float, ...]:
    """Each seat's chance of winning ``state`` (seat order; they sum to 1).

    >>> from marrakech import State
    >>> winning_chances(State.new(players=4))
    (0.264348, 0.245217, 0.245217, 0.245217)
    """
    if not isinstance(state, State):
        raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
    return tuple(round(c, _DIGITS) for c in load_value(state.players).chances(state))


def expected_margins(state: State) -> tuple[float, ...]:
    """Each seat's expected final margin, in points (R20): its score at the end minus
    the mean of the other seats still in, from the learned margin model; exact once the
    game is over; 0 for a seat out (R13). They sum to 0.

    >>> from marrakech import State
    >>> margins = expected_margins(State.new(players=2))
    >>> margins[0] == -margins[1] > 0  # seat 0 moves first
    True
    """
    if not isinstance(state, State):
        raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
    return tuple(round(m, _MARGIN_DIGITS) for m in load_value(state.players).margins(state))


@dataclass(frozen=True)
class TurnChances:
    """The chances after a turn: ``turn`` counts turns (0: the start), ``seat`` is who
    played it (None at the start), ``ply`` the position's index in the record's states,
    ``actions`` what the seat did in the turn (decisions and chance outcomes),
    ``chances`` each seat's winning chances and ``margins`` its expected final margin
    (:func:`expected_margins`)."""

    turn: int
    seat: int | None
    ply: int
    actions: tuple[Action, ...]
    chances: tuple[float, ...]
    margins: tuple[float, ...]


@dataclass(frozen=True)
class Swing:
    """A turn that moved a seat's chances by ``change`` (from ``before`` to ``after``)."""

    turn: TurnChances
    seat: int
    before: float
    after: float

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class GameAnalysis:
    """The chances after every turn of a game, start first."""

    players: int
    turns: tuple[TurnChances, ...]

    def swings(self, count: int = 5) -> list[Swing]:
        """The ``count`` turns that moved one seat's chances most (largest first; each
        turn appears once, with the seat it moved most)."""
        found: list[Swing] = []
        for previous, turn in itertools.pairwise(self.turns):
            seat = max(
                range(self.players), key=lambda s: abs(turn.chances[s] - previous.chances[s])
            )
            found.append(Swing(turn, seat, previous.chances[seat], turn.chances[seat]))
        found.sort(key=lambda swing: (-abs(swing.change), swing.turn.turn))
        return found[:count]


def analyse_game(record: GameRecord) -> GameAnalysis:
    """Each seat's winning chances after every turn of ``record`` (see module doc)."""
    if not isinstance(record, GameRecord):
        raise TypeError(f"expected a GameRecord, found {type(record).__name__}")
    model = load_value(record.players)

    def chances(state: State) -> tuple[float, ...]:
        return tuple(round(c, _DIGITS) for c in model.chances(state))

    def margins(state: State) -> tuple[float, ...]:
        return tuple(round(m, _MARGIN_DIGITS) for m in model.margins(state))

    state = record.initial_state()
    turns = [TurnChances(0, None, 0, (), chances(state), margins(state))]
    events: list[Event] = []
    for action in record.actions:
        events.append(state.describe(action))
        state = events[-1].after
    for number, span in enumerate(extend_turns([], events), 1):
        played = tuple(record.actions[span.start : span.end])
        after = events[span.end - 1].after
        turns.append(
            TurnChances(number, span.seat, span.end, played, chances(after), margins(after))
        )
    return GameAnalysis(record.players, tuple(turns))


__all__ = [
    "GameAnalysis",
    "Swing",
    "TurnChances",
    "analyse_game",
    "expected_margins",
    "winning_chances",
]
