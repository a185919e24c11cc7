"""Invariants on positions reached by random play (hypothesis drives the choices)."""

from __future__ import annotations

import pickle
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from marrakech import (
    ACTION_IDS,
    DECISION_IDS,
    Phase,
    State,
    action_from_id,
    parse_action,
    random_action,
)
from marrakech.rules import colours_of, parse_rules

PLAYERS = st.sampled_from([2, 3, 4])
RULES = st.sampled_from(["standard", "bga"])


def check_position(state: State, rules_money: int) -> None:
    """Everything that must hold in every reachable position."""
    players = state.players
    assert sum(state.money) == rules_money * players  # dirhams are only passed around
    assert all(m >= 0 for m in state.money)
    per_colour = state.rules.carpets_per_colour(players)
    counts = [0] * 4
    for cell in state.board:
        if cell:
            counts[(cell - 1) & 3] += 1
    for colour, held in enumerate(state.hand):
        if (colour % players) not in state.eliminated:
            assert counts[colour] <= 2 * (per_colour - held)
    if state.is_chance:
        assert sum(p for _, p in state.chance_outcomes()) == Fraction(1)
    elif not state.is_terminal:
        assert state.legal_actions()  # R18 and friends: never stuck
        assert sum(state.legal_mask()) == len(state.legal_actions())
    again = State.from_notation(state.notation())
    assert again == state and hash(again) == hash(state)
    assert again.notation() == state.notation()
    for action in state.legal_actions():
        assert parse_action(str(action)) == action
        assert action_from_id(action.id) is action
    assert pickle.loads(pickle.dumps(state)) == state


@settings(max_examples=25, deadline=None)
@given(players=PLAYERS, rules=RULES, seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(players: int, rules: str, seed: int) -> None:
    ruleset = parse_rules(rules)
    rng = random.Random(seed)
    state = State.new(players, ruleset, first_seat=rng.randrange(players))
    while not state.is_terminal:
        check_position(state, ruleset.money)
        before = state
        action = random_action(state, rng)
        state = state.apply(action)
        if before.phase == Phase.PLACE:
            seat = before.turn
            assert state.carpets_in_hand(seat) == before.carpets_in_hand(seat) - 1
            others = [s for s in range(players) if s != seat]
            assert [state.carpets_in_hand(s) for s in others] == [
                before.carpets_in_hand(s) for s in others
            ]
    check_position(state, ruleset.money)
    assert state.winners()


@settings(max_examples=20, deadline=None)
@given(
    players=PLAYERS,
    seed=st.integers(0, 2**32 - 1),
    money=st.integers(0, 8),
    carpets=st.integers(1, 4),
    own=st.booleans(),
)
def test_house_rules_games_end_properly(
    players: int, seed: int, money: int, carpets: int, own: bool
) -> None:
    ruleset = parse_rules(
        f"custom:{carpets}/{carpets}/{carpets}:{money}:{'own' if own else 'no-own'}"
    )
    rng = random.Random(seed)
    state = State.new(players, ruleset)
    while not state.is_terminal:
        check_position(state, money)
        state = state.apply(random_action(state, rng))
    check_position(state, money)
    # R19: at most one seat in, or nobody still in holds a carpet.
    still_in = [s for s in range(players) if s not in state.eliminated]
    assert len(still_in) <= 1 or not any(state.carpets_in_hand(s) for s in still_in)
    ranks = state.ranks()
    for seat in state.eliminated:
        assert all(ranks[seat] > ranks[s] for s in still_in)


def test_equal_positions_hash_equal_however_they_were_built() -> None:
    played = State.new(3)
    for token in ("L", "r1", "b4-b5", "R", "r2", "d6-e6"):
        played = played.apply(parse_action(token))
    written = State.from_notation(
        "7/3BeBw2/1Rs5/1Rn5/7/7/7 c6N 30,30,30 9,9,10 - - orient:2 standard"
    )
    assert played == written and hash(played) == hash(written) and played is not written
    assert len({played, written}) == 1


def test_action_ids_are_a_bijection() -> None:
    assert DECISION_IDS == 87 and ACTION_IDS == 95
    tokens = [str(action_from_id(i)) for i in range(ACTION_IDS)]
    assert len(set(tokens)) == ACTION_IDS
    assert [parse_action(t).id for t in tokens] == list(range(ACTION_IDS))


class GameMachine(RuleBasedStateMachine):
    """Any sequence of legal actions keeps the position consistent."""

    def __init__(self) -> None:
        super().__init__()
        self.state = State.new(3)
        self.history: list[State] = []

    @rule(players=PLAYERS, rules=RULES, first=st.integers(0, 3))
    def new_game(self, players: int, rules: str, first: int) -> None:
        self.state = State.new(players, parse_rules(rules), first % players)
        self.history = []

    @precondition(lambda self: not self.state.is_terminal)
    @rule(pick=st.integers(0, 11))
    def play_a_legal_action(self, pick: int) -> None:
        legal = self.state.legal_actions()
        before = self.state
        self.history.append(before)
        self.state = before.apply(legal[pick % len(legal)])
        assert before.notation() == self.history[-1].notation()  # the old state is untouched

    @rule(action_id=st.integers(0, ACTION_IDS - 1))
    def illegal_actions_change_nothing(self, action_id: int) -> None:
        action = action_from_id(action_id)
        if action in self.state.legal_actions():
            return
        before = self.state.notation()
        try:
            self.state.apply(action)
        except ValueError as error:
            assert "illegal action" in str(error)
        else:
            raise AssertionError(f"{action} applied although not listed as legal")
        assert self.state.notation() == before

    @invariant()
    def position_is_consistent(self) -> None:
        check_position(self.state, self.state.rules.money)


TestGameMachine = GameMachine.TestCase
TestGameMachine.settings = settings(max_examples=20, stateful_step_count=40, deadline=None)


def test_colours_of_and_seats() -> None:
    assert colours_of(0, 2) == (0, 2) and colours_of(1, 2) == (1, 3) and colours_of(2, 3) == (2,)
