"""Fit the learned value (``marrakech.bots.value``) on self-play positions, per player count.

The model: each seat still in gets the score ``features . (w + w' * progress)``; the
final ranking is modelled as Plackett-Luce on those scores (the winner is a softmax over
the seats, then the second among the rest, ...), seats tied by R21 sharing each place
(the target of a stage is uniform over the tied group). The weights maximise the
likelihood of the training games' rankings (projected full-batch Adam from zero, a small
L2 penalty, the weights of dirhams, squares, regions and tithes kept >= 0 and of ruin
<= 0 all along the game, those of dirhams and tithes the same all game), so the same
data always gives the same weights.

The data is made by ``scripts/value_data.py`` (one ``.npz`` per player count under
``--data``; a missing one is generated with ``--seed``), so the packaged weights are
reproducible from the seed:

    python scripts/train_value.py --seed 1 --data /tmp/marrakech-value --write

Next to it, per player count, a *margin* model on the same inputs: each seat's final R20
score minus the mean of the other seats still in, fitted by least squares (closed form).

It prints, for the held-out games, the log-loss and accuracy of the winner prediction,
the log-loss of the whole ranking and the error of the predicted margins, for the fitted
value, for the hand-set one that guided the self-play, and for the static evaluation
with ``TUNED_WEIGHTS`` (``marrakech.bots.evaluation``; its value vector turned into
chances by a softmax whose temperature is fitted on half of the held-out games; every
model is scored on the other half). ``--write`` stores the weights in
``src/marrakech/bots/data/`` and the table in docs/bots.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from marrakech.bots.evaluation import evaluate
from marrakech.bots.value import ValueModel, static_value, value_file
from marrakech.fast.rows import from_arrays
from marrakech.training.value_fit import (
    design,
    fit,
    live_seats,
    log_softmax,
    ranking_loss,
    stages,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "marrakech" / "bots" / "data"
DOC = ROOT / "docs" / "bots.md"
MARKERS = ("<!-- value-table:start -->", "<!-- value-table:end -->")
Array = npt.NDArray[np.float64]
#: Self-play positions per player count behind the packaged weights.
POSITIONS = {2: 500_000, 3: 400_000, 4: 500_000}


def winner_metrics(
    scores: Array, live: npt.NDArray[np.bool_], ranks: npt.NDArray[np.int8]
) -> tuple[float, float]:
    """Log-loss of the winner (against R21's win shares) and accuracy of the favourite."""
    logp = log_softmax(scores, live)
    winners = (ranks == 1) & live
    shares = winners / np.maximum(winners.sum(axis=1, keepdims=True), 1)
    loss = -float((shares * logp).sum(axis=1).mean())
    favourite = np.where(live, scores, -np.inf).argmax(axis=1)
    accuracy = float(winners[np.arange(len(favourite)), favourite].mean())
    return loss, accuracy


def relative(values: Array, live: npt.NDArray[np.bool_]) -> Array:
    """Each live seat's ``values`` minus the mean over the other seats still in (0 for a
    seat out): what a margin is measured on. ``values`` is ``(n, 4)`` or ``(n, 4, k)``."""
    mask = live if values.ndim == 2 else live[:, :, None]
    kept = np.where(mask, values, 0.0)
    others = np.maximum(live.sum(axis=1) - 1, 1).reshape((-1,) + (1,) * (values.ndim - 1))
    total = kept.sum(axis=1, keepdims=True)
    return np.where(mask, kept - (total - kept) / others, 0.0)


def fit_margin(x: Array, scores: Array, live: npt.NDArray[np.bool_]) -> Array:
    """Least squares (a little ridge) of each live seat's final margin (R20 score minus
    the mean of the other seats still in at the position) on its relative inputs: one
    closed-form solution, so the same data always gives the same weights."""
    inputs = relative(x, live)[live]
    target = relative(scores, live)[live]
    gram = inputs.T @ inputs + 1e-6 * len(inputs) * np.eye(inputs.shape[1])
    return np.linalg.solve(gram, inputs.T @ target)


def margin_rmse(predicted: Array, scores: Array, live: npt.NDArray[np.bool_]) -> float:
    """Root mean square error, in points (R20), of predicted final margins."""
    error = (predicted - relative(scores, live))[live]
    return float(np.sqrt(np.mean(error * error)))


def scaled(values: Array, scores: Array, live: npt.NDArray[np.bool_]) -> float:
    """The factor that best turns ``values``' relative differences into final margins
    (least squares through zero)."""
    v = relative(values, live)[live]
    return float(v @ relative(scores, live)[live] / max(float(v @ v), 1e-12))


def baseline_scores(rows: npt.NDArray[np.int32], players: int) -> Array:
    """The static evaluation's value vector (dirhams) of every held-out position."""
    out = np.zeros((len(rows), 4))
    for i, row in enumerate(rows):
        out[i, :players] = evaluate(from_arrays(row))
    return out


def best_temperature(
    values: Array, live: npt.NDArray[np.bool_], ranks: npt.NDArray[np.int8]
) -> float:
    grid = np.exp(np.linspace(np.log(0.5), np.log(50.0), 60))
    losses = [winner_metrics(values / t, live, ranks)[0] for t in grid]
    return float(grid[int(np.argmin(losses))])


def train(players: int, path: Path, steps: int) -> tuple[ValueModel, list[str]]:
    data = np.load(path)
    features = data["features"].astype(np.float64)
    progress = data["progress"].astype(np.float64)
    ranks = data["ranks"]
    final = data["scores"].astype(np.float64)
    test = data["test"]
    games = data["game"]
    x = design(features, progress)
    live = live_seats(features, players)
    train_rows = ~test
    print(f"{players}p: {int(train_rows.sum())} training positions, {int(test.sum())} held out")
    start = static_value(players).array()
    plan = stages(ranks[train_rows], live[train_rows], players)
    w = fit(
        x[train_rows],
        plan,
        steps,
        lambda step, loss: print(f"  step {step}: ranking log-loss {loss:.4f}", flush=True),
    )
    margin = fit_margin(x[train_rows], final[train_rows], live[train_rows])
    # Held out: calibration half (the baseline's temperature) and scoring half.
    held = np.flatnonzero(test)
    calibrate = (games[held] // 10) % 2 == 0
    score_on = held[~calibrate]
    rows = data["test_rows"]
    values = baseline_scores(rows, players)
    t = best_temperature(values[calibrate], live[held][calibrate], ranks[held][calibrate])
    lines = []
    # Each candidate: its chances' scores, and its predicted margins. The learned value
    # predicts margins with its own margin weights; the others' value differences are
    # scaled to points on the calibration half.
    hand_set = x[held] @ start
    hand_scale = scaled(hand_set[calibrate], final[held][calibrate], live[held][calibrate])
    static_scale = scaled(values[calibrate], final[held][calibrate], live[held][calibrate])
    on_live = live[score_on]
    candidates = {
        "learned value (fitted)": (x[score_on] @ w, relative(x[score_on] @ margin, on_live)),
        "hand-set value (static_value, guided the self-play)": (
            hand_set[~calibrate],
            hand_scale * relative(hand_set[~calibrate], on_live),
        ),
        f"static evaluation, TUNED_WEIGHTS (softmax, T = {t:.1f} dirhams)": (
            values[~calibrate] / t,
            static_scale * relative(values[~calibrate], on_live),
        ),
        "uniform (every seat still in alike)": (
            np.zeros((len(score_on), 4)),
            np.zeros((len(score_on), 4)),
        ),
    }
    plan_test = stages(ranks[score_on], on_live, players)
    for name, (scores, margins) in candidates.items():
        loss, accuracy = winner_metrics(scores, on_live, ranks[score_on])
        ranking = ranking_loss(scores, plan_test)
        error = margin_rmse(margins, final[score_on], on_live)
        lines.append(
            f"| {players} | {name} | {len(score_on)} | {loss:.4f} | {accuracy:.1%} "
            f"| {ranking:.4f} | {error:.2f} |"
        )
        print(lines[-1])
    source = {
        "method": "Plackett-Luce maximum likelihood on final rankings (scripts/train_value.py)",
        "data": "scripts/value_data.py: compiled self-play, standard rules",
        "seed": int(data["seed"]),
        "iterations": int(data["iterations"]),
        "epsilon": float(data["epsilon"]),
        "positions": len(progress),
        "games": len(np.unique(games)),
        "steps": steps,
    }
    model = ValueModel(players, tuple(float(v) for v in w), source, tuple(float(v) for v in margin))
    return model, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="data seed (value_data.py)")
    parser.add_argument("--data", type=Path, default=Path("/tmp/marrakech-value"))
    parser.add_argument("--players", default="2,3,4", help="comma-separated player counts")
    parser.add_argument(
        "--positions",
        type=int,
        help="when generating (default: those of the packaged weights, "
        + ", ".join(f"{n:,} at {p}" for p, n in POSITIONS.items())
        + ")",
    )
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--write", action="store_true", help="store the weights and the table")
    args = parser.parse_args(argv)
    try:
        counts = [int(p) for p in args.players.split(",")]
    except ValueError:
        parser.error(f"--players expects numbers such as 2,3,4, found {args.players!r}")
    if any(p not in (2, 3, 4) for p in counts):
        parser.error(f"--players expects 2, 3 or 4, found {args.players!r}")
    lines = [
        "| players | model | held-out positions | winner log-loss | favourite wins | "
        "ranking log-loss | margin error (points) |",
        "|---|---|---|---|---|---|---|",
    ]
    for players in counts:
        path = args.data / f"value-{players}p.npz"
        if not path.exists():
            import value_data  # the generator next to this script

            value_data.main(
                ["--players", str(players),
                 "--positions", str(args.positions or POSITIONS[players]),
                 "--seed", str(args.seed), "--out", str(path)]
            )  # fmt: skip
        elif int(np.load(path)["seed"]) != args.seed:
            parser.error(f"{path} was made with another seed; move it away first")
        began = time.perf_counter()
        model, rows = train(players, path, args.steps)
        print(f"{players}p fitted in {time.perf_counter() - began:.0f} s: {list(model.weights)}")
        lines.extend(rows)
        if args.write:
            (DATA / value_file(players)).write_text(model.to_json() + "\n", encoding="utf-8")
    lines.append("")
    lines.append(
        f"_Generated by `scripts/train_value.py --seed {args.seed}` on "
        f"{time.strftime('%Y-%m-%d')}: "
        "held-out games of the same self-play (a tenth of the games; half of those "
        "calibrate the baseline's temperature, the other half is scored here). Winner "
        "log-loss: minus the mean log-probability of the winner(s) (R21 ties shared); "
        "favourite wins: how often the seat given the best chance won; ranking log-loss: "
        "the Plackett-Luce log-loss of the whole final ranking; margin error: the root mean "
        "square error of each seat's predicted final margin (its R20 score minus the mean "
        "of the other seats still in), from the learned margin weights, or from the other "
        "models' value differences scaled to points on the calibration half. Lower is "
        "better._"
    )
    table = "\n".join(lines)
    print(table)
    if args.write:
        body = DOC.read_text(encoding="utf-8")
        start, end = MARKERS
        if start not in body or end not in body:
            print(f"{DOC} has no {start} ... {end} markers", file=sys.stderr)
            return 2
        head, rest = body.split(start, 1)
        _, tail = rest.split(end, 1)
        DOC.write_text(f"{head}{start}\n{table}\n{end}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
