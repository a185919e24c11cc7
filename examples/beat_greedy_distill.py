"""Learning to beat ``greedy`` at 2 players by distilling a search: expert iteration.

PPO against ``greedy`` (``examples/beat_greedy.py``) learns from the games' outcomes,
and at 2 players the dice decide so much of a game that an hour of it stays at
greedy's level. Here each decision gets its own label instead: the compiled
``search@iterations=K`` (the *teacher*, which beats ``greedy`` clearly; see
docs/environments.md) says which decision it would take, and the policy is fitted to
that by cross-entropy. One label per decision carries far more signal than one win or
loss per game.

* **The policy** is ``examples/beat_greedy.py``'s, logits ``beta * (s - max s) + r(o)``
  over the legal ids (``s`` greedy's scores, ``r`` a 474-H-H-87 network whose last
  layer starts at zero), plus greedy's evaluation terms re-weighted (``TERMS``: each
  term scored alone by the compiled greedy, 16 weights by term and context, starting at
  zero). So it starts as greedy and learns where the teacher differs; the re-weighting
  has few parameters and generalises from few labels, the network did not.
* **DAgger**: every round plays ``--games`` fresh games of the learner (its best
  decision) against ``greedy``, seats alternating, on the compiled batch; at every
  learner decision with more than one legal id the teacher searches the position
  (``Batch.search_actions``, all the games at once) and its choice is the label. So the
  positions are those the learner itself reaches, and the first round's are greedy's
  (the untrained learner is greedy).
* **Training**: after each round, Adam on minibatches drawn from the labelled positions
  of all rounds so far (the last ``--keep`` of them), ``--replay`` times as many as the
  round labelled (so training keeps a fixed share of the time as the data grows).

One process, a fixed seed. Every ``--eval-every`` rounds the learner plays the same
``--eval-games`` games against ``greedy`` in the batch (``beat_greedy.evaluate_batch``)
and the win share is logged with the CPU time: the learning curve. The policy that
scored best on them is kept (``best.npz``: early stopping on held-out games, since the
policy drifts as it fits its own positions). At the end (or with ``--final-only``) that
policy (``--select last``: the last round's) plays ``--final-games`` other fresh games
against ``greedy`` with every action and chance outcome recorded and prints the win
share with the arena's luck-corrected 95% interval (``beat_greedy.evaluate_final``).

The run stops after ``--cpu-minutes`` of CPU time (labelling, training and the curve's
evaluations; the final evaluation is counted apart), over all its resumed runs. Each
round's labels are saved under ``--out``/rounds and the learner after every round, so
``--resume`` continues where it stopped::

    nice -n 19 python examples/beat_greedy_distill.py --out runs/distill --cpu-minutes 60
    nice -n 19 python examples/beat_greedy_distill.py --out runs/distill --cpu-minutes 60 --resume
    python examples/beat_greedy_distill.py --out runs/distill --plot docs/beat-greedy-distill.png
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the PPO recipe, beside this one

from beat_greedy import (
    FLOOR,
    Adam,
    Agent,
    Curve,
    Scorer,
    batch_scorer,
    best_step,
    evaluate_batch,
    has_run,
    log_softmax,
    mlp_backward,
    mlp_forward,
    plot,
    report_final,
    score_gaps,
)

from marrakech.bots.evaluation import resolve_weights
from marrakech.bots.greedy import GreedyBot, greedy_params
from marrakech.bots.search import SearchBot
from marrakech.bots.value import load_value
from marrakech.fast import Batch

Array = npt.NDArray[np.float64]
Masks = npt.NDArray[np.bool_]

#: Greedy's evaluation term by term (R20's money and squares, then the area, region and
#: threat terms alone): greedy's score is their sum weighted by its tuned weights.
TERMS = (
    GreedyBot(area=0.0, region=0.0, threat=0.0),
    GreedyBot(area=1.0, region=0.0, threat=0.0),
    GreedyBot(area=0.0, region=1.0, threat=0.0),
    GreedyBot(area=0.0, region=0.0, threat=1.0),
)
#: What the terms' weights may depend on: 1, ORIENT (else PLACE), the share of the
#: carpets placed, and the two's product (from the observation: phase and seats pieces).
CONTEXT = 4


def term_features(masks: Masks, score: Scorer) -> tuple[Array, Array]:
    """Greedy's score gaps (``beat_greedy.score_gaps``) and, per legal decision, each of
    its terms' part of the score (in dirhams, as greedy weighs it) minus that part for
    greedy's best decision, clipped to +-30: ``(m, 87)`` and ``(m, 87, len(TERMS))``."""
    scores = score(None)

    def legal(values: Array) -> Array:
        return np.where(masks, values, 0.0)  # illegal ids score -inf

    base = legal(score(TERMS[0]))
    weights = resolve_weights(None, 2)
    parts = [base] + [
        w * (legal(score(bot)) - base) for w, bot in zip(weights, TERMS[1:], strict=True)
    ]
    best = np.where(masks, scores, -np.inf).argmax(axis=1)
    rows = np.arange(len(masks))
    feats = np.stack([p - p[rows, best][:, None] for p in parts], axis=2)
    feats = np.where(masks[:, :, None], np.clip(feats, FLOOR, -FLOOR), 0.0)
    return score_gaps(scores, masks), feats


