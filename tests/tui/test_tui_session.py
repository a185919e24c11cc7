"""The game session behind the terminal app: seats, bots, chance, undo, records."""

from __future__ import annotations

import pytest

from marrakech.actions import Orient, Place, Roll
from marrakech.bots import BOTS, LEVELS, REGISTRY, bot_name
from marrakech.errors import MarrakechError
from marrakech.record import GameRecord
from marrakech.state import State
from marrakech.tui.session import SeatError, SeatSpec, Session, seat_from_token


def seats(*tokens: str) -> list[SeatSpec]:
    return [SeatSpec.parse(token) for token in tokens]


def test_seat_specs_parse_and_round_trip() -> None:
    assert SeatSpec.parse("human") == SeatSpec.human()
    assert SeatSpec.parse("bot:easy") == SeatSpec.bot("easy")
    assert SeatSpec.parse(" Medium ") == SeatSpec.bot("medium")
    assert SeatSpec.parse("random").token == "bot:random"
    assert seat_from_token("Alice") == SeatSpec.human()  # a web player's name
    with pytest.raises(MarrakechError, match="expected a seat: human, a bot level"):
        SeatSpec.parse("grandmaster")


def test_every_level_and_bot_of_the_registry_takes_a_seat() -> None:
    # The levels come from the bot registry, weakest first, and every one has its bot.
    # az plays a network file of marrakech train: a bare "az" says so.
    with pytest.raises(MarrakechError, match="az needs a network file"):
        SeatSpec.parse("az")
    specs = [SeatSpec.parse(name) for name in (*LEVELS, *BOTS) if name != "az"]
    assert [spec.token for spec in specs[: len(LEVELS)]] == [f"bot:{level}" for level in LEVELS]
    counts = {entry.name: entry.players for entry in REGISTRY}
    for spec in specs:
        players = counts[bot_name(spec.spec)][-1]  # policy-2p plays 2 players, the others 4
        seats = [SeatSpec.human(), *[spec] * (players - 1)]
        game = Session(State.new(players=players), seats, seed=1)
        assert game.bots[1].name == bot_name(spec.spec)
    message = (
        "expected a seat: human, a bot level (easy, learned, medium, hard, expert) or a bot "
        "spec (random, policy, policy-2p, policy-4p, greedy, expectimax, mcts, hard-v1, "
        "expert-v1, search-quick, search, az, with "
        ":SECONDS or @KEY=VALUE such as mcts:0.5 "
        "or mcts@iterations=300); found 'grandmaster'"
    )
    with pytest.raises(MarrakechError) as error:
        SeatSpec.parse("grandmaster")
    assert str(error.value) == message


def test_seat_count_must_match_the_players() -> None:
    with pytest.raises(MarrakechError, match="expected 3 seats for 3 players, found 2"):
        Session(State.new(players=3), seats("human", "easy"))


def test_seeded_sessions_are_reproducible() -> None:
    def play(seed: int) -> list[str]:
        game = Session(State.new(players=3), seats("easy", "easy", "easy"), seed=seed)
        while not game.state.is_terminal:
            action = game.sample_chance() if game.state.is_chance else game.bot_choice()
            game.play(action)
        return [str(a) for a in game.actions]

    assert play(4) == play(4)
    assert play(4) != play(5)


def test_undo_goes_back_to_the_humans_previous_decision() -> None:
    game = Session(State.new(players=3), seats("human", "easy", "easy"), seed=3)
    assert not game.can_undo  # nothing played yet
    game.play(Orient(0))
    game.play(Roll(2))
    assert game.human_to_move and game.state.phase.name == "PLACE"
    # At PLACE, undo takes back the roll and the orientation (R9, R10 again).
    assert game.undo() == 2 and game.actions == [] and game.state == State.new(players=3)
    game.play(Orient(1))
    game.play(Roll(1))
    game.play(game.state.legal_actions()[0])
    while not game.human_to_move:
        game.play(game.sample_chance() if game.state.is_chance else game.bot_choice())
    played = game.actions
    # At the human's next ORIENT, undo takes back to the placement (the roll stays).
    game.undo()
    assert game.actions == played[:2] and game.state.phase.name == "PLACE"
    assert len(game.states) == len(game.events) + 1


