"""The compiled mirror of the coming roll's expected tithe (``kernels.roll_threat``,
``kernels.cheapest_threat``) gives the same floats as its home, ``marrakech.threat``,
on random positions of every player count and rule set (R9-R13, R31, R32)."""

from __future__ import annotations

import pytest

from marrakech import Phase, State
from marrakech.rules import RuleSet
from marrakech.threat import cheapest_orient, roll_threat
from tests.fast.positions import CONFIGS, IDS, random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import kernels  # noqa: E402
from marrakech.fast.rows import to_arrays  # noqa: E402


def positions(players: int, rules: RuleSet, seed: int, games: int = 6) -> list[State]:
    """Every ORIENT and ROLL position of a few random games."""
    return random_positions(
        players, rules, seed, games, lambda state: state.phase in (Phase.ORIENT, Phase.ROLL)
    )


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
