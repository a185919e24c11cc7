"""Learning to beat ``greedy`` at 2 players: a value learned from self-play, for a search.

The other recipes are model-free: a policy that maps a position to a decision, learned
from games (PPO, ``beat_greedy.py``), from a teacher's choices (``beat_greedy_distill.py``)
or from win shares (``beat_greedy_es.py``); none beat ``greedy`` within an hour. This
one is model-based, as AlphaZero and TD-Gammon's search are: the decisions come from the
compiled search on the exact rules (``search``: MCTS, the die a chance node with R3's
probabilities, ``marrakech.bots.search``), and what is learned is the value it reads at
its leaves, each seat's chance of winning a position:

* **the value** is ``marrakech.bots.value``'s model: each seat's score is
  ``features . (w + w' * progress)`` over seven features of the position (its dirhams,
  visible squares, regions, carpets in hand, the coming roll's tithe and ruin, whether
  it moves; ``marrakech.value_features``), the chances a softmax of the scores. 14
  weights, **all 0 at the start**: every position looks even, and the search, which then
  sees nothing but finished games, plays at random and loses every game to ``greedy``;
* **each generation** plays ``--games`` self-play games of the search with the current
  value (``--selfplay-iterations`` a decision, a uniform decision with probability
  ``--epsilon`` so that the positions vary), records every decision node's features and
  the game's final ranking, and fits the value anew to the positions of the last
  ``--window`` generations by maximum likelihood (Plackett-Luce on the ranking,
  ``marrakech.training.value_fit``): the value learns which positions win, from games
  played by the search it guides, which then plays better games;
* **the curve**: after each generation the search at ``--iterations`` with the new value
  plays the same ``--eval-games`` games against ``greedy`` (seats rotating), and the
  win share is logged with the CPU time; the value that scored best is kept
  (``best.npy``: early stopping on held-out games). At the end (or with
  ``--final-only``) it plays the same 400 fresh games (seed 1) as the other recipes'
  final evaluations, with the arena's luck-corrected 95% interval
  (``beat_greedy.evaluate_final``).

One process, a fixed seed. The run stops after ``--generations`` generations or
``--cpu-minutes`` of CPU time (self-play, fitting and the curve; the final evaluation
is counted apart), over all its resumed runs; it saves its state after every
generation, and ``--resume`` continues from there::

    nice -n 19 python examples/beat_greedy_value.py --out runs/value
    nice -n 19 python examples/beat_greedy_value.py --out runs/value --generations 20 --resume
    python examples/beat_greedy_value.py --out runs/value --plot docs/beat-greedy-value.png
    python examples/beat_greedy_value.py --out runs/value --compare static --iterations 500

``--compare`` plays only the final evaluation, of the search at ``--iterations`` with a
value: the run's ``learned`` one, all ``zero`` (the start), ``static`` (greedy's
evaluation turned into chances by hand, ``marrakech.bots.value.static_value``) or
``packaged`` (the value the ``search`` bot ships with), so that what the learning
brings can be read beside what the search does alone, at any budget.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other recipes, beside this one

from beat_greedy import (
    BatchScorer,
    Curve,
    Scorer,
    best_step,
    has_run,
    play_greedy,
    plot,
    report_final,
)

from marrakech.bots.search import SearchBot
from marrakech.bots.value import load_value, static_value
from marrakech.training.value_fit import design, fit, live_seats, self_play_positions, stages
from marrakech.value_features import FEATURE_NAMES, VALUE_WEIGHTS

Array = npt.NDArray[np.float64]
#: What a generation keeps of its self-play positions for the fits that follow.
KEPT = ("features", "progress", "ranks")
#: The values the search plays with in ``--compare``: the run's learned one (its
#: ``best.npy``), the start (every position even), greedy's evaluation turned into
#: chances by hand, and the value packaged with the ``search`` bot (fitted on 500,000
#: self-play positions guided by that hand-set one, ``scripts/train_value.py``).
COMPARED: dict[str, Callable[[Path], Array]] = {
    "learned": lambda out: np.load(out / "best.npy"),
    "zero": lambda out: np.zeros(VALUE_WEIGHTS),
    "static": lambda out: static_value(2).array(),
    "packaged": lambda out: load_value(2).array(),
}


class LearnedSearch:
    """The compiled ``search@iterations=N`` with a learned value's ``weights``: its
    decision in each position of the batch (the bot's own, from each game's bot stream).

    >>> LearnedSearch(np.zeros(14), 100).bot.iterations
    100
    """

    def __init__(self, weights: Array, iterations: int) -> None:
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.bot = SearchBot(seconds=None, iterations=iterations)

    def best(
        self, obs: Array, masks: npt.NDArray[np.bool_], score: Scorer
    ) -> npt.NDArray[np.int64]:
        if not isinstance(score, BatchScorer):
            raise TypeError(
                f"LearnedSearch searches the batch's positions: expected a BatchScorer, "
                f"found {type(score).__name__}"
            )
        return score.batch.search_actions(score.games, self.bot, self.weights)


def fit_value(window: list[dict[str, Array]], steps: int) -> tuple[Array, float]:
    """The value fitted to the positions of ``window`` (one dict of :data:`KEPT` arrays
    per generation), and its ranking log-loss on them."""
    features = np.concatenate([part["features"] for part in window])
    progress = np.concatenate([part["progress"] for part in window])
    ranks = np.concatenate([part["ranks"] for part in window])
    losses: list[float] = []
    weights = fit(
        design(features, progress),
        stages(ranks, live_seats(features, 2), 2),
        steps,
        lambda step, loss: losses.append(loss),
    )
    return weights, (losses[-1] if losses else float("nan"))


def win_share(weights: Array, iterations: int, games: int, seed: int) -> float:
    """The search with ``weights``' win share against ``greedy`` in ``games`` games."""
    wins, _, _ = play_greedy(LearnedSearch(weights, iterations), games, seed)
    return float(wins.mean())


