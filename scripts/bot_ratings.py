"""Seed the bot levels' ratings (src/marrakech/web/bot_ratings.json) from the arena.

Every game of every results file in ``benchmarks/strength/`` (bots against bots, 2 and 4
players) goes through the rated games' model (:mod:`marrakech.web.ratings`), oldest file
first and several passes, so each bot spec ends with a rating on the scale players are
rated on. The specs that are the web's levels (their budgets as docs/bots.md measures
them) give the levels' seeds; the web then rates the bots from their games against
people like anyone::

    .venv/bin/python scripts/bot_ratings.py            # writes bot_ratings.json
    .venv/bin/python scripts/bot_ratings.py --check    # prints, writes nothing
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from marrakech.arena.runner import read_results
from marrakech.web.ratings import BOT_RATINGS, START, Rating, rate, shown

ROOT = Path(__file__).resolve().parents[1]
STRENGTH = ROOT / "benchmarks" / "strength"
#: The arena specs that are the web's levels: ``easy`` and ``medium`` as named, ``hard``
#: the quick search at the iterations its 0.25 s allows on the reference machine, and
#: ``expert`` the full search at its clock's iterations (2 and 4 players; docs/bots.md).
LEVEL_SPECS = {
    "random": "easy",
    "greedy": "medium",
    "search-quick@iterations=17500": "hard",
    "search@iterations=70000": "expert",
    "search@iterations=44000": "expert",
}
#: Independent fits, each one online pass over the games in its own order, averaged: one
#: pass depends on the order of the games; several passes over the same games would
#: count each game several times and make the seeds overconfident (sigma too small).
FITS = 8


def fit(games: list[tuple[list[str], list[int]]], rng: random.Random) -> dict[str, Rating]:
    """Every spec's rating after one pass over ``games`` in a random order."""
    order = games[:]
    rng.shuffle(order)
    ratings: dict[str, Rating] = {}
    for seats, ranks in order:
        before = [ratings.get(spec, START) for spec in seats]
        for spec, after in zip(seats, rate(before, ranks), strict=True):
            ratings[spec] = after
    return ratings


def seeds(folder: Path, fits: int = FITS, seed: int = 0) -> dict[str, tuple[Rating, int]]:
    """Each level's rating after the arena's games (the mean of ``fits`` fits), and how
    many games it played there."""
    games = []
    for path in sorted(folder.glob("*.jsonl")):
        _, results = read_results(path)
        games.extend((list(game.seats), list(game.ranks)) for game in results)
    rng = random.Random(seed)
    runs = [fit(games, rng) for _ in range(fits)]
    levels: dict[str, tuple[Rating, int]] = {}
    for spec, level in LEVEL_SPECS.items():
        if spec not in runs[0]:
            continue
        mu = sum(run[spec].mu for run in runs) / fits
        sigma = sum(run[spec].sigma for run in runs) / fits
        count = runs[0][spec].games
        mine = levels.get(level)
        if mine is None or count > mine[1]:  # the spec with the most games speaks for it
            levels[level] = (Rating(mu, sigma), count)
    return levels


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=STRENGTH, help="the arena's results")
    parser.add_argument("--check", action="store_true", help="print, write nothing")
    args = parser.parse_args()
    levels = seeds(args.results)
    missing = {"easy", "medium", "hard", "expert"} - set(levels)
    if missing:
        print(f"no arena games for the levels {sorted(missing)} in {args.results}", file=sys.stderr)
        return 1
    for level, (rating, count) in levels.items():
        print(
            f"{level:7} mu {rating.mu:6.2f} sigma {rating.sigma:5.2f} shown {shown(rating):5}"
            f" ({count} arena games)"
        )
    data = {
        "about": "The bot levels' ratings seeded from the arena (scripts/bot_ratings.py).",
        "generated": time.strftime("%Y-%m-%d"),
        "levels": {level: rating.to_dict() for level, (rating, _) in levels.items()},
        "arena_games": {level: count for level, (_, count) in levels.items()},
    }
    if not args.check:
        BOT_RATINGS.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {BOT_RATINGS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
