"""The informed playout policy (``random_playouts(..., informed=...)``), which MCTS plays
out with: its orientation cost and placement value agree with the core, and it plays
like a sensible player (it walks into far fewer tithes than uniform play)."""

from __future__ import annotations

import random

import pytest

from marrakech import BGA, STANDARD, Phase, Place, State, random_action
from marrakech.geometry import NEIGHBOURS

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import kernels, random_playouts  # noqa: E402
from marrakech.fast.playouts import INFORMED_DEFAULT  # noqa: E402
from marrakech.fast.rows import to_arrays  # noqa: E402

RUIN = 30.0


def positions(phase: Phase, per_config: int = 40) -> list[State]:
    """Positions at ``phase`` from random games of every player count and rule set."""
    rng = random.Random(11)
    found: list[State] = []
    for players in (2, 3, 4):
        for rules in (STANDARD, BGA):
            seen: list[State] = []
            for _ in range(3):
                state = State.new(players, rules)
                while not state.is_terminal:
                    if state.phase is phase:
                        seen.append(state)
                    state = state.apply(random_action(state, rng))
            found.extend(rng.sample(seen, per_config))
    return found


def core_place_value(state: State, squares: tuple[int, int], params: tuple[float, ...]) -> float:
    """The informed placement value, recomputed from the core's board queries."""
    _, cover, grow, own, _ = params
    seat = state.turn
    colour = state.next_carpet(seat)
    touching = {n for square in squares for n in NEIGHBOURS[square]} - set(squares)
    value = grow * sum(1 for n in touching if state.colour_at(n) == colour)
    for square in squares:
        shown = state.colour_at(square)
        if shown is None:
            continue
        owner = shown % state.players
        if owner == seat:
            value -= own
        elif state.is_in(owner):
            value += cover * len(state.region_at(square))
    return value


def test_place_value_counts_covered_regions_and_touched_squares() -> None:
    params = (0.0, 1.5, 0.75, 2.0, RUIN)
    weights = np.array(params, dtype=np.float64)
    for state in positions(Phase.PLACE):
        row = to_arrays(state)
        for action in state.legal_actions():
            assert isinstance(action, Place)
            slot = action.id - 3
            got = kernels.place_value(row, slot, weights)
            assert got == pytest.approx(core_place_value(state, action.squares, params)), (
                state.notation(),
                action.token,
            )


@pytest.mark.parametrize("players", [2, 4])
def test_informed_players_avoid_tithes_and_still_finish(players: int) -> None:
    start = State.new(players)
    uniform = random_playouts(start, 2000, seed=4)
    informed = random_playouts(start, 2000, seed=4, informed=True)
    assert informed.tithe_dirhams.mean() < 0.6 * uniform.tithe_dirhams.mean()
    assert informed.eliminated.mean() < uniform.eliminated.mean()
    # Games where no seat went out lay every carpet (R19): one turn per carpet.
    carpets = 4 * STANDARD.carpets_per_colour(players)
    assert (informed.turns[informed.eliminated == 0] == carpets).all()
    # epsilon = 1: every decision uniform again, so as many tithes as uniform play
    careless = random_playouts(start, 2000, seed=4, informed=(1.0, *INFORMED_DEFAULT[1:]))
    assert careless.tithe_dirhams.mean() == pytest.approx(uniform.tithe_dirhams.mean(), rel=0.1)


def test_informed_playouts_are_deterministic_for_a_seed() -> None:
    a = random_playouts(State.new(3), 300, seed=8, informed=True)
    b = random_playouts(State.new(3), 300, seed=8, informed=True)
    c = random_playouts(State.new(3), 300, seed=9, informed=True)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.plies, b.plies)
    assert not np.array_equal(a.scores, c.scores)


def test_bad_informed_parameters() -> None:
    with pytest.raises(ValueError, match=r"expected 5 informed-policy parameters \(epsilon"):
        random_playouts(State.new(4), 1, 0, informed=(0.1, 1.0))
    with pytest.raises(ValueError, match="epsilon <= 1, found"):
        random_playouts(State.new(4), 1, 0, informed=(1.5, 1, 1, 1, 1))
    with pytest.raises(ValueError, match="finite and >= 0"):
        random_playouts(State.new(4), 1, 0, informed=(0.1, -1, 1, 1, 1))
    with pytest.raises(ValueError, match="found both weights and informed"):
        random_playouts(State.new(4), 1, 0, weights=(1,) * 6, informed=True)
