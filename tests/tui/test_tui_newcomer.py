"""The terminal as a newcomer tries it: capital keys, quitting while a bot thinks, a
small terminal, French throughout, the keys bar, notices and dialogs, NO_COLOR."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Button, OptionList, Static

from marrakech.arena import MatchConfig, run_match
from marrakech.playout import random_game
from marrakech.record import GameRecord
from marrakech.rules import RuleSet
from marrakech.state import State
from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.dialogs import ConfirmDialog, EndScreen, GamePicker, PathDialog
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.replay_screen import ReplayScreen
from marrakech.tui.screen_base import Timing
from marrakech.tui.session import SeatSpec
from marrakech.tui.setup_screen import SetupScreen
from marrakech.tui.strings import t
from marrakech.tui.widgets import GameLog

from .conftest import SIZE, app_with, game_screen, play_to_end, settle

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


async def test_capital_keys_do_what_their_letters_do() -> None:
    # The help and the docs name the keys in capitals: R, L, H, U, N, D.
    app = app_with(players=3, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("R")  # a quarter right of North
        await pilot.pause()
        assert game.pending_facing == 1
        await pilot.press("L")  # a quarter left of North
        await pilot.pause()
        assert game.pending_facing == 3
        await pilot.press("D")  # droite, in either language
        await pilot.pause()
        assert game.pending_facing == 1
        await pilot.press("H")  # a hint
        await settle(pilot)
        assert game.session.hints_used == [1, 0, 0]
        await pilot.press("space")
        await settle(pilot)
        assert game.can_place
        first = game.preview
        await pilot.press("N")  # the next placement
        await pilot.pause()
        assert game.preview != first
        await pilot.press("U")  # undo: back to orienting
        await settle(pilot)
        assert game.can_orient and game.session.actions == []


async def test_capital_keys_on_the_end_screen() -> None:
    app = app_with(players=2, seed=3, rules=RuleSet(carpets=(3, 10, 12)))
    async with app.run_test(size=SIZE) as pilot:
        await play_to_end(pilot)
        await pilot.press("B")  # back to the board
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        await pilot.press("E")
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        await pilot.press("N")
        await pilot.pause()
        assert not isinstance(app.screen, (EndScreen, GameScreen))  # the setup screen


async def test_capital_keys_in_a_replay() -> None:
    from marrakech.playout import random_game
    from marrakech.record import GameRecord
    from marrakech.state import State

    start = State.new(players=3)
    _, actions = random_game(start, __import__("random").Random(2))
    app = app_with(replay=GameRecord.from_actions(start, actions[:20]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        await pilot.press("L", "L", "L")
        await pilot.pause()
        assert replay.index == 3
        await pilot.press("H")
        await pilot.pause()
        assert replay.index == 2


async def test_quitting_while_a_bot_thinks_stops_its_search() -> None:
    # A bot with a minute a decision starts: Ctrl+Q must not wait for its search.
    seats = (SeatSpec.bot("mcts:60"), SeatSpec.human(), SeatSpec.human())
    app = app_with(players=3, seats=seats, first_seat=0)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(1000):
            await pilot.pause(0.01)
            game = app.screen
            bot: Any = game.session.bots[0] if isinstance(game, GameScreen) else None
            if bot is not None and getattr(bot, "stop", None) is not None:
                break
        assert isinstance(game, GameScreen) and bot is not None
        stop = game.bot_stop
        assert stop is not None and bot.stop is stop and not stop.is_set()  # thinking
        await pilot.press("ctrl+q")  # nothing decided by a human: no question asked
        assert stop.is_set()  # told to stop, at once
    await app.workers.wait_for_complete()
    assert bot.stop is None  # the search returned: its flag was taken back


def entries(key: str, lang: str, *extra: str) -> list[str]:
    """The plain words of a keys bar's entries."""
    found = [Text.from_markup(e).plain for e in t(key, lang).split("|")]
    return found + [Text.from_markup(t(k, lang)).plain for k in extra]


