"""The terminal app driven by key presses and clicks with Textual's pilot."""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import Button, DirectoryTree, Input, Select

from marrakech.actions import Action, Orient, Place, Roll
from marrakech.geometry import FACING_NAMES, square_name
from marrakech.playout import random_game
from marrakech.preview import preview_orientations
from marrakech.record import GameRecord
from marrakech.rules import RuleSet
from marrakech.state import State
from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.board import BoardWidget
from marrakech.tui.dialogs import ConfirmDialog, EndScreen, PathDialog
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.help_screen import HelpScreen
from marrakech.tui.layout import layout
from marrakech.tui.replay_screen import ReplayScreen
from marrakech.tui.screen_base import Timing
from marrakech.tui.session import SeatSpec
from marrakech.tui.setup_screen import SetupScreen
from marrakech.tui.timing import SPEEDS
from marrakech.tui.widgets import GameLog, SeatPanel

from .conftest import SIZE, app_with, game_screen, play_to_end, settle

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


def log_text(app: MarrakechApp) -> str:
    main = app.screen_stack[1]  # the game or replay screen, under any dialog
    log = main.query_one(GameLog)
    return " ".join(" ".join(strip.text for strip in log.lines).split())


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
@pytest.mark.parametrize(
    "rules",
    [
        # House rules of 3 carpets per colour keep the default run short; the whole
        # standard game (10 carpets at 3 players, R6) is a long run.
        pytest.param(RuleSet(carpets=(12, 3, 12)), id="short"),
        pytest.param(RuleSet(), id="standard", marks=pytest.mark.slow),
    ],
)
async def test_whole_game_from_the_setup_screen_to_the_end_screen(rules: RuleSet) -> None:
    app = MarrakechApp(PlayOptions(players=3, seed=5, rules=rules, timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        # Every seat but the first to an easy bot, with the keyboard only.
        setup.query_one("#seat-1").value = "bot:easy"  # type: ignore[attr-defined]
        setup.query_one("#seat-2").value = "bot:easy"  # type: ignore[attr-defined]
        await pilot.press("enter")  # the Start button has the focus
        game = await game_screen(pilot)
        assert [s.token for s in game.session.seats] == ["human", "bot:easy", "bot:easy"]
        assert game.session.state.rules == rules  # the setup kept the rule set given
        end = await play_to_end(pilot)
        state = game.session.state
        assert state.is_terminal
        text = str(end.query_one("#end-winner").render())
        assert "wins" in text or "Shared" in text or "Nobody" in text
        assert "The game is over." in log_text(app)
        await pilot.press("escape")  # show the board
        await pilot.pause()
        assert app.screen is game
        await pilot.press("e")  # the end screen again, then a new game
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen is not game


async def test_whole_game_in_french() -> None:
    # Two players (piles and draws, R7) with 3 carpets per colour to keep the test short.
    app = app_with(players=2, lang="fr", seed=3, rules=RuleSet(carpets=(3, 10, 12)))
    async with app.run_test(size=SIZE) as pilot:
        end = await play_to_end(pilot)
        assert str(end.query_one("#end-title").render()) == "Partie terminée"
        text = log_text(app)
        assert "a posé un tapis" in text and "La partie est terminée." in text
        prompt = str(app.screen_stack[1].query_one("#prompt").render())
        assert "Partie terminée" in prompt
        await pilot.press("ctrl+l")  # the end screen follows the language
        await pilot.pause()
        assert str(app.screen.query_one("#end-title").render()) == "Game over"
        game = app.screen_stack[1]
        assert isinstance(game, GameScreen)
        played = len(game.session.actions)
        await pilot.press("u")  # undo from the end screen: back to the last decision
        await settle(pilot)
        assert not game.session.state.is_terminal and game.session.human_to_move
        assert len(game.session.actions) < played
        assert app.screen is game  # (last: mypy narrows game to a Screen after it)


async def test_illegal_keys_do_nothing_harmful() -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        assert game.can_orient
        before = game.session.state
        assert before.assam_facing == 0  # North
        # A half turn (R9), placement keys while orienting, undo with nothing to undo,
        # keys bound to nothing: the position does not change.
        await pilot.press("down", "tab", "shift+tab", "x", "z", "9", "e", "u")
        await pilot.pause()
        assert game.session.state == before and game.pending_facing == 0
        assert "Nothing to take back" in game.last_notice
        # Clicking a square Assam cannot face, then off the board: nothing happens.
        await pilot.click(BoardWidget, offset=(1, 1))
        assert game.session.state == before
        await pilot.press("l", "space")
        await settle(pilot)
        assert isinstance(game.session.actions[0], Orient)
        assert game.session.actions[0].turn == -1
        assert game.can_place
        # Orientation keys while placing just cycle or are refused.
        placing = game.session.state
        await pilot.press("l", "s", "r", "space")
        await pilot.pause()
        assert game.session.state == placing
        # Keys while the bots play are refused with a notice.
        await pilot.press("enter")
        await pilot.press("space", "enter", "tab")
        await settle(pilot)
        assert game.session.state.phase.name in ("ORIENT", "OVER")
        assert all(isinstance(a, (Orient, Place)) or a.is_chance for a in game.session.actions)


async def test_the_facings_offered_are_the_cores_orient_actions() -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        assert game.can_orient
        state = game.session.state
        legal = state.legal_actions()
        assert game.choice is not None
        assert game.choice.orientations == {state.describe(a).facing_after: a for a in legal}
        assert sorted(game.choice.orientations) == [0, 1, 3]  # from North, never South (R9)
        await pilot.press("down")
        await pilot.pause()
        assert "never makes a half turn" in game.last_notice and game.pending_facing == 0
        await pilot.press("left", "r")  # West, then a quarter right of Assam: East
        await pilot.pause()
        assert game.pending_facing == 1
        await pilot.press("space")
        await settle(pilot)
        assert game.session.actions[0] == Orient(1) and not game.can_orient


async def test_undo_takes_back_to_the_previous_decision() -> None:
    app = app_with(players=3, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")  # keep straight and roll
        await settle(pilot)
        assert game.can_place and len(game.session.actions) == 2
        await pilot.press("u")
        await settle(pilot)
        assert game.can_orient and game.session.actions == []
        await pilot.press("r", "space")
        await settle(pilot)
        await pilot.press("enter")  # place; the two bots play their turns
        await settle(pilot)
        assert game.can_orient
        played = list(game.session.actions)
        assert len(played) > 3
        await pilot.press("u")  # back to the human's placement of the last turn
        await settle(pilot)
        assert game.can_place
        assert game.session.actions == played[:2]
        assert "Took back" in game.last_notice


async def test_undo_never_rolls_the_die_again_R10() -> None:
    app = app_with(players=3, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")
        await settle(pilot)
        roll = game.session.actions[1]
        for keys in (("space",), ("r", "space"), ("l", "space"), ("space",)):
            await pilot.press("u")  # back to orienting: the roll waits to come again
            await settle(pilot)
            assert game.can_orient and game.session.actions == []
            await pilot.press(*keys)
            await settle(pilot)
            assert game.session.actions[1] == roll
        record = game.session.record()
        assert len(record.meta["undone"]) == 4


async def test_undo_is_refused_with_two_humans() -> None:
    app = app_with(players=2, humans=2, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")
        await settle(pilot)
        count = len(game.session.actions)
        await pilot.press("u")
        await settle(pilot)
        assert len(game.session.actions) == count
        assert "only human" in game.last_notice


async def test_save_then_load(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    app = app_with(players=3, seed=9)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        saved_actions = list(game.session.actions)
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        dialog.query_one(Input).value = str(path)
        await pilot.press("enter")
        await pilot.pause()
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        assert list(record.actions) == saved_actions
        assert record.seats == ("human", "bot:easy", "bot:easy")
        assert json.loads(path.read_text())["format"] == "marrakech-record"
        # Play on, then load the saved game back.
        await pilot.press("enter")
        await settle(pilot)
        assert len(game.session.actions) > len(saved_actions)
        await pilot.press("ctrl+o")  # played on since: leave this game?
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.click("#confirm-yes")
        await pilot.pause()
        path_dialog = app.screen
        assert isinstance(path_dialog, PathDialog)
        path_dialog.query_one(Input).value = str(path)
        await pilot.press("enter")
        await settle(pilot)
        loaded = app.screen
        assert isinstance(loaded, GameScreen) and loaded is not game
        assert loaded.session.actions == saved_actions
        assert loaded.can_place  # the human was placing when saved
        assert "Loaded" in app.last_notice
        # A bad file is reported, the game goes on.
        (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
        assert not app.load_record(str(tmp_path / "bad.json"))
        assert "expected a JSON game record" in app.last_notice
        assert not app.load_record(str(tmp_path / "missing.json"))
        assert app.last_notice.endswith("missing.json: no such file or folder")
        assert app.screen is loaded


async def test_mouse_orients_and_chooses_a_placement() -> None:
    app = app_with(players=3, seed=4)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        board = game.query_one(BoardWidget)
        lay = layout(board.scale)
        dx, dy = board._offset()

        def at(square: int) -> tuple[int, int]:
            x, y = lay.centre(square)
            return x + dx, y + dy

        state = game.session.state
        east = state.assam_square + 1  # d4 -> e4
        await pilot.click(BoardWidget, offset=at(east))
        assert game.pending_facing == 1
        await pilot.click(BoardWidget, offset=at(state.assam_square))  # click Assam: roll
        await settle(pilot)
        assert game.session.actions[0] == Orient(1)
        assert game.can_place
        placements = game.session.state.legal_actions()
        target = placements[-1]
        assert isinstance(target, Place)
        square = target.squares[1]
        covering = [a for a in placements if square in a.squares]  # type: ignore[attr-defined]
        seen = set()
        for _ in covering:
            await pilot.click(BoardWidget, offset=at(square))
            seen.add(game.preview)
        assert seen == set(covering)
        await pilot.click("#do-place")
        await settle(pilot)
        assert isinstance(game.session.actions[2], Place)
        assert square in game.session.actions[2].squares


async def test_bots_think_in_a_worker_and_the_interface_answers(
    slow_bots: threading.Event,
) -> None:
    app = app_with(players=3, seed=1, first_seat=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        game = app.screen
        assert isinstance(game, GameScreen)
        assert game.busy and "thinking" in str(game.query_one("#prompt").render())
        await pilot.press("question_mark")  # the interface answers while the bot thinks
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert game.session.actions == []
        await pilot.press("space", "enter", "u")  # not the human's turn: refused
        await pilot.pause()
        assert game.session.actions == []
        slow_bots.set()
        await settle(pilot)
        assert game.session.actions[0] == Orient(-1)


async def test_replay_steps_through_a_record() -> None:
    final, actions = random_game(State.new(players=2), random.Random(8))
    record = GameRecord.from_actions(State.new(players=2), actions, seats=["human", "bot:easy"])
    replay = MarrakechApp(PlayOptions(replay=record, timing=Timing.instant()))
    async with replay.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = replay.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("right", "right", "right")
        assert screen.index == 3
        assert screen.query_one(GameLog).lines_written == 3
        await pilot.press("left")
        assert screen.index == 2
        await pilot.press("end")
        assert screen.index == len(record.actions)
        assert "The game is over." in log_text(replay)
        await pilot.press("right")  # past the end: nothing
        assert screen.index == len(record.actions)
        await pilot.press("home", "ctrl+l")
        assert screen.index == 0 and replay.lang == "fr"
        assert "Début de la partie" in str(screen.query_one("#prompt").render())
        await pilot.press("pagedown", "p")  # play on from move 10
        await settle(pilot)
        game = replay.screen
        assert isinstance(game, GameScreen)
        assert game.session.actions == list(record.actions[:10])
        assert final.is_terminal


async def test_language_switch_rewrites_the_log() -> None:
    app = app_with(players=3, seed=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        assert "rolled" in log_text(app)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert "a fait" in log_text(app)
        assert "posez votre tapis" in str(app.screen.query_one("#prompt").render())
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_no_color_keeps_letters_and_heavy_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_with(players=3, seed=4)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.no_color
        await pilot.press("space")
        await settle(pilot)
        svg = app.export_screenshot()
        assert "┏" in svg or "┓" in svg or "┗" in svg or "┛" in svg or "┃" in svg
        board = app.screen.query_one(BoardWidget)
        assert "░" in board.render().plain  # the previewed carpet, without colour


async def test_no_color_tells_every_carpet_apart_and_empty_squares_look_empty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_with(players=4, seed=4)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        state = game.session.state
        while len({state.colour_at(sq) for sq in range(49)} - {None}) < 4:
            await pilot.press("enter")
            await settle(pilot)
            state = game.session.state
        board = game.query_one(BoardWidget)
        lines = board.render().split("\n")
        lay, (dx, dy) = layout(board.scale), board._offset()
        patterns: dict[int, set[str]] = {}
        marked = dict(board.view.marks)  # the rolls that would stop Assam there
        for square in range(49):
            if square == state.assam_square or square in game.overlay.trail or square in marked:
                continue
            x0, y0 = lay.wall_col(square % 7) + 1 + dx, lay.wall_row(6 - square // 7) + 1 + dy
            cells = [
                (lines[y].plain[x], lines[y].get_style_at_offset(app.console, x))
                for y in range(y0, y0 + board.scale.height)
                for x in range(x0, x0 + board.scale.width)
            ]
            colour = state.colour_at(square)
            if colour is None:  # empty: blank, no background
                assert all(char == " " and style.bgcolor is None for char, style in cells)
            else:  # a pattern of its own besides its letter
                letter = "RBYP"[colour]
                seen = {char for char, _ in cells} - {" ", letter}
                assert seen, (square, colour)
                patterns.setdefault(colour, set()).update(seen)
        assert all(len(chars) == 1 for chars in patterns.values()), patterns
        assert len({next(iter(chars)) for chars in patterns.values()}) == 4


async def test_animated_walks_leave_the_trail_arcs_and_region() -> None:
    timing = Timing(step=0.002, tithe=0.002, bot=0.002, replay=0.01)
    app = app_with(players=3, seed=1, timing=timing)
    async with app.run_test(size=SIZE) as pilot:
        game = app.screen
        assert isinstance(game, GameScreen)
        for _ in range(4):
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            if game.can_place:
                roll = game.session.events[-1]
                assert isinstance(roll.action, Roll)
                # The squares Assam left, then where he stands now.
                assert len(game.overlay.trail) == len(roll.path)
                assert game.overlay.arcs == tuple(
                    (prev.square, prev.facing)
                    for prev, step in zip(
                        (
                            roll.path[0]._replace(
                                square=roll.before.assam_square, facing=roll.before.assam_facing
                            ),
                            *roll.path[:-1],
                        ),
                        roll.path,
                        strict=True,
                    )
                    if step.arc
                )
                region = roll.tithe.region if roll.tithe else ()
                assert game.overlay.region == region
                assert game.query_one(BoardWidget).view.region == region


async def test_replay_plays_by_itself() -> None:
    start = State.new(players=3, rules=RuleSet(carpets=(12, 3, 12)))  # a short game
    final, actions = random_game(start, random.Random(2))
    record = GameRecord.from_actions(start, actions)
    timing = Timing(step=0.0, tithe=0.0, bot=0.0, replay=0.001)
    app = MarrakechApp(PlayOptions(replay=record, timing=timing))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("space")
        for _ in range(500):
            await pilot.pause(0.01)
            if screen.index == len(actions):
                break
        assert screen.index == len(actions) and screen.timer is None
        assert screen.states[screen.index] == final
        await pilot.press("q")  # opened with --replay: q quits
        await pilot.pause()
    assert app.return_code == 0


def write_record(path: Path, players: int, seats: list[str], moves: int = 0) -> GameRecord:
    start = State.new(players=players)
    _, actions = random_game(start, random.Random(3))
    record = GameRecord.from_actions(start, actions[:moves], seats=seats)
    path.write_text(record.to_json(), encoding="utf-8")
    return record


async def test_a_record_seating_an_unknown_bot_is_refused_R4(tmp_path: Path) -> None:
    path = tmp_path / "wizard.json"
    write_record(path, 3, ["human", "bot:wizard", "bot:easy"])
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        assert not app.load_record(str(path))
        assert "bot 'wizard' at Blue, which cannot play here: unknown bot" in app.last_notice
        assert app.screen is game


async def test_a_record_naming_two_seats_of_three_says_who_plays_the_third_R4(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two.json"
    write_record(path, 3, ["human", "bot:easy"])
    app = app_with(players=3, seed=2, lang="fr")
    async with app.run_test(size=SIZE) as pilot:
        await game_screen(pilot)
        assert app.load_record(str(path))
        game = await game_screen(pilot)
        assert [spec.token for spec in game.session.seats] == ["human", "bot:easy", "human"]
        said = "ne nomme personne pour Jaune : un humain joue ce siège"
        assert any(said in notice for notice in app.notices)


async def test_arena_bots_in_a_loaded_record_play_on(tmp_path: Path) -> None:
    path = tmp_path / "arena.json"
    write_record(path, 3, ["bot:mcts@iterations=20", "human", "bot:greedy"], moves=6)
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await game_screen(pilot)
        assert app.load_record(str(path))
        game = await game_screen(pilot)
        assert game.session.bots[0].iterations == 20  # type: ignore[attr-defined]
        assert game.session.human_to_move and game.session.state.turn == 1


async def says_for_each_key(pilot, game: GameScreen, keys: dict[str, str], expected: str) -> None:  # type: ignore[no-untyped-def]
    for key, role in keys.items():
        await pilot.press(key)
        await pilot.pause()
        assert game.last_notice == f"{role} {expected}", key


async def test_a_key_for_another_phase_says_what_it_is_for_and_what_is_expected() -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        assert game.can_orient
        while_orienting = {
            "n": "N shows the next legal placement, while placing.",
            "p": "P shows the previous legal placement, while placing.",
            "tab": "Tab shows the next legal placement, while placing.",
            "e": "E shows the end screen again, once the game is over.",
        }
        # Hints are allowed: the key for one is said with what is expected.
        expected = "Now orient Assam: ← ↑ → ↓ or L S R, then Space to roll. H for a hint."
        await says_for_each_key(pilot, game, while_orienting, expected)
        await pilot.press("space")
        await settle(pilot)
        assert game.can_place
        placing = game.session.state
        while_placing = {
            "l": "L turns Assam a quarter left, while orienting.",
            "s": "S keeps Assam facing ahead, while orienting.",
            "r": "R turns Assam a quarter right, while orienting.",
            "space": "Space rolls the die, while orienting.",
        }
        expected = (
            "Now place your carpet: Tab or → for the next placement, Enter to place it. "
            "H for a hint."
        )
        await says_for_each_key(pilot, game, while_placing, expected)
        assert game.session.state == placing
        assert "Not your turn" not in " ".join(game.notices)


async def test_french_turns_with_g_t_d() -> None:
    app = app_with(players=3, seed=2, lang="fr")
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        prompt = str(game.query_one("#prompt").render())
        assert "G T D" in prompt and "L S R" not in prompt
        await pilot.press("d")  # droite: a quarter right of North
        await pilot.pause()
        assert game.pending_facing == 1
        await pilot.press("g", "g")  # back to North, then West
        await pilot.pause()
        assert game.pending_facing == 3
        await pilot.press("t")  # tout droit: as Assam faces now
        await pilot.pause()
        assert game.pending_facing == 0
        await pilot.press("n")
        await pilot.pause()
        assert game.last_notice.startswith("N montre la pose autorisée suivante")
        assert "G T D" in game.last_notice


async def test_after_the_end_screen_the_keys_the_prompt_offers_work() -> None:
    app = app_with(players=2, seed=3, rules=RuleSet(carpets=(3, 10, 12)))
    async with app.run_test(size=SIZE) as pilot:
        await play_to_end(pilot)
        await pilot.press("escape")  # back to the board
        await pilot.pause()
        game = app.screen
        assert isinstance(game, GameScreen)
        prompt = str(game.query_one("#prompt").render())
        assert "N for a new game, S to save, Q to quit" in prompt
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
    app = app_with(players=2, seed=3, rules=RuleSet(carpets=(3, 10, 12)))
    async with app.run_test(size=SIZE) as pilot:
        await play_to_end(pilot)
        await pilot.press("escape", "q")
        await pilot.pause()
        assert not app.is_running


async def test_buttons_fit_their_words_after_a_language_switch() -> None:
    def widths(app: MarrakechApp) -> dict[str, int]:
        buttons = app.screen.query(Button)
        return {b.id or "": b.size.width for b in buttons if b.display}

    fresh = {}
    for phase in ("orient", "place"):
        app = app_with(players=3, seed=2, lang="fr")
        async with app.run_test(size=SIZE) as pilot:
            await game_screen(pilot)
            if phase == "place":
                await pilot.press("space")
                await settle(pilot)
            fresh[phase] = widths(app)
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await game_screen(pilot)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert widths(app) == fresh["orient"]
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("ctrl+l", "ctrl+l")
        await pilot.pause()
        assert widths(app) == fresh["place"]


async def test_file_errors_in_french_are_in_french_with_one_prefix(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "latin1.json").write_bytes('{"seats": ["Zoé"]}'.encode("latin-1"))
    app = app_with(players=3, seed=2, lang="fr")
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        for name, reason in (
            ("missing.json", "fichier ou dossier introuvable"),
            ("", "c’est un dossier"),
            ("latin1.json", "ce n’est pas du texte UTF-8 (octet 0xe9 à la position 14)"),
        ):
            path = str(tmp_path / name)
            assert not app.load_record(path)
            assert app.last_notice == f"Impossible d’ouvrir {path} : {reason}"
        assert not app.load_record(str(tmp_path / "bad.json"))
        assert app.last_notice.startswith(f"Impossible d’ouvrir {tmp_path / 'bad.json'} : ")
        where = tmp_path / "no" / "such" / "x.json"
        assert not app.save_record(game.session, str(where))
        missing = "fichier ou dossier introuvable"
        assert app.last_notice == f"Impossible d’enregistrer {where} : {missing}"
        assert app.screen is game
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await game_screen(pilot)
        for name in ("missing.json", "bad.json", "latin1.json"):
            assert not app.load_record(str(tmp_path / name))
            assert app.last_notice.startswith(f"Cannot open {tmp_path / name}: ")


async def test_words_that_count_agree_with_the_count() -> None:
    # Two players, 3 carpets a colour: a seat soon holds 1 carpet (and 0 at the end).
    app = app_with(players=2, seed=3, rules=RuleSet(carpets=(3, 10, 12)))
    async with app.run_test(size=SIZE) as pilot:
        await play_to_end(pilot)
        game = app.screen_stack[1]
        text = " ".join(str(panel.render()) for panel in game.query(SeatPanel))
        assert "0 carpets" in text and "1 carpets" not in text and "1 dirhams" not in text
    assert seat_line_words(1, 1, "en") == "1 dirham · 1 carpet"
    assert seat_line_words(0, 2, "fr") == "0 dirham · 2 tapis"


def seat_line_words(money: int, carpets: int, lang: str) -> str:
    from marrakech.tui.strings import t

    return f"{t('panel.dirhams', lang, count=money)} · {t('panel.carpets', lang, count=carpets)}"


async def test_wrapped_log_lines_hang_under_their_sentence() -> None:
    app = app_with(players=3, seed=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(3):
            await pilot.press("enter")
            await settle(pilot)
        log = app.screen.query_one(GameLog)
        lines = [strip.text for strip in log.lines]
        starts = [line for line in lines if re.match(r"\s*\d+ ", line)]
        follows = [line for line in lines if line not in starts and line.strip()]
        assert starts and follows  # some sentences wrap at this width
        indent = len(starts[0]) - len(starts[0].lstrip()) + len("1 R ")
        assert all(line.startswith(" " * indent) for line in follows), follows
        assert log.styles.padding.left >= 1


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_terminal_too_small_says_so_and_80_by_24_shows_everything(lang: str) -> None:
    app = app_with(players=2, seed=2, lang=lang)
    async with app.run_test(size=(60, 18)) as pilot:
        game = await game_screen(pilot)
        notice = str(game.query_one("#too-small").render())
        said = {
            "en": "The terminal is too small: need 80×24, have 60×18.",
            "fr": "Le terminal est trop petit : il faut 80×24, il y a 60×18.",
        }
        assert said[lang] in notice and game.query_one("#too-small").display
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not game.query_one("#too-small").region.area
        for phase in ("orient", "place"):
            if phase == "place":
                await pilot.press("space")
                await settle(pilot)
            left, screen = game.query_one("#left").region, game.region
            prompt = game.query_one("#prompt")
            shown = [prompt, *[b for b in game.query(Button) if b.display]]
            assert all(left.contains_region(w.region) and w.region.area for w in shown), phase
            assert screen.contains_region(left)
            keys = game.query_one("#keys")
            assert keys.region.area and str(keys.render()).startswith(("? help", "? aide"))
            lines = prompt.render_lines(Region(0, 0, prompt.region.width, 20))
            assert len([line for line in lines if line.text.strip()]) <= prompt.region.height


async def test_ctrl_q_asks_before_discarding_an_unsaved_game(tmp_path: Path) -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("ctrl+q")  # nothing played yet: nothing to lose
        await pilot.pause()
        assert not app.is_running
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")
        await settle(pilot)
        for key in ("ctrl+q", "ctrl+n", "ctrl+o"):
            await pilot.press(key)
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, ConfirmDialog), key
            assert "not saved" in str(dialog.query_one("#confirm-text").render())
            await pilot.press("escape")  # keep playing
            await pilot.pause()
            assert app.is_running and app.screen is game
        assert app.save_record(game.session, str(tmp_path / "saved.json"))
        await pilot.press("ctrl+q")  # saved: quits at once
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_n_confirmed_and_the_setup_remembers_the_last_choices() -> None:
    app = MarrakechApp(PlayOptions(players=4, seed=5, timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        choices = {
            "#players": 3,
            "#seat-0": "bot:easy",
            "#seat-1": "human",
            "#seat-2": "bot:easy",
            "#rules": "bga",
            "#lang": "fr",
        }
        for selector, value in choices.items():
            setup.query_one(selector, Select).value = value
            await pilot.pause()
        setup.query_one("#first", Select).value = 2
        await pilot.click("#start")
        game = await game_screen(pilot)
        assert game.session.start.turn == 2
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.click("#confirm-yes")  # leave the game
        await pilot.pause()
        again = app.screen
        assert isinstance(again, SetupScreen) and again is not setup
        for selector, value in {**choices, "#first": 2}.items():
            assert again.query_one(selector, Select).value == value, selector
        assert app.lang == "fr"


async def test_setup_screen_shows_the_seats_and_first_seat_of_the_command_line() -> None:
    seats = (SeatSpec.human(), SeatSpec.bot("mcts:0.05"))
    app = MarrakechApp(PlayOptions(players=2, seats=seats, first_seat=1, timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await game_screen(pilot)
        await pilot.press("ctrl+n")  # nothing played by the human: no question
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen), type(setup)
        assert setup.query_one("#seat-1", Select).value == "bot:mcts:0.05"
        assert setup.query_one("#first", Select).value == 1
        assert setup.setup().seats == seats


async def test_orienting_previews_what_each_roll_would_do_R10_R11() -> None:
    app = app_with(players=3, seed=6)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        for _ in range(4):
            await pilot.press("enter")
            await settle(pilot)
        assert game.can_orient
        previews = {p.facing: p for p in preview_orientations(game.session.state)}
        panel = game.query_one("#outlook")
        for key in ("l", "s", "r"):
            await pilot.press(key)
            await pilot.pause()
            facing = game.pending_facing
            assert facing is not None and panel.display
            text = str(panel.render())
            outlook = previews[facing]
            assert f"Assam facing {FACING_NAMES[facing]}, the die:" in text
            for roll in outlook.rolls:
                assert (
                    f"{roll.roll.steps} ({roll.probability}) → {square_name(roll.landing)}: "
                    in text
                )
            marks = dict(game.query_one(BoardWidget).view.marks)
            assert set(marks) == {roll.landing for roll in outlook.rolls}
        await pilot.press("space")
        await settle(pilot)
        assert not panel.display and not game.query_one(BoardWidget).view.marks


async def test_typing_squares_places_a_carpet_the_core_allows_R14() -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("a")  # a square letter while orienting: what it is for
        await pilot.pause()
        assert game.last_notice.startswith("A is for typing a square such as b3")
        await pilot.press("space")
        await settle(pilot)
        assert game.can_place
        legal = [a for a in game.session.state.legal_actions() if isinstance(a, Place)]
        target = legal[-1]
        first, second = (square_name(square) for square in target.squares)
        await pilot.press(first[0])
        await pilot.pause()
        assert f"{first[0]}… now its number" in str(game.query_one("#prompt").render())
        await pilot.press(first[1])
        await pilot.pause()
        assert f"{first}, then the other square" in str(game.query_one("#prompt").render())
        await pilot.press("minus", *second)
        await pilot.pause()
        assert game.preview == target
        await pilot.press("a", "1")  # far from Assam: refused, with the reason
        await pilot.pause()
        assert game.last_notice == "No legal carpet placement covers a1." and game.preview == target
        await pilot.press("enter")
        await settle(pilot)
        assert game.session.actions[2] == target


async def test_a_bot_thinks_during_the_pause_before_its_decision() -> None:
    # The pause before each bot decision must not wait for the bot, nor the bot for the
    # pause: each pause ends only once the bot has started thinking (10 s: a liveness bound,
    # never reached unless the bot waits for the pause). Speeds: benchmarks/bench_tui_speeds.py.
    timing = Timing(step=0.0, tithe=0.0, bot=0.01, replay=0.0)
    app = app_with(players=3, seed=2, timing=timing, first_seat=0)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        decisions = threading.Semaphore(0)  # one release per bot decision started
        thinking_in_pauses: list[bool] = []
        choose = game.session.bot_choice
        pause = game.pause

        def bot_choice(state: State | None = None, stop: threading.Event | None = None) -> Action:
            decisions.release()
            return choose(state, stop)

        async def pause_watching(seconds: float) -> None:
            if seconds == timing.bot:  # this decision's bot must be thinking already
                thinking_in_pauses.append(await asyncio.to_thread(decisions.acquire, True, 10))
            await pause(seconds)

        object.__setattr__(game.session, "bot_choice", bot_choice)
        game.pause = pause_watching  # type: ignore[method-assign]
        await pilot.press("enter")  # roll
        await settle(pilot)
        await pilot.press("enter")  # place: two bots orient and place
        await settle(pilot)
        assert thinking_in_pauses == [True] * 4


async def test_escape_skips_the_animation_to_your_turn() -> None:
    # 6 s a step and a pause: unskipped, your walk takes 6 s or more, the bots' turns 36 s;
    # skipped, well under those even on a loaded machine.
    slow = Timing(step=6.0, tithe=6.0, bot=6.0, replay=6.0)
    app = app_with(players=3, seed=2, timing=slow, first_seat=0)
    async with app.run_test(size=SIZE) as pilot:
        game = app.screen
        assert isinstance(game, GameScreen)
        await pilot.press("space")
        await pilot.pause(0.05)
        await pilot.press("escape")
        started = time.monotonic()
        await settle(pilot)
        assert game.can_place and time.monotonic() - started < 5
        await pilot.press("enter")
        await pilot.pause(0.05)
        await pilot.press("escape")
        started = time.monotonic()
        await settle(pilot)
        assert game.can_orient and time.monotonic() - started < 12
        assert len(game.session.actions) == 9


async def test_the_speed_is_chosen_on_the_setup_screen_and_with_f2() -> None:
    app = MarrakechApp(PlayOptions(players=3, seed=1, speed="slow"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen) and setup.query_one("#speed", Select).value == "slow"
        setup.query_one("#speed", Select).value = "fast"
        await pilot.pause()
        assert app.speed == "fast" and app.timing == SPEEDS["fast"]
        await pilot.click("#start")
        await pilot.pause()
        game = app.screen
        assert isinstance(game, GameScreen) and game.timing == SPEEDS["fast"]
        await pilot.press("f2")
        assert app.speed == "instant" and game.timing == SPEEDS["instant"]
        assert game.last_notice.startswith("Animation: instant")
        await pilot.press("f2")
        assert app.speed == "slow"


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_the_setup_screen_shows_all_its_buttons_at_80_by_24(lang: str) -> None:
    app = MarrakechApp(PlayOptions(lang=lang, timing=Timing.instant()))
    async with app.run_test(size=(80, 24)) as pilot:
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        # The box scrolls to the focused Start button once laid out, a refresh or more
        # after mounting on a loaded machine: wait for that, as a user's eye would.
        start = setup.query_one("#start", Button)
        for _ in range(100):
            await pilot.pause()
            if setup.region.contains_region(start.region):
                break
        for button in setup.query(Button):
            assert setup.region.contains_region(button.region) and button.region.height == 3


async def pick(pilot, dialog: PathDialog, name: str) -> None:  # type: ignore[no-untyped-def]
    """Choose ``name`` in the dialog's file picker with the keyboard."""
    tree = dialog.query_one(DirectoryTree)
    tree.focus()
    for _ in range(100):
        await pilot.pause()
        node = tree.cursor_node
        if node is not None and node.data is not None and node.data.path.name == name:
            await pilot.press("enter")
            await pilot.pause()
            return
        await pilot.press("down")
    raise AssertionError(f"{name} is not in the picker")


async def test_the_load_dialog_picks_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_record(tmp_path / "saved.json", 3, ["human", "bot:easy", "bot:easy"], moves=4)
    (tmp_path / "notes.txt").write_text("not a record", encoding="utf-8")
    (tmp_path / "games").mkdir()
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        tree = dialog.query_one(DirectoryTree)
        shown = {path.name for path in tree.filter_paths(tmp_path.iterdir())}
        assert shown == {"saved.json", "games"}  # folders and records only
        await pick(pilot, dialog, "saved.json")
        loaded = await game_screen(pilot)
        record = GameRecord.from_json((tmp_path / "saved.json").read_text(encoding="utf-8"))
        assert loaded is not game and loaded.session.actions[:4] == list(record.actions)


async def test_the_save_dialog_picks_a_folder_and_keeps_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "games").mkdir()
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await game_screen(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        name = dialog.query_one(Input).value
        await pick(pilot, dialog, "games")
        assert dialog.query_one(Input).value == str(Path("games") / name)
        dialog.query_one(Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert (tmp_path / "games" / name).is_file()


async def test_file_names_that_cannot_be_files_are_refused_in_words() -> None:
    app = app_with(players=3, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        for path in ("bad\0name.json", "~no-such-user-here/game.json", "x" * 5000):
            assert not app.load_record(path)
            assert app.last_notice.startswith(f"Cannot open {path}: ")
            assert not app.save_record(game.session, path)
            assert app.last_notice.startswith(f"Cannot save {path}: ")
        assert app.screen is game


async def test_a_replay_shows_an_unknown_bot_and_refuses_to_play_it_on() -> None:
    start = State.new(players=2)
    _, actions = random_game(start, random.Random(5))
    record = GameRecord.from_actions(start, actions, seats=["human", "bot:wizard"])
    app = MarrakechApp(PlayOptions(replay=record, timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        assert "bot wizard" in str(replay.query_one("#seat-1").render())
        await pilot.press("pagedown", "p")
        await pilot.pause()
        assert app.screen is replay
        assert "'wizard' at Blue-Purple, which cannot play here" in app.last_notice
