"""random_playouts: results, determinism, rewards, the weighted policy."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from marrakech import (
    BGA,
    STANDARD,
    RuleSet,
    State,
    parse_action,
    random_action,
    random_game,
    splitmix,
)
from marrakech.actions import DRAWS, ORIENTS, ROLLS, Action
from marrakech.position import Phase
from marrakech.rules import DIE_FACES

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import PlayoutResult, random_playouts  # noqa: E402


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shapes_and_types(players: int) -> None:
    result = random_playouts(State.new(players, BGA), 50, seed=1)
    assert isinstance(result, PlayoutResult)
    assert result.scores.shape == (50, players) and result.scores.dtype == np.int32
    assert result.money.shape == (50, players)
    assert result.ranks.shape == (50, players) and result.ranks.dtype == np.int8
    assert result.plies.shape == (50,)
    assert (result.ranks.min(axis=1) == 1).all()
    assert ((result.ranks >= 1) & (result.ranks <= players)).all()


def test_deterministic_for_a_seed() -> None:
    a = random_playouts(State.new(4), 200, seed=5)
    b = random_playouts(State.new(4), 200, seed=5)
    c = random_playouts(State.new(4), 200, seed=6)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.plies, b.plies)
    assert not np.array_equal(a.scores, c.scores)


def test_scores_are_money_plus_squares_and_money_is_kept() -> None:
    """R20; tithes only move dirhams between seats (R11), so the total stays 30 each."""
    result = random_playouts(State.new(4), 300, seed=2)
    out = result.eliminated == 0
    assert (result.money[out].sum(axis=1) == 120).all()
    assert (result.scores >= result.money).all()


def test_from_any_position_chance_and_end_included() -> None:
    state = State.new(3).apply(parse_action("S"))  # a ROLL chance node
    result = random_playouts(state, 20, seed=0)
    assert (result.turns == 29).all()  # 30 carpets in all: the first turn already began
    final, _ = random_game(State.new(2), random.Random(1))
    ended = random_playouts(final, 7, seed=0)
    assert (ended.plies == 0).all()
    assert (ended.scores == np.array(final.scores())).all()
    assert (ended.ranks == np.array(final.ranks())).all()


def test_statistics_match_the_core() -> None:
    """Uniform playouts and core random games agree on average length and placements."""
    games = 400
    rng = random.Random(3)
    plies = places = options = 0
    for _ in range(games):
        state = State.new(4)
        while not state.is_terminal:
            if state.phase.name == "PLACE":
                places += 1
                options += len(state.legal_actions())
            state = state.apply(random_action(state, rng))
            plies += 1
    result = random_playouts(State.new(4), 20_000, seed=3)
    assert abs(result.plies.mean() - plies / games) < 1.0
    assert abs(result.place_options.sum() / result.places.sum() - options / places) < 0.1


def core_playouts(start: State, n: int, seed: int) -> list[list[int]]:
    """The uniform playouts of the core: per game, the kernel's result row (scores,
    dirhams, ranks, then the 7 counters), each decision and chance outcome drawn from the
    playout stream in the kernel's order (orient: 3 outcomes; roll: a face of the die;
    place: a legal placement in id order; draw: a carpet of the pile)."""
    stream = splitmix.mix64(seed ^ splitmix.SALT_PLAYOUTS)
    games = []
    for _ in range(n):
        state = start
        plies = turns = tithes = dirhams = places = options = 0
        while not state.is_terminal:
            action: Action
            if state.phase == Phase.ORIENT:
                stream, k = splitmix.below(stream, 3)
                action = ORIENTS[k]
                turns += 1
            elif state.phase == Phase.ROLL:
                stream, face = splitmix.below(stream, len(DIE_FACES))
                action = ROLLS[DIE_FACES[face] - 1]
            elif state.phase == Phase.PLACE:
                legal = sorted(state.legal_actions(), key=lambda a: a.id)
                places += 1
                options += len(legal)
                stream, k = splitmix.below(stream, len(legal))
                action = legal[k]
            else:
                pile = state.draw_pile
                assert pile is not None
                first = state.hand[pile]
                stream, k = splitmix.below(stream, first + state.hand[pile + 2])
                action = DRAWS[pile if k < first else pile + 2]
            tithe = state.describe(action).tithe
            if tithe is not None:
                tithes += 1
                dirhams += tithe.paid
            state = state.apply(action)
            plies += 1
        out = len(state.eliminated) - len(start.eliminated)
        counters = [plies, turns, tithes, dirhams, out, places, options]
        games.append([*state.scores(), *state.money, *state.ranks(), *counters])
    return games


#: Every loop of the uniform playouts: the standard rules' own (at 2, 3, 4 players) and
#: the shared one of other rule sets (the orient-last and own-cover options, R31, R32),
#: with little money so that seats go out (R13) and games end early (R19).
POOR = RuleSet(carpets=(6, 5, 6), money=3, own_cover=True)
RULE_SETS = [STANDARD, BGA, replace(BGA, orient_last=True), POOR, replace(POOR, orient_last=True)]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", RULE_SETS, ids=[r.token() or "standard" for r in RULE_SETS])
def test_uniform_playouts_play_the_cores_games(players: int, rules: RuleSet) -> None:
    """The same stream gives the same games as the core's rules, from the opening and
    from a position in the middle of a game (a seat to move after some placements)."""
    opening = State.new(players, rules, first_seat=1)
    _, actions = random_game(opening, random.Random(players))
    middle = opening
    for action in actions[: len(actions) // 2]:
        middle = middle.apply(action)
    for start in (opening, middle):
        result = random_playouts(start, 30, seed=players)
        counters = [result.plies, result.turns, result.tithes, result.tithe_dirhams]
        counters += [result.eliminated, result.places, result.place_options]
        ours = np.column_stack([result.scores, result.money, result.ranks, *counters])
        assert ours.tolist() == core_playouts(start, 30, seed=players), start.notation()


def test_rewards() -> None:
    result = random_playouts(State.new(4), 500, seed=9)
    values = result.rank_values()
    assert np.allclose(values.sum(axis=1), 2.0)
    assert values.min() >= 0 and values.max() <= 1
    assert np.allclose(result.win_shares().sum(axis=1), 1.0)
    mean = result.mean_rank_reward()
    assert mean.shape == (4,) and np.isclose(mean.sum(), 2.0)
    shares = result.mean_win_share()
    assert np.isclose(shares.sum(), 1.0)
    ranks = np.array([[1, 1, 3, 4]], dtype=np.int8)
    tied = PlayoutResult(ranks, ranks, ranks, *(np.zeros(1, np.int32),) * 7)
    assert tied.rank_values().tolist() == [[5 / 6, 5 / 6, 1 / 3, 0.0]]
    assert tied.win_shares().tolist() == [[0.5, 0.5, 0.0, 0.0]]


def test_weighted_policy_changes_play() -> None:
    """Covering opponents hides squares (fewer visible in all) and breaks their regions
    (smaller tithes); spreading on empty squares does the opposite."""
    start = State.new(4, STANDARD)
    uniform = random_playouts(start, 3000, seed=1, weights=(1, 1, 1, 1, 1, 1))
    cover = random_playouts(start, 3000, seed=1, weights=(1, 1, 1, 0, 1, 0))
    spread = random_playouts(start, 3000, seed=1, weights=(1, 1, 1, 1, 0, 0))
    total = {
        name: r.scores.sum(axis=1).mean()
        for name, r in (("uniform", uniform), ("cover", cover), ("spread", spread))
    }
    assert total["cover"] < total["uniform"] - 4 < total["spread"] - 8
    assert cover.tithe_dirhams.mean() < uniform.tithe_dirhams.mean() < spread.tithe_dirhams.mean()
    # all legal placements weighing 0 falls back to a uniform choice
    assert random_playouts(start, 100, seed=1, weights=(1, 1, 1, 0, 0, 0)).n == 100


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="expected 6 policy weights"):
        random_playouts(State.new(4), 1, 0, weights=(1, 2))
    with pytest.raises(ValueError, match="finite and >= 0"):
        random_playouts(State.new(4), 1, 0, weights=(1, 1, 1, -1, 1, 1))
    with pytest.raises(ValueError, match="n must be"):
        random_playouts(State.new(4), -1, 0)
    with pytest.raises(TypeError, match="expected a marrakech State"):
        random_playouts("4", 1, 0)  # type: ignore[arg-type]
    assert random_playouts(State.new(4), 0, 0).scores.shape == (0, 4)


@pytest.mark.parametrize("policy", ["uniform", "weighted", "informed"])
def test_r32_every_playout_loop_keeps_the_starts_options(policy: str) -> None:
    """Each playout begins as a copy of the start row (``kernels.reset_row``), its rule
    options' flags word included. Under R32 the seat after one put out by a tithe (R13)
    rolls at once, as the first seat does, so a game has more rolls than orientations;
    under the rulebook each roll follows one (3 players: no draws). Rolls are the plies
    that are neither orientations nor placements; little money puts seats out."""
    chosen = {"uniform": {}, "weighted": {"weights": (1, 2, 1, 1, 3, 1)}}
    policies: dict[str, dict[str, Any]] = {**chosen, "informed": {"informed": True}}
    for rules in (POOR, replace(POOR, orient_last=True)):
        result = random_playouts(State.new(3, rules), 200, seed=5, **policies[policy])
        extra_rolls = result.plies - result.places - 2 * result.turns
        if rules.orient_last:
            assert (extra_rolls >= 1).all() and (extra_rolls <= 1 + result.eliminated).all()
            assert extra_rolls.sum() > result.n  # the option read after a seat went out
        else:
            assert not extra_rolls.any()
