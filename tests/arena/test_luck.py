"""The arena and dice luck: results carry it, tables correct win shares for it."""

from __future__ import annotations

import itertools
import math
import pickle
import random
from pathlib import Path

import pytest

from marrakech.arena import MatchConfig, read_results, run_match, summarise
from marrakech.arena.match import play_game
from marrakech.arena.stats import MIN_CORRECTED, format_table, luck_corrected, wilson
from marrakech.luck import dice_luck
from marrakech.state import Phase


def test_luck_has_mean_zero_even_for_the_seat_that_walks_into_tithes() -> None:
    # `random` pays far more tithes than it receives against `greedy`, but luck is
    # measured against each roll's own expectation, so it stays centred on zero.
    config = MatchConfig(players=2, bots=("random", "greedy"), games=60, seed=5)
    lucks, net_tithes = [], []
    for game in run_match(config, workers=1).games:
        seat = game.seats.index("random")
        lucks.append(dice_luck(game.record)[seat])
        states = list(game.record.states())
        net_tithes.append(
            sum(
                after.money[seat] - before.money[seat]
                for before, after in itertools.pairwise(states)
                if before.phase is Phase.ROLL
            )
        )
    assert sum(net_tithes) / len(net_tithes) < -10
    mean = sum(lucks) / len(lucks)
    sd = math.sqrt(sum((x - mean) ** 2 for x in lucks) / (len(lucks) - 1))
    assert sd > 3
    assert abs(mean) < 4 * sd / math.sqrt(len(lucks))


def test_luck_corrected_keeps_the_raw_share_on_small_or_luckless_samples() -> None:
    wins = [1.0, 0.0, 1.0]
    assert luck_corrected(wins, [3.0, -1.0, 2.0]) == (2 / 3, *wilson(2, 3))
    many = [1.0, 0.0] * MIN_CORRECTED
    assert luck_corrected(many, [0.0] * len(many)) == (0.5, *wilson(MIN_CORRECTED, len(many)))
    sweep = [1.0] * MIN_CORRECTED  # nothing to explain: not a zero-width interval
    spread = [float(i % 7 - 3) for i in range(MIN_CORRECTED)]
    assert luck_corrected(sweep, spread) == (1.0, *wilson(MIN_CORRECTED, MIN_CORRECTED))
    with pytest.raises(ValueError, match="expected one luck per win, found 2 wins and 1 lucks"):
        luck_corrected([1.0, 0.0], [0.0])


def test_luck_corrected_is_the_same_share_with_a_narrower_interval() -> None:
    # Games where the result is skill plus luck: a stronger seat (edge 4) wins when
    # edge + luck + the rest > 0. The true share is known; both estimates must cover
    # it, and the corrected one with a much narrower interval.
    rng = random.Random(3)
    covered_raw = covered_corrected = 0
    narrower = 0
    truth = 0.5 + 0.5 * math.erf(4 / math.sqrt(2 * (10**2 + 6**2)))
    for _ in range(40):
        lucks = [rng.gauss(0, 10) for _ in range(400)]
        wins = [1.0 if 4 + x + rng.gauss(0, 6) > 0 else 0.0 for x in lucks]
        share, low, high = luck_corrected(wins, lucks)
        raw_low, raw_high = wilson(sum(wins), len(wins))
        covered_raw += raw_low <= truth <= raw_high
        covered_corrected += low <= truth <= high
        narrower += (high - low) < 0.8 * (raw_high - raw_low)
        assert abs(share - truth) < 0.08
    assert covered_corrected >= 34 and covered_raw >= 34  # about 95% of 40
    assert narrower == 40


def test_luck_corrected_leaves_a_share_unrelated_to_luck_alone() -> None:
    rng = random.Random(4)
    lucks = [rng.gauss(0, 10) for _ in range(400)]
    wins = [1.0 if rng.random() < 0.6 else 0.0 for _ in lucks]
    share, low, high = luck_corrected(wins, lucks)
    raw = sum(wins) / len(wins)
    raw_low, raw_high = wilson(sum(wins), len(wins))
    assert share == pytest.approx(raw, abs=0.02)
    assert (high - low) == pytest.approx(raw_high - raw_low, rel=0.1)


def test_the_arena_table_reports_luck_and_the_corrected_share() -> None:
    config = MatchConfig(players=2, bots=("random", "random:1"), games=40, seed=2)
    outcome = run_match(config, workers=1)
    rows = {r.bot: r for r in summarise(outcome.games)}
    first, second = rows["random"], rows["random:1"]
    # Two seats, zero-sum luck: one bot's mean luck is the other's loss.
    assert first.luck == pytest.approx(-second.luck, abs=1e-9)
    assert first.luck != 0.0
    for row in rows.values():
        assert row.corrected_low <= row.corrected_share <= row.corrected_high
    assert first.corrected_share + second.corrected_share == pytest.approx(1.0, abs=1e-9)
    table = format_table(list(rows.values()))
    assert "luck-corrected" in table and "luck" in table


def test_a_game_result_carries_its_luck_from_the_worker(tmp_path: Path) -> None:
    config = MatchConfig(players=3, bots=("greedy", "random", "random"), games=3, seed=4)
    result = play_game(config, 1)
    assert "luck" in vars(result)  # computed where the game was played
    travelled = pickle.loads(pickle.dumps(result))
    assert vars(travelled)["luck"] == result.luck == dice_luck(result.record)
    run_match(config, workers=1, out=tmp_path / "m.jsonl")
    _, stored = read_results(tmp_path / "m.jsonl")
    assert stored[1].luck == result.luck  # and the same, replayed from the file
