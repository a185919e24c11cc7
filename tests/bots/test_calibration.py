"""Calibrated winning chances (issue 27, item 5): ``marrakech.bots.calibration`` and
``scripts/calibration.py``."""

from __future__ import annotations

import fnmatch
import json
import random
import tomllib
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from marrakech import State
from marrakech.arena.runner import read_results
from marrakech.bots.analysis import analyse_game, hint, winning_chances
from marrakech.bots.calibration import (
    CALIBRATION_FILE,
    MIN_SCALE,
    Calibration,
    fit_scales,
    knot_weights,
    load_calibration,
)
from marrakech.bots.value import load_value, progress
from marrakech.playout import random_game
from marrakech.record import GameRecord
from marrakech.state import Phase
from tests.bots.conftest import load_script

ROOT = Path(__file__).resolve().parents[2]


def record(players: int, seed: int) -> GameRecord:
    start = State.new(players)
    _, actions = random_game(start, random.Random(seed))
    return GameRecord.from_actions(start, actions)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_calibrated_chances_are_a_distribution_in_the_value_s_order(players: int) -> None:
    model = load_value(players)
    calibration = load_calibration(players)
    changed = 0
    for state in record(players, seed=10 + players).states():
        chances = winning_chances(state)
        assert len(chances) == players
        assert sum(chances) == pytest.approx(1.0, abs=1e-5)
        assert all(0.0 <= c <= 1.0 for c in chances)
        if state.is_terminal:
            continue
        raw = model.chances(state)
        # What the function returns is the packaged map of this player count, applied.
        expected = calibration.apply(raw, progress(state))
        assert chances == pytest.approx(expected, abs=1e-6)
        changed += max(abs(c - r) for c, r in zip(chances, raw, strict=True)) > 1e-3
        for a in range(players):
            for b in range(players):
                if raw[a] > raw[b] + 1e-9:  # order kept (ties may round alike)
                    assert chances[a] >= chances[b]
        for seat in state.eliminated:
            assert chances[seat] == 0.0  # R13
    assert changed > 0  # the packaged map is a fit, not the identity


def test_the_game_analysis_reads_the_same_calibrated_chances() -> None:
    game = record(3, seed=4)
    states = list(game.states())
    for turn in analyse_game(game).turns:
        assert turn.chances == winning_chances(states[turn.ply])


def test_each_player_count_has_its_own_map() -> None:
    maps = {players: load_calibration(players) for players in (2, 3, 4)}
    assert len({m.scales for m in maps.values()}) == 3
    with pytest.raises(ValueError, match="expected 4 chances"):
        maps[4].apply([0.5, 0.3, 0.2], progress=0.5)
    # The same chances at two players and at four are recalibrated differently.
    two = maps[2].apply([0.7, 0.3], 0.5)
    other = Calibration(2, maps[4].knots, maps[4].scales).apply([0.7, 0.3], 0.5)
    assert two != pytest.approx(other)


def test_the_map_file_loads_from_the_package_and_ships_in_the_wheel() -> None:
    text = resources.files("marrakech.bots").joinpath("data", CALIBRATION_FILE).read_text()
    data = json.loads(text)
    assert sorted(data["players"]) == ["2", "3", "4"]
    assert data["source"]["method"] == "scripts/calibration.py"
    for players in (2, 3, 4):
        entry = data["players"][str(players)]
        assert load_calibration(players).scales == tuple(entry["scales"])
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["marrakech"]
    assert any(fnmatch.fnmatch(f"bots/data/{CALIBRATION_FILE}", p) for p in patterns)


def test_the_scale_is_linear_between_knots_and_flat_beyond() -> None:
    calibration = Calibration(3, (0.2, 0.6), (1.0, 0.6))
    assert calibration.scale(0.0) == 1.0 and calibration.scale(1.0) == 0.6
    assert calibration.scale(0.4) == pytest.approx(0.8)
    weights = knot_weights(np.array([0.0, 0.4, 0.9]), (0.2, 0.6))
    assert weights @ np.array([1.0, 0.6]) == pytest.approx([1.0, 0.8, 0.6])
    # A scale below 1 flattens the chances, above 1 sharpens them; a seat out keeps 0.
    flat = calibration.apply([0.6, 0.4, 0.0], 1.0)
    assert flat[2] == 0.0 and 0.5 < flat[0] < 0.6
    sharp = Calibration(3, (0.0,), (2.0,)).apply([0.6, 0.4, 0.0], 0.5)
    assert sharp[0] == pytest.approx(0.36 / 0.52)


def test_bad_maps_and_chances_are_refused() -> None:
    with pytest.raises(ValueError, match="positive finite scales"):
        Calibration(2, (0.0,), (0.0,))
    with pytest.raises(ValueError, match="increasing knots"):
        Calibration(2, (0.5, 0.5), (1.0, 1.0))
    with pytest.raises(ValueError, match="as many scales as knots"):
        Calibration(2, (0.0, 1.0), (1.0,))
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        Calibration(5, (0.0,), (1.0,))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        load_calibration(2).apply([1.5, -0.5], 0.5)


