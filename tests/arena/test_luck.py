"""Dice luck (R3, R11-R13) and the luck-corrected win share."""

from __future__ import annotations

import itertools
import math
import pickle
import random
from pathlib import Path

import pytest

from marrakech import State, random_game
from marrakech.arena import MatchConfig, read_results, run_match, summarise
from marrakech.arena.luck import dice_luck, roll_luck
from marrakech.arena.match import play_game
from marrakech.arena.stats import MIN_CORRECTED, format_table, luck_corrected, wilson
from marrakech.bots.evaluation import roll_threat
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


def test_r11_the_expected_change_is_the_bots_expected_tithe() -> None:
    # Two implementations of the same expectation: the arena's (apply every roll) and
    # the bots' (walk Assam's paths over the board's regions, R10-R13).
    checked = 0
    for players in (2, 3, 4):
        for record in games(players, 4, seed=20 + players):
            for state in rolls(record):
                outcome = state.apply(state.chance_outcomes()[0][0])
                luck = roll_luck(state, outcome)
                changed = [outcome.money[s] - state.money[s] for s in range(players)]
                expected = [c - x for c, x in zip(changed, luck, strict=True)]
                paid, _, received = roll_threat(state, 1)  # 1: Assam's facing as chosen
                mover = state.turn
                for seat in range(players):
                    want = received[seat] - (paid if seat == mover else 0.0)
                    assert expected[seat] == pytest.approx(want, abs=1e-9), (state, seat)
                checked += 1
    assert checked > 100


def test_roll_luck_refuses_a_state_that_does_not_roll() -> None:
    state = State.new(3)
    with pytest.raises(ValueError, match="expected a state about to roll, found phase ORIENT"):
        roll_luck(state, state)


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
