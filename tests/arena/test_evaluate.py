"""``marrakech evaluate``: a policy against the reference bots, placed on the ladder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from marrakech.arena import read_results
from marrakech.arena.evaluate import OPPONENTS, policy_spec
from marrakech.bots.policy import FORMAT
from marrakech.cli import main
from marrakech.errors import MarrakechError


def test_evaluate_plays_each_opponent_and_prints_the_table_and_the_ladder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "evaluate", "policy-2p", "--players", "2", "--games", "4", "--seed", "3",
            "--opponents", "random,greedy", "--out", str(tmp_path), "--ladder", "none",
            "--quiet",
        ]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "random (random)" in printed and "greedy (greedy)" in printed
    assert "luck-corrected" in printed and "Bradley-Terry ladder at 2 players" in printed
    assert "policy-2p [8 games]  <--" in printed
    # One arena results file per opponent, seats rotated, the policy in seat 0 or 1.
    config, games = read_results(tmp_path / "policy-2p-greedy-2p.jsonl")
    assert config.bots == ("policy-2p", "greedy") and config.seed == 3 and len(games) == 4
    assert {game.seats for game in games} == {("policy-2p", "greedy"), ("greedy", "policy-2p")}
    # Run again: the files are continued, not replayed, and the numbers are the same.
    again_argv = ["evaluate", "policy-2p", "--games", "4", "--seed", "3", "--opponents",
                  "random,greedy", "--out", str(tmp_path), "--ladder", "none",
                  "--quiet"]  # fmt: skip
    assert main(again_argv) == 0
    again = capsys.readouterr().out
    assert again.split("\n\n")[1] == printed.split("\n\n")[1]


def test_the_ladder_joins_the_reference_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = tmp_path / "reference"
    reference.mkdir()
    assert main(["arena", "--players", "2", "--bots", "greedy,random", "--games", "2",
                 "--workers", "1", "--seed", "1", "--out", str(reference / "g.jsonl"),
                 "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["evaluate", "policy-2p", "--games", "2", "--opponents", "random",
                 "--out", str(tmp_path), "--ladder", str(reference), "--quiet"]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "random [4 games]" in printed and "greedy [2 games]" in printed


def test_a_policy_file_and_a_function_become_bot_specs(tmp_path: Path) -> None:
    path = tmp_path / "mine.npz"
    np.savez(
        path,
        w0=np.zeros((474, 87), "<f4"),
        b0=np.zeros(87, "<f4"),
        meta=np.frombuffer(json.dumps({"format": FORMAT}).encode(), np.uint8),
    )
    assert policy_spec(str(path)).spec == f"policy@weights={path.resolve()}"
    assert policy_spec(str(path)).name == "mine"
    function = policy_spec("tests.bots.test_policy:first_legal")
    assert function.spec == "policy@function=tests.bots.test_policy:first_legal"
    assert policy_spec("mcts:0.2").spec == "mcts:0.2"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.npz"], "policy file 'missing.npz' not found"),
        (["nosuchbot"], "expected a bot spec (policy-2p, greedy, ...), a .npz policy file"),
        (["no_such_module_xyz:act"], "cannot import no_such_module_xyz"),
        (["greedy", "--opponents", "random,grandmaster"], "found grandmaster"),
        (["greedy", "--out", "no/such/folder"], "no such folder"),
        (["greedy", "--games", "0"], "at least 1 game"),
        (["policy-2p", "--players", "4"], "trained for 2-player games, found a 4-player game"),
        (["tests.bots.test_policy:always_fifty"], "returned 50, not legal here"),
    ],
)
def test_bad_input_gets_a_clear_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", *argv, "--quiet"]) == 2
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_a_policy_is_refused_before_any_game(tmp_path: Path) -> None:
    path = tmp_path / "notes.npz"
    path.write_text("hello")
    with pytest.raises(MarrakechError, match=r"not a \.npz file"):
        policy_spec(str(path))


def test_the_opponents_are_the_ladder_budgets() -> None:
    """The same specs as the ladder of docs/bots.md (scripts/bot_strength.py)."""
    assert OPPONENTS[2]["expert"] == "search@iterations=70000"
    assert OPPONENTS[4]["expert"] == "search@iterations=44000"
    assert list(OPPONENTS[2]) == ["random", "greedy", "hard", "expert"]
