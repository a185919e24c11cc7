"""Fresh games for the winning chances' calibration, played by the compiled batch.

The calibration (``marrakech.bots.calibration``) must hold for the players at the table:
evenly matched tables at every level as well as mixed ones. This script plays, for each
player count, every *pairing* of :data:`TABLES` (``random``, ``greedy`` and the compiled
``search@iterations=2000``; the seats of a mixed table rotated game by game) with
:class:`marrakech.fast.batch.Batch`, and keeps, at every orient decision (R9), the
learned value's chances (the compiled ``win_chances``, the same numbers as
``load_value(players).chances``), the progress, the seats' bots, and each seat's share
of the win (R21). One ``.npz`` per table in ``build/calibration-games/`` (a table already
there is not played again: resumable), read by ``scripts/calibration.py --fresh``.

    nice -n 19 python scripts/calibration_games.py            # every table, seed 1 (~15 min)
    nice -n 19 python scripts/calibration_games.py --players 4 --only greedy-4p
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from marrakech.bots.greedy import greedy_params
from marrakech.bots.search import SearchBot
from marrakech.bots.value import load_value
from marrakech.fast.batch import Batch
from marrakech.fast.kernels import HAND, START_CARPETS
from marrakech.fast.search_kernels import win_chances
from marrakech.position import Phase
from marrakech.value_features import FEATURES

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "calibration-games"
ITERATIONS = 2000
SEARCH = f"search@iterations={ITERATIONS}"
#: Short names of the bots played (the arena's specs).
SPECS = {"random": "random", "greedy": "greedy", "search2k": SEARCH}


def tables(players: int) -> list[tuple[str, tuple[str, ...], int]]:
    """The tables played at ``players``: (name, bots, games). Evenly matched tables at
    every level, and one bot against the others of another level, both ways round."""
    found = [
        (f"random-{players}p", ("random",) * players, 3000),
        (f"greedy-{players}p", ("greedy",) * players, 3000),
        (f"search2k-{players}p", ("search2k",) * players, 240 if players == 2 else 160),
        (f"greedy-random-{players}p", ("greedy",) + ("random",) * (players - 1), 1000),
        (f"search2k-greedy-{players}p", ("search2k",) + ("greedy",) * (players - 1), 240),
    ]
    if players > 2:  # at two players the same tables
        found += [
            (f"random-greedy-{players}p", ("random",) + ("greedy",) * (players - 1), 1000),
            (f"greedy-search2k-{players}p", ("greedy",) + ("search2k",) * (players - 1), 160),
        ]
    return found


def play(players: int, bots: tuple[str, ...], games: int, seed: int) -> dict[str, np.ndarray]:
    """``games`` games of ``bots`` (table seat k of game g is ``bots[(k - g) % players]``,
    so each bot sits in every seat) and the value's chances at every orient decision."""
    batch = Batch(games, players=players, seed=seed)
    seat_bot = np.array(
        [[bots[(k - g) % players] for k in range(players)] for g in range(games)], dtype=object
    )
    weights = load_value(players).array()
    params = greedy_params(None, players)
    search = SearchBot(seconds=None, iterations=ITERATIONS)
    feats = np.zeros((4, FEATURES))
    out = np.zeros(4)
    chances: list[np.ndarray] = []
    done: list[float] = []
    game_of: list[int] = []
    while not batch.terminated().all():
        phase = batch.phase()
        for i in np.flatnonzero(phase == Phase.ORIENT):
            win_chances(batch.rows[i], weights, feats, out)
            chances.append(out[:players].copy())
            game_of.append(int(i))
            held = int(batch.rows[i, HAND : HAND + 4].sum())
            done.append(1.0 - held / (int(batch.rows[i, START_CARPETS]) * players))
        to_move = batch.to_move()
        waiting = to_move >= 0
        actions = np.full(games, -1, dtype=np.int64)
        sampled = batch.sample_actions()
        movers = np.where(waiting, seat_bot[np.arange(games), np.maximum(to_move, 0)], "")
        for name in set(movers[waiting]):
            picked = np.flatnonzero(waiting & (movers == name))
            if name == "random":
                actions[picked] = sampled[picked]
            elif name == "greedy":
                actions[picked] = batch.greedy_actions(picked, params)
            else:
                actions[picked] = batch.search_actions(picked, search, weights)
        batch.step(actions, mask=actions >= 0)
    _, shares = batch.outcome_values()
    return {
        "chances": np.array(chances),
        "game": np.array(game_of),
        "progress": np.array(done),
        "wins": shares,
        "bots": seat_bot.astype(str),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    parser.add_argument("--only", nargs="*", default=None, help="table names to play")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for players in args.players:
        for name, bots, games in tables(players):
            path = args.out / f"{name}-seed{args.seed}.npz"
            if path.exists() or (args.only is not None and name not in args.only):
                continue
            start = time.time()
            seed = args.seed * 1000 + players * 100 + sum(map(ord, name))
            found = play(players, bots, games, seed)
            np.savez_compressed(
                path, chances=found["chances"], game=found["game"], progress=found["progress"],
                wins=found["wins"], bots=found["bots"],
            )  # fmt: skip
            print(
                f"{name}: {games} games, {len(found['chances'])} positions, "
                f"{time.time() - start:.0f} s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
