"""The `marrakech` command as a newcomer meets it: refusals in one format, a description
in every subcommand's help, `--rules` options, shell completion, and a board drawn in
ASCII when the terminal's encoding cannot draw its lines."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from marrakech import State, random_game
from marrakech.cli import build_parser, main
from marrakech.record import GameRecord

# The subcommands of the optional layers (play, arena, serve...) and their options are
# part of what this checks: without the terminal's extra (the wheel checked bare) they
# are not there.
pytest.importorskip("textual")


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err.rstrip("\n")


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ("play", "--lang", "de"),
            "marrakech play: --lang: expected one of en, fr, found 'de'",
        ),
        (
            ("play", "--first", "one"),
            "marrakech play: --first: expected a whole number, found 'one'",
        ),
        (
            ("play", "--players", "5"),
            "marrakech play: --players: expected 2, 3 or 4 players, found '5'",
        ),
        (("play", "--seats"), "marrakech play: --seats: expected a value after it, found none"),
        (
            ("play", "--replay", "a.json", "--load", "b.json"),
            "marrakech play: --load: expected it or --replay, not both, found both",
        ),
        (("replay",), "marrakech replay: expected file, found none"),
        (
            ("pley",),
            "marrakech: expected one of perft, bench, replay, analyse, serve, admin, play, learn, "
            "arena, evaluate, compile, train, pretrain, connect, completion, found 'pley'",
        ),
        (
            ("bench", "--engine", "turbo"),
            "marrakech bench: --engine: expected one of core, fast, found 'turbo'",
        ),
        (
            ("completion", "fish"),
            "marrakech completion: shell: expected one of bash, zsh, found 'fish'",
        ),
    ],
)
def test_option_errors_are_one_line_saying_what_was_expected_and_found(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], line: str
) -> None:
    prog = line.partition(":")[0]
    assert refusal(capsys, *argv) == f"{line} (see {prog} --help)"


def test_every_subcommand_has_a_description_in_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(commands.choices, dict) and commands.choices
    for name, sub in commands.choices.items():
        assert sub.description and len(sub.description) > 20, name
        with pytest.raises(SystemExit):
            main([name, "--help"])
        out = capsys.readouterr().out
        assert " ".join(sub.description.split()[:3]) in " ".join(out.split()), name


def test_rules_help_documents_the_rule_options(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("play", "arena", "bench", "perft"):
        with pytest.raises(SystemExit):
            main([name, "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert "+orient-last (R32: rotate Assam at the end of the turn)" in help_text, name


def test_the_bash_completion_script_is_valid_and_completes() -> None:
    bash = shutil.which("bash")
    assert bash is not None
    script = subprocess.run(
        [sys.executable, "-m", "marrakech.cli", "completion", "bash"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    checked = subprocess.run([bash, "-n"], input=script, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr

    def complete(*words: str) -> list[str]:
        line = " ".join(f"'{w}'" for w in words)
        program = (
            f"{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _marrakech\n"
            'printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        done = subprocess.run([bash, "-c", program], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("marrakech", "") == [
        "perft", "bench", "replay", "analyse", "serve", "admin", "play", "learn", "arena",
        "evaluate", "compile", "train", "pretrain", "connect", "completion", "-h", "--help",
        "--version",
    ]  # fmt: skip
    assert complete("marrakech", "pl") == ["play"]
    assert complete("marrakech", "a") == ["analyse", "admin", "arena"]
    assert "--seats" in complete("marrakech", "play", "--s")
    assert complete("marrakech", "play", "--lang", "") == ["en", "fr"]
    assert complete("marrakech", "play", "--players", "") == ["2", "3", "4"]
    assert "bga+orient-last" in complete("marrakech", "arena", "--rules", "")
    assert complete("marrakech", "completion", "") == ["bash", "zsh"]
    assert complete("marrakech", "bench", "--engine", "f") == ["fast"]


def test_the_zsh_completion_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "zsh"]) == 0
    script = capsys.readouterr().out
    assert script.startswith("#compdef marrakech\n")
    for name in ("perft", "bench", "replay", "analyse", "play", "arena", "completion"):
        assert f"        {name})\n" in script and f"'{name}:" in script
    assert "'--lang[en (default) or fr]:value:(en fr)'" in script
    assert "'--replay[step through a JSON game record]:file:_files'" in script
    zsh = shutil.which("zsh")
    if zsh is not None:  # not every machine has zsh: then its syntax is not checked
        checked = subprocess.run([zsh, "-n"], input=script, capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr


def write_record(path: Path) -> None:
    start = State.new(players=3)
    _, actions = random_game(start, random.Random(3))
    path.write_text(GameRecord.from_actions(start, actions[:6]).to_json(), encoding="utf-8")


@pytest.mark.parametrize("encoding", ["ascii", "iso8859-1"])
def test_replay_draws_in_ascii_when_the_encoding_cannot_draw_lines(
    tmp_path: Path, encoding: str
) -> None:
    write_record(tmp_path / "game.json")
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    done = subprocess.run(
        [sys.executable, "-m", "marrakech.cli", "replay", str(tmp_path / "game.json")],
        capture_output=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    done.stdout.decode("ascii")  # only ASCII
    assert b"+---+---+" in done.stdout
    assert done.stderr.decode() == (
        f"marrakech replay: standard output's encoding ({encoding}) cannot draw the board's "
        "lines: drawn in ASCII (--ascii does it on purpose; a UTF-8 locale such as "
        "LANG=C.UTF-8 draws them)\n"
    )


def test_replay_draws_lines_in_utf8(tmp_path: Path) -> None:
    write_record(tmp_path / "game.json")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "marrakech.cli", "replay", str(tmp_path / "game.json")],
        capture_output=True,
        env=env,
    )
    assert done.returncode == 0 and done.stderr == b""
    assert "┼" in done.stdout.decode("utf-8")


def test_play_says_to_use_a_utf8_locale_when_the_encoding_cannot_draw(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "iso8859-1"}
    done = subprocess.run(
        [sys.executable, "-m", "marrakech.cli", "play", "--seats", "human,easy"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "marrakech play: expected a terminal whose encoding draws Unicode (UTF-8), found "
        "iso8859-1: set a UTF-8 locale (LANG=C.UTF-8) to play, or read a game record as "
        "ASCII with marrakech replay FILE --ascii\n"
    )
