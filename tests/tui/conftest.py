"""Helpers for driving the terminal app with Textual's pilot (``App.run_test``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.dialogs import EndScreen
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.screen_base import Timing
from marrakech.tui.session import SeatSpec

SIZE = (96, 30)


@pytest.fixture(autouse=True)
def own_data_directory(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test its own user data directory (platformdirs reads ``XDG_DATA_HOME``), so
    that no test reads or writes the tutorial progress of the machine's user, and the
    setup screen is the same on a fresh CI machine and on a developer's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))


def options(players: int = 3, humans: int = 1, **kwargs: object) -> PlayOptions:
    """Options for a game that starts at once: ``humans`` human seats, then easy bots."""
    seats = tuple([SeatSpec.human()] * humans + [SeatSpec.bot("easy")] * (players - humans))
    values: dict[str, object] = {
        "players": players,
        "seats": seats,
        "seed": 11,
        "first_seat": 0,
        "timing": Timing.instant(),
    }
    values.update(kwargs)
    return PlayOptions(**values)  # type: ignore[arg-type]


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Let the driver run until a human must decide (or the game ends): wait for the
    workers (the driver, bots thinking) and the messages they post."""
    app = pilot.app
    for _ in range(10_000):
        await app.workers.wait_for_complete()
        await pilot.pause(0)
        screen = app.screen
        if not (isinstance(screen, GameScreen) and screen.busy):
            await pilot.pause(0)
            return
    raise AssertionError("the game screen stayed busy")


async def game_screen(pilot) -> GameScreen:  # type: ignore[no-untyped-def]
    """Settle, then the game screen the app shows (it must be one)."""
    await settle(pilot)
    game = pilot.app.screen
    assert isinstance(game, GameScreen), type(game).__name__
    return game


async def play_to_end(pilot, max_moves: int = 500) -> EndScreen:  # type: ignore[no-untyped-def]
    """Play every human decision by keys: Enter rolls (keeping Assam's facing) when
    orienting and places the first legal placement when placing."""
    app = pilot.app
    for _ in range(max_moves):
        await settle(pilot)
        screen = app.screen
        if isinstance(screen, EndScreen):
            return screen
        assert isinstance(screen, GameScreen), type(screen).__name__
        await pilot.press("enter")
    raise AssertionError("the game did not end")


def app_with(**kwargs: object) -> MarrakechApp:
    return MarrakechApp(options(**kwargs))  # type: ignore[arg-type]


@pytest.fixture
def slow_bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every bot of the games started meanwhile thinks until the event is set (10 s at
    most), then plays its first legal action."""
    from marrakech.tui import session as session_module

    release = threading.Event()

    class SlowBot:
        name = "slow"

        def choose(self, state, rng):  # type: ignore[no-untyped-def]
            release.wait(10)
            return state.legal_actions()[0]

    monkeypatch.setattr(session_module, "make_bot", lambda name: SlowBot())
    yield release
    release.set()
