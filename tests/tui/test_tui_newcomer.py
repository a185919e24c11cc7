"""The terminal as a newcomer tries it: capital keys, quitting while a bot thinks, a
small terminal, French throughout, the keys bar, notices and dialogs, NO_COLOR."""

from __future__ import annotations

from typing import Any

import pytest

from marrakech.rules import RuleSet
from marrakech.tui.dialogs import EndScreen
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.replay_screen import ReplayScreen
from marrakech.tui.session import SeatSpec

from .conftest import SIZE, app_with, game_screen, play_to_end, settle

pytestmark = pytest.mark.asyncio


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
