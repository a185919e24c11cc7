"""``benchmarks/load_web.py``, the load tool, against the real servers it starts.

Its simulated clients speak WebSocket with :mod:`light_socket` (a client of the
benchmarks' own); a short run must end with every game over, no error, and every
acknowledged action stored where the clients saw it: on SQLite, and on PostgreSQL with
``serve --workers 2`` (the players of a game on two workers, as often as not).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# Minutes of real processes: in make test-slow (CI runs it), not in make test.
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TOOL = Path(__file__).resolve().parents[2] / "benchmarks" / "load_web.py"


def load(*options: str) -> dict[str, Any]:
    run = subprocess.run(
        [sys.executable, str(TOOL), "--games", "6", "--think", "0", "--json", *options],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def check(result: dict[str, Any]) -> None:
    assert result["errors"] == [] and result["error_count"] == 0
    assert result["finished"] == result["games"] == 6
    assert result["acknowledged"] == result["stored"] == result["actions"] > 0
    assert result["lost"] == 0
    assert result["replays_matching"] == 6


def test_the_load_tool_plays_every_game_to_its_end() -> None:
    result = load()
    check(result)
    assert result["connections"] == 12  # a socket per person, 2 people a game
    assert result["server_loop_cpu_ms_per_action"][0] is not None


def test_the_load_tool_measures_two_workers(pg_url: str) -> None:
    result = load("--db", pg_url, "--workers", "2")
    check(result)
    # The event loops' CPU is the workers' (the supervisor's own loop does nothing).
    (loops,) = result["server_loop_cpu_ms_per_action"]
    (whole,) = result["server_cpu_ms_per_action"]
    assert loops is not None and 0 < loops <= whole
