"""The `marrakech` command: perft, bench, replay, --version, and its errors."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from marrakech import State, __version__, random_game
from marrakech.cli import main
from marrakech.luck import dice_luck
from marrakech.record import GameRecord


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_perft_prints_one_line_per_depth(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "--players", "3", "4")
    assert code == 0
    assert out.splitlines() == ["perft 1 3", "perft 2 12", "perft 3 111", "perft 4 333"]


def test_perft_from_a_position_and_rules(capsys: pytest.CaptureFixture[str]) -> None:
    position = "7/7/7/7/7/7/7 d4N 30,30 12,12,12,12 -,- - draw:0:0 bga"
    code, out, _ = run(capsys, "perft", "--position", position, "2")
    assert code == 0 and out.splitlines() == ["perft 1 2", "perft 2 4"]
    code, out, _ = run(capsys, "perft", "--rules", "bga", "--players", "2", "1")
    assert out.splitlines() == ["perft 1 2"]


def test_bad_position_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "perft", "--position", "nonsense", "2")
    assert code == 2 and "expected 8 fields" in err


def test_r19_perft_refuses_a_game_over_while_play_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    position = "7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - over standard"
    code, out, err = run(capsys, "perft", "--position", position, "1")
    assert code == 2 and out == ""
    assert "the phase is 'over' but the game goes on" in err


def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["perft", "--players", "5", "2"])
    assert "2, 3 or 4" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "--rules", "chess"])
    assert "rule set" in capsys.readouterr().err


def test_bench_json_has_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--players", "4", "--games", "20", "--json")
    data = json.loads(out)
    assert code == 0
    assert set(data) >= {
        "games", "seconds", "games_per_s", "plies_per_s", "turns_per_game",
        "placements_per_place", "win_share",
    }  # fmt: skip
    assert data["games"] == 20 and len(data["win_share"]) == 4
    assert abs(sum(data["win_share"]) - 1) < 1e-9
    assert 40 <= data["turns_per_game"] <= 48
    assert 1 <= data["placements_per_place"] <= 12


def test_bench_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--players", "2", "--games", "5", "--seed", "3")
    assert code == 0 and "games per second" in out and "win share" in out


def test_replay_prints_every_position(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, actions = random_game(State.new(3), random.Random(2))
    record = GameRecord.from_actions(State.new(3), actions)
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path), "--ascii")
    assert code == 0
    assert out.count("== ") == len(actions) + 1
    assert record.final_state().notation() in out
    luck = dice_luck(record)
    expected = "  ".join(f"seat {seat}: {x:+.1f}" for seat, x in enumerate(luck))
    assert out.rstrip().endswith(expected) and "dice luck" in out.splitlines()[-1]


def test_replay_of_a_broken_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "marrakech-record"}', encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "version" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_console_script_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "marrakech.cli", "--version"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert result.stdout.strip() == f"marrakech {__version__}"


def test_replay_of_bytes_that_are_not_utf8(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"players": 3, "seats": ["Zoé"]}'.encode("latin-1"))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err == (
        f"marrakech replay: {path}: expected a game record in UTF-8 text, found a byte that "
        "is not UTF-8 (0xe9 at byte 28)\n"
    )


def test_perft_position_holds_its_players_and_rules(capsys: pytest.CaptureFixture[str]) -> None:
    position = State.new(3).notation()
    code, _, err = run(capsys, "perft", "--players", "3", "--position", position, "1")
    assert code == 2 and "--position holds its own players and rules: leave out --players" in err
    code, _, err = run(capsys, "perft", "--rules", "bga", "--position", position, "1")
    assert code == 2 and "leave out --rules" in err
    code, out, err = run(capsys, "perft", "--position", "", "1")
    assert code == 2 and out == "" and "expected 8 fields" in err and "found 1 in ''" in err


def test_bare_command_shows_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code == 2 and out == "" and "usage: marrakech" in err and "perft" in err


def test_unknown_option_is_refused_by_the_subcommand_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["perft", "--bogus", "2"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        "marrakech perft: expected no more arguments, found '--bogus' "
        "(see marrakech perft --help)\n"
    )


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    # Far more text than a pipe holds, so the command is still writing when the reader
    # leaves (as with `marrakech replay FILE | head -1`).
    _, actions = random_game(State.new(4), random.Random(2))
    (tmp_path / "game.json").write_text(GameRecord.from_actions(State.new(4), actions).to_json())
    argv = ["replay", str(tmp_path / "game.json")]
    process = subprocess.Popen(
        [sys.executable, "-m", "marrakech.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()  # as `| head -1` does, then close the pipe
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 141
    assert first and stderr == b""
