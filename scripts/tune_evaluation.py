"""Fit the evaluation's weights to who actually wins, from greedy self-play.

Plays ``--games`` games of ``greedy`` against itself, samples half of the ORIENT
positions, and records per seat the terms of :func:`marrakech.bots.evaluation.evaluate`
(dirhams, visible squares, ``sum(size * size)`` of its regions, the coming roll's
expected tithe) relative to the mean of the other seats, plus whether the seat is the
one to move. A logistic regression of "this seat wins" on those terms, per quarter of
the game, then says what each term is worth in dirhams: the ratio of its coefficient
to the coefficient of money. ``TUNED_WEIGHTS`` in ``evaluation.py`` comes from this
(2 players, 1,500 games; 4 players, 1,000 games) and from greedy-against-greedy
matches of the candidates.

    python scripts/tune_evaluation.py --players 2 --games 1500 --workers 2
"""

from __future__ import annotations

import argparse
import random
from multiprocessing import Pool

import numpy as np

from marrakech import Phase, State
from marrakech.bots import make_bot
from marrakech.bots.evaluation import evaluate, resolve_weights
from marrakech.playout import sample_outcome
from marrakech.position import region_summary

TERMS = ("money", "area", "sum n^2", "threat", "to move")
Sample = tuple[float, int, list[list[float]], tuple[int, ...]]


def terms(state: State) -> list[list[float]]:
    """Per seat: dirhams, visible squares, sum of size^2, expected threat, carpets."""
    players = state.players
    _, _, counts, squares_sq = region_summary(state.board)
    area_weight, region_weight, _ = resolve_weights(None, players)
    values = evaluate(state)
    rows = []
    for seat in range(players):
        colours = (seat, seat + 2) if players == 2 else (seat,)
        area = sum(counts[c] for c in colours)
        potential = sum(squares_sq[c] for c in colours)
        money = state.money[seat]
        threat = values[seat] - (money + area_weight * area + region_weight * potential)
        rows.append([float(money), float(area), potential, threat])
    return rows


def self_play(task: tuple[int, int]) -> list[Sample]:
    players, seed = task
    rng = random.Random(seed)
    bots = [make_bot("greedy") for _ in range(players)]
    state = State.new(players)
    total = sum(state.hand)
    seen: list[tuple[float, int, list[list[float]]]] = []
    while not state.is_terminal:
        if state.is_chance:
            state = state.apply(sample_outcome(state, rng))
            continue
        if state.phase is Phase.ORIENT and not state.eliminated and rng.random() < 0.5:
            seen.append((sum(state.hand) / total, state.turn, terms(state)))
        state = state.apply(bots[state.turn].choose(state, rng))
    ranks = state.ranks()
    return [(left, turn, rows, ranks) for left, turn, rows in seen]


def logistic(x: np.ndarray, y: np.ndarray, steps: int = 30) -> np.ndarray:
    """Maximum-likelihood coefficients (intercept last) by Newton's method."""
    design = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(design.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (y - p)
        hessian = -(design.T * (p * (1 - p))) @ design - 1e-6 * np.eye(len(w))
        w -= np.linalg.solve(hessian, gradient)
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=5000)
    args = parser.parse_args()
    tasks = [(args.players, args.seed + i) for i in range(args.games)]
    with Pool(args.workers) as pool:
        samples = [s for game in pool.imap_unordered(self_play, tasks) for s in game]
    x, y, stage = [], [], []
    for left, turn, rows, ranks in samples:
        table = np.array(rows)
        for seat in range(args.players):
            others = np.delete(table, seat, axis=0).mean(axis=0)
            x.append([*(table[seat] - others), 1.0 if seat == turn else 0.0])
            y.append(1.0 if ranks[seat] == 1 else 0.0)
            stage.append(left)
    xs, ys, stages = np.array(x), np.array(y), np.array(stage)
    print(f"{len(samples)} positions from {args.games} games, {args.players} players")
    print("carpets left  positions  " + "  ".join(f"{t:>8}" for t in TERMS))
    for low in (0.0, 0.25, 0.5, 0.75):
        chosen = (stages >= low) & (stages < low + 0.25 + (low == 0.75))
        w = logistic(xs[chosen], ys[chosen])
        ratios = "  ".join(f"{wi / w[0]:8.3f}" for wi in w[: len(TERMS)])
        print(f"{low:4.2f}-{low + 0.25:4.2f}  {int(chosen.sum()):10d}  {ratios}")


if __name__ == "__main__":
    main()