def context(obs: Array) -> Array:
    """``(m, CONTEXT)``: 1, ORIENT, the share of both seats' carpets placed, product."""
    orient = obs[:, 441]
    placed = 1.0 - (obs[:, 453] + obs[:, 459]) / 2.0
    return np.stack([np.ones(len(obs)), orient, placed, orient * placed], axis=1)


class DistillAgent(Agent):
    """``beat_greedy.Agent``'s policy plus a linear re-weighting of greedy's terms:
    logits ``beta * gaps + sum_k,j theta[k, j] * part_k * context_j + r(obs)``, ``theta``
    starting at zero (so the policy starts as greedy). The teacher's labels move the
    terms' weights by phase and stage of the game (few parameters: they generalise from
    few positions) and the network where the terms say nothing."""

    def __init__(self, rng: np.random.Generator, beta: float) -> None:
        super().__init__(rng, beta)
        self.policy["theta"] = np.zeros(len(TERMS) * CONTEXT)

    def network(self) -> dict[str, Array]:
        return {k: v for k, v in self.policy.items() if k not in ("log_beta", "theta")}

    def full_logits(self, obs: Array, gaps: Array, feats: Array, masks: Masks) -> tuple[Array, Any]:
        net = self.network()
        residual, inputs = mlp_forward(net, obs)
        beta = math.exp(float(self.policy["log_beta"][0]))
        x = (feats[:, :, :, None] * context(obs)[:, None, None, :]).reshape(*masks.shape, -1)
        logits = np.where(masks, beta * gaps + x @ self.policy["theta"] + residual, -1e9)
        return logits, (net, inputs, beta, x)

    def best(self, obs: Array, masks: Masks, score: Scorer) -> npt.NDArray[np.int64]:
        gaps, feats = term_features(masks, score)
        best: npt.NDArray[np.int64] = self.full_logits(obs, gaps, feats, masks)[0].argmax(axis=1)
        return best


def teacher_labels(
    batch: Batch, games: npt.NDArray[np.intp], teacher: SearchBot
) -> npt.NDArray[np.int64]:
    """The teacher's decision in each of ``games`` (waiting at a decision): the compiled
    ``search@iterations=K`` of the whole batch, drawing from each game's bot stream."""
    return batch.search_actions(games, teacher, load_value(batch.players).array())


def play_round(
    agent: DistillAgent, teacher: SearchBot, games: int, seed: int, first_seat: int
) -> tuple[dict[str, Any], dict[str, float]]:
    """``games`` fresh games of the learner's best decision against ``greedy`` (the
    learner's seat alternating from ``first_seat``), every learner decision with a choice
    labelled by the teacher: the labelled positions, the learner's wins and the CPU
    seconds spent labelling."""
    batch = Batch(games, players=2, seed=seed)
    params = greedy_params(None, 2)
    mine = ((np.arange(games) + first_seat) % 2).astype(np.int8)
    batch.reset()
    data: dict[str, list[Any]] = {"obs": [], "gaps": [], "feats": [], "masks": [], "targets": []}
    labelling = 0.0
    while not batch.terminated().all():
        to_move = batch.to_move()
        actions = np.full(games, -1, dtype=np.int64)
        ours = np.flatnonzero((to_move >= 0) & (to_move == mine))
        theirs = np.flatnonzero((to_move >= 0) & (to_move != mine))
        if ours.size:
            obs = batch.observations()[ours].astype(np.float64)
            masks = batch.legal_masks()[ours]
            gaps, feats = term_features(masks, batch_scorer(batch, ours))
            actions[ours] = agent.full_logits(obs, gaps, feats, masks)[0].argmax(axis=1)
            choice = masks.sum(axis=1) > 1
            if choice.any():
                began = time.process_time()
                targets = teacher_labels(batch, ours[choice], teacher)
                labelling += time.process_time() - began
                data["obs"].append(obs[choice].astype(np.float32))
                data["gaps"].append(gaps[choice].astype(np.float32))
                data["feats"].append(feats[choice].astype(np.float32))
                data["masks"].append(masks[choice])
                data["targets"].append(targets)
        if theirs.size:
            actions[theirs] = batch.greedy_actions(theirs, params)
        batch.step(actions, mask=actions >= 0)
    ranks = batch.ranks()
    own = ranks[np.arange(games), mine]
    wins = (own == 1) / (ranks == 1).sum(axis=1)
    labelled = {k: np.concatenate(v) for k, v in data.items()}
    return labelled, {"wins": float(wins.sum()), "labelling_seconds": labelling}


