"""The static evaluation and the greedy bot's choices in set-up positions (R9-R16)."""

from __future__ import annotations

import random

import pytest

from marrakech import Orient, State
from marrakech.bots import GreedyBot
from marrakech.bots.evaluation import (
    ELIMINATED,
    TUNED_WEIGHTS,
    Weights,
    evaluate,
    resolve_weights,
    utility,
)
from marrakech.position import region_summary
from marrakech.threat import cheapest_orient, roll_threat

# Red (seat 0) shows one region of 4 squares: d5-e5 and e6-e7 touch through e5-e6 (R11).
# Blue lies on a1-b1. Yellow (seat 2) is to orient Assam, on d4 facing North.
POSITION = "4Rs2/4Rn2/3ReRw2/7/7/7/BeBw5 d4N 30,30,30 8,9,10 - - orient:2 standard"


def test_regions_are_counted_by_colour_through_sides() -> None:
    state = State.from_notation(POSITION)
    size_at, colour_at, counts, squares_sq = region_summary(state.board)
    d5 = 4 * 7 + 3
    assert size_at[d5] == 4 and colour_at[d5] == 0
    assert counts == (4, 2, 0, 0)
    assert squares_sq[0] == 16 and squares_sq[1] == 4
    assert colour_at[24] == -1 and size_at[24] == 0


def test_the_mover_is_expected_to_avoid_the_big_region() -> None:
    # Straight ahead, a roll of 1 stops on d5: a tithe of 4 to red.
    state = State.from_notation(POSITION)
    paid_straight, _, received = roll_threat(state, 1)
    assert paid_straight > 0 and received[0] == pytest.approx(paid_straight)
    best = cheapest_orient(state)[0]
    assert best != 1
    paid, _, _ = roll_threat(state, best)
    assert paid < paid_straight


def test_greedy_turns_assam_away_from_an_expensive_region() -> None:
    state = State.from_notation(POSITION)
    action = GreedyBot().choose(state, random.Random(0))
    assert action != Orient(0)


def test_elimination_and_end_values() -> None:
    state = State.from_notation(
        "4Rs2/4Rn2/3ReRw2/7/7/7/BeBw5 d4N 30,0,30 8,0,10 - 1 orient:2 standard"
    )
    values = evaluate(state)
    assert values[1] < ELIMINATED / 2
    assert utility(values, 0) > 0  # seat 0 leads the seats still in
    opening = evaluate(State.new(players=4))
    assert opening == pytest.approx([30.0] * 4)
    assert utility(opening, 2) == pytest.approx(0.0)


def test_weights_change_the_value_of_squares_and_regions() -> None:
    """R20 counts a visible square as a dirham; the evaluation may weigh it more (it also
    brings tithes, R11). None takes the tuned weight of the player count."""
    state = State.from_notation(POSITION)
    base = evaluate(state, Weights(area=1.0, region=0.0, threat=0.0))
    assert base[0] == pytest.approx(30 + 4) and base[1] == pytest.approx(30 + 2)
    heavier = evaluate(state, Weights(area=2.0, region=0.0, threat=0.0))
    assert heavier[0] == pytest.approx(30 + 8)
    regions = evaluate(state, Weights(area=1.0, region=0.5, threat=0.0))
    assert regions[0] == pytest.approx(30 + 4 + 0.5 * 16)
    assert evaluate(state) == evaluate(state, TUNED_WEIGHTS[3])
    assert resolve_weights(Weights(area=1.2), 2) == (1.2, *resolve_weights(None, 2)[1:])
    assert TUNED_WEIGHTS[2] != TUNED_WEIGHTS[4]


def test_bots_take_the_weights_as_keywords_and_refuse_bad_ones() -> None:
    from marrakech.bots import make_bot

    greedy = make_bot("greedy@area=1.5@threat=0.5")
    assert isinstance(greedy, GreedyBot)
    assert greedy.weights == Weights(area=1.5, region=None, threat=0.5)
    # No weight given: the tuned weights of each player count.
    assert resolve_weights(GreedyBot().weights, 2) == resolve_weights(TUNED_WEIGHTS[2], 2)
    for spec in ("expectimax@depth=1@region=0.1", "mcts@iterations=5@area=2"):
        bot = make_bot(spec)
        state = State.from_notation(POSITION)
        assert bot.choose(state, random.Random(0)) in state.legal_actions()
    with pytest.raises(ValueError, match="evaluation weight area must be finite and >= 0"):
        GreedyBot(area=-1.0)
    with pytest.raises(ValueError, match="threat expects a number, found 'lots'"):
        make_bot("greedy@threat=lots")
