"""The engine against the deliberately naive second implementation in tests/reference.

The two share no code: agreement on perft counts and on every position of many random
games is strong evidence that both follow the rules, docs/rules.md.
"""

from __future__ import annotations

import random

import pytest

from marrakech import COLOUR_LETTERS, FACING_LETTERS, RuleSet, State, parse_action, square_name
from marrakech.perft import perft
from marrakech.rules import parse_rules
from tests.reference.naive import NaiveGame
from tests.reference.naive import perft as naive_perft


def naive_game(players: int, rules: RuleSet, first_seat: int = 0) -> NaiveGame:
    return NaiveGame(
        players,
        rules.carpets_per_colour(players),
        rules.money,
        rules.own_cover,
        first_seat,
        orient_last=rules.orient_last,
    )


def assert_same(state: State, game: NaiveGame) -> None:
    phase = state.phase.name.lower()
    assert game.phase() == phase
    if not state.is_terminal:  # who decides, or whose pile reveals (R7, R32)
        assert game.seat() == (state.turn if state.draw_pile is None else state.draw_pile)
    assert sorted(str(a) for a in state.legal_actions()) == sorted(game.legal())
    if state.is_chance:
        mine = {str(a): p for a, p in state.chance_outcomes()}
        assert mine == game.chances()
    assert list(state.money) == game.money
    assert game.assam() == (square_name(state.assam_square), FACING_LETTERS[state.assam_facing])
    colours = {
        square_name(sq): None if (c := state.colour_at(sq)) is None else COLOUR_LETTERS[c]
        for sq in range(49)
    }
    assert colours == game.top_colours()
    assert list(state.eliminated) == game.eliminated
    for seat in range(state.players):
        top = state.pile_top(seat)
        assert game.pile_top(seat) == (None if top is None else COLOUR_LETTERS[top])
    assert list(state.scores()) == game.scores()
    if state.is_terminal:
        assert list(state.ranks()) == game.ranks()


# Hand-made positions, reached by tokens from the opening (so both engines can set them up).
# Full-cover temptation: yellow to place at g6, the whole red carpet f5-g5 is a candidate.
FULL_COVER = ["R", "r3", "f5-g5", "L", "r3", "e7-f7", "R", "r2"]
# Own cover (bga): blue to place at c6 beside its own whole carpet b5-b6.
OWN_COVER = ["S", "r3", "c6-c7", "S", "r2", "b5-b6", "L", "r2", "f6-g6", "L", "r3", "e7-f7", "R"]
OWN_COVER += ["r3"]
# Border loop: Assam on g7 facing North, the corner loop one step ahead.
BORDER_LOOP = ["R", "r3", "f5-g5", "L", "r3", "e7-f7"]
# Bankruptcy: two dirhams each; blue has gone out and the game goes on.
BANKRUPTCY = ["R", "r1", "e3-f3", "R", "r1", "e1-e2", "R", "r3", "c2-c3", "L", "r3", "c2-d2"]
BANKRUPTCY += ["S", "r2"]
# Poverty: one dirham each, two carpets each, own cover; the end is near.
POVERTY = ["S", "r1", "d6-e6", "L", "r1", "c3-c4", "S", "r3", "b4-b5", "R", "r2", "b2-c2", "S"]
POVERTY += ["r3", "b2-b3", "R", "r2", "c3-c4"]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", ["standard", "bga", "standard+orient-last"])
def test_perft_from_the_opening_agrees(players: int, rules: str) -> None:
    ruleset = parse_rules(rules)
    depth = 7 if players == 2 else 6
    state = State.new(players, ruleset)
    game = naive_game(players, ruleset)
    for d in range(depth + 1):
        assert perft(state, d) == naive_perft(game, d), d


EXPECTED_OPENING = {
    2: [1, 2, 4, 12, 48, 444, 888, 2664],
    3: [1, 3, 12, 111, 333, 1332, 10917, 32751],
    4: [1, 3, 12, 111, 333, 1332, 10917, 32751],
}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_perft_regression_counts(players: int) -> None:
    """Counts recorded as regression data (checked against the naive engine above)."""
    state = State.new(players)
    assert [perft(state, d) for d in range(8)] == EXPECTED_OPENING[players]


@pytest.mark.parametrize(
    ("tokens", "players", "rules"),
    [
        (FULL_COVER, 3, "standard"),
        (FULL_COVER, 3, "bga"),
        (OWN_COVER, 3, "bga"),
        (BORDER_LOOP, 4, "standard"),
        (BANKRUPTCY, 3, "custom:12/10/12:2:no-own"),
        (POVERTY, 4, "custom:2/2/2:1:own"),
    ],
)
def test_perft_from_hand_made_positions_agrees(tokens: list[str], players: int, rules: str) -> None:
    ruleset = parse_rules(rules)
    state = State.new(players, ruleset)
    game = naive_game(players, ruleset)
    if players == 2:
        raise AssertionError("hand-made positions here are 3-4 players")
    for token in tokens:
        if token not in game.legal():
            pytest.fail(f"{token} not legal in the naive engine: {game.legal()}")
        state = state.apply(parse_action(token))
        game.play(token)
    assert_same(state, game)
    for d in range(6):
        assert perft(state, d) == naive_perft(game, d), d


def test_hand_made_positions_show_what_they_claim() -> None:
    from marrakech.geometry import CANDIDATES

    def reach(tokens: list[str], players: int, rules: str) -> State:
        state = State.new(players, parse_rules(rules))
        for token in tokens:
            state = state.apply(parse_action(token))
        return state

    full = reach(FULL_COVER, 3, "standard")
    assert "f5-g5" not in [str(a) for a in full.legal_actions()]  # R16
    assert len(full.legal_actions()) < len(CANDIDATES[full.assam_square])
    own = reach(OWN_COVER, 3, "bga")
    assert "b5-b6" in [str(a) for a in own.legal_actions()]  # R31
    loop = reach(BORDER_LOOP, 4, "standard")
    assert (square_name(loop.assam_square), loop.assam_facing) == ("g7", 0)
    broke = reach(BANKRUPTCY, 3, "custom:12/10/12:2:no-own")
    assert broke.eliminated == (1,) and not broke.is_terminal


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    "rules",
    [
        "standard",
        "bga",
        "custom:3/3/3:2:no-own",
        "bga+orient-last",
        "custom:3/3/3:2:own+orient-last",
    ],
)
def test_random_games_agree_position_by_position(players: int, rules: str) -> None:
    ruleset = parse_rules(rules)
    rng = random.Random(players * 1000 + len(rules))
    for _ in range(12):
        first = rng.randrange(players)
        state = State.new(players, ruleset, first)
        game = naive_game(players, ruleset, first)
        assert_same(state, game)
        while not state.is_terminal:
            if state.is_chance:
                outcomes = state.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], [float(p) for _, p in outcomes])[0]
            else:
                action = rng.choice(list(state.legal_actions()))
            state = state.apply(action)
            game.play(str(action))
            assert_same(state, game)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", ["standard", "bga", "custom:4/4/4:3:own", "standard+orient-last"])
def test_many_random_games_agree_position_by_position(players: int, rules: str) -> None:
    ruleset = parse_rules(rules)
    rng = random.Random(7 + players)
    for _ in range(1000):
        first = rng.randrange(players)
        state = State.new(players, ruleset, first)
        game = naive_game(players, ruleset, first)
        while not state.is_terminal:
            action = rng.choice(list(state.legal_actions()))
            state = state.apply(action)
            game.play(str(action))
            assert_same(state, game)