def fit(
    agent: DistillAgent,
    opt: Adam,
    data: dict[str, Any],
    samples: int,
    minibatch: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Adam on the cross-entropy between the policy and the teacher's decisions (``beta``
    learned with the network), over ``samples`` positions drawn from ``data`` in
    minibatches: the mean loss and how often the policy's best decision was the
    teacher's, on those positions before each step."""
    size = len(data["targets"])
    loss = agree = 0.0
    order = rng.integers(0, size, samples)
    for start in range(0, samples, minibatch):
        idx = order[start : start + minibatch]
        m = len(idx)
        obs, gaps = data["obs"][idx].astype(np.float64), data["gaps"][idx].astype(np.float64)
        feats = data["feats"][idx].astype(np.float64)
        masks, targets = data["masks"][idx], data["targets"][idx]
        logits, (net, inputs, beta, x) = agent.full_logits(obs, gaps, feats, masks)
        logp = log_softmax(logits)
        rows = np.arange(m)
        loss += float(-logp[rows, targets].sum())
        agree += float((logits.argmax(axis=1) == targets).sum())
        grad = np.exp(logp)
        grad[rows, targets] -= 1.0
        grad = np.where(masks, grad, 0.0) / m
        grads = mlp_backward(net, inputs, grad)
        grads["log_beta"] = np.array([float((grad * gaps).sum() * beta)])
        grads["theta"] = np.einsum("ma,maf->f", grad, x)
        opt.step(agent.policy, grads)
    seen = max(1, samples)
    return {"loss": loss / seen, "agree": agree / seen}


# -- the run --------------------------------------------------------------------------------


def save(out: Path, agent: DistillAgent, opt: Adam, meta: dict[str, Any]) -> None:
    arrays: dict[str, Any] = {f"p_{k}": v for k, v in agent.policy.items()}
    for k in opt.m:
        arrays[f"m_{k}"], arrays[f"v_{k}"] = opt.m[k], opt.v[k]
    arrays["meta"] = np.frombuffer(json.dumps(meta | {"t": opt.t}).encode(), dtype=np.uint8)
    tmp = out / "state.tmp.npz"
    np.savez(tmp, **arrays)
    tmp.replace(out / "state.npz")


def load(out: Path, agent: DistillAgent, opt: Adam) -> dict[str, Any]:
    data = np.load(out / "state.npz")
    for k in list(agent.policy):
        agent.policy[k] = np.array(data[f"p_{k}"])
    for k in opt.m:
        opt.m[k], opt.v[k] = np.array(data[f"m_{k}"]), np.array(data[f"v_{k}"])
    meta: dict[str, Any] = json.loads(bytes(data["meta"]).decode())
    opt.t = meta.pop("t")
    return meta


def save_best(out: Path, agent: DistillAgent) -> None:
    """The policy as it is now, as the run's best so far (``best.npz``)."""
    tmp = out / "best.tmp.npz"
    arrays: dict[str, Any] = dict(agent.policy)
    np.savez(tmp, **arrays)
    tmp.replace(out / "best.npz")


def load_best(out: Path, agent: DistillAgent) -> None:
    with np.load(out / "best.npz") as data:
        for k in list(agent.policy):
            agent.policy[k] = np.array(data[k])


def round_file(out: Path, number: int) -> Path:
    return out / "rounds" / f"round-{number:05d}.npz"


def load_rounds(out: Path, rounds: int, keep: int) -> list[dict[str, Any]]:
    """The labelled positions of the saved rounds, newest last, at most ``keep`` in all."""
    loaded: list[dict[str, Any]] = []
    held = 0
    for number in reversed(range(1, rounds + 1)):
        if held >= keep:
            break
        with np.load(round_file(out, number)) as data:
            loaded.append({k: np.array(data[k]) for k in data.files})
        held += len(loaded[-1]["targets"])
    return loaded[::-1]


