"""Regenerate the golden game records in tests/core/golden/ (for intended rule changes).

Each file is a game record (the core's JSON format) plus, under "positions", the position
string after every action. tests/core/test_golden.py replays each record and checks every
position, so any change in the rules' behaviour shows up as a diff of these files.

    python scripts/regenerate_golden.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from marrakech import State, parse_rules, random_game
from marrakech.record import GameRecord

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "core" / "golden"
GAMES = [
    ("2p-standard", 2, "standard", 0, 1),
    ("2p-bga", 2, "bga", 1, 2),
    ("3p-standard", 3, "standard", 0, 3),
    ("3p-bga", 3, "bga", 2, 4),
    ("4p-standard", 4, "standard", 0, 5),
    ("4p-bga", 4, "bga", 1, 6),
    ("3p-bankrupt", 3, "custom:10/6/10:4:no-own", 0, 7),
    # R32 at 2 players: the placer's pile reveals its next top before he orients.
    ("2p-bga-orient-last", 2, "bga+orient-last", 1, 8),
    ("3p-orient-last", 3, "standard+orient-last", 2, 9),
]


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, players, rules, first, seed in GAMES:
        start = State.new(players, parse_rules(rules), first)
        _, actions = random_game(start, random.Random(seed))
        record = GameRecord.from_actions(
            start, actions, seats=[f"random {i}" for i in range(players)]
        )
        data = record.to_dict()
        data["positions"] = [state.notation() for state in record.states()]
        (GOLDEN / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"{name}: {len(actions)} actions, final {data['positions'][-1]}")


if __name__ == "__main__":
    main()
