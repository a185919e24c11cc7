"""Hints in the terminal app: H shows the core's advice (``bots.analysis.hint``), selects
it as keys would, and the end screen and the record count the hints each human used."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from rich.table import Table
from textual.widgets import Select, Static

from marrakech.actions import Orient, Place
from marrakech.bots.analysis import Hint, hint, seat_strengths
from marrakech.record import GameRecord
from marrakech.rules import RuleSet
from marrakech.state import State
from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.cli import options_from_args
from marrakech.tui.dialogs import EndScreen
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.screen_base import Timing
from marrakech.tui.session import SeatSpec, Session
from marrakech.tui.setup_screen import SetupScreen
from marrakech.tui.widgets import hint_text

from .conftest import SIZE, app_with, game_screen, play_to_end, settle

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e

#: A short two-player game (3 carpets per colour, R7) to reach the end quickly.
SHORT = RuleSet(carpets=(3, 10, 12))


def hint_line(game: GameScreen) -> str:
    line = game.query_one("#hint", Static)
    return str(line.render()) if line.display else ""


def end_table(end: EndScreen) -> Table:
    table = end.query_one("#end-table", Static).content
    assert isinstance(table, Table)
    return table


def keys_line(game: GameScreen) -> str:
    return str(game.query_one("#keys", Static).render())


@pytest.mark.asyncio
async def test_h_shows_the_advice_of_hint_selects_it_and_enter_plays_it() -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        assert game.can_orient and hint_line(game) == ""
        assert "h hint" in keys_line(game)
        state = game.session.state
        await pilot.press("h")
        await settle(pilot)
        # The same position always gets the same hint; its chances are for the table's
        # strengths (the bots' levels, the person not known: issue 38).
        table = seat_strengths(tuple(seat.token for seat in game.session.seats), 3)
        assert table is not None
        advice = hint(state, strengths=table)
        assert isinstance(advice.best, Orient)
        assert hint_line(game) == hint_text(advice, "en").plain
        assert hint_line(game).startswith("Hint: ") and "% to win (" in hint_line(game)
        assert game.choice is not None and game.choice.hint == advice
        assert game.pending_facing == game.choice.facing_of(advice.best)
        assert game.session.hints_used == [1, 0, 0]
        await pilot.press("h")  # asked again: selected again, not counted again
        await settle(pilot)
        assert game.session.hints_used == [1, 0, 0]
        await pilot.press("enter")  # orient as advised and roll
        await settle(pilot)
        assert game.session.actions[0] == advice.best
        assert game.can_place and hint_line(game) == ""  # the position changed
        placing = game.session.state
        await pilot.press("h")
        await settle(pilot)
        advice = hint(placing, strengths=table)
        assert isinstance(advice.best, Place)
        assert hint_line(game) == hint_text(advice, "en").plain
        assert hint_line(game).startswith(f"Hint: {advice.best} – ")
        assert game.preview == advice.best
        assert f"on {advice.best} (" in str(game.query_one("#prompt").render())
        assert game.session.hints_used == [2, 0, 0]
        await pilot.press("enter")
        await settle(pilot)
        assert game.session.actions[2] == advice.best
        assert game.session.record().meta["hints"] == {"allowed": True, "used": [2, 0, 0]}


@pytest.mark.asyncio
async def test_the_player_may_choose_otherwise_after_a_hint() -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        advised = game.preview
        await pilot.press("tab")  # the next placement: the hint line stays
        await pilot.pause()
        assert game.preview != advised and hint_line(game).startswith(f"Hint: {advised}")
        chosen = game.preview
        await pilot.press("enter")
        await settle(pilot)
        assert game.session.actions[2] == chosen


@pytest.mark.asyncio
async def test_a_hint_in_french() -> None:
    app = app_with(players=2, seed=4, lang="fr")
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        state = game.session.state
        assert "h conseil" in keys_line(game)
        await pilot.press("h")
        await settle(pilot)
        text = hint_line(game)
        table = seat_strengths(tuple(seat.token for seat in game.session.seats), 2)
        assert text == hint_text(hint(state, strengths=table), "fr").plain
        assert text.startswith("Conseil : ") and "\u00a0% de chances de gagner (" in text
        await pilot.press("ctrl+l")  # the line follows the language
        await pilot.pause()
        assert hint_line(game) == hint_text(hint(state, strengths=table), "en").plain


@pytest.mark.asyncio
async def test_refused_when_hints_are_off() -> None:
    app = app_with(players=3, seed=2, hints=False)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert game.last_notice == "Hints are off in this game (the setup screen's choice)."
        assert hint_line(game) == "" and game.session.hints_used == [0, 0, 0]
        assert "hint" not in keys_line(game)
        await pilot.press("n")  # what is expected does not offer a hint
        await pilot.pause()
        assert game.last_notice.endswith("then Space to roll.")
        assert game.session.record().meta["hints"] == {"allowed": False, "used": [0, 0, 0]}


@pytest.mark.asyncio
async def test_refused_at_a_bots_turn(slow_bots: threading.Event) -> None:
    app = app_with(players=3, seed=1, first_seat=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        game = app.screen
        assert isinstance(game, GameScreen) and game.session.bot_to_move
        await pilot.press("h")
        await pilot.pause()
        assert game.last_notice == "A hint is for your own decision: wait for your turn."
        assert hint_line(game) == ""
        slow_bots.set()
        await settle(pilot)
        assert game.session.hints_used == [0, 0, 0]


@pytest.mark.asyncio
async def test_a_hint_for_a_position_left_meanwhile_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from marrakech.tui import game_screen as game_module

    release = threading.Event()
    asked: list[State] = []

    def slow_hint(state: State, strengths: tuple[float, ...] | None = None) -> Hint:
        asked.append(state)
        release.wait(10)
        return hint(state, strengths=strengths)

    monkeypatch.setattr(game_module, "hint", slow_hint)
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("h", "h")  # asked twice while searching: one search
        await pilot.pause()
        assert hint_line(game) == "Hint: thinking…"
        await pilot.press("r")  # the interface answers while the hint is searched
        await pilot.pause()
        assert game.pending_facing == 1
        await pilot.press("space")  # the position changes before the advice comes
        release.set()
        await settle(pilot)
        assert game.session.actions[0] == Orient(1) and game.can_place
        assert hint_line(game) == "" and game.session.hints_used == [0, 0, 0]
        assert game.choice is not None and game.choice.hint is None
        assert len(asked) == 1


@pytest.mark.asyncio
async def test_refused_at_the_end_and_counted_on_the_end_screen(tmp_path: Path) -> None:
    app = app_with(players=2, seed=3, rules=SHORT)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("h")
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        end = await play_to_end(pilot)
        assert game.session.hints_used == [2, 0]
        assert end.hints == [2, None]
        column = end_table(end).columns[-1]
        assert column.header == "Hints" and sorted(map(str, column.cells)) == ["2", "–"]
        await pilot.press("escape")  # the board
        await pilot.pause()
        assert app.screen is game
        await pilot.press("h")
        await pilot.pause()
        assert game.last_notice == "The game is over: no decision left to advise."
        path = tmp_path / "game.json"
        assert app.save_record(game.session, str(path))
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        assert record.meta["hints"] == {"allowed": True, "used": [2, 0]}


@pytest.mark.asyncio
async def test_the_end_screen_has_no_hints_column_without_hints() -> None:
    app = app_with(players=2, seed=3, rules=SHORT, hints=False)
    async with app.run_test(size=SIZE) as pilot:
        end = await play_to_end(pilot)
        assert end.hints is None
        assert [c.header for c in end_table(end).columns][-1] == "Squares"


@pytest.mark.asyncio
async def test_the_setup_screen_offers_hints_and_remembers_the_choice() -> None:
    app = MarrakechApp(PlayOptions(players=3, seed=5, timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        hints = setup.query_one("#hints", Select)
        assert hints.value == "on" and str(setup.query_one("#hints-label").render()) == "Hints"
        hints.value = "off"
        await pilot.pause()
        await pilot.click("#start")
        game = await game_screen(pilot)
        assert not game.session.hints
        await pilot.press("ctrl+n")  # nothing played: no question
        await pilot.pause()
        again = app.screen
        assert isinstance(again, SetupScreen) and again is not setup
        assert again.query_one("#hints", Select).value == "off"
        await pilot.press("ctrl+l")  # in French
        await pilot.pause()
        assert str(again.query_one("#hints-label").render()) == "Conseils"


@pytest.mark.asyncio
async def test_two_humans_each_get_their_own_count() -> None:
    app = app_with(players=2, humans=2, seed=3, rules=SHORT)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        for _ in range(4):  # each seat orients and places once
            await pilot.press("h")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
        assert game.session.hints_used == [2, 2]


def test_a_resumed_record_keeps_its_hints() -> None:
    seats = (SeatSpec.human(), SeatSpec.bot("easy"), SeatSpec.bot("easy"))
    session = Session(State.new(players=3), seats, seed=1)
    session.count_hint(0)
    again = Session.from_record(session.record())
    assert again.hints and again.hints_used == [1, 0, 0]
    off = Session(State.new(players=3), seats, seed=1, hints=False)
    assert not Session.from_record(off.record()).hints
    assert not Session.from_record(session.record(), hints=False).hints
    with pytest.raises(ValueError, match="expected a human seat, found seat 1"):
        session.count_hint(1)
    with pytest.raises(ValueError, match="hints allowed, found hints off"):
        off.count_hint(0)


def test_no_hints_on_the_command_line() -> None:
    from marrakech.cli import build_parser

    parse = build_parser().parse_args
    assert options_from_args(parse(["play"])).hints
    assert not options_from_args(parse(["play", "--seats", "human,easy", "--no-hints"])).hints


@pytest.mark.asyncio
async def test_a_game_loaded_without_hints_stays_without(tmp_path: Path) -> None:
    seats = (SeatSpec.human(), SeatSpec.bot("easy"), SeatSpec.bot("easy"))
    off = Session(State.new(players=3), seats, seed=1, hints=False)
    app = MarrakechApp(PlayOptions(load=off.record(), timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        assert not game.session.hints
        await pilot.press("h")
        await pilot.pause()
        assert game.last_notice.startswith("Hints are off")


@pytest.mark.asyncio
async def test_a_search_that_fails_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from marrakech.tui import game_screen as game_module

    def failing_hint(state: State, strengths: tuple[float, ...] | None = None) -> Hint:
        raise ValueError("expected a decision, found nothing")

    monkeypatch.setattr(game_module, "hint", failing_hint)
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert game.last_notice == "No hint: expected a decision, found nothing"
        assert hint_line(game) == "" and game.session.hints_used == [0, 0, 0]
        assert game.can_orient  # the game goes on
