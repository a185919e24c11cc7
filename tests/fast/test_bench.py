"""``marrakech bench --engine fast``: the core's figures plus batched stepping."""

from __future__ import annotations

import json

import pytest

from marrakech.cli import main

pytest.importorskip("numba")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_fast_bench_json_has_the_core_figures_and_batch(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "bench", "--engine", "fast", "--games", "3000", "--batch", "64", "--json"
    )
    data = json.loads(out)
    assert code == 0
    assert data["engine"] == "fast" and data["games"] == 3000 and data["workers"] == 1
    assert abs(sum(data["win_share"]) - 1) < 1e-9
    assert 40 <= data["turns_per_game"] <= 48
    assert 7 <= data["placements_per_place"] <= 8.5  # the core measures 7.73 (4 players)
    assert data["batch"] == 64 and data["batch_steps_per_s"] > 0
    assert data["batch_observed_steps_per_s"] > 0


def test_fast_bench_in_two_processes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "bench", "--engine", "fast", "--players", "2", "--rules", "bga",
        "--games", "2000", "--workers", "2", "--batch", "0",
    )  # fmt: skip
    assert code == 0
    assert "engine fast, 2 players, rules bga, 2 workers" in out
    assert "games per second" in out and "batched" not in out


def test_core_bench_in_two_processes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--games", "6", "--workers", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["engine"] == "core" and data["workers"] == 2
    assert data["games"] == 6 and abs(sum(data["win_share"]) - 1) < 1e-9


def test_bench_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "--batch", "16")
    assert code == 2 and "add --engine fast" in err
    code, _, err = run(capsys, "bench", "--engine", "fast", "--workers", "0")
    assert code == 2 and "--workers must be at least 1, found 0" in err
    code, _, err = run(capsys, "bench", "--engine", "fast", "--batch", "-3")
    assert code == 2 and "--batch must be 0 or more games, found -3" in err
    with pytest.raises(SystemExit):
        main(["bench", "--engine", "turbo"])
    assert "--engine: expected one of core, fast, found 'turbo'" in capsys.readouterr().err
