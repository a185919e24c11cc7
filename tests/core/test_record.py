"""JSON game records: round trips, exact replay, clear errors, fuzzing."""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marrakech import BGA, NotationError, State, parse_action, random_game
from marrakech.record import MAX_SEAT_NAME, GameRecord


def a_record(players: int = 3, seed: int = 1) -> GameRecord:
    start = State.new(players, BGA, first_seat=1)
    _, actions = random_game(start, random.Random(seed))
    return GameRecord.from_actions(start, actions, seats=["Ann", "bot:greedy", "Bob"][:players])


def test_record_round_trips_and_replays_every_state() -> None:
    record = a_record()
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert list(again.states()) == list(record.states())
    assert again.final_state().is_terminal
    data = json.loads(record.to_json())
    assert data["format"] == "marrakech-record" and data["version"] == 2
    assert data["rules"] == "bga" and data["first_seat"] == 1
    assert all(isinstance(token, str) for token in data["actions"])


def test_record_from_a_mid_game_position_keeps_its_start() -> None:
    start = State.new(3)
    for token in ("S", "r1", "d6-d7"):
        start = start.apply(parse_action(token))
    record = GameRecord.from_actions(start, [parse_action("L")])
    again = GameRecord.from_json(record.to_json())
    assert again.initial_state() == start and again.start == start.notation()


def test_an_unfinished_game_is_a_valid_record() -> None:
    record = GameRecord.from_actions(State.new(4), [parse_action("L"), parse_action("r2")])
    assert GameRecord.from_json(record.to_json()).final_state().phase.name == "PLACE"


def edit(change: dict[str, object]) -> str:
    data = a_record().to_dict()
    data.update(change)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "expected a JSON game record"),
        ("[]", "expected a JSON object"),
        (edit({"format": "chess"}), "format"),
        (edit({"version": 99}), "expected record version 1 or 2, found 99"),
        (edit({"version": True}), "expected record version 1 or 2, found True"),
        (edit({"players": 5}), "2, 3 or 4"),
        (edit({"players": "3"}), "expected int"),
        (edit({"players": True}), "expected int"),
        (edit({"rules": "chess"}), "rule set"),
        (edit({"first_seat": 7}), "first_seat"),
        (edit({"actions": "L S R"}), "expected list"),
        (edit({"actions": ["L", 3]}), "action 2"),
        (edit({"actions": ["L", "zz"]}), "action 2: expected an action token"),
        (edit({"actions": ["L", "L"]}), "record action 2"),
        (edit({"actions": ["L"] * 5000}), "at most"),
        (edit({"seats": ["a"] * 9}), "seats"),
        (edit({"start": "garbage"}), "start"),
    ],
)
def test_malformed_records_say_where_and_what(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        GameRecord.from_json(text)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_record_parser(data: st.DataObject) -> None:
    base = a_record(players=2, seed=3).to_json()
    at = data.draw(st.integers(0, len(base) - 1))
    junk = data.draw(st.text(max_size=4))
    text = base[:at] + junk + base[at + len(junk) :]
    try:
        record = GameRecord.from_json(text)
    except NotationError:
        return
    assert GameRecord.from_json(record.to_json()) == record


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4)))  # fmt: skip
def test_fuzz_arbitrary_json_values(value: object) -> None:
    with contextlib.suppress(NotationError):
        record = GameRecord.from_json(json.dumps(value))
        assert GameRecord.from_json(record.to_json()) == record


# A 2-player orient-last game as the engine recorded it before record version 2
# (marrakech 1245eaa): the placer oriented, then his pile revealed its next top.
OLD_ORDER = {
    "format": "marrakech-record",
    "version": 1,
    "players": 2,
    "rules": "standard+orient-last",
    "first_seat": 1,
    "seats": [],
    "actions": [
        "+R",
        "+B",
        "r2",
        "d5-e5",
        "L",
        "+B",
        "r4",
        "b6-b7",
        "R",
        "+R",
        "r3",
        "b4-c4",
        "L",
        "+B",
        "r2",
        "c5-c6",
        "R",
        "+Y",
        "r3",
        "d1-e1",
        "L",
        "+P",
        "r3",
        "f2-f3",
        "R",
        "+R",
    ],
}
OLD_FINAL = (
    "1Rs5/1RnRs4/2RnBeBw2/1BeBw4/5Ys1/5Yn1/3BeBw2 f1S 28,32 10,9,11,12 R,P - roll:1 "
    "standard+orient-last"
)


def test_r32_a_version_1_record_loads_with_the_reveal_before_the_orientation() -> None:
    record = GameRecord.from_json(json.dumps(OLD_ORDER))
    tokens = [str(a) for a in record.actions]
    assert tokens[3:6] == ["d5-e5", "+B", "L"] and tokens[-2:] == ["+R", "R"]
    assert record.final_state().notation() == OLD_FINAL  # the same game, every carpet
    states = list(record.states())
    for before, action in zip(states, record.actions, strict=False):
        if str(action) in ("L", "S", "R"):  # the placer saw his next carpet (R7, R32)
            assert before.pile_top(before.turn) is not None
    again = json.loads(record.to_json())
    assert again["version"] == 2 and again["actions"] == tokens
    assert GameRecord.from_json(record.to_json()) == record


def test_r32_a_version_2_record_in_the_old_order_is_refused_where_it_breaks() -> None:
    data = dict(OLD_ORDER, version=2)
    with pytest.raises(NotationError, match=r"record action 5 \(L\): illegal action L in the DRAW"):
        GameRecord.from_json(json.dumps(data))


def test_a_version_1_record_of_other_games_loads_unchanged() -> None:
    record = a_record(players=2)
    data = dict(record.to_dict(), version=1)
    assert GameRecord.from_json(json.dumps(data)).actions == record.actions


def test_seat_names_are_bounded_alike_when_written_and_read() -> None:
    """A record holds seat names of up to MAX_SEAT_NAME characters (a bot's spec with a
    file's path fits): one built with a longer name is refused as one read would be,
    saying which seat and how long."""
    long = "bot:az@weights=" + "d/" * 200 + "gen-0001.npz"
    record = GameRecord(players=2, seats=(long, "human"))
    assert GameRecord.from_json(record.to_json()).seats == (long, "human")
    too_long = "x" * (MAX_SEAT_NAME + 1)
    with pytest.raises(NotationError, match=r"seat 1: expected at most 1000 characters, found"):
        GameRecord(players=2, seats=("human", too_long))
    data = json.loads(record.to_json())
    data["seats"] = ["human", too_long]
    with pytest.raises(NotationError, match=r"seat 1: expected at most 1000 characters"):
        GameRecord.from_dict(data)
    data["seats"] = ["human", 7]
    with pytest.raises(NotationError, match=r"seat 1: expected a string, found 7"):
        GameRecord.from_dict(data)
