"""Winning chances (the learned value) and ``marrakech analyse``."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest

from marrakech import State, parse_rules
from marrakech.bots import make_bot
from marrakech.bots.analysis import analyse_game, expected_margins, hint, winning_chances
from marrakech.bots.value import ValueModel, load_value, progress, static_value
from marrakech.cli import main
from marrakech.errors import MarrakechError
from marrakech.playout import random_game
from marrakech.record import GameRecord


def game(players: int, seed: int, rules: str = "standard") -> GameRecord:
    start = State.new(players, parse_rules(rules))
    _, actions = random_game(start, random.Random(seed))
    return GameRecord.from_actions(start, actions, seats=tuple(f"bot:{s}" for s in range(players)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_chances_are_probabilities_and_exact_at_the_end(players: int) -> None:
    record = game(players, seed=players)
    for state in record.states():
        chances = winning_chances(state)
        assert len(chances) == players and sum(chances) == pytest.approx(1.0, abs=1e-5)
        assert all(0.0 <= c <= 1.0 for c in chances)
        for seat in state.eliminated:
            assert chances[seat] == 0.0  # R13: out, cannot win
    final = record.final_state()
    assert winning_chances(final) == tuple(round(x, 6) for x in final.outcome().win_shares)


@pytest.mark.parametrize("players", [3, 4])
def test_the_opening_is_even_but_for_the_first_move(players: int) -> None:
    for first in range(players):
        chances = winning_chances(State.new(players, first_seat=first))
        others = {c for seat, c in enumerate(chances) if seat != first}
        assert len(others) == 1 and abs(chances[first] - others.pop()) < 0.05


def test_bad_input_is_explained() -> None:
    with pytest.raises(TypeError, match="expected a marrakech State, found str"):
        winning_chances("d4")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a GameRecord, found list"):
        analyse_game([])  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", ["standard", "standard+orient-last"])
def test_a_whole_four_player_game_is_analysed_turn_by_turn(rules: str) -> None:
    # (Its speed: benchmarks/bench_search.py --analyse prints seconds per game.)
    record = game(4, seed=8, rules=rules)
    analysis = analyse_game(record)
    turns = analysis.turns
    assert turns[0].turn == 0 and turns[0].seat is None
    assert [t.turn for t in turns] == list(range(len(turns)))
    # every action of the game belongs to exactly one turn, in order
    played = [a for t in turns for a in t.actions]
    assert played == list(record.actions)
    assert all(sum(str(a).startswith("r") for a in t.actions) == 1 for t in turns[1:])
    assert turns[-1].chances == tuple(
        round(x, 6) for x in record.final_state().outcome().win_shares
    )
    swings = analysis.swings(4)
    assert len(swings) == 4
    sizes = [abs(s.change) for s in swings]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] == max(
        abs(b.chances[s] - a.chances[s]) for a, b in itertools.pairwise(turns) for s in range(4)
    )


@pytest.mark.parametrize("rules", ["standard", "standard+orient-last"])
def test_r7_r32_two_player_reveals_belong_to_the_placer_s_turn(rules: str) -> None:
    record = game(2, seed=4, rules=rules)
    turns = analyse_game(record).turns[1:]
    assert [str(a)[0] for a in turns[0].actions[:2]] == ["+", "+"]  # the opening's reveals
    reveals = 0
    for turn in turns:  # a reveal of the placer's pile (R7) follows his placement and
        # ends his turn, or under R32 comes before his orientation, which ends it
        tokens = [str(a) for a in turn.actions[2 if turn is turns[0] else 0 :]]
        for index, token in enumerate(tokens):
            if token.startswith("+"):
                reveals += 1
                assert "-" in tokens[index - 1]
                after = tokens[index + 1 :]
                assert after == ([] if rules == "standard" else [tokens[-1]])
                assert rules == "standard" or tokens[-1] in ("L", "S", "R")
    assert reveals > 20
    played = [a for t in turns for a in t.actions]
    assert played == list(record.actions)


def test_the_command_prints_every_turn_and_the_swings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = game(3, seed=5)
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    assert main(["analyse", str(path), "--swings", "2"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "seat 0 (bot:0)" in lines[1]
    rows = [line for line in lines if line.strip() and line.split()[0].isdigit()]
    assert len(rows) == len(analyse_game(record).turns)
    opening = analyse_game(record).turns[0]
    assert rows[0].split()[2:] == [
        cell
        for c, m in zip(opening.chances, opening.margins, strict=True)
        for cell in (f"{c:.1%}", f"{m:+.1f}")
    ]
    assert "biggest swings" in out and out.count("  turn ") == 2


def test_the_command_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "nope"}), encoding="utf-8")
    assert main(["analyse", str(path)]) == 2
    assert "marrakech analyse:" in capsys.readouterr().err
    good = tmp_path / "good.json"
    good.write_text(game(2, seed=1).to_json(), encoding="utf-8")
    assert main(["analyse", str(good), "--game", "3"]) == 2
    assert "--game is for arena results" in capsys.readouterr().err
    assert main(["analyse", str(good), "--swings", "-1"]) == 2
    assert "--swings must be 0 or more, found -1" in capsys.readouterr().err


@pytest.mark.parametrize("players", [2, 3, 4])
def test_margins_sum_to_zero_and_are_exact_at_the_end(players: int) -> None:
    record = game(players, seed=10 + players)
    for state in record.states():
        margins = expected_margins(state)
        assert len(margins) == players and sum(margins) == pytest.approx(0.0, abs=0.02)
        for seat in state.eliminated:
            assert margins[seat] == 0.0  # R13: out
    final = record.final_state()
    scores = final.scores()
    live = [s for s in range(players) if s not in final.eliminated]
    if len(live) == 1:  # the others were eliminated: nobody left to be ahead of
        assert expected_margins(final) == (0.0,) * players
    for seat in live if len(live) > 1 else []:
        others = [scores[s] for s in live if s != seat]
        assert expected_margins(final)[seat] == pytest.approx(
            scores[seat] - sum(others) / len(others), abs=0.01
        )


@pytest.mark.parametrize("players", [2, 4])
def test_late_margins_foresee_the_final_ones(players: int) -> None:
    # The margin model must know who is ahead: with a fifth of the carpets still to
    # place, its margins follow the final ones closely (zero or flipped weights would not).
    predicted, final_margins = [], []
    for seed in range(12):
        record = game(players, seed=100 + seed)
        end = record.final_state()
        states = [s for s in record.states() if not s.is_terminal]
        late = next(s for s in states if progress(s) >= 0.8)
        scores = end.scores()
        live = [s for s in range(players) if s not in late.eliminated]
        for seat in live if len(live) > 1 else []:
            others = [scores[s] for s in live if s != seat]
            final_margins.append(scores[seat] - sum(others) / len(others))
            predicted.append(expected_margins(late)[seat])
    assert float(np.corrcoef(predicted, final_margins)[0, 1]) > 0.7


def test_a_value_without_margins_says_so() -> None:
    with pytest.raises(MarrakechError, match="has no margin model"):
        static_value(2).margins(State.new(players=2))
    with pytest.raises(ValueError, match="expected no margin weights or 14 finite ones"):
        ValueModel(2, (0.0,) * 14, {}, (1.0, 2.0))
    with pytest.raises(ValueError, match="this value is for 2 players, found a 3-player game"):
        load_value(2).margins(State.new(players=3))


@pytest.mark.parametrize(("players", "rules"), [(2, "standard"), (4, "standard+orient-last")])
def test_a_hint_is_the_search_s_move_with_every_option(players: int, rules: str) -> None:
    record = game(players, seed=20 + players, rules=rules)
    decisions = [s for s in record.states() if not s.is_chance and not s.is_terminal]
    for state in decisions[::15]:
        advice = hint(state, iterations=1500, seed=4)
        assert advice.seat == state.to_move
        assert sorted(o.action.id for o in advice.options) == state.legal_action_ids()
        assert all(0.0 <= o.chance <= 1.0 for o in advice.options)
        assert sum(o.share for o in advice.options) == pytest.approx(1.0, abs=1e-4)
        assert advice.options[0].share == max(o.share for o in advice.options)
        # the same search as the bot's: what `search` plays with the same budget and seed
        bot = make_bot("search@iterations=1500")
        assert advice.best == bot.choose(state, random.Random(4))
        assert hint(state, iterations=1500, seed=4) == advice  # a position, one hint


def test_a_hint_steers_away_from_ruin() -> None:
    # Red (seat 0) has 1 dirham; straight on, Assam stops on blue's d5-d6 half the time
    # (rolls 1 and 2): a tithe of 2 it cannot pay eliminates it (R13).
    state = State.from_notation("7/3Bs3/3Bn3/7/7/7/7 d4N 1,30,30 10,9,10 - - orient:0 standard")
    advice = hint(state)
    chances = {str(o.action): o.chance for o in advice.options}
    assert str(advice.best) != "S" and chances["S"] < advice.chance


def test_a_hint_is_only_for_a_decision() -> None:
    start = State.new(players=3)
    rolling = start.apply(start.legal_actions()[0])
    with pytest.raises(ValueError, match=r"a hint is for .* found the ROLL phase"):
        hint(rolling)
    with pytest.raises(ValueError, match="at least 1 iteration, found 0"):
        hint(start, iterations=0)
    with pytest.raises(TypeError, match="expected a marrakech State, found str"):
        hint("d4")  # type: ignore[arg-type]