def keys_text(screen: Any) -> str:
    return str(screen.query_one("#keys", Static).render())


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_the_log_keeps_four_lines_at_80_by_24_with_four_players(lang: str) -> None:
    app = app_with(players=4, seed=7, lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        game = await game_screen(pilot)
        log = game.query_one(GameLog)
        assert game.can_orient and game.query_one("#outlook").display
        assert log.scrollable_content_region.height >= 4
        await pilot.press("h")  # a hint shows under the outlook
        await settle(pilot)
        hint = game.query_one("#hint")
        assert hint.display and hint.region.height >= 2
        assert log.scrollable_content_region.height >= 4
        # Nothing of the side panel is cut off by the keys bar.
        keys = game.query_one("#keys").region
        assert log.region.bottom <= keys.y


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("width", [80, 100, 130])
async def test_the_keys_bar_shows_every_key_at_any_width(lang: str, width: int) -> None:
    record = _record()
    for options in (
        PlayOptions(players=3, seats=_seats(3), lang=lang, seed=1, first_seat=0),
        PlayOptions(replay=record, lang=lang),
        PlayOptions(lang=lang),
    ):
        options.timing = Timing.instant()
        app = MarrakechApp(options)
        async with app.run_test(size=(width, 30)) as pilot:
            await settle(pilot)
            screen = app.screen
            key, extra = {
                GameScreen: ("keys.game", ("keys.hint",)),
                ReplayScreen: ("keys.replay", ()),
                SetupScreen: ("keys.setup", ()),
            }[type(screen)]
            bar = keys_text(screen)
            lines = bar.split("\n")
            assert all(len(line) <= width - 2 for line in lines), lines
            shown = " ".join(" ".join(lines).split())
            for entry in entries(key, lang, *extra):
                assert entry in shown, (type(screen).__name__, entry)
            region = screen.query_one("#keys").region
            assert region.height == len(lines) and region.bottom == 30
            if isinstance(screen, GameScreen):  # one line at 80 columns: the board keeps room
                assert len(lines) == 1


async def test_undo_is_offered_only_when_it_would_be_done() -> None:
    app = app_with(players=3, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        assert "u undo" not in keys_text(game)  # nothing to take back yet
        await pilot.press("space")
        await settle(pilot)
        assert "u undo" in keys_text(game)
    app = app_with(players=2, humans=2, seed=3, rules=RuleSet(carpets=(3, 10, 12)))
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")
        await settle(pilot)
        assert "undo" not in keys_text(game)  # two humans: undo would be refused
        end = await play_to_end(pilot)
        notices = len(game.notices)
        await pilot.press("u")  # not offered on the end screen either: nothing happens
        await pilot.pause()
        assert app.screen is end and len(game.notices) == notices


async def test_the_log_rewraps_when_the_terminal_is_resized() -> None:
    app = app_with(players=3, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        game = await game_screen(pilot)
        for _ in range(3):
            await pilot.press("enter")
            await settle(pilot)
        log = game.query_one(GameLog)
        narrow = [strip.cell_length for strip in log.lines]
        assert max(narrow) <= 42
        await pilot.resize_terminal(160, 40)
        await settle(pilot)
        wide = [strip.cell_length for strip in log.lines]
        assert len(wide) < len(narrow)  # fewer lines: the sentences wrapped again
        assert max(wide) > 42


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_the_setup_screen_has_a_keys_bar_and_a_too_small_notice(lang: str) -> None:
    app = MarrakechApp(PlayOptions(lang=lang, timing=Timing.instant()))
    async with app.run_test(size=(60, 18)) as pilot:
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        notice = setup.query_one("#too-small")
        assert notice.display and notice.region.area
        said = {
            "en": "The terminal is too small: need 80×24, have 60×18.",
            "fr": "Le terminal est trop petit : il faut 80×24, il y a 60×18.",
        }
        assert said[lang] in str(notice.render())
        assert not setup.query_one("#setup-box").region.area
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not setup.query_one("#too-small").region.area
        assert setup.query_one("#setup-box").region.area
        keys = setup.query_one("#keys")
        assert keys.region.area and keys.region.bottom == 24
        assert ("Tab next choice" if lang == "en" else "Tab choix suivant") in keys_text(setup)


async def test_the_french_interface_has_no_english_words(tmp_path: Path) -> None:
    app = app_with(players=2, seed=3, lang="fr", rules=RuleSet(carpets=(3, 10, 12)))
    async with app.run_test(size=SIZE) as pilot:
        game = await game_screen(pilot)
        await pilot.press("ctrl+c")  # Textual's own words would be English
        await pilot.pause()
        assert app.last_notice == "Ctrl+Q pour quitter (Ctrl+C ne quitte pas)."
        assert not any("Press" in n.message or "quit?" in n.title for n in app._notifications)
        # A file that is JSON but no game record: the core's words are English.
        (tmp_path / "other.json").write_text('{"hello": 1}', encoding="utf-8")
        assert not app.load_record(str(tmp_path / "other.json"))
        assert app.last_notice == (
            f"Impossible d’ouvrir {tmp_path / 'other.json'} : ce n’est pas une partie "
            "enregistrée que cette version sait lire"
        )
        bot = GameRecord.from_actions(State.new(players=2), [], seats=["human", "bot:wizard"])
        (tmp_path / "wizard.json").write_text(bot.to_json(), encoding="utf-8")
        assert not app.load_record(str(tmp_path / "wizard.json"))
        assert app.last_notice.endswith(
            "qui ne peut pas jouer ici : un robot que cette version n’a pas, ou des réglages "
            "qu’elle refuse"
        )
        assert app.screen is game
        end = await play_to_end(pilot)
        labels = [str(button.label) for button in end.query(Button)]
        assert "Voir le plateau (Échap)" in labels and not any("Esc)" in x for x in labels)


async def test_the_file_picker_opens_game_n_of_arena_results(tmp_path: Path) -> None:
    results = tmp_path / "match.jsonl"
    run_match(MatchConfig(2, ("greedy", "random"), games=3, seed=4), workers=1, out=results)
    app = MarrakechApp(PlayOptions(timing=Timing.instant()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await pilot.click("#replay")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        dialog.query_one("#path-input").value = str(results)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, GamePicker)
        options = picker.query_one(OptionList)
        assert options.option_count == 3
        assert "Game 2: " in str(options.get_option_at_index(2).prompt)
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        lines = [json.loads(line) for line in results.read_text().splitlines()]
        game_2 = next(x for x in lines if x.get("type") == "game" and x["index"] == 2)
        assert len(replay.record.actions) == len(game_2["record"]["actions"])
        # Loading offers the same choice; Escape chooses nothing.
        assert app.load_record(str(results))
        await pilot.pause()
        picker_again: Any = app.screen
        assert isinstance(picker_again, GamePicker)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is replay


async def test_notices_do_not_cover_the_buttons_of_dialogs() -> None:
    app = app_with(players=3, seed=7)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        game = await game_screen(pilot)
        await pilot.press("space")  # something to lose: leaving asks first
        await settle(pilot)
        for key, dialog_type in (("ctrl+s", PathDialog), ("ctrl+n", ConfirmDialog)):
            await pilot.press(key)
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, dialog_type)
            for _ in range(3):
                app.notify("A long notice " * 8, timeout=30)
            await pilot.pause(0.3)
            assert dialog.query("Toast")  # the notices are shown
            buttons = list(dialog.query(Button))
            assert buttons
            for button in buttons:  # every cell of every button is the button's, on top
                region = button.region
                for x in range(region.x, region.right):
                    assert dialog.get_widget_at(x, region.y)[0] is button, (button, x)
            app.clear_notifications()
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is game


def _seats(players: int) -> tuple[SeatSpec, ...]:
    return (SeatSpec.human(), *[SeatSpec.bot("easy")] * (players - 1))


def _record() -> GameRecord:
    start = State.new(players=3)
    _, actions = random_game(start, random.Random(2))
    return GameRecord.from_actions(start, actions[:20])