def pooled(rounds: list[dict[str, Any]], keep: int) -> dict[str, Any]:
    data = {k: np.concatenate([r[k] for r in rounds]) for k in rounds[0]}
    return {k: v[-keep:] for k, v in data.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/distill"))
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu-minutes", type=float, default=60.0)
    parser.add_argument("--teacher", type=int, default=2000, help="the search's iterations")
    parser.add_argument("--games", type=int, default=64, help="games per round")
    parser.add_argument(
        "--replay", type=float, default=4.0, help="positions trained on per new labelled one"
    )
    parser.add_argument("--keep", type=int, default=400_000, help="labelled positions kept")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--beta", type=float, default=4.0, help="initial inverse temperature")
    parser.add_argument("--eval-every", type=int, default=10, help="rounds between evaluations")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument(
        "--select",
        choices=("best", "last"),
        default="best",
        help="the policy the final evaluation plays: the best on the curve's games (best)",
    )
    parser.add_argument("--final-games", type=int, default=400)
    parser.add_argument("--final-only", action="store_true", help="only the final evaluation")
    parser.add_argument("--plot", type=Path, help="draw the learning curve of --out here")
    args = parser.parse_args()
    if args.plot:
        plot(
            args.out,
            args.plot,
            "beat_greedy_distill.py",
            "CPU minutes (labelling by the search, training, evaluation; one process)",
        )
        return
    import beat_greedy

    beat_greedy.HIDDEN = args.hidden
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rounds").mkdir(exist_ok=True)
    agent = DistillAgent(np.random.default_rng(args.seed), args.beta)
    opt = Adam(agent.policy, args.lr)
    meta: dict[str, Any] = {
        "round": 0,
        "cpu_seconds": 0.0,
        "labelling_seconds": 0.0,
        "evaluation_seconds": 0.0,
        "positions": 0,
        "teacher": args.teacher,
        "best_round": 0,
        "best_rate": -1.0,
    }
    if has_run(args.out, args.resume, args.final_only):
        meta = load(args.out, agent, opt)
        meta.setdefault("best_round", 0)  # a run begun before the selection was kept
        meta.setdefault("best_rate", -1.0)
        print(f"resumed at round {meta['round']}, {meta['cpu_seconds'] / 60:.1f} CPU minutes")
    if not args.final_only:
        teacher = SearchBot(seconds=None, iterations=meta["teacher"])
        keys = ("round", "positions", "cpu_seconds", "labelling_seconds")
        curve = Curve(args.out, meta, keys, args.eval_games)

        def evaluate() -> None:
            if curve.evaluate(lambda: evaluate_batch(agent, args.eval_games, 10_000 + args.seed)):
                save_best(args.out, agent)  # the policy the final evaluation plays

        if meta["round"] == 0:
            evaluate()
        rounds = load_rounds(args.out, meta["round"], args.keep)
        while meta["cpu_seconds"] < args.cpu_minutes * 60:
            number = meta["round"] + 1
            labelled, played = play_round(
                agent, teacher, args.games, seed=args.seed * 1_000_003 + number, first_seat=number
            )
            np.savez(round_file(args.out, number), **labelled)
            rounds.append(labelled)
            while sum(len(r["targets"]) for r in rounds[1:]) >= args.keep:
                rounds.pop(0)
            data = pooled(rounds, args.keep)
            samples = round(args.replay * len(labelled["targets"]))
            fit_rng = np.random.default_rng([args.seed, number])
            stats = fit(agent, opt, data, samples, args.minibatch, fit_rng)
            meta["round"] = number
            meta["positions"] += len(labelled["targets"])
            meta["labelling_seconds"] += played["labelling_seconds"]
            curve.clock()
            beta = math.exp(float(agent.policy["log_beta"][0]))
            print(
                f"round {number}: {meta['positions']} labelled positions, "
                f"{meta['cpu_seconds'] / 60:.1f} CPU min "
                f"({meta['labelling_seconds'] / 60:.1f} labelling), "
                f"won {played['wins']:.0f}/{args.games} vs greedy, "
                f"loss {stats['loss']:.3f}, agrees with the teacher {stats['agree']:.3f}, "
                f"beta {beta:.2f}",
                flush=True,
            )
            if number % args.eval_every == 0:
                evaluate()
            save(args.out, agent, opt, meta)
    chosen = "the last round's policy"
    if args.select == "best" and (args.out / "best.npz").exists():
        load_best(args.out, agent)
        chosen = best_step(meta, "round", "the policy", args.eval_games)
    training = meta["cpu_seconds"] - meta["labelling_seconds"] - meta["evaluation_seconds"]
    report_final(
        args.out,
        agent,
        args.final_games,
        f"after {meta['round']} rounds, {meta['positions']} positions labelled by "
        f"search@iterations={meta['teacher']}, {meta['cpu_seconds'] / 60:.1f} CPU minutes "
        f"(labelling {meta['labelling_seconds'] / 60:.1f}, curve evaluations "
        f"{meta['evaluation_seconds'] / 60:.1f}, playing and training {training / 60:.1f}); "
        f"played by {chosen}",
    )


if __name__ == "__main__":
    main()
