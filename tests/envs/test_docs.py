"""docs/environments.md states what the code holds: the observation table is LAYOUT."""

from __future__ import annotations

import re
from pathlib import Path

from marrakech.observation import LAYOUT

DOC = Path(__file__).resolve().parents[2] / "docs" / "environments.md"


def test_the_observation_table_is_the_layout() -> None:
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| ([\d × ]+) \| (.+) \|$", DOC.read_text(), re.M)
    table = [
        (int(offset), name, tuple(int(d) for d in shape.split(" × ")))
        for offset, name, shape, _ in rows
    ]
    assert table == [(piece.offset, piece.name, piece.shape) for piece in LAYOUT]
