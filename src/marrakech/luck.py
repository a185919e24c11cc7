"""Dice luck: how many dirhams the die gave or took from each seat beyond expectation.

At every roll (R3) a seat's money changes by the tithes of the stop (R11-R13): it pays
if it moved Assam onto another seat's region, receives if another seat did so onto its
own. Before the die is cast the expected change is known exactly: the average over the
die's outcomes, with their probabilities, given Assam's square and the facing already
chosen. A seat's **dice luck** in a game is the sum, over every roll, of the change
that happened minus the change that was expected. It is what the die did, the
decisions held fixed, so whatever the players' strength its expectation is exactly
zero (each term has mean zero given everything before it), and a game's lucks add up
to zero (tithes move dirhams between seats, R11).

The arena uses it as a *control variate* (:func:`marrakech.arena.stats.luck_corrected`):
a win share corrected for the luck of the games estimates the same thing as the raw
share with a narrower interval, because much of who wins a game of Marrakech is who
paid the unexpected tithes.

Only money is counted: where the die leaves Assam also changes the placements on
offer, which has no exact price, so this is the part of the luck that can be measured
without a model of the game's value.

>>> import random
>>> from marrakech import State, random_game
>>> from marrakech.record import GameRecord
>>> start = State.new(players=3)
>>> _, actions = random_game(start, random.Random(4))
>>> luck = dice_luck(GameRecord.from_actions(start, actions))
>>> len(luck), abs(sum(luck)) < 1e-9
(3, True)
"""

from __future__ import annotations

from marrakech.preview import preview_rolls
from marrakech.record import GameRecord
from marrakech.state import Phase, State


def roll_luck(state: State, outcome: State) -> list[float]:
    """Per seat, the money change from ``state`` (about to roll) to ``outcome`` (the
    state after one of its rolls) minus the expected change over every roll."""
    if state.phase is not Phase.ROLL:
        raise ValueError(f"expected a state about to roll, found phase {state.phase.name}")
    before = state.money
    players = state.players
    expected = [0.0] * players
    for preview in preview_rolls(state):
        after = preview.event.after.money
        for seat in range(players):
            expected[seat] += float(preview.probability) * (after[seat] - before[seat])
    return [outcome.money[seat] - before[seat] - expected[seat] for seat in range(players)]


def dice_luck(record: GameRecord) -> tuple[float, ...]:
    """Each seat's dice luck over the game of ``record``, in dirhams (sums to zero)."""
    luck = [0.0] * record.players
    previous: State | None = None
    for state in record.states():
        if previous is not None and previous.phase is Phase.ROLL:
            for seat, amount in enumerate(roll_luck(previous, state)):
                luck[seat] += amount
        previous = state
    return tuple(luck)
