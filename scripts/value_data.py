"""Generate training positions for the learned value by compiled self-play.

Every game is played by the compiled search against itself (``--iterations`` a decision,
guided by the hand-set ``marrakech.bots.value.static_value``, with a uniform decision
with probability ``--epsilon`` so that the positions vary), from the opening of the
standard rules (R30) with the first seat rotated. At every decision node the seats'
features (``marrakech.bots.value``), the game's progress and, once the game is over,
its final ranks (R21) and scores (R20) are recorded. The games are split into a training part and a
held-out part (every ``--test-every``-th game), whose positions are also kept whole so
that the baseline evaluation can be scored on them (``--all-rows`` keeps every position
whole, under ``rows``, to fit a value on other features).

    python scripts/value_data.py --players 4 --positions 300000 --seed 1 --out data/value-4p.npz

The same arguments give the same file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from marrakech.bots.value import load_value, static_value
from marrakech.training.value_fit import self_play_positions


def generate(
    players: int,
    positions: int,
    iterations: int,
    epsilon: float,
    seed: int,
    test_every: int,
    guide: str = "static",
    all_rows: bool = False,
) -> dict[str, np.ndarray]:
    # A fixed guide, so the data depends on the seed only: the hand-set value, or (a
    # second round of self-play) the packaged learned one.
    model = static_value(players) if guide == "static" else load_value(players)
    weights = model.array()
    chunk = 50  # games per compiled call
    names = ("features", "progress", "ranks", "scores", "game")
    parts: dict[str, list[np.ndarray]] = {k: [] for k in names}
    test_rows: list[np.ndarray] = []
    count = 0
    game = 0
    began = time.perf_counter()
    while count < positions:
        # Each chunk of games has its own seed, and game numbers carry on, so the data
        # is the same whatever the chunking.
        played = self_play_positions(
            players, chunk, iterations, epsilon, weights, seed * 1_000_003 + game, keep_rows=True
        )
        n = min(len(played.progress), positions - count)
        games = played.game[:n] + game
        parts["features"].append(played.features[:n].astype(np.float32))
        parts["progress"].append(played.progress[:n].astype(np.float32))
        parts["ranks"].append(played.ranks[:n].astype(np.int8))
        parts["scores"].append(played.scores[:n].astype(np.int16))
        parts["game"].append(games)
        keep = np.ones(n, dtype=bool) if all_rows else games % test_every == 0
        test_rows.append(played.rows[:n][keep].copy())
        count += n
        game += chunk
        rate = count / (time.perf_counter() - began)
        print(f"\r{players}p: {count} positions, {game} games, {rate:.0f}/s", end="", flush=True)
    print(file=sys.stderr)
    data = {k: np.concatenate(v) for k, v in parts.items()}
    data["test"] = data["game"] % test_every == 0
    data["rows" if all_rows else "test_rows"] = np.concatenate(test_rows)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    parser.add_argument("--positions", type=int, default=300_000)
    parser.add_argument("--iterations", type=int, default=100, help="search per decision")
    parser.add_argument("--epsilon", type=float, default=0.1, help="uniform decisions")
    parser.add_argument("--test-every", type=int, default=10, help="held-out game period")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--guide",
        choices=("static", "packaged"),
        default="static",
        help="the value guiding the self-play: the hand-set one, or the packaged learned one",
    )
    parser.add_argument(
        "--all-rows",
        action="store_true",
        help="keep every position whole (key 'rows'), not only the held-out ones",
    )
    parser.add_argument("--out", type=Path, required=True, help="an .npz file to write")
    args = parser.parse_args(argv)
    if args.positions < 1000:
        parser.error(f"--positions must be at least 1000, found {args.positions}")
    if args.iterations < 1:
        parser.error(f"--iterations must be at least 1, found {args.iterations}")
    if not 0.0 <= args.epsilon <= 1.0:
        parser.error(f"--epsilon must be between 0 and 1, found {args.epsilon}")
    if args.test_every < 2:
        parser.error(f"--test-every must be at least 2, found {args.test_every}")
    began = time.perf_counter()
    data = generate(
        args.players,
        args.positions,
        args.iterations,
        args.epsilon,
        args.seed,
        args.test_every,
        args.guide,
        args.all_rows,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        **data,
        players=args.players,
        seed=args.seed,
        iterations=args.iterations,
        epsilon=args.epsilon,
        guide=args.guide,
    )
    games = len(np.unique(data["game"]))
    print(
        f"{args.out}: {len(data['progress'])} positions of {games} games "
        f"({int(data['test'].sum())} held out) in {time.perf_counter() - began:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
