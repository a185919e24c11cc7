"""``marrakech compile``: the compiled kernels built once, ahead of their first use
(:mod:`marrakech.fast.warm_up`), so that no later program waits for them."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from marrakech.errors import MarrakechError
from marrakech.fast.compile_cache import cache_folder
from marrakech.fast.warm_up import PARTS, warm_up


def add_parser(subparsers: Any) -> None:
    """Add the ``compile`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "compile",
        help="compile the fast kernels now, so that no later program waits for them",
        description=(
            "Compile (or load from the cache) every group of compiled kernels: random "
            "playouts, the batch (VectorEnv, make_vec, SB3VecEnv), the batch's greedy "
            "opponent, the compiled search and the Gumbel search of training and the az "
            "bot. The first use of each otherwise compiles it "
            "on the spot (minutes in a fresh environment); afterwards every process loads "
            "the cache in about a second. Prints each group's time and where the cache is."
        ),
    )
    parser.add_argument(
        "parts",
        nargs="*",
        metavar="PART",
        help=f"groups to compile, among {', '.join(PARTS)} (default: all)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    parts = args.parts or list(PARTS)
    try:
        timings = warm_up(parts)
    except ValueError as error:
        raise MarrakechError(str(error)) from None
    # NUMBA_CACHE_DIR set by the user keeps Numba's own placement (compile_cache.install).
    folder = os.environ.get("NUMBA_CACHE_DIR") or str(cache_folder())
    if args.json:
        print(json.dumps({"cache": folder, "parts": [vars(t) for t in timings]}))
        return 0
    for t in timings:
        print(
            f"{t.part:<9} {t.seconds:7.1f} s  "
            f"{t.compiled} compiled, {t.loaded} loaded from the cache"
        )
    print(f"cache: {folder}")
    return 0
