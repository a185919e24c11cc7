"""``marrakech arena``: the table, the files it writes and its error messages."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

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
        (["--bots", "greedy,random"], "expected one bot spec per seat"),
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
    code = main(["arena", *argv, "--out", str(out), "--quiet"])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()  # refused before a results file or a worker


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
            "greedy", 10, 10.0, 1.0, low, high, 70.0, 1.0, 1800.0, 0.002, 2.0, 1.0, low, high
        ),
        BotSummary(
            "random", 10, 0.0, 0.0, 0.0, 1 - high, 20.0, 2.0, 1200.0, 0.0, -2.0, 0.0, 0.0, 0.1
        ),
    ]
    save_plot(rows, tmp_path / "sweep.png", "sweep")
    assert (tmp_path / "sweep.png").read_bytes()[:4] == b"\x89PNG"
