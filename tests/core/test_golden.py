"""Golden game records, replayed position by position (regenerate: scripts/regenerate_golden.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marrakech.record import GameRecord

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def test_there_are_golden_games_for_every_player_count_and_rule_set() -> None:
    names = {path.stem for path in GOLDEN}
    assert {"2p-standard", "2p-bga", "3p-standard", "3p-bga", "4p-standard", "4p-bga"} <= names
    assert {"2p-bga-orient-last", "3p-orient-last"} <= names  # R32, BGA's order at 2 players


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_record_replays_exactly(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    positions = data.pop("positions")
    record = GameRecord.from_dict(data)
    replayed = [state.notation() for state in record.states()]
    assert len(replayed) == len(positions)
    for number, (expected, found) in enumerate(zip(positions, replayed, strict=True)):
        assert found == expected, f"position {number} differs"
    assert record.final_state().is_terminal
    assert json.loads(record.to_json()) == data