def test_undo_needs_exactly_one_human() -> None:
    two = Session(State.new(players=2), seats("human", "human"), seed=1)
    two.play(two.sample_chance())
    two.play(two.sample_chance())
    two.play(Orient(0))
    assert not two.undo_allowed and two.undo() == 0
    bots = Session(State.new(players=3), seats("easy", "easy", "easy"), seed=1)
    assert not bots.undo_allowed


def test_records_round_trip() -> None:
    game = Session(State.new(players=4, first_seat=2), seats("human", "easy", "easy", "hard"))
    for _ in range(30):
        state = game.state
        game.play(game.sample_chance() if state.is_chance else state.legal_actions()[0])
    record = GameRecord.from_json(game.record({"lang": "fr"}).to_json())
    assert record.seats == ("human", "bot:easy", "bot:easy", "bot:hard")
    assert record.first_seat == 2 and record.meta["lang"] == "fr"
    again = Session.from_record(record, seed=5)
    assert again.actions == game.actions and again.state == game.state
    assert again.seats == game.seats
    assert all(isinstance(e.action, (Orient, Roll, Place)) for e in again.events)


def test_bot_choice_is_refused_where_no_bot_decides() -> None:
    game = Session(State.new(players=3), seats("human", "easy", "easy"), seed=1)
    with pytest.raises(MarrakechError, match="no bot decides here"):
        game.bot_choice()
    game.play(Orient(0))
    with pytest.raises(MarrakechError, match="no bot decides here"):
        game.bot_choice()  # a chance node
    assert game.sample_chance() in game.state.legal_actions()


def test_every_bot_spec_the_arena_takes_takes_a_seat() -> None:
    # NAME[:SECONDS][@KEY=VALUE]...: what `marrakech arena --bots` accepts, and levels.
    for text, name in (
        ("mcts:0.5", "mcts"),
        ("mcts@iterations=300", "mcts"),
        ("bot:expectimax@depth=2", "expectimax"),
        ("expert", "search"),
        ("hard", "search-quick"),
        ("expert-v1", "expert-v1"),
        ("bot:greedy", "greedy"),
    ):
        spec = SeatSpec.parse(text)
        game = Session(State.new(players=2), [SeatSpec.human(), spec], seed=1)
        assert game.bots[1].name == name
    assert SeatSpec.parse("mcts@iterations=300").token == "bot:mcts@iterations=300"
    assert make_seat_bot("mcts:0.5").seconds == 0.5  # type: ignore[attr-defined]
    with pytest.raises(MarrakechError, match=r"mcts takes .*found 'depth'"):
        SeatSpec.parse("mcts@depth=3")


def make_seat_bot(text: str) -> object:
    return Session(State.new(players=2), seats("human", text), seed=1).bots[1]


def test_arena_seats_in_a_record_play_on_as_those_bots() -> None:
    record = GameRecord.from_actions(
        State.new(players=3), [], seats=["bot:mcts@iterations=30", "bot:greedy", "human"]
    )
    game = Session.from_record(record)
    assert game.bots[0].iterations == 30 and game.bots[0].seconds is None  # type: ignore[attr-defined]
    assert game.bots[1].name == "greedy" and game.seats[2].is_human


def test_a_record_seat_of_an_unknown_bot_is_refused() -> None:
    record = GameRecord.from_actions(State.new(players=3), [], seats=["human", "bot:wizard"])
    with pytest.raises(MarrakechError) as error:
        Session.from_record(record)
    assert str(error.value) == (
        "the record seats 'bot:wizard' at seat 1 (Blue): unknown bot 'wizard': "
        "expected one of random, policy, policy-2p, policy-4p, greedy, expectimax, mcts, "
        "hard-v1, expert-v1, search-quick, search, az, easy, learned, medium, hard, expert"
    )


