"""A finished game looked back on: dice luck, scores and winning chances turn by turn.

The server computes it once per game, in a bot worker (:meth:`BotScheduler.run
<marrakech.web.bot_workers.BotScheduler.run>`), never on the event loop, and keeps it
with the game. One point per position after each player turn
(:mod:`marrakech.player_turns`), the first at the start:

- ``scores``: each seat's score there (R20);
- ``chances``: each seat's chance of winning from there (:func:`chances_series`);
- ``luck``: each seat's dice luck over the game (:func:`marrakech.luck.dice_luck`);
- ``swings``: the turns where a seat's chances moved most, for the replay to jump to.

>>> import random
>>> from marrakech import State, random_game
>>> from marrakech.record import GameRecord
>>> start = State.new(players=3)
>>> _, actions = random_game(start, random.Random(2))
>>> result = analyse(GameRecord.from_actions(start, actions), "g1")
>>> len(result.turns) == len(result.scores) == len(result.chances), result.method
(True, 'value')
>>> [round(sum(point), 3) for point in result.chances][:3], len(result.swings) <= MAX_SWINGS
([1.0, 1.0, 1.0], True)
"""

from __future__ import annotations

from collections.abc import Sequence

from marrakech.bots.analysis import hint, seat_strengths, winning_chances
from marrakech.events import Event
from marrakech.luck import dice_luck
from marrakech.player_turns import extend_turns
from marrakech.record import GameRecord
from marrakech.state import State
from marrakech.web.protocol import Analysis, Swing
from marrakech.web.store import SeatRow

#: How the chances are estimated, for the page to say so: the bots' learned value
#: (:func:`marrakech.bots.analysis.winning_chances`).
METHOD = "value"
#: How many swings the analysis keeps.
MAX_SWINGS = 5


def series_points(record: GameRecord) -> list[tuple[int, int, State]]:
    """The analysis's points: (player-turn number, version, position), the first at the
    start, then after each player turn."""
    state = record.initial_state()
    events: list[Event] = []
    for action in record.actions:
        events.append(state.describe(action))
        state = events[-1].after
    points = [(0, 0, record.initial_state())]
    for number, span in enumerate(extend_turns([], events), 1):
        points.append((number, span.end, events[span.end - 1].after))
    return points


def chances_series(record: GameRecord) -> list[list[float]]:
    """Each seat's chance of winning (0..1, summing to 1) at each of
    :func:`series_points`: the bots' learned value
    (:func:`marrakech.bots.analysis.winning_chances`, what ``marrakech analyse`` prints),
    exact at the end (tied winners share, R21), for the bots' levels at the table (the
    record's seats; people are not known: :func:`marrakech.bots.analysis.seat_strengths`).
    The one place the server estimates them.
    """
    strengths = seat_strengths(record.seats, record.players)
    return [list(winning_chances(state, strengths)) for _, _, state in series_points(record)]


def analyse(record: GameRecord, game_id: str) -> Analysis:
    """The :class:`~marrakech.web.protocol.Analysis` of a finished game's record."""
    points = series_points(record)
    chances = chances_series(record)
    swings = []
    for index in range(1, len(points)):
        turn, version, _ = points[index]
        for seat in range(record.players):
            before, after = chances[index - 1][seat], chances[index][seat]
            swings.append(Swing(seat=seat, turn=turn, version=version, before=before, after=after))
    # Biggest moves first, the seat that gained before the one that lost as much; then
    # each turn once (at two players one seat's gain is the other's loss).
    # (Rounded: at two players the two moves differ only in the last bits of a float.)
    swings.sort(
        key=lambda s: (-round(abs(s.after - s.before), 9), s.before > s.after, s.turn, s.seat)
    )
    once: dict[int, Swing] = {}
    for swing in swings:
        once.setdefault(swing.turn, swing)
    swings = list(once.values())
    return Analysis(
        game_id=game_id,
        luck=[round(value, 3) for value in dice_luck(record)],
        turns=[turn for turn, _, _ in points],
        versions=[version for _, version, _ in points],
        scores=[list(state.scores()) for _, _, state in points],
        chances=[[round(share, 4) for share in point] for point in chances],
        swings=swings[:MAX_SWINGS],
        method=METHOD,
    )


def analyse_json(record_json: str, game_id: str) -> str:
    """:func:`analyse` from and to JSON: what a bot worker process is sent and returns."""
    return analyse(GameRecord.from_json(record_json), game_id).model_dump_json()


def table_strengths(seats: Sequence[SeatRow]) -> tuple[float, ...] | None:
    """The strengths the chances take for a live game's seats: a bot seat's level
    (rated on the arena's ladder), a person not known; None when no seat is known
    (evenly matched). The same reading as :func:`chances_series` gives a finished game's
    record (:func:`marrakech.bots.analysis.seat_strengths`).

    >>> table_strengths([SeatRow(0, "human"), SeatRow(1, "human")]) is None
    True
    >>> person, expert = table_strengths([SeatRow(0, "human"), SeatRow(1, "bot", "expert")])
    >>> person == expert  # a person not known is taken as strong as the known seats
    True
    >>> easy, expert = table_strengths([SeatRow(0, "bot", "easy"), SeatRow(1, "bot", "expert")])
    >>> easy < expert
    True
    """
    labels = [
        f"bot:{seat.level}" if seat.kind == "bot" and seat.level else "human" for seat in seats
    ]
    return seat_strengths(labels, len(labels))


def advise(
    notation: str, strengths: tuple[float, ...] | None = None
) -> list[tuple[str, float, float]]:
    """A hint for the position written ``notation`` (:func:`marrakech.bots.analysis.hint`):
    each legal decision's token, the seat's winning chance after it (for the seats'
    ``strengths`` when known: :func:`table_strengths`) and the share of the search spent
    on it, the advised one first. What a bot worker process is sent and returns (plain
    data: cheap to pickle).

    >>> from marrakech import State
    >>> options = advise(State.new(players=3).notation())
    >>> sorted(token for token, _, _ in options), round(sum(share for _, _, share in options), 3)
    (['L', 'R', 'S'], 1.0)
    """
    advice = hint(State.from_notation(notation), strengths=strengths)
    return [(str(option.action), option.chance, option.share) for option in advice.options]
