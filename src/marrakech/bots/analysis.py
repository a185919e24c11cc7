"""Who is winning: each seat's winning chances in a position and along a whole game.

:func:`expected_margins` gives, from the same features, by how many points (R20) each
seat is expected to finish ahead of the others (or behind them). :func:`hint` advises
the seat to move from a short search: every legal decision with its winning chance.

:func:`winning_chances` reads the learned value (:mod:`marrakech.bots.value`),
recalibrated per player count and stage of the game (:mod:`marrakech.bots.calibration`)
and, when the seats' strengths are known (:func:`seat_strengths`: the bots' levels from
a record's seats), for them: each seat's chance of winning, summing to 1, exact once
the game is over (tied winners share, R21); not known, the table is taken as evenly
matched.
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
    (0.333941, 0.333029, 0.333029)
    >>> sum(analysis.turns[-1].chances)
    1.0
    >>> len(analysis.swings(3))
    3
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from marrakech.actions import Action
from marrakech.bots.calibration import (
    REFERENCE,
    bot_strength,
    load_calibration,
    table_strengths,
)
from marrakech.bots.value import ValueModel, load_value, progress
from marrakech.events import Event
from marrakech.player_turns import extend_turns
from marrakech.record import GameRecord
from marrakech.state import State

_DIGITS = 6  # chances are rounded for stable output and JSON
_MARGIN_DIGITS = 2  # margins in points, to a hundredth


def seat_strengths(seats: Sequence[str], players: int) -> tuple[float, ...] | None:
    """The seats' strengths for the calibration from who sits there, as a record names
    them (``"bot:expert"``, ``"bot:greedy"``, ``"bot:search@iterations=2000"``: a bot by
    level, name or spec, rated on the arena's ladder; anyone else, a person, is not
    known): None when no seat is known (evenly matched), else one per seat, a seat not
    known taken as strong as the mean of those known
    (:func:`marrakech.bots.calibration.table_strengths`).

    >>> easy, expert = seat_strengths(("bot:easy", "bot:expert"), 2)
    >>> easy < expert
    True
    >>> seat_strengths(("Ann", "human", "bot:nobody"), 3) is None
    True
    """
    if len(seats) != players:
        return None  # a record without its seats (or not all): nothing known
    known = [
        bot_strength(seat.removeprefix("bot:"), players) if seat.startswith("bot:") else None
        for seat in seats
    ]
    return table_strengths(known)


def calibrated_chances(
    model: ValueModel, state: State, strengths: Sequence[float] | None = None
) -> list[float]:
    """The value's chances in ``state``, recalibrated for its player count and stage
    and the seats' ``strengths`` when known (:mod:`marrakech.bots.calibration`); exact
    once the game is over."""
    chances = model.chances(state)
    if state.is_terminal:
        return chances
    return load_calibration(state.players).apply(chances, progress(state), strengths)


def winning_chances(state: State, strengths: Sequence[float] | None = None) -> tuple[float, ...]:
    """Each seat's chance of winning ``state`` (seat order; they sum to 1): the learned
    value's, recalibrated per player count and stage of the game on fresh games of every
    level pairing (:mod:`marrakech.bots.calibration`), so that a seat given 30% wins
    about 30% of the time; ``strengths`` (one per seat, :func:`seat_strengths`) when
    the seats' strengths are known, else the table is taken as evenly matched.

    >>> from marrakech import State
    >>> winning_chances(State.new(players=4))
    (0.250705, 0.249765, 0.249765, 0.249765)
    """
    if not isinstance(state, State):
        raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
    model = load_value(state.players)
    return tuple(round(c, _DIGITS) for c in calibrated_chances(model, state, strengths))


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
class Option:
    """One legal decision as a short search saw it: ``chance`` is the deciding seat's
    winning chance after it, ``share`` the part of the search spent on it."""

    action: Action
    chance: float
    share: float


@dataclass(frozen=True)
class Hint:
    """What a short search advises the seat to move (:func:`hint`): every legal
    decision, the advised one first."""

    seat: int
    options: tuple[Option, ...]

    @property
    def best(self) -> Action:
        """The advised decision."""
        return self.options[0].action

    @property
    def chance(self) -> float:
        """The seat's winning chance after the advised decision."""
        return self.options[0].chance


