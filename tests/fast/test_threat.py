"""The compiled mirror of the coming roll's expected tithe (``kernels.roll_threat``,
``kernels.cheapest_threat``) gives the same floats as its home, ``marrakech.threat``,
on random positions of every player count and rule set (R9-R13, R31, R32)."""

from __future__ import annotations

import random

import pytest

from marrakech import BGA, STANDARD, Phase, State, random_action
from marrakech.rules import RuleSet
from marrakech.threat import cheapest_orient, roll_threat

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import kernels  # noqa: E402
from marrakech.fast.rows import to_arrays  # noqa: E402

POOR = RuleSet(carpets=(6, 5, 6), money=3, own_cover=True)  # eliminations galore (R13)
RULES = (STANDARD, BGA, STANDARD.with_options(orient_last=True), POOR)
CONFIGS = [(players, rules) for players in (2, 3, 4) for rules in RULES]
IDS = [f"{p}p-{r.token()}" for p, r in CONFIGS]


def positions(players: int, rules: RuleSet, seed: int, games: int = 6) -> list[State]:
    """Every ORIENT and ROLL position of a few random games."""
    rng = random.Random(seed)
    found: list[State] = []
    for _ in range(games):
        state = State.new(players, rules)
        while not state.is_terminal:
            if state.phase in (Phase.ORIENT, Phase.ROLL):
                found.append(state)
            state = state.apply(random_action(state, rng))
    return found


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_r9_r13_compiled_roll_threat_equals_the_core(players: int, rules: RuleSet) -> None:
    received = np.zeros(4, dtype=np.float64)
    spare = np.zeros(4, dtype=np.float64)
    states = positions(players, rules, seed=players * 31 + rules.money)
    assert len(states) > 100
    for state in states:
        row = to_arrays(state)
        for turn_by in range(3):
            paid, eliminated, incomes = roll_threat(state, turn_by)
            # Bit for bit: the same terms summed in the same order.
            assert kernels.roll_threat(row, turn_by, received) == (paid, eliminated)
            assert received[:players].tolist() == incomes, state.notation()
            assert not received[players:].any()
        orient, paid, eliminated, incomes = cheapest_orient(state)
        assert kernels.cheapest_threat(row, received, spare) == (orient, paid, eliminated)
        assert received[:players].tolist() == incomes, state.notation()
