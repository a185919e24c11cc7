"""Learning to beat ``greedy`` at 2 players by evolution strategies on its evaluation.

PPO (``examples/beat_greedy.py``) learns from one won or lost game at a time, and the
distillation of a search (``examples/beat_greedy_distill.py``) from a teacher's choices;
neither beat ``greedy`` within an hour. This recipe optimises the win share itself, with
a policy of few parameters and a gradient estimated from whole games, as the
cross-entropy method and evolution strategies do for Tetris or Atari:

* **The policy** is greedy's one turn of lookahead (``marrakech.bots.greedy``: at an
  orientation the expected value of the best placement over the roll, R3; at a
  placement the value of the position it leads to) with the evaluation's weights
  (``area``, ``region``, ``threat``; ``marrakech.bots.evaluation``) depending on the
  decision (orient or place) and on the stage of the game (the share of the carpets
  placed, in ``--stages`` equal parts): ``weights = tuned * exp(theta[decision,
  stage])``, 2 x stages x 3 parameters, all 0 at the start, where it is ``greedy``
  itself. Its scores come from the environment, compiled (``greedy_scores`` with a
  ``GreedyBot`` of those weights).
* **Evolution strategies** (OpenAI-ES): every generation draws ``--pairs`` Gaussian
  perturbations ``epsilon`` (each with its opposite), plays ``--games`` games against
  ``greedy`` for each perturbed ``theta + sigma * epsilon`` (the same games, seeds and
  dice, for all of them: common random numbers, so what differs is the policy), and
  moves ``theta`` along ``sum(rank_i * epsilon_i)`` (centred ranks of the win shares)
  with Adam.

One process, a fixed seed. Every ``--eval-every`` generations ``theta`` plays the same
``--eval-games`` games against ``greedy`` (``beat_greedy.evaluate_batch``, seats
rotating) and the win share is logged with the CPU time: the learning curve. The
``theta`` that scored best on them is kept (``best.npy``: early stopping on held-out
games). At the end (or with ``--final-only``) it plays ``--final-games`` other fresh
games against ``greedy`` with every action and chance outcome recorded and prints the
win share with the arena's luck-corrected 95% interval (``beat_greedy.evaluate_final``,
seed 1, the same games as the other recipes' final evaluations).

The run stops after ``--cpu-minutes`` of CPU time (the generations and the curve's
evaluations; the final evaluation is counted apart), over all its resumed runs; it
saves its state after every generation, and ``--resume`` continues from there::

    nice -n 19 python examples/beat_greedy_es.py --out runs/es --cpu-minutes 60
    nice -n 19 python examples/beat_greedy_es.py --out runs/es --cpu-minutes 90 --resume
    python examples/beat_greedy_es.py --out runs/es --plot docs/beat-greedy-es.png
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
    Adam,
    Curve,
    Scorer,
    best_step,
    evaluate_batch,
    has_run,
    plot,
    report_final,
)

from marrakech.bots.evaluation import resolve_weights
from marrakech.bots.greedy import GreedyBot

Array = npt.NDArray[np.float64]
#: greedy's tuned ``(area, region, threat)`` at 2 players: the policy's weights at theta 0.
TUNED = np.array(resolve_weights(None, 2))
#: The observation's entries the policy reads (``marrakech.observation``): 1 at an
#: orientation, and each seat's carpets still in hand as a share of its 12 (R5).
ORIENT, IN_HAND = 441, (453, 459)


class StagedGreedy:
    """greedy's lookahead with weights by decision (orient, place) and stage of the game:
    ``tuned * exp(theta[decision, stage])`` (``theta`` of shape ``(2, stages, 3)``).

    >>> policy = StagedGreedy(np.zeros((2, 4, 3)))
    >>> policy.weights(0, 3).tolist() == TUNED.tolist()   # theta 0: greedy's weights
    True
    """

    def __init__(self, theta: Array) -> None:
        self.theta = np.asarray(theta, dtype=np.float64)

    @property
    def stages(self) -> int:
        return int(self.theta.shape[1])

    def weights(self, decision: int, stage: int) -> Array:
        """``(area, region, threat)`` at a decision (1: orient, 0: place) and stage."""
        weights: Array = TUNED * np.exp(self.theta[decision, stage])
        return weights

    def best(
        self, obs: Array, masks: npt.NDArray[np.bool_], score: Scorer
    ) -> npt.NDArray[np.int64]:
        """The best-scoring legal decision in each position, each scored with the weights
        of its decision and stage (``score``: greedy's scores of the same positions for a
        :class:`GreedyBot`'s weights, compiled)."""
        orient = (obs[:, ORIENT] > 0.5).astype(np.int64)
        placed = 1.0 - (obs[:, IN_HAND[0]] + obs[:, IN_HAND[1]]) / 2.0
        stage = np.minimum((placed * self.stages).astype(np.int64), self.stages - 1)
        best = np.zeros(len(obs), dtype=np.int64)
        for decision in (0, 1):
            for part in range(self.stages):
                rows = np.flatnonzero((orient == decision) & (stage == part))
                if rows.size:
                    area, region, threat = self.weights(decision, part)
                    scores = score(GreedyBot(area=area, region=region, threat=threat))
                    best[rows] = np.where(masks[rows], scores[rows], -np.inf).argmax(axis=1)
        return best


def centred_ranks(values: Array) -> Array:
    """Each value's rank scaled to -0.5..0.5 (ties share their mean rank)."""
    order = values.argsort(kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values), dtype=np.float64)
    for value in np.unique(values):
        same = values == value
        ranks[same] = ranks[same].mean()
    centred: Array = ranks / max(1, len(values) - 1) - 0.5
    return centred