def test_a_bot_that_refuses_the_player_count_is_refused_before_the_game() -> None:
    """The learned level plays the shipped policies' counts (2 and 4): at three players
    the game is refused at its creation with the reason, never at the bot's first
    decision; a record seating it so is refused on loading, with the seat."""
    game = Session(State.new(players=2), [SeatSpec.bot("learned"), SeatSpec.bot("easy")])
    assert game.bots[0].name == "policy"
    three = [SeatSpec.human(), SeatSpec.bot("learned"), SeatSpec.bot("easy")]
    with pytest.raises(SeatError) as error:
        Session(State.new(players=3), three)
    assert error.value.seat == 1
    assert "plays 2- or 4-player games only" in str(error.value)
    record = GameRecord.from_actions(State.new(players=3), [], seats=["human", "bot:learned"])
    with pytest.raises(SeatError, match=r"^the record seats 'bot:learned' at seat 1 \(Blue\)"):
        Session.from_record(record)


def test_seats_a_record_does_not_name_are_human_and_said() -> None:
    record = GameRecord.from_actions(State.new(players=3), [], seats=["bot:easy", "Alice"])
    game = Session.from_record(record)
    assert [spec.is_human for spec in game.seats] == [False, True, True]
    assert game.unnamed == (2,)  # Alice (a web player's name) is named: a human
    assert Session.from_record(GameRecord.from_actions(State.new(players=2), [])).unnamed == (0, 1)


def test_undo_keeps_the_die_rolled_R10() -> None:
    game = Session(State.new(players=3), seats("human", "easy", "easy"), seed=3)
    game.play(Orient(0))
    roll = game.sample_chance()
    game.play(roll)
    for orient in (Orient(0), Orient(1), Orient(-1)):
        assert game.undo() == 2
        game.play(orient)  # the same or another orientation: the same die face comes
        assert game.sample_chance() == roll
        game.play(roll)


def play_until_human(game: Session) -> None:
    while not game.human_to_move and not game.state.is_terminal:
        game.play(game.sample_chance() if game.state.is_chance else game.bot_choice())


def test_after_an_undo_the_same_decisions_bring_the_same_game_R7_R10() -> None:
    # Two players: the piles' draws (R7) are kept too, and the bot decides the same.
    for players, tokens in ((2, ("human", "easy")), (4, ("easy", "human", "medium", "easy"))):
        game = Session(State.new(players=players, first_seat=1), seats(*tokens), seed=5)
        play_until_human(game)
        start = len(game.actions)
        for _ in range(3):
            game.play(game.state.legal_actions()[0])
            play_until_human(game)
            game.play(game.state.legal_actions()[-1])
            play_until_human(game)
        first = game.actions
        while len(game.actions) > start:
            game.undo()
        assert game.actions == first[:start]
        for _ in range(3):
            game.play(game.state.legal_actions()[0])
            play_until_human(game)
            game.play(game.state.legal_actions()[-1])
            play_until_human(game)
        assert game.actions == first


def test_the_record_shows_what_was_taken_back() -> None:
    game = Session(State.new(players=3), seats("human", "easy", "easy"), seed=3)
    game.play(Orient(1))
    roll = game.sample_chance()
    game.play(roll)
    taken = [str(action) for action in game.actions]
    game.undo()
    record = game.record()
    assert record.meta["undone"] == [{"kept": 0, "actions": taken}]
    again = Session.from_record(GameRecord.from_json(record.to_json()))
    assert again.undone == game.undone
    again.play(Orient(0))
    assert again.sample_chance() == roll


def test_a_saved_game_resumed_keeps_its_die() -> None:
    game = Session(State.new(players=3), seats("human", "easy", "easy"), seed=3)
    game.play(Orient(1))
    roll = game.sample_chance()
    game.play(roll)
    again = Session.from_record(GameRecord.from_json(game.record().to_json()))
    assert again.seed == game.seed
    again.undo()
    again.play(Orient(0))
    assert again.sample_chance() == roll  # loading does not re-roll the die either
