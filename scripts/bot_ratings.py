"""Seed the bot levels' ratings (src/marrakech/web/ratings/bot_ratings.json) from the arena.

Every game of every results file in ``benchmarks/strength/`` (bots against bots, 2 and 4
players) goes through the rated games' model (:mod:`marrakech.web.ratings`), oldest file
first and several passes, so each bot spec ends with a rating on the scale players are
rated on. The specs that are the web's levels (their budgets as docs/bots.md measures
them) give the levels' seeds; a level that is a different bot at each player count
(``learned``: ``policy-2p`` at two players, ``policy-4p`` at four) is seeded per count,
from the spec of that count. The web then rates the bots from their games against
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
#: The arena specs that are a level at one player count only: ``learned`` plays the
#: shipped policy of the game's count, and refuses three players.
COUNT_SPECS = {"policy-2p": ("learned", 2), "policy-4p": ("learned", 4)}
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


def fits_of(folder: Path, fits: int = FITS, seed: int = 0) -> list[dict[str, Rating]]:
    """``fits`` independent fits over every game of the arena's results in ``folder``."""
    games = []
    for path in sorted(folder.glob("*.jsonl")):
        _, results = read_results(path)
        games.extend((list(game.seats), list(game.ranks)) for game in results)
    rng = random.Random(seed)
    return [fit(games, rng) for _ in range(fits)]


def mean_rating(runs: list[dict[str, Rating]], spec: str) -> tuple[Rating, int]:
    """A spec's rating, the mean of the fits', and how many arena games it played."""
    mu = sum(run[spec].mu for run in runs) / len(runs)
    sigma = sum(run[spec].sigma for run in runs) / len(runs)
    return Rating(mu, sigma), runs[0][spec].games


def seeds(runs: list[dict[str, Rating]]) -> dict[str, tuple[Rating, int]]:
    """Each level's rating after the arena's games (the mean of the fits), and how many
    games it played there."""
    levels: dict[str, tuple[Rating, int]] = {}
    for spec, level in LEVEL_SPECS.items():
        if spec not in runs[0]:
            continue
        rating, count = mean_rating(runs, spec)
        mine = levels.get(level)
        if mine is None or count > mine[1]:  # the spec with the most games speaks for it
            levels[level] = (rating, count)
    return levels


def count_seeds(runs: list[dict[str, Rating]]) -> dict[int, dict[str, tuple[Rating, int]]]:
    """The seeds of the levels that are one spec per player count (:data:`COUNT_SPECS`)."""
    counts: dict[int, dict[str, tuple[Rating, int]]] = {}
    for spec, (level, players) in COUNT_SPECS.items():
        if spec in runs[0]:
            counts.setdefault(players, {})[level] = mean_rating(runs, spec)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=STRENGTH, help="the arena's results")
    parser.add_argument("--check", action="store_true", help="print, write nothing")
    args = parser.parse_args()
    runs = fits_of(args.results)
    levels, counts = seeds(runs), count_seeds(runs)
    missing = {"easy", "medium", "hard", "expert"} - set(levels)
    missing |= {
        f"{level} at {players} players"
        for level, players in COUNT_SPECS.values()
        if level not in counts.get(players, {})
    }
    if missing:
        print(f"no arena games for the levels {sorted(missing)} in {args.results}", file=sys.stderr)
        return 1
    rows = [("", level, seed) for level, seed in levels.items()]
    rows += [
        (f" ({n}p)", level, seed) for n, found in counts.items() for level, seed in found.items()
    ]
    for where, level, (rating, count) in rows:
        print(
            f"{level + where:12} mu {rating.mu:6.2f} sigma {rating.sigma:5.2f} shown "
            f"{shown(rating):5} ({count} arena games)"
        )
    data = {
        "about": "The bot levels' ratings seeded from the arena (scripts/bot_ratings.py).",
        "generated": time.strftime("%Y-%m-%d"),
        "levels": {level: rating.to_dict() for level, (rating, _) in levels.items()},
        "arena_games": {level: count for level, (_, count) in levels.items()},
        # A level that is another bot at each player count, seeded per count.
        "by_players": {
            str(n): {level: rating.to_dict() for level, (rating, _) in found.items()}
            for n, found in sorted(counts.items())
        },
        "arena_games_by_players": {
            str(n): {level: count for level, (_, count) in found.items()}
            for n, found in sorted(counts.items())
        },
    }
    if not args.check:
        BOT_RATINGS.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {BOT_RATINGS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
