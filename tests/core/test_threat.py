"""``marrakech.threat``, the one home of the coming roll's expected tithe in floats,
against the rules applied (``preview``'s exact figures, the dice luck of ``luck``)."""

from __future__ import annotations

import random

import pytest

from marrakech import BGA, STANDARD, Phase, State, random_action
from marrakech.luck import roll_luck
from marrakech.preview import preview_orientations
from marrakech.rules import RuleSet
from marrakech.threat import RUIN_COST, cheapest_orient, roll_threat

CONFIGS = [
    (players, rules)
    for players in (2, 3, 4)
    for rules in (STANDARD, BGA, STANDARD.with_options(orient_last=True))
]
IDS = [f"{p}p-{r.token()}" for p, r in CONFIGS]
POOR = RuleSet(carpets=(6, 5, 6), money=3, own_cover=True)  # eliminations galore (R13)


def positions(players: int, rules: RuleSet, phase: Phase, games: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    found: list[State] = []
    for _ in range(games):
        state = State.new(players, rules)
        while not state.is_terminal:
            if state.phase is phase:
                found.append(state)
            state = state.apply(random_action(state, rng))
    return found


# Under orient-last (R32) an orientation's preview is the next seat's roll, not the
# orienting seat's: the exact comparison takes the rule sets without it.
EXACT = [(p, r) for p, r in CONFIGS if not r.orient_last] + [(2, POOR), (3, POOR), (4, POOR)]


@pytest.mark.parametrize(("players", "rules"), EXACT, ids=[f"{p}p-{r.token()}" for p, r in EXACT])
def test_r9_r13_roll_threat_is_the_previews_exact_tithe(players: int, rules: RuleSet) -> None:
    # Each orientation's expected tithe and elimination chance, against the preview's
    # figures computed by applying every roll (R10-R13).
    for state in positions(players, rules, Phase.ORIENT, games=3, seed=players):
        for preview in preview_orientations(state):
            paid, eliminated, received = roll_threat(state, preview.orient.id)
            assert paid == pytest.approx(float(preview.expected_tithe), abs=1e-12)
            assert eliminated == pytest.approx(float(preview.elimination_chance), abs=1e-12)
            assert sum(received) == pytest.approx(paid, abs=1e-12)


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_r11_roll_threat_is_the_engines_expected_tithe(players: int, rules: RuleSet) -> None:
    # Before a roll (facing chosen): the money each seat expects to gain or lose is
    # what a roll changes minus its luck (the core's dice luck, R3).
    checked = 0
    for state in positions(players, rules, Phase.ROLL, games=4, seed=20 + players):
        outcome = state.apply(state.chance_outcomes()[0][0])
        luck = roll_luck(state, outcome)
        paid, _, received = roll_threat(state, 1)  # 1: the facing as chosen
        for seat in range(players):
            changed = outcome.money[seat] - state.money[seat]
            want = received[seat] - (paid if seat == state.turn else 0.0)
            assert changed - luck[seat] == pytest.approx(want, abs=1e-9)
        checked += 1
    assert checked > 20


def test_r9_cheapest_orient_weighs_ruin_and_keeps_the_facing_on_ties() -> None:
    for state in positions(3, POOR, Phase.ORIENT, games=6, seed=5):
        orient, paid, eliminated, received = cheapest_orient(state)
        costs = [roll_threat(state, k) for k in range(3)]
        total = [c[0] + RUIN_COST * c[1] for c in costs]
        assert total[orient] == min(total)
        assert (paid, eliminated, received) == costs[orient]
        if total[1] == min(total):
            assert orient == 1  # R9: keeping the facing wins a tie
