"""``marrakech arena``: the table, the files it writes and its error messages."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from marrakech.arena import read_results
from marrakech.cli import main


def test_arena_prints_the_table_and_writes_every_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, table, plot, records = (
        tmp_path / "r.jsonl",
        tmp_path / "r.csv",
        tmp_path / "r.png",
        tmp_path / "games",
    )
    records.mkdir()
    code = main(
        [
            "arena", "--players", "2", "--bots", "greedy,random", "--games", "4",
            "--workers", "1", "--seed", "1", "--out", str(out), "--csv", str(table),
            "--plot", str(plot), "--records", str(records), "--quiet",
        ]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "win share" in printed and "greedy" in printed and "rating" in printed
    rows = list(csv.DictReader(table.open()))
    assert {r["bot"] for r in rows} == {"greedy", "random"}
    assert sum(int(r["games"]) for r in rows) == 8
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list(records.glob("game-*.json"))) == 4
    assert json.loads(out.read_text().splitlines()[0])["type"] == "match"
    # A saved game replays with the core command.
    assert main(["replay", str(next(records.glob("game-*.json")))]) == 0


def test_arena_resume_finishes_a_stopped_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    args = ["arena", "--players", "2", "--bots", "greedy,random", "--games", "3", "--quiet"]
    assert main([*args, "--workers", "1", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:2]) + "\n")  # as if stopped after one game
    capsys.readouterr()
    assert main(["arena", "--resume", str(out), "--workers", "1", "--quiet"]) == 0
    assert "greedy" in capsys.readouterr().out
    assert sum(1 for line in out.read_text().splitlines() if '"type": "game"' in line or
               '"type":"game"' in line) == 3  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "3", "--bots", "greedy,random"], "expected one bot spec per seat"),
        (["--bots", "greedy,random", "--workers", "0"], "--workers: expected at least 1"),
        (["--bots", "greedy,random", "--games", "0"], "--games: expected at least 1"),
        (["--bots", "greedy,random", "--address", "ray://x"], "add --backend ray"),
        (["--players", "2", "--bots", "greedy,wizard"], "unknown bot 'wizard'"),
        (["--players", "2", "--bots", "mcts@speed=3,greedy"], "mcts takes"),
        (["--players", "2", "--bots", "mcts:fast,greedy"], "seconds expects a number"),
        (["--players", "2", "--bots", "greedy@area=-1,random"], "area must be finite and >= 0"),
        (["--players", "2", "--bots", "mcts@objective=gold,random"], "found 'gold'"),
        (["--players", "2"], "expected --bots"),
    ],
)
def test_arena_explains_bad_input(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "x.jsonl"
    code = main(["arena", *argv, "--out", str(out)])
    assert code == 2
    printed = capsys.readouterr()
    assert message in printed.err and printed.out == ""  # refused before anything starts
    assert not out.exists()  # refused before a results file or a worker


def test_players_follow_the_bots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "three.jsonl"
    argv = ["arena", "--bots", "greedy,random,random", "--games", "1", "--workers", "1"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text().splitlines()[0])["players"] == 3


def test_results_are_never_overwritten_and_resume_keeps_its_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.jsonl"
    argv = ["arena", "--bots", "greedy,random", "--games", "2", "--workers", "1", "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    before = out.read_text()
    capsys.readouterr()
    assert main([*argv, "--out", str(out)]) == 2
    assert f"{out} already exists: continue its match with --resume" in capsys.readouterr().err
    assert out.read_text() == before
    for extra, named in (
        (["--bots", "mcts,greedy"], "--bots"),
        (["--players", "2", "--seed", "4"], "--players, --seed"),
        (["--rules", "bga"], "--rules"),
        (["--out", str(tmp_path / "other.jsonl")], "--out"),
    ):
        assert main(["arena", "--resume", str(out), "--quiet", *extra]) == 2
        err = capsys.readouterr().err
        assert "--resume continues the match saved in" in err and f"leave out {named}" in err
    assert main(["arena", "--resume", str(out), "--games", "1", "--quiet"]) == 2
    assert "--games may extend it, found 1" in capsys.readouterr().err
    assert out.read_text() == before
    # --games extends the match: game i depends only on (seed, i), so 2 games are added.
    assert main(["arena", "--resume", str(out), "--games", "4", "--workers", "1", "--quiet"]) == 0
    assert out.read_text().startswith(before)
    assert out.read_text().count('"type":"game"') == 4


def test_workers_that_die_at_start_stop_the_match_with_the_reason(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "no_guard.py"
    script.write_text(
        "from marrakech.arena import MatchConfig, run_match\n"
        "config = MatchConfig(players=2, bots=('greedy', 'random'), games=4, seed=1)\n"
        "run_match(config, workers=2)\n"
    )
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("marrakech.errors.MarrakechError: the arena's worker processes")
    assert 'if __name__ == "__main__":' in last


@pytest.mark.e2e
def test_ctrl_c_stops_a_parallel_match_and_keeps_finished_games(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "stop.jsonl"
    command = [
        sys.executable, "-m", "marrakech.cli", "arena", "--players", "2", "--bots",
        "greedy,mcts@iterations=40@use_fast=false", "--games", "400", "--workers", "2",
        "--out", str(out), "--quiet",
    ]  # fmt: skip
    # Started with SIGINT ignored, as a shell starts a background job (`arena ... &`):
    # the arena must still stop on it.
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if out.exists() and out.read_text().count('"type":"game"') >= 1:
                break
            time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    assert "stopped:" in stdout and "--resume" in stdout
    kept = out.read_text().count('"type":"game"')
    assert 1 <= kept < 400


def test_the_plot_handles_a_clean_sweep(tmp_path: Path) -> None:
    from marrakech.arena.output import save_plot
    from marrakech.arena.stats import BotSummary, wilson

    low, high = wilson(10, 10)  # the upper bound rounds to a hair under 1
    rows = [
        BotSummary(
            "greedy",
            10,
            10.0,
            1.0,
            low,
            high,
            70.0,
            1.0,
            1800.0,
            1700.0,
            1900.0,
            0.002,
            2.0,
            1.0,
            low,
            high,
        ),
        BotSummary(
            "random",
            10,
            0.0,
            0.0,
            0.0,
            1 - high,
            20.0,
            2.0,
            1200.0,
            1100.0,
            1300.0,
            0.0,
            -2.0,
            0.0,
            0.0,
            0.1,
        ),
    ]
    save_plot(rows, tmp_path / "sweep.png", "sweep")
    assert (tmp_path / "sweep.png").read_bytes()[:4] == b"\x89PNG"


def test_replay_shows_a_game_of_arena_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    argv = ["arena", "--bots", "greedy,random", "--games", "2", "--workers", "1", "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    _, games = read_results(out)
    capsys.readouterr()
    assert main(["replay", str(out), "--game", "1"]) == 0
    printed = capsys.readouterr().out
    assert games[1].record.final_state().notation() in printed
    assert main(["replay", str(out)]) == 2
    assert "holds arena results of 2 games: choose one with --game N (games 0..1)" in (
        capsys.readouterr().err
    )
    assert main(["replay", str(out), "--game", "5"]) == 2
    assert "(games 0..1, found --game 5)" in capsys.readouterr().err
    record = tmp_path / "one.json"
    record.write_text(games[0].record.to_json(), encoding="utf-8")
    assert main(["replay", str(record), "--game", "0"]) == 2
    assert "holds one game record: --game is for arena results" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--out", "--csv", "--plot", "--records"])
def test_every_output_path_is_checked_before_the_first_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    missing = tmp_path / "no-such-folder"
    path = missing if option == "--records" else missing / "results.file"
    out = [] if option == "--out" else ["--out", str(tmp_path / "r.jsonl")]
    argv = ["arena", "--bots", "random,random", "--games", "2", "--workers", "1"]
    code = main([*argv, *out, option, str(path)])
    printed, err = capsys.readouterr()
    assert code == 2 and printed == ""  # no game played, nothing announced
    purpose = "" if option == "--records" else f" for {path}"
    assert err == (
        f"marrakech arena: {option}: expected an existing folder{purpose}, found no folder "
        f"{missing} (create it first: mkdir -p {missing})\n"
    )
    assert not missing.exists() and list(tmp_path.iterdir()) == []  # nothing created


def test_output_paths_that_are_folders_or_files_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["arena", "--bots", "random,random", "--games", "2", "--workers", "1"]
    assert main([*argv, "--csv", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"marrakech arena: --csv: expected a file name, found the folder {tmp_path}\n"
    )
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main([*argv, "--out", str(tmp_path / "r.jsonl"), "--records", str(a_file)]) == 2
    assert capsys.readouterr().err == (
        f"marrakech arena: --records: expected a folder, found the file {a_file}\n"
    )
    assert not (tmp_path / "r.jsonl").exists()
