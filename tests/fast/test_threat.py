"""The compiled mirror of the coming roll's expected tithe (``kernels.roll_threat``,
``kernels.cheapest_threat``) gives the same floats as its home, ``marrakech.threat``,
on random positions of every player count and rule set (R9-R13, R31, R32)."""

from __future__ import annotations

import pytest

from marrakech import Phase, State
from marrakech.rules import ROLL_PROBABILITIES, RuleSet, owner_of
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


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_r11_r13_the_tithes_home_asks_what_the_core_asks(players: int, rules: RuleSet) -> None:
    """``kernels.owed`` (R12) and ``kernels.region_size`` (R11), which the step, the
    expected tithe and the ``greedy`` kernels call, say whether the core asks a tithe of
    the colour's owner and how much, for every roll of every ROLL position;
    ``kernels.roll_share`` is the roll's part of the expected tithe (R13: at most what
    the seat has)."""
    from marrakech import Roll

    tithes = 0
    for state in random_positions(players, rules, players, 4, lambda s: s.phase == Phase.ROLL):
        row = to_arrays(state)
        for steps in range(1, 5):
            event = state.describe(Roll(steps))
            landing = event.path[-1].square
            colour = state.colour_at(landing)
            if colour is None:
                assert event.tithe is None
                continue
            owner = owner_of(colour, players)
            owed = kernels.owed(row, owner, state.turn)
            assert owed == (event.tithe is not None), state.notation()
            assert kernels.region_size(row, landing) == len(state.region_at(landing))
            if event.tithe is not None:
                assert event.tithe.payee == owner
                tithes += 1
    assert tithes > 20
    chance = {steps: float(p) for steps, p in ROLL_PROBABILITIES.items()}
    assert kernels.roll_share(2, 5, 9) == (chance[2] * 5, 0.0)
    assert kernels.roll_share(4, 5, 3) == (chance[4] * 3, chance[4])  # pays 3 and is out