def synthetic(
    scale_at: list[float], positions: int, players: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chances that are over- or under-confident by a known scale: the winner is drawn
    from ``p ** a(t)`` normalised, ``a`` linear in progress through ``scale_at``."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 1.2, size=(positions, players))
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    t = rng.uniform(0.0, 1.0, size=positions)
    a = np.interp(t, np.linspace(0.0, 1.0, len(scale_at)), scale_at)
    true = p ** a[:, None]
    true /= true.sum(axis=1, keepdims=True)
    winners = (rng.uniform(size=(positions, 1)) > np.cumsum(true, axis=1)).sum(axis=1)
    wins = np.zeros_like(p)
    wins[np.arange(positions), winners] = 1.0
    return p, wins, t


@pytest.mark.parametrize(("players", "truth"), [(2, [0.7, 0.7]), (4, [1.4, 0.6])])
def test_a_fit_on_synthetic_games_recovers_the_known_scale(
    players: int, truth: list[float]
) -> None:
    p, wins, t = synthetic(truth, 40_000, players, seed=players)
    scales = fit_scales(p, wins, t, knots=(0.0, 1.0))
    assert scales == pytest.approx(truth, abs=0.08)
    # Already calibrated chances are left (nearly) alone.
    p, wins, t = synthetic([1.0, 1.0], 40_000, players, seed=9)
    assert fit_scales(p, wins, t, knots=(0.0, 0.5, 1.0)) == pytest.approx([1.0] * 3, abs=0.1)


def test_the_script_s_slope_and_brier_tell_over_confidence_apart() -> None:
    script = load_script("calibration")
    p, wins, _ = synthetic([0.6, 0.6], 20_000, 2, seed=3)
    over = script.score(p, wins)
    # Chances too sure of themselves by 1 / 0.6: the recalibration slope finds 0.6.
    assert over.slope == pytest.approx(0.6, abs=0.05)
    fixed = Calibration(2, (0.0,), (0.6,))
    after = script.score(np.array([fixed.apply(list(row), 0.5) for row in p]), wins)
    assert after.slope == pytest.approx(1.0, abs=0.08)
    assert after.brier < over.brier < over.brier_uniform
    assert after.skill > over.skill > 0
    for _, seats, chance, won in after.rows:  # reliability: each bin's chance ~ its wins
        if seats > 2000:
            assert abs(chance - won) < 0.03


def test_the_script_rewrites_only_its_part_of_the_doc(tmp_path: Path) -> None:
    script = load_script("calibration")
    doc = tmp_path / "bots.md"
    start, end = script.MARKERS
    doc.write_text(f"# Bots\n{start}\nold table\n{end}\nafter\n")
    script.write_docs("| new | table |", doc)
    assert doc.read_text() == f"# Bots\n{start}\n| new | table |\n{end}\nafter\n"
    doc.write_text("# Bots without markers\n")
    with pytest.raises(Exception, match="markers"):
        script.write_docs("| new |", doc)


@pytest.mark.parametrize("players", [2, 4])
def test_a_hint_lists_the_search_s_chances_recalibrated_in_order(players: int) -> None:
    from marrakech.bots.search import SearchBot

    # A decision half-way through a game, where the map is far from the identity.
    state = next(
        s
        for s in record(players, seed=21).states()
        if s.phase is Phase.ORIENT and progress(s) >= 0.4
    )
    advice = hint(state, iterations=2000, seed=5)
    rows = SearchBot(seconds=None, iterations=2000).statistics(state, random.Random(5))
    calibration = load_calibration(players)
    done = progress(state)
    assert [o.action for o in advice.options] == [a for a, _, _ in rows]
    for option, (_, _, raw) in zip(advice.options, rows, strict=True):
        assert option.chance == pytest.approx(calibration.apply_one(raw, players, done), abs=1e-6)
    by_raw = sorted(rows, key=lambda row: row[2])
    by_chance = sorted(advice.options, key=lambda o: o.chance)
    assert [a for a, _, _ in by_raw] == [o.action for o in by_chance]
    # At two players the seat's chance is recalibrated exactly as winning_chances does.
    two = load_calibration(2)
    assert two.apply_one(0.7, 2, 0.5) == pytest.approx(two.apply([0.7, 0.3], 0.5)[0])


def stored_sample(players: int, games: int) -> list[GameRecord]:
    """About ``games`` of the arena games the shipped map was fitted on: every n-th game
    of the results files it names (each file's games as many as it counted then: the
    files grow as matches go on), so the games and their mix of bots are the fit's."""
    script = load_script("calibration")
    shipped = resources.files("marrakech.bots").joinpath("data/calibration.json")
    files = json.loads(shipped.read_text("utf-8"))["source"]["files"]
    records = []
    for name, count in sorted(files.items()):
        config, results = read_results(script.ROOT / name)
        assert len(results) >= count, f"{name}: the fit read {count} games, {len(results)} left"
        if config.players == players:
            records += [result.record for result in results[:count]]
    step = max(1, len(records) // games)
    return records[::step]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_map_explains_stored_games_better_than_wrong_ones(players: int) -> None:
    """The packaged map must be there and be the fit: on stored games, at every turn, the
    winners are likelier under it than with no calibration, another player count's map,
    or the same map a quarter flatter or sharper (a map fitted on other data, or a bug in
    how it is read or applied, loses to one of them)."""
    script = load_script("calibration")
    data = script.positions(stored_sample(players, 200), every=1)
    shipped = load_calibration(players)

    def loss(scales: tuple[float, ...], knots: tuple[float, ...] = shipped.knots) -> float:
        return float(script.log_loss(Calibration(players, knots, scales), data))

    best = loss(shipped.scales)
    wrong = {
        "none": loss((1.0,), (0.0,)),
        "flatter": loss(tuple(s * 0.75 for s in shipped.scales)),
        "sharper": loss(tuple(s / 0.75 for s in shipped.scales)),
    }
    for other in {2, 3, 4} - {players}:
        theirs = load_calibration(other)
        wrong[f"{other} players'"] = loss(theirs.scales, theirs.knots)
    assert all(best < value for value in wrong.values()), (best, wrong)


def test_dense_knots_with_a_chosen_penalty_follow_a_sharp_late_rise() -> None:
    """The script's map (knots every sixteenth, the penalty chosen by cross-validation)
    recovers a sharpness that is flat most of the game and rises fast at the end, where
    five knots at 0, 25, .., 100% bend the line too early (issue 27: the slopes at 75%
    were 1.05-1.07 with them)."""
    script = load_script("calibration")
    truth = [0.7] * 9 + [0.7, 0.75, 0.8, 0.9, 1.1, 1.5, 2.2, 3.0]  # at the script's knots
    rng = np.random.default_rng(5)
    positions = 60_000
    logits = rng.normal(0.0, 1.0, size=(positions, 3))
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    t = rng.integers(1, 30, size=positions) / 30
    a = np.interp(t, script.KNOTS, truth)
    true = p ** a[:, None]
    true /= true.sum(axis=1, keepdims=True)
    winners = (rng.uniform(size=(positions, 1)) > np.cumsum(true, axis=1)).sum(axis=1)
    wins = np.zeros_like(p)
    wins[np.arange(positions), winners] = 1.0
    data = script.Positions(p, wins, t, np.arange(positions) // 10, np.full(positions, -1))
    calibration, smooth = script.fit(data, 3)
    assert smooth in script.SMOOTHNESS
    for stage in (0.25, 0.5, 0.75, 0.9):
        assert calibration.scale(stage) == pytest.approx(
            np.interp(stage, script.KNOTS, truth), abs=0.08
        )
    five = (0.0, 0.25, 0.5, 0.75, 1.0)
    coarse = Calibration(3, five, fit_scales(p, wins, t, five))
    assert abs(coarse.scale(0.75) - np.interp(0.75, script.KNOTS, truth)) > 0.1


def test_the_fit_keeps_scales_positive_and_bends_penalised() -> None:
    # Chances that point the wrong way (the least likely seat always wins): the best
    # sharpness would be negative, which would reverse the seats; the fit stops at the floor.
    p = np.array([[0.7, 0.3], [0.4, 0.6]] * 50)
    won = np.array([[0.0, 1.0], [1.0, 0.0]] * 50)
    assert fit_scales(p, won, np.full(100, 0.5), [0.0, 1.0]) == (MIN_SCALE, MIN_SCALE)
    # Positions only on the second half of the game: with a penalty on the bends the
    # knot at 0 (no data) continues the line the data draw; without, it stays near 1.
    p, wins, t = synthetic([0.5, 0.5], 20_000, 2, seed=11)
    t = 0.5 + t / 2
    free = fit_scales(p, wins, t, (0.0, 0.5, 1.0), ridge=1e-3)
    bent = fit_scales(p, wins, t, (0.0, 0.5, 1.0), smooth=1.0)
    assert free[0] == pytest.approx(1.0, abs=0.05)
    assert bent[0] == pytest.approx(2 * bent[1] - bent[2], abs=0.01)
    assert bent[1:] == pytest.approx([0.5, 0.5], abs=0.1)
    with pytest.raises(ValueError, match="smooth >= 0"):
        fit_scales(p, wins, t, (0.0, 1.0), smooth=-1.0)
