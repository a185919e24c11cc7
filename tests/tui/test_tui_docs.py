"""Every command and snippet of docs/terminal.md runs, so none can rot.

The ``marrakech play`` commands run headless with Textual's pilot (their options parsed
and checked as the command line does, the files they name made first); the refusals
shown run and print what the page says; the screenshot command reproduces the committed
picture byte for byte; the Python snippets run as doctests.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from marrakech.arena import MatchConfig, run_match
from marrakech.bots import make_bot
from marrakech.cli import build_parser, main
from marrakech.state import State
from marrakech.tui.app import MarrakechApp
from marrakech.tui.cli import options_from_args
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.replay_screen import ReplayScreen
from marrakech.tui.session import SeatSpec, Session
from marrakech.tui.setup_screen import SetupScreen
from marrakech.tui.timing import Timing

from .conftest import SIZE, settle

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "terminal.md"
TEXT = PAGE.read_text(encoding="utf-8")
SCREENSHOT = ROOT / "docs" / "screenshot-terminal.svg"


def code_spans() -> list[str]:
    """The ``marrakech SUBCOMMAND ...`` commands written inline on the page."""
    return re.findall(r"`(marrakech (?:play|replay|arena|serve)\b[^`]*)`", TEXT)


def blocks(language: str) -> list[str]:
    return re.findall(rf"^ *```{language}\n(.*?)^ *```", TEXT, flags=re.M | re.S)


def shell_lines() -> list[str]:
    return [line.strip() for block in blocks("sh") for line in block.splitlines() if line.strip()]


def console_examples() -> list[tuple[str, str]]:
    """(command, the one line it prints) of the ``console`` blocks."""
    found = []
    for block in blocks("console"):
        lines = block.splitlines()
        for command, said in zip(lines[::2], lines[1::2], strict=True):
            found.append((command.removeprefix("$ "), said))
    return found


def play_commands() -> list[str]:
    shown = {command for command, _ in console_examples()}
    commands = [*code_spans(), *shell_lines()]
    return sorted({c for c in commands if c.startswith("marrakech play") and c not in shown})


def test_the_page_has_its_commands() -> None:
    assert len(play_commands()) >= 9 and console_examples() and shell_lines()
    handled = ("marrakech play", "marrakech replay ", "pip install ", "python -m ")
    for command in [*code_spans(), *shell_lines()]:
        assert command.startswith(handled), command


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The files the page's commands name, in the current folder: a game saved by
    ``marrakech play`` (game.json, 3 players) and arena results (results.jsonl)."""
    monkeypatch.chdir(tmp_path)
    seats = (SeatSpec.human(), SeatSpec.bot("easy"), SeatSpec.bot("easy"))
    session = Session(State.new(players=3), seats, seed=1)
    while len(session.actions) < 8:
        state = session.state
        session.play(session.sample_chance() if state.is_chance else state.legal_actions()[0])
    (tmp_path / "game.json").write_text(session.record().to_json(), encoding="utf-8")
    run_match(
        MatchConfig(players=2, bots=("random", "greedy"), games=2, seed=1), out="results.jsonl"
    )
    return tmp_path


@pytest.mark.asyncio
@pytest.mark.parametrize("command", play_commands())
async def test_each_play_command_opens_its_screen(command: str, files: Path) -> None:
    argv = shlex.split(command)[1:]
    options = options_from_args(build_parser().parse_args(argv))
    options.timing = Timing.instant()
    app = MarrakechApp(options)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        if "--replay" in argv:
            assert isinstance(screen, ReplayScreen)
        elif "--load" in argv or "--seats" in argv:
            assert isinstance(screen, GameScreen)
        else:
            assert isinstance(screen, SetupScreen)
        assert not app.notices or "--load" in argv  # nothing went wrong


@pytest.mark.parametrize(("command", "said"), console_examples())
def test_each_refusal_shown_is_what_the_command_says(
    command: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(shlex.split(command)[1:]) == 2
    assert capsys.readouterr().err == said + "\n"


def test_the_refusal_of_the_parser_shown_is_what_it_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    (said,) = [line for line in blocks("text") if line.startswith("marrakech play: --lang")]
    with pytest.raises(SystemExit) as exit_:
        main(["play", "--lang", "de"])
    assert exit_.value.code == 2 and capsys.readouterr().err == said


def test_the_completion_commands_shown_print_their_scripts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands = re.findall(r"marrakech completion (\w+)", "\n".join(blocks("bash")))
    assert sorted(set(commands)) == ["bash", "zsh"]
    for shell in commands:
        assert main(["completion", shell]) == 0
        assert "_marrakech" in capsys.readouterr().out


def test_the_replay_commands_named_run(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in code_spans():
        if command.startswith("marrakech replay "):
            assert main(shlex.split(command)[1:]) == 0, command
            assert "dice luck" in capsys.readouterr().out


def test_the_tui_extra_brings_textual() -> None:
    assert "pip install 'marrakech[tui]'" in shell_lines()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(r.startswith("textual") for r in project["optional-dependencies"]["tui"])


def test_the_screenshot_command_draws_the_committed_picture(tmp_path: Path) -> None:
    (command,) = [line for line in shell_lines() if line.startswith("python -m")]
    argv = shlex.split(command)[1:]
    assert argv[2] == "docs/screenshot-terminal.svg"
    argv[2] = str(tmp_path / "shot.svg")
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    subprocess.run([sys.executable, *argv], check=True, timeout=300, cwd=ROOT, env=env)
    assert (tmp_path / "shot.svg").read_bytes() == SCREENSHOT.read_bytes()


def test_the_python_snippets_run() -> None:
    result = doctest.testfile(str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


REPRODUCIBLE = next(c for c in play_commands() if "--seed" in c)


async def played(command: str, decisions: int | None) -> list[str]:
    """The actions of the game ``command`` starts, you pressing Enter at each decision
    (``decisions`` of them, or to the end)."""
    options = options_from_args(build_parser().parse_args(shlex.split(command)[1:]))
    options.timing = Timing.instant()
    app = MarrakechApp(options)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(decisions if decisions is not None else 1000):
            await settle(pilot)
            game = app.screen_stack[1]
            assert isinstance(game, GameScreen)
            if game.session.state.is_terminal:
                break
            await pilot.press("enter")
        await settle(pilot)
        game = app.screen_stack[1]
        assert isinstance(game, GameScreen)
        return [str(action) for action in game.session.actions]


@pytest.mark.asyncio
async def test_the_reproducible_game_is_reproducible() -> None:
    first = await played(REPRODUCIBLE, 6)  # three of your turns and the bots' between
    assert len(first) > 20 and first == await played(REPRODUCIBLE, 6)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_the_reproducible_game_is_reproducible_to_the_end() -> None:
    first = await played(REPRODUCIBLE, None)
    assert first == await played(REPRODUCIBLE, None)


def test_the_reproducible_game_has_no_bot_thinking_against_the_clock() -> None:
    # hard and expert think for a time: the page's reproducible game counts work instead.
    options = options_from_args(build_parser().parse_args(shlex.split(REPRODUCIBLE)[1:]))
    for spec in options.seats or ():
        assert spec.is_human or getattr(make_bot(spec.spec), "seconds", None) is None, spec
