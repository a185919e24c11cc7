"""``marrakech compile`` (issue 38, item 5): every kernel a program uses is built ahead of
its first use, so that the first ``VectorEnv`` against ``greedy`` waits for nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from marrakech.cli import main
from marrakech.fast.warm_up import PARTS, warm_up

# What a researcher's first program calls: the batch against greedy and a batched search
# opponent, random playouts at every player count, the compiled search bot; it prints
# how many compiled versions it had to build.
FIRST_PROGRAM = """
import json
import numpy as np
from marrakech import State
from marrakech.bots import make_bot
from marrakech.envs.vector import VectorEnv
from marrakech.fast import random_playouts
from marrakech.fast.warm_up import cache_counts

for opponents in (["greedy"], ["search@iterations=8"]):
    env = VectorEnv(4, players=2, opponents=opponents, seed=1)
    obs, info = env.reset(seed=1)
    for _ in range(6):
        obs, *_ = env.step(env.sample_actions())
for players in (2, 3, 4):
    random_playouts(State.new(players), 2, 0)
state = State.new(2)
while state.is_chance:
    state = state.apply(state.legal_actions()[0])
make_bot("search", iterations=16).choose(state, __import__("random").Random(0))
print(json.dumps(cache_counts()))
"""


#: The ``marrakech`` command of this environment.
MARRAKECH = str(Path(sys.executable).with_name("marrakech"))


def run(command: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    """``command`` run with the compiled kernels cached in ``cache`` (empty at first)."""
    env = {**os.environ, "MARRAKECH_NUMBA_CACHE": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=1500)


@pytest.mark.slow
@pytest.mark.timeout(1500)  # a cold compilation of every kernel: minutes on a busy machine
def test_after_marrakech_compile_a_first_program_builds_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    compiled = run([MARRAKECH, "compile", "--json"], cache)
    assert compiled.returncode == 0, compiled.stderr
    report = json.loads(compiled.stdout)
    assert [part["part"] for part in report["parts"]] == list(PARTS)
    assert all(part["compiled"] > 0 for part in report["parts"]), report
    assert Path(report["cache"]).parent == cache
    program = run([sys.executable, "-c", FIRST_PROGRAM], cache)
    assert program.returncode == 0, program.stderr
    built, loaded = json.loads(program.stdout.splitlines()[-1])
    assert built == 0 and loaded > 0, (built, loaded)


def test_an_unknown_group_is_refused_before_anything_compiles(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(
        ValueError, match="kernel groups are playouts, batch, greedy, search, training; "
    ):
        warm_up(["batch", "everything"])
    assert main(["compile", "everything"]) != 0
    assert "found everything" in capsys.readouterr().err
