"""Writing a match's results: the CSV table and the ratings plot (matplotlib, Agg).

>>> import io
>>> from marrakech.arena.stats import BotSummary
>>> row = BotSummary(
...     "greedy", 10, 9.0, 0.9, 0.6, 0.98, 60.0, 1.1, 1700.0, 1650.0, 1760.0, 0.001, 0.4, 0.9,
...     0.6, 0.98,
... )
>>> buffer = io.StringIO()
>>> write_csv([row], buffer)
>>> buffer.getvalue().splitlines()[0].split(",")[:8]
['bot', 'games', 'wins', 'win_share', 'ci_low', 'ci_high', 'corrected_share', 'corrected_low']
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from typing import IO

from marrakech.arena.stats import BotSummary
from marrakech.errors import MarrakechError

CSV_FIELDS = (
    "bot",
    "games",
    "wins",
    "win_share",
    "ci_low",
    "ci_high",
    "corrected_share",
    "corrected_low",
    "corrected_high",
    "luck",
    "mean_score",
    "mean_rank",
    "rating",
    "rating_low",
    "rating_high",
    "seconds_per_decision",
)


def write_csv(rows: Sequence[BotSummary], handle: IO[str]) -> None:
    """The arena table as CSV, one row per bot."""
    writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row.to_dict())


def save_csv(rows: Sequence[BotSummary], path: str | os.PathLike[str]) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            write_csv(rows, handle)
    except OSError as error:
        raise MarrakechError(f"cannot write {path}: {error.strerror}") from None


def save_plot(rows: Sequence[BotSummary], path: str | os.PathLike[str], title: str = "") -> None:
    """Two panels: ratings (Elo scale) and win shares with their 95% intervals, raw
    (bars) and corrected for dice luck (dots)."""
    try:
        import matplotlib
    except ImportError:
        raise MarrakechError("--plot needs matplotlib: pip install 'marrakech[arena]'") from None
    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    names = [r.bot for r in rows]
    positions = list(range(len(rows)))
    figure, (left, right) = plt.subplots(
        1, 2, figsize=(10, 1.2 + 0.6 * len(rows)), constrained_layout=True
    )
    rating_errors = [
        [max(0.0, r.rating - r.rating_low) for r in rows],
        [max(0.0, r.rating_high - r.rating) for r in rows],
    ]
    left.barh(positions, [r.rating for r in rows], xerr=rating_errors, color="#b5523b", capsize=4)
    left.set_yticks(positions, names)
    left.invert_yaxis()
    low = min(r.rating_low for r in rows)
    high = max(r.rating_high for r in rows)
    left.set_xlim(min(1300.0, low - 50), max(1700.0, high + 50))
    left.set_xlabel("rating (Bradley-Terry, Elo scale, mean 1500; 95% interval)")
    shares = [100 * r.win_share for r in rows]
    errors = [  # clamped: rounding can put a bound a hair on the wrong side
        [max(0.0, 100 * (r.win_share - r.ci_low)) for r in rows],
        [max(0.0, 100 * (r.ci_high - r.win_share)) for r in rows],
    ]
    right.barh(positions, shares, xerr=errors, color="#3b6fb5", capsize=4, label="win share")
    corrected = [100 * r.corrected_share for r in rows]
    corrected_errors = [
        [max(0.0, 100 * (r.corrected_share - r.corrected_low)) for r in rows],
        [max(0.0, 100 * (r.corrected_high - r.corrected_share)) for r in rows],
    ]
    right.errorbar(
        corrected,
        [p + 0.25 for p in positions],
        xerr=corrected_errors,
        fmt="o",
        color="black",
        capsize=3,
        label="corrected for dice luck",
    )
    right.set_yticks(positions, names)
    right.invert_yaxis()
    right.set_xlim(0, 100)
    right.set_xlabel("win share, % (95% interval)")
    # Below the axes, so it never hides a bar or an interval.
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, fontsize="small")
    if title:
        figure.suptitle(title)
    try:
        figure.savefig(path, format="png", dpi=100)
    except OSError as error:
        raise MarrakechError(f"cannot write {path}: {error.strerror}") from None
    finally:
        plt.close(figure)