def save(out: Path, weights: Array, window: list[dict[str, Array]], meta: dict[str, Any]) -> None:
    arrays: dict[str, Any] = {"weights": weights}
    for number, part in enumerate(window):
        for key in KEPT:
            arrays[f"{key}_{number}"] = part[key]
    arrays["meta"] = np.frombuffer(json.dumps(meta | {"window": len(window)}).encode(), np.uint8)
    tmp = out / "state.tmp.npz"
    np.savez(tmp, **arrays)
    tmp.replace(out / "state.npz")


def load(out: Path) -> tuple[Array, list[dict[str, Array]], dict[str, Any]]:
    with np.load(out / "state.npz") as data:
        meta: dict[str, Any] = json.loads(bytes(data["meta"]).decode())
        window = [
            {key: np.array(data[f"{key}_{number}"]) for key in KEPT}
            for number in range(meta.pop("window"))
        ]
        weights = np.array(data["weights"])
    return weights, window, meta


def describe(weights: Array) -> str:
    """The weights by feature: at the start of the game, then at its end."""
    count = len(FEATURE_NAMES)
    start, end = weights[:count], weights[:count] + weights[count:]
    return ", ".join(
        f"{name} {a:.2f}->{b:.2f}" for name, a, b in zip(FEATURE_NAMES, start, end, strict=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/value"))
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generations", type=int, default=12)
    parser.add_argument("--cpu-minutes", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=400, help="self-play games per generation")
    parser.add_argument("--selfplay-iterations", type=int, default=100)
    parser.add_argument("--epsilon", type=float, default=0.1, help="self-play's uniform decisions")
    parser.add_argument("--window", type=int, default=3, help="generations of positions fitted")
    parser.add_argument("--steps", type=int, default=300, help="steps of each fit")
    parser.add_argument("--iterations", type=int, default=2000, help="the search that plays")
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--final-games", type=int, default=400)
    parser.add_argument("--final-only", action="store_true", help="only the final evaluation")
    parser.add_argument("--plot", type=Path, help="draw the learning curve of --out here")
    parser.add_argument(
        "--compare",
        choices=sorted(COMPARED),
        help="only the final evaluation, of the search at --iterations with this value "
        "(into final-VALUE@ITERATIONS.txt)",
    )
    args = parser.parse_args()
    if args.compare == "learned" and not (args.out / "best.npy").exists():
        parser.error(f"--compare learned: {args.out} holds no learned value (best.npy) yet")
    if args.compare:
        args.out.mkdir(parents=True, exist_ok=True)
        report_final(
            args.out,
            LearnedSearch(COMPARED[args.compare](args.out), args.iterations),
            args.final_games,
            f"search@iterations={args.iterations} with the {args.compare} value",
            name=f"final-{args.compare}@{args.iterations}.txt",
        )
        return
    if args.plot:
        plot(
            args.out,
            args.plot,
            "beat_greedy_value.py",
            "CPU minutes (self-play, fitting, evaluation; one process)",
            floor=0.0,
            label="the search with the learned value vs greedy (fixed eval games)",
        )
        return
    for name in ("generations", "games", "selfplay_iterations", "window", "steps", "iterations"):
        if (value := getattr(args, name)) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, found {value}")
    if not 0.0 <= args.epsilon <= 1.0:
        parser.error(f"--epsilon must be between 0 and 1, found {args.epsilon}")
    args.out.mkdir(parents=True, exist_ok=True)
    weights = np.zeros(VALUE_WEIGHTS)
    window: list[dict[str, Array]] = []
    meta: dict[str, Any] = {
        "generation": 0,
        "cpu_seconds": 0.0,
        "evaluation_seconds": 0.0,
        "games": 0,
        "positions": 0,
        "best_generation": 0,
        "best_rate": -1.0,
    }
    if has_run(args.out, args.resume, args.final_only):
        weights, window, meta = load(args.out)
        print(f"resumed at generation {meta['generation']}, {meta['cpu_seconds'] / 60:.1f} CPU min")
    if not args.final_only:
        keys = ("generation", "games", "positions", "cpu_seconds")
        curve = Curve(args.out, meta, keys, args.eval_games)

        def evaluate() -> None:
            seed = 10_000 + args.seed
            if curve.evaluate(lambda: win_share(weights, args.iterations, args.eval_games, seed)):
                np.save(args.out / "best.npy", weights)  # the value the final evaluation plays

        if meta["generation"] == 0:
            evaluate()
        while meta["generation"] < args.generations and meta["cpu_seconds"] < args.cpu_minutes * 60:
            number = meta["generation"] + 1
            played = self_play_positions(
                2,
                args.games,
                args.selfplay_iterations,
                args.epsilon,
                weights,
                seed=args.seed * 1_000_003 + number,
            )
            window = [*window, {key: getattr(played, key) for key in KEPT}][-args.window :]
            weights, loss = fit_value(window, args.steps)
            meta["generation"] = number
            meta["games"] += args.games
            meta["positions"] += len(played.progress)
            curve.clock()
            print(
                f"generation {number}: {meta['cpu_seconds'] / 60:.1f} CPU min, "
                f"{len(played.progress)} positions, fitted on "
                f"{sum(len(part['progress']) for part in window)} (ranking log-loss {loss:.4f})"
                f"\n  value: {describe(weights)}",
                flush=True,
            )
            evaluate()
            save(args.out, weights, window, meta)
    chosen = "the last generation's value"
    if (args.out / "best.npy").exists():
        weights = np.load(args.out / "best.npy")
        chosen = best_step(meta, "generation", "the value", args.eval_games)
    print(f"value (start->end of the game): {describe(weights)}")
    report_final(
        args.out,
        LearnedSearch(weights, args.iterations),
        args.final_games,
        f"search@iterations={args.iterations} after {meta['generation']} generations, "
        f"{meta['games']} self-play games, {meta['cpu_seconds'] / 60:.1f} CPU minutes "
        f"(curve evaluations {meta['evaluation_seconds'] / 60:.1f}); played with {chosen}",
    )


if __name__ == "__main__":
    main()
