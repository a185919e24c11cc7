"""Dice luck (R3, R11-R13): what the die moved beyond each roll's expectation."""

from __future__ import annotations

import random

import pytest

from marrakech import State, random_game
from marrakech.luck import dice_luck, roll_luck
from marrakech.record import GameRecord
from marrakech.rules import BGA, STANDARD, RuleSet
from marrakech.state import Phase


def games(players: int, count: int, seed: int, rules: RuleSet = STANDARD) -> list[GameRecord]:
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        start = State.new(players, rules, rng.randrange(players))
        _, actions = random_game(start, rng)
        records.append(GameRecord.from_actions(start, actions))
    return records


def rolls(record: GameRecord) -> list[State]:
    return [s for s in record.states() if s.phase is Phase.ROLL]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", [STANDARD, BGA], ids=["standard", "bga"])
def test_r11_a_games_lucks_add_up_to_zero(players: int, rules: RuleSet) -> None:
    # A tithe moves dirhams from the seat that rolled to the owner (R11), all it has if
    # it cannot pay (R13): what one seat's luck gains another's loses.
    for record in games(players, 20, seed=players, rules=rules):
        luck = dice_luck(record)
        assert len(luck) == players
        assert sum(luck) == pytest.approx(0.0, abs=1e-9)
    assert any(any(abs(x) > 1 for x in dice_luck(r)) for r in games(players, 20, players, rules))


def test_r3_each_rolls_luck_averages_exactly_zero_over_the_die() -> None:
    lucky = 0
    for players in (2, 3, 4):
        for record in games(players, 5, seed=10 + players):
            for state in rolls(record):
                outcomes = state.chance_outcomes()
                per_outcome = [roll_luck(state, state.apply(roll)) for roll, _ in outcomes]
                for seat in range(players):
                    mean = sum(
                        float(p) * luck[seat]
                        for (_, p), luck in zip(outcomes, per_outcome, strict=True)
                    )
                    assert mean == pytest.approx(0.0, abs=1e-9)
                lucky += any(abs(x) > 0 for luck in per_outcome for x in luck)
    assert lucky > 20  # many rolls had a tithe on some outcome


def test_roll_luck_refuses_a_state_that_does_not_roll() -> None:
    state = State.new(3)
    with pytest.raises(ValueError, match="expected a state about to roll, found phase ORIENT"):
        roll_luck(state, state)
