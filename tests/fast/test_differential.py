"""Differential tests: the kernels and the core reach the same states, tithes and scores.

Every named configuration (2, 3, 4 players; ``standard`` and ``bga``) plus a house
rule set with little money, where eliminations (R13) and the early end (R19) are common.
The default run plays a few hundred games per configuration; ``-m slow`` plays 10,000.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from dataclasses import replace

import numpy as np

from marrakech import State, parse_action
from marrakech.fast import from_arrays, kernels, to_arrays
from marrakech.rules import BGA, STANDARD, RuleSet

from .differential import drive_batch, drive_rows

POOR = RuleSet(carpets=(6, 5, 6), money=3, own_cover=True)  # eliminations galore
POOR_STRICT = RuleSet(carpets=(8, 8, 8), money=1, own_cover=False)
ORIENT_LAST = replace(BGA, orient_last=True)  # R32
POOR_ORIENT_LAST = replace(POOR, orient_last=True)
CONFIGS = [(p, r) for r in (STANDARD, BGA) for p in (2, 3, 4)] + [
    (p, r) for r in (POOR, POOR_STRICT, ORIENT_LAST, POOR_ORIENT_LAST) for p in (2, 3, 4)
]
IDS = [f"{p}p-{r.token()}" for p, r in CONFIGS]


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_rows_follow_the_core(players: int, rules: RuleSet) -> None:
    """R1-R21, R31: core-chosen actions forced into a kernel row (notation compared)."""
    tally = drive_rows(players, rules, games=12, seed=players * 7 + rules.money)
    assert tally.games == 12 and tally.tithes > 0


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_batch_follows_the_core(players: int, rules: RuleSet) -> None:
    """Batch-chosen actions and batch-sampled chance, followed by the core."""
    tally = drive_batch(players, rules, games=60, seed=players + rules.money, observe_every=7)
    assert tally.tithes > 0 and tally.observations > 0
    if rules.money < 5:
        assert tally.eliminations > 0


def test_the_poor_rule_sets_reach_every_ending() -> None:
    """R13, R19, R21: eliminations, a last seat standing, shared wins all happen."""
    tally = drive_batch(3, POOR, games=200, seed=5, notation=False)
    assert tally.eliminations > 50
    tally = drive_batch(4, STANDARD, games=300, seed=11, notation=False)
    assert tally.shared_wins > 0


@pytest.mark.slow
@pytest.mark.parametrize(("players", "rules"), CONFIGS[:6], ids=IDS[:6])
def test_batch_follows_the_core_10000_games(players: int, rules: RuleSet) -> None:
    """The long run: 10,000 games per player count and named rule set."""
    tally = drive_batch(players, rules, games=10_000, seed=2024 + players, notation=False)
    assert tally.games == 10_000


@pytest.mark.slow
@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_rows_follow_the_core_many_games(players: int, rules: RuleSet) -> None:
    tally = drive_rows(players, rules, games=500, seed=99 + players)
    assert tally.games == 500


@pytest.mark.parametrize("rules", [STANDARD, BGA, POOR], ids=lambda r: r.token())
def test_r32_a_kernel_row_reveals_the_placers_next_carpet_before_he_orients(
    rules: RuleSet,
) -> None:
    """R32 at 2 players, as Board Game Arena plays it: placement, the placer's pile
    reveals its next top (R7), his orientation, the next seat's roll; the kernels refuse
    the old order (an orientation before the reveal) as the core does."""
    state = State.new(2, replace(rules, orient_last=True), first_seat=1)
    row = to_arrays(state)
    phases = []
    for token in ["+R", "+B", "r2", "d5-e5", "+P", "L", "r3"]:
        action = parse_action(token)
        if token == "+P":  # the old order: orientation first
            assert not kernels.apply_action(row, np.int64(0))  # type: ignore[arg-type]
        assert kernels.apply_action(row, np.int64(action.id))  # type: ignore[arg-type]
        state = state.apply(action)
        assert from_arrays(row) == state
        phases.append(state.notation().split()[6])
    assert phases[3:6] == ["draw:1:1", "orient:1", "roll:0"]
