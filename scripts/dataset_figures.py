"""The dataset's figures in docs/environments.md ("Recorded games for offline learning"):
how many finished games and decisions the default sources hold, by player count and by
where they come from (the arena's results, the self-play of ``marrakech train``).

    python scripts/dataset_figures.py               # print the paragraph
    python scripts/dataset_figures.py --write-docs  # and rewrite it in the docs

Every game is replayed (:func:`marrakech.envs.dataset.iter_games`), so the figures are
those a learner gets; it takes about half a minute.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from pathlib import Path

from marrakech.envs.dataset import DEFAULT_SOURCES, game_files, iter_games

DOC = Path(__file__).resolve().parent.parent / "docs" / "environments.md"
MARK = "dataset-figures"


def count() -> tuple[Counter[tuple[str, int]], Counter[tuple[str, int]], float]:
    """Games and decisions by (origin, players), and the CPU-seconds replaying took."""
    games: Counter[tuple[str, int]] = Counter()
    decisions: Counter[tuple[str, int]] = Counter()
    started = time.process_time()
    for game in iter_games():
        origin = "self-play" if "/training/" in game.source else "arena"
        players = len(game.ranks)
        games[origin, players] += 1
        decisions[origin, players] += len(game.actions)
    return games, decisions, time.process_time() - started


def paragraph() -> str:
    games, decisions, seconds = count()
    total = sum(games.values())
    runs = sorted({path.parent.name for path in game_files() if "training" in path.parts})

    def by_players(
        counter: Counter[tuple[str, int]], origin: str | None = None, what: str = ""
    ) -> str:
        parts: list[str] = []
        for players in (2, 3, 4):
            n = sum(v for (o, p), v in counter.items() if p == players and origin in (None, o))
            if n:
                parts.append(f"{n:,}{what if not parts else ''} at {players} players")
        return " and ".join(parts)

    arena = sum(v for (o, _), v in games.items() if o == "arena")
    selfplay = total - arena
    return (
        f"By default it reads the arena's results kept in `benchmarks/strength/` of a "
        f"checkout and the self-play games of the `marrakech train` runs kept in "
        f"`benchmarks/training/` ({', '.join(f'`{r}`' for r in runs) or 'none yet'}): "
        f"**{total:,} finished games** ({by_players(games)}), every one replayable exactly: "
        f"{arena:,} played by bots from `random` to `search@iterations=70000` "
        f"([bots.md](bots.md#measured-strength)) and {selfplay:,} by the trainer's "
        f"networks with their search ({by_players(games, 'self-play')}). That is "
        f"{by_players(decisions, what=' decisions')}. Replaying them all took {seconds:.0f} "
        f"CPU-seconds (`python scripts/dataset_figures.py`)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs/environments.md")
    args = parser.parse_args()
    if any(not Path(source).exists() for source in DEFAULT_SOURCES):
        raise SystemExit("run from a checkout of the project: the default games are there")
    text = paragraph()
    print(text)
    if args.write_docs:
        doc = DOC.read_text()
        pattern = re.compile(rf"(<!-- {MARK}:start -->\n).*?(<!-- {MARK}:end -->)", re.S)
        if not pattern.search(doc):
            raise SystemExit(f"{DOC} has no <!-- {MARK}:start --> block")
        DOC.write_text(pattern.sub(lambda m: m.group(1) + text + "\n" + m.group(2), doc))


if __name__ == "__main__":
    main()
