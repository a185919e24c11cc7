"""docs/environments.md states what the code holds: its layout tables are the output of
``python -m marrakech.envs.planes``, printed from the one declaration (LAYOUT)."""

from __future__ import annotations

import re
from pathlib import Path

from marrakech.envs.planes import layout_markdown
from marrakech.observation import LAYOUT

DOC = Path(__file__).resolve().parents[2] / "docs" / "environments.md"


def test_the_layout_tables_are_generated_from_the_layout() -> None:
    text = DOC.read_text()
    found = re.search(r"<!-- layout:start [^>]*-->\n(.*?)<!-- layout:end -->", text, re.S)
    assert found, "the layout tables' markers are missing"
    assert found.group(1).strip() == layout_markdown(), (
        "docs/environments.md's layout tables are stale: paste the output of "
        "`python -m marrakech.envs.planes` between the markers"
    )
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| ([\d × ]+) \| (.+) \|$", text, re.M)
    assert [(int(offset), name) for offset, name, _, _ in rows] == [
        (piece.offset, piece.name) for piece in LAYOUT
    ]
