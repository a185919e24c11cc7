"""The core is standard-library only (docs/architecture.md): importing it loads no
third-party module."""

from __future__ import annotations

import subprocess
import sys

from tests.layers import core_modules

#: Every core module, read from the package (tests/layers.py), and the command line,
#: whose core subcommands work without any extra.
CORE = [*core_modules(), "marrakech.cli"]

PROBE = """
import sys
before = set(sys.modules)
import {modules}
import marrakech
from marrakech import State, random_game
import random
random_game(State.new(4), random.Random(0))
stdlib = set(sys.stdlib_module_names)
loaded = {{name.split(".")[0] for name in set(sys.modules) - before}}
loaded = {{name for name in loaded if not name.startswith("__")}}  # __mp_main__ aliases __main__
print(sorted(loaded - stdlib - {{"marrakech"}}))
"""


def test_core_loads_no_third_party_module() -> None:
    code = PROBE.format(modules=", ".join(CORE))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]", result.stdout + result.stderr
