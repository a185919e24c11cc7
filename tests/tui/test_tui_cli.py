"""``marrakech play`` arguments: what they start, and clear refusals (exit 2, one line)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import random
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from marrakech.cli import build_parser, main
from marrakech.playout import random_game
from marrakech.record import GameRecord
from marrakech.rules import BGA
from marrakech.state import State
from marrakech.tui.cli import options_from_args
from marrakech.tui.session import SeatSpec

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e


def parse(*argv: str):  # type: ignore[no-untyped-def]
    return options_from_args(build_parser().parse_args(["play", *argv]))


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line `marrakech play ARGV` exits 2 with."""
    assert main(["play", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("marrakech play: "), err
    return err.removeprefix("marrakech play: ").strip()


def write_game(path: Path, players: int = 3, moves: int = 10, seats: tuple[str, ...] = ()) -> None:
    start = State.new(players=players)
    _, actions = random_game(start, random.Random(4))
    record = GameRecord.from_actions(start, actions[:moves], seats=seats)
    path.write_text(record.to_json(), encoding="utf-8")


def run_play(*argv: str, stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "marrakech.cli", "play", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=stdin,
    )


def test_defaults_open_the_setup_screen() -> None:
    options = parse()
    assert options.players == 4 and options.lang == "en" and options.seats is None
    assert options.replay is None and options.load is None


def test_seats_players_rules_language_seed() -> None:
    options = parse(
        *("--players", "3", "--rules", "bga", "--lang", "fr"),
        *("--seats", "human,easy,bot:hard", "--seed", "7", "--first", "3"),
    )
    assert options.players == 3 and options.rules == BGA and options.lang == "fr"
    assert options.seats == (SeatSpec.human(), SeatSpec.bot("easy"), SeatSpec.bot("hard"))
    assert options.seed == 7 and options.first_seat == 2  # --first counts seats from 1


def test_the_player_count_follows_the_seats_R4() -> None:
    # The README's command: three seats, no --players.
    options = parse("--seats", "human,medium,hard", "--lang", "fr")
    assert options.players == 3 and len(options.seats or ()) == 3
    # The learned level plays the shipped policy of the count: 2 and 4 players.
    assert parse("--seats", "human,learned").players == 2
    assert parse("--seats", "human,learned,policy-4p,learned").players == 4


def test_seats_take_every_bot_spec_the_arena_takes() -> None:
    options = parse("--seats", "human,mcts:0.5,mcts@iterations=300,expectimax@depth=2")
    assert [seat.token for seat in options.seats or ()] == [
        "human",
        "bot:mcts:0.5",
        "bot:mcts@iterations=300",
        "bot:expectimax@depth=2",
    ]


def test_first_counts_seats_from_one_R4() -> None:
    assert parse("--players", "2", "--first", "1").first_seat == 0
    assert parse("--seats", "human,easy,easy", "--first", "3").first_seat == 2


def test_refusals_say_what_was_expected_and_what_was_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "game.json"
    write_game(game)
    cases = {
        ("--players", "3", "--seats", "human,easy"): (
            "--seats: expected 3 seats for --players 3, found 2 ('human,easy')"
        ),
        ("--seats", "human,easy,easy,easy,easy"): (
            "--seats: expected 2, 3 or 4 seats, found 5 ('human,easy,easy,easy,easy')"
        ),
        ("--seats", "human,wizard"): "--seats: expected a seat: human, a bot level",
        ("--seats", "human,mcts@depth=2"): "--seats: bot spec 'mcts@depth=2': mcts takes",
        ("--seats", "human,mcts@iterations=0"): (
            "--seats: bot spec 'mcts@iterations=0': iterations must be 1 to 10000000, found 0"
        ),
        ("--seats", "human,mcts:0"): (
            "--seats: bot spec 'mcts:0': seconds must be more than 0 and at most 60, found 0.0"
        ),
        ("--seats", "human,learned,easy"): (
            "--seats: the command line seats 'bot:learned' at seat 1 (Blue): policy (the "
            "learned level) plays 2- or 4-player games only"
        ),
        ("--seats", "human,easy,policy-2p,easy"): (
            "--seats: the command line seats 'bot:policy-2p' at seat 2 (Yellow): policy "
            "policy-2p was trained for 2-player games, found a 4-player game: use policy-4p"
        ),
        ("--seats", ""): "--seats: expected one entry per seat, found ''",
        ("--seats", "human,"): "--seats: expected a seat: human, a bot level",
        ("--players", "2", "--first", "3"): "--first: expected a seat 1..2, found 3",
        ("--players", "2", "--first", "0"): "--first: expected a seat 1..2, found 0",
        ("--game", "1"): (
            "--game N picks a game of arena results: give them with --replay or --load"
        ),
        ("--load", str(game), "--players", "2"): (
            "--load: the record holds its players and rules: leave out --players"
        ),
        ("--replay", str(game), "--rules", "bga"): (
            "--replay: the record holds its players and rules: leave out --rules"
        ),
        ("--load", str(game), "--first", "1"): (
            "--load: the record holds who started: leave out --first"
        ),
        ("--replay", str(game), "--seats", "human,easy,easy"): (
            "--replay: the record holds its seats: leave out --seats (--load FILE --seats ... "
            "plays a record on with other seats)"
        ),
        ("--load", str(game), "--seats", "human,easy"): (
            "--seats: expected 3 seats for the record's 3 players, found 2 ('human,easy')"
        ),
        ("--replay", str(tmp_path / "missing.json")): "cannot read",
        ("--load", str(tmp_path)): "cannot read",
    }
    for argv, expected in cases.items():
        assert refusal(capsys, *argv).startswith(expected), argv
    (tmp_path / "chess.json").write_text('{"format": "chess"}', encoding="utf-8")
    said = refusal(capsys, "--load", str(tmp_path / "chess.json"))
    assert 'expected "format": "marrakech-record"' in said
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--lang", "de"])


def test_a_record_seating_an_unknown_bot_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "wizard.json"
    write_game(path, seats=("human", "bot:wizard", "bot:easy"))
    assert refusal(capsys, "--load", str(path)) == (
        "the record seats 'bot:wizard' at seat 1 (Blue): unknown bot 'wizard': expected one "
        "of random, policy, policy-2p, policy-4p, greedy, expectimax, mcts, hard-v1, "
        "expert-v1, search-quick, search, az, easy, learned, medium, hard, expert (choose the "
        "seats with --seats)"
    )
    options = parse("--load", str(path), "--seats", "human,easy,easy")
    assert options.seats == (SeatSpec.human(), SeatSpec.bot("easy"), SeatSpec.bot("easy"))


def test_replay_and_load_game_n_of_arena_results(tmp_path: Path) -> None:
    from marrakech.arena import MatchConfig, run_match

    results = tmp_path / "results.jsonl"
    config = MatchConfig(players=2, bots=("random", "greedy"), games=2, seed=3)
    run_match(config, out=results)
    options = parse("--replay", str(results), "--game", "1")
    assert options.replay is not None and options.replay.seats in (
        ("bot:random", "bot:greedy"),
        ("bot:greedy", "bot:random"),
    )
    loaded = parse("--load", str(results), "--game", "0").load
    assert loaded is not None and loaded.final_state().is_terminal


def test_a_record_that_is_not_utf8_is_refused_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"format": "marrakech-record", "seats": ["Zoé"]}'.encode("latin-1"))
    for option in ("--replay", "--load"):
        done = run_play(option, str(path))
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr == (
            f"marrakech play: {path}: expected a game record in UTF-8 text, found a byte "
            "that is not UTF-8 (0xe9 at byte 44)\n"
        )


def test_play_refuses_to_draw_into_a_file(tmp_path: Path) -> None:
    # Its screen is for a terminal: into a file or a pipe it would write escape codes.
    out = tmp_path / "out.txt"
    with open(out, "w") as handle:
        done = subprocess.run(
            [sys.executable, "-m", "marrakech.cli", "play", "--seats", "human,easy"],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2 and out.read_text() == ""
    assert done.stderr == (
        "marrakech play: expected a terminal on standard input and output, found a file or a "
        "pipe (to read a game record as text: marrakech replay FILE)\n"
    )


README_COMMAND = ("--seats", "human,medium,hard", "--lang", "fr", "--first", "1")


def play_in_a_terminal(
    argv: tuple[str, ...], until: bytes, env: dict[str, str] | None = None
) -> tuple[bytes, int]:
    """`marrakech play ARGV` in a pseudo-terminal of 100 × 32: what it wrote until
    ``until`` showed (60 s at most: a liveness bound), then Ctrl+Q; and its exit code."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, in a terminal of 100 × 32
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 32, 100, 0, 0))
        command = [sys.executable, "-m", "marrakech.cli", "play", *argv]
        os.execve(sys.executable, command, env if env is not None else dict(os.environ))
    screen = b""
    deadline = time.monotonic() + 60
    while until not in screen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                screen += os.read(fd, 65536)
            except OSError:
                break
    with contextlib.suppress(OSError):
        os.write(fd, b"\x11")  # Ctrl+Q
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        try:
            if ready and not os.read(fd, 65536):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    return screen, os.waitstatus_to_exitcode(status)


def test_the_readme_command_plays_in_a_terminal() -> None:
    # `marrakech play --seats human,medium,hard --lang fr`, in a pseudo-terminal; Ctrl+Q.
    screen, code = play_in_a_terminal(README_COMMAND, b"Tour de Rouge")
    assert b"Tour de Rouge" in screen and b"Traceback" not in screen
    assert code == 0


def colour_codes(output: bytes) -> list[str]:
    """The SGR sequences of ``output`` that set a colour (a foreground or background
    other than the terminal's default: 30-38, 40-48, 90-97, 100-107)."""
    found = []
    for match in re.finditer(rb"\x1b\[([0-9;:]*)m", output):
        params = [int(p) for p in re.split(rb"[;:]", match.group(1)) if p]
        if any(p in range(30, 39) or p in range(40, 49) or p in range(90, 108) for p in params):
            found.append(match.group(0).decode())
    return found


def test_no_color_sends_no_colour_codes() -> None:
    # https://no-color.org: with NO_COLOR set, the screen has no colour at all.
    argv = ("--seats", "human,easy", "--first", "1")
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    coloured, code = play_in_a_terminal(argv, b"Turn of Red", env)
    assert code == 0 and colour_codes(coloured)  # in colour by default
    plain, code = play_in_a_terminal(argv, b"Turn of Red", {**env, "NO_COLOR": "1"})
    assert code == 0 and b"Turn of Red" in plain
    assert colour_codes(plain) == []


def test_the_animation_speed(tmp_path: Path) -> None:
    assert parse().speed == "normal" and parse("--speed", "fast").speed == "fast"
    write_game(tmp_path / "game.json")
    assert parse("--replay", str(tmp_path / "game.json"), "--speed", "slow").speed == "slow"