def es_gradient(
    theta: Array,
    fitness: Callable[[Array], float],
    sigma: float,
    pairs: int,
    rng: np.random.Generator,
) -> tuple[Array, Array]:
    """The ES estimate of the gradient of ``fitness`` at ``theta`` from ``pairs``
    antithetic Gaussian perturbations of scale ``sigma`` (centred ranks of the
    fitnesses, so only their order counts), and the perturbed fitnesses."""
    noise = rng.standard_normal((pairs, *theta.shape))
    values = np.empty(2 * pairs)
    for k in range(pairs):
        values[2 * k] = fitness(theta + sigma * noise[k])
        values[2 * k + 1] = fitness(theta - sigma * noise[k])
    ranks = centred_ranks(values)
    weight = ranks[0::2] - ranks[1::2]  # + for the perturbation, - for its opposite
    gradient: Array = np.tensordot(weight, noise, axes=1) / (2 * pairs * sigma)
    return gradient, values


def win_share(games: int, seed: int) -> Callable[[Array], float]:
    """The fitness: a policy's win share against ``greedy`` in ``games`` games of
    ``seed`` (the same games, seeds and dice, for every policy asked)."""

    def fitness(theta: Array) -> float:
        return evaluate_batch(StagedGreedy(theta), games, seed=seed)

    return fitness


def save(out: Path, theta: Array, opt: Adam, meta: dict[str, Any]) -> None:
    state = json.dumps(meta | {"t": opt.t}).encode()
    tmp = out / "state.tmp.npz"
    np.savez(
        tmp,
        theta=theta,
        m=opt.m["theta"],
        v=opt.v["theta"],
        meta=np.frombuffer(state, dtype=np.uint8),
    )
    tmp.replace(out / "state.npz")


def load(out: Path, opt: Adam) -> tuple[Array, dict[str, Any]]:
    with np.load(out / "state.npz") as data:
        theta = np.array(data["theta"])
        opt.m["theta"], opt.v["theta"] = np.array(data["m"]), np.array(data["v"])
        meta: dict[str, Any] = json.loads(bytes(data["meta"]).decode())
    opt.t = meta.pop("t")
    return theta, meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/es"))
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu-minutes", type=float, default=60.0)
    parser.add_argument("--stages", type=int, default=4, help="parts of the game by carpets placed")
    parser.add_argument("--pairs", type=int, default=6, help="antithetic pairs per generation")
    parser.add_argument("--games", type=int, default=2000, help="games per perturbed policy")
    parser.add_argument("--sigma", type=float, default=0.2, help="perturbations' scale (log)")
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--eval-every", type=int, default=5, help="generations between evaluations")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--final-games", type=int, default=400)
    parser.add_argument("--final-only", action="store_true", help="only the final evaluation")
    parser.add_argument("--plot", type=Path, help="draw the learning curve of --out here")
    args = parser.parse_args()
    if args.plot:
        plot(args.out, args.plot, "beat_greedy_es.py", "CPU minutes (games played; one process)")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    theta = np.zeros((2, args.stages, 3))
    opt = Adam({"theta": theta}, args.lr)
    meta: dict[str, Any] = {
        "generation": 0,
        "cpu_seconds": 0.0,
        "evaluation_seconds": 0.0,
        "games": 0,
        "best_generation": 0,
        "best_rate": -1.0,
    }
    if has_run(args.out, args.resume, args.final_only):
        theta, meta = load(args.out, opt)
        print(f"resumed at generation {meta['generation']}, {meta['cpu_seconds'] / 60:.1f} CPU min")
    if not args.final_only:
        curve = Curve(args.out, meta, ("generation", "games", "cpu_seconds"), args.eval_games)

        def evaluate() -> None:
            policy = StagedGreedy(theta)
            if curve.evaluate(lambda: evaluate_batch(policy, args.eval_games, 10_000 + args.seed)):
                np.save(args.out / "best.npy", theta)  # the policy the final evaluation plays

        if meta["generation"] == 0:
            evaluate()
        while meta["cpu_seconds"] < args.cpu_minutes * 60:
            number = meta["generation"] + 1
            rng = np.random.default_rng([args.seed, number])
            seed = args.seed * 1_000_003 + number
            fitness = win_share(args.games, seed)
            gradient, shares = es_gradient(theta, fitness, args.sigma, args.pairs, rng)
            opt.step({"theta": theta}, {"theta": -gradient})  # Adam descends: ascend the share
            meta["generation"] = number
            meta["games"] += 2 * args.pairs * args.games
            curve.clock()
            print(
                f"generation {number}: {meta['cpu_seconds'] / 60:.1f} CPU min, perturbed "
                f"win shares {shares.min():.3f}-{shares.max():.3f} (mean {shares.mean():.3f}), "
                f"|theta| {np.abs(theta).max():.2f}",
                flush=True,
            )
            if number % args.eval_every == 0:
                evaluate()
            save(args.out, theta, opt, meta)
    chosen = "the last generation's weights"
    if (args.out / "best.npy").exists():
        theta = np.load(args.out / "best.npy")
        chosen = best_step(meta, "generation", "the weights", args.eval_games)
    print("weights (area, region, threat) by stage, orient then place:")
    policy = StagedGreedy(theta)
    for decision, name in ((1, "orient"), (0, "place")):
        rows = [np.round(policy.weights(decision, s), 3).tolist() for s in range(policy.stages)]
        print(f"  {name}: {rows}")
    report_final(
        args.out,
        policy,
        args.final_games,
        f"after {meta['generation']} generations, {meta['games']} games, "
        f"{meta['cpu_seconds'] / 60:.1f} CPU minutes (curve evaluations "
        f"{meta['evaluation_seconds'] / 60:.1f}); played by {chosen}",
    )


if __name__ == "__main__":
    main()