#: A hint's search: the compiled search's iterations (about 0.03 s at two players), or,
#: without Numba, those of the Python fallback (about as long).
HINT_ITERATIONS = 20_000
HINT_ITERATIONS_PYTHON = 400


def hint(
    state: State,
    iterations: int | None = None,
    seed: int = 0,
    strengths: Sequence[float] | None = None,
) -> Hint:
    """Advice for the seat to decide in ``state`` (ORIENT or PLACE): the search of the
    ``search`` bot (:class:`marrakech.bots.search.SearchBot`, its learned value at the
    leaves) run for ``iterations`` (default :data:`HINT_ITERATIONS`, or
    :data:`HINT_ITERATIONS_PYTHON` without Numba) with a fixed ``seed``, so the same
    position always gets the same hint. Every legal decision is listed with the
    seat's winning chance after it (the search's mean, recalibrated like
    :func:`winning_chances`: :meth:`~marrakech.bots.calibration.Calibration.apply_one`),
    the advised one (the most searched) first. ``strengths`` (one per seat,
    :func:`seat_strengths`): the seat's edge over the others still in moves its
    chances; not known, the table is taken as evenly matched.

    >>> from marrakech import State
    >>> advice = hint(State.new(players=3), iterations=2000)
    >>> str(advice.best) in {"L", "S", "R"}, len(advice.options), 0 < advice.chance < 1
    (True, 3, True)
    """
    from marrakech.bots.search import SearchBot, fast_available

    if not isinstance(state, State):
        raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
    if state.is_terminal or state.is_chance:
        raise ValueError(
            f"a hint is for a seat's decision (orient or place), found the {state.phase.name} phase"
        )
    if iterations is None:
        iterations = HINT_ITERATIONS if fast_available() else HINT_ITERATIONS_PYTHON
    if iterations < 1:
        raise ValueError(f"a hint needs at least 1 iteration, found {iterations}")
    bot = SearchBot(seconds=None, iterations=iterations)
    rows = bot.statistics(state, random.Random(seed))
    total = sum(visits for _, visits, _ in rows) or 1.0
    # The search averages the value's raw chances; they are recalibrated like
    # winning_chances' (the seat's own chance only is known: the others share the rest).
    calibration = load_calibration(state.players)
    seats = state.players - len(state.eliminated)
    done = progress(state)
    edge, mean = 0.0, REFERENCE
    if strengths is not None:
        others = [
            s for seat, s in enumerate(strengths)
            if seat != state.to_move and seat not in state.eliminated
        ]  # fmt: skip
        if others:
            edge = strengths[state.to_move] - sum(others) / len(others)
        mean = (strengths[state.to_move] + sum(others)) / (len(others) + 1)
    options = tuple(
        Option(
            action,
            round(calibration.apply_one(value, seats, done, edge, mean), _DIGITS),
            round(visits / total, _DIGITS),
        )
        for action, visits, value in rows
    )
    return Hint(state.to_move, options)


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
    """Each seat's winning chances after every turn of ``record`` (see module doc), for
    the strengths of its seats when known (:func:`seat_strengths` of its seats)."""
    if not isinstance(record, GameRecord):
        raise TypeError(f"expected a GameRecord, found {type(record).__name__}")
    model = load_value(record.players)
    strengths = seat_strengths(record.seats, record.players)

    def chances(state: State) -> tuple[float, ...]:
        return tuple(round(c, _DIGITS) for c in calibrated_chances(model, state, strengths))

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
    "Hint",
    "Option",
    "Swing",
    "TurnChances",
    "analyse_game",
    "expected_margins",
    "hint",
    "seat_strengths",
    "winning_chances",
]
