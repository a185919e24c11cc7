"""Helpers for the bot tests: reachable decision positions of every configuration."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from marrakech import State, parse_rules, random_action

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

CONFIGS = [
    (p, r) for p in (2, 3, 4) for r in ("standard", "bga", "standard+orient-last")
]  # R30-R32


def decision_positions(players: int, rules: str, count: int, seed: int = 0) -> list[State]:
    """``count`` decision positions sampled from random games (opening to endgame)."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = State.new(players, parse_rules(rules), first_seat=rng.randrange(players))
        positions = []
        while not state.is_terminal:
            if not state.is_chance:
                positions.append(state)
            state = state.apply(random_action(state, rng))
        # Spread the picks over the whole game: opening, middle game and the very end.
        picks = sorted({0, len(positions) - 1, *rng.sample(range(len(positions)), 3)})
        found.extend(positions[i] for i in picks)
    return found[:count]


def load_script(name: str) -> ModuleType:
    """The module of ``scripts/NAME.py`` (the scripts folder is not a package)."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))  # a script may import its neighbours
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
