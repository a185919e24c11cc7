"""The Ray backend plays the same games as the local one (a local Ray instance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from marrakech.arena import MatchConfig, run_match

ray = pytest.importorskip("ray")


@pytest.mark.e2e
def test_ray_backend_gives_the_local_results(tmp_path: Path) -> None:
    config = MatchConfig(2, ("greedy", "random"), games=4, seed=12)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        remote = run_match(config, backend="ray", workers=1, out=tmp_path / "ray.jsonl")
    finally:
        ray.shutdown()
    local = run_match(config, workers=1)
    assert remote.complete
    assert [g.record for g in remote.games] == [g.record for g in local.games]
