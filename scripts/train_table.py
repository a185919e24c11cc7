"""Print the generations of a ``marrakech train`` run as a Markdown table (its log.jsonl).

    python scripts/train_table.py benchmarks/training/az-2p
    python scripts/train_table.py benchmarks/training/az-2p --mean 55-64   # a span's level

One row per generation: games played so far, the positions of its self-play, the
losses at the end of its training and those of the previous generation's network on
the new games (before training on them: overfitting shows there), self-play speed, and
each evaluation's luck-corrected win share with its 95% interval (the arena's numbers,
read from the log as written; below 30 games the arena leaves the share uncorrected, with
Wilson's interval).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _pair(policy: float | None, value: float | None) -> str:
    """Two losses, or n/a where a line has none (a generation whose training was not
    logged: its line says why in ``note``)."""
    return "n/a" if policy is None or value is None else f"{policy:.3f}, {value:.3f}"


def table(folder: Path, every: int = 1) -> str:
    lines = [
        json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines() if line.strip()
    ]
    labels = list(
        dict.fromkeys(k for line in lines for k, v in line["eval"].items() if isinstance(v, dict))
    )
    header = [
        "gen",
        "games",
        "positions",
        "losses (policy, value)",
        "on new games",
        "positions/CPU-s",
    ]
    header += [f"vs {label}: win share (95% CI)" for label in labels]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for line in lines:
        if line["generation"] % every and line is not lines[-1]:
            continue
        cells = [
            str(line["generation"]),
            str(line["games"]),
            str(line["positions"]),
            _pair(line["policy_loss"], line["value_loss"]),
            _pair(line["fresh_policy_loss"], line["fresh_value_loss"]),
            "n/a" if line["positions_per_cpu_s"] is None else f"{line['positions_per_cpu_s']:.0f}",
        ]
        for label in labels:
            row = line["eval"].get(label)
            if row is None:
                cells.append("-")
            else:
                low, high = row["corrected_ci"]
                cells.append(f"{row['corrected']:.1%} ({low:.1%}-{high:.1%}), {row['games']} games")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def mean_shares(folder: Path, first: int, last: int) -> str:
    """Each opponent's mean win share over generations ``first`` to ``last`` (and the
    games behind it): a run's level when single generations' 20 games swing too much."""
    lines = [
        json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines() if line.strip()
    ]
    chosen = [line for line in lines if first <= line["generation"] <= last]
    if not chosen:
        raise SystemExit(f"{folder}: no generation from {first} to {last}")
    found = {}
    for label in dict.fromkeys(k for line in chosen for k in line["eval"]):
        rows = [line["eval"][label] for line in chosen if isinstance(line["eval"].get(label), dict)]
        games = sum(row["games"] for row in rows)
        share = sum(row["win_share"] * row["games"] for row in rows) / games
        found[label] = f"{label} {share:.1%} ({games} games)"
    span = f"generations {chosen[0]['generation']} to {chosen[-1]['generation']}"
    return f"{folder}, {span}: mean win share vs " + ", ".join(found.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the run's folder (marrakech train --out)")
    parser.add_argument("--every", type=int, default=1, help="every k-th generation (and the last)")
    parser.add_argument(
        "--mean",
        metavar="FIRST-LAST",
        help="print each opponent's mean win share over these generations instead",
    )
    args = parser.parse_args()
    if args.mean:
        first, _, last = args.mean.partition("-")
        print(mean_shares(args.folder, int(first), int(last or first)))
        return
    print(table(args.folder, max(1, args.every)))


if __name__ == "__main__":
    main()
