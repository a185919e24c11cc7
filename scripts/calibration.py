"""Calibrate the winning chances on arena games, and measure them before and after.

``marrakech.bots.analysis.winning_chances`` (the hints' and the end screen's chances) is
the learned value's softmax, recalibrated per player count along the game by
``marrakech.bots.calibration`` (``p ** a``, ``a`` piecewise linear in the share of
carpets placed, knots every sixteenth of the game, its bends penalised). This script:

1. plays the games the stored arena results lack (``--generate``: three-player games and
   a few four-player tables, into ``benchmarks/calibration/``, resumable; iteration
   budgets and seeds, so the same games on any machine);
2. reads every arena game it finds (``benchmarks/strength/**.jsonl`` and
   ``benchmarks/calibration/*.jsonl``; a game played twice counts once) and the value's
   chances at the start of every turn (the orient decision);
3. splits the games in two by a hash of their moves (never positions of one game on
   both sides), fits the scales on one half, at every turn of its games, choosing the
   penalty on the bends by a two-fold cross-validation inside that half (the held-out
   half plays no part in it; ``--write`` stores the fit on all the games, penalty
   chosen the same way, in ``src/marrakech/bots/data/calibration.json``) and measures
   the other half at 25, 50 and 75% of the game (the first turn where that share of the
   carpets is placed):
   reliability (bins of predicted chance against the observed win share), the
   recalibration slope (logistic regression of each seat's win on the logit of its
   chance: 1 is calibrated, below 1 over-confident), the Brier score and its skill
   over the uniform chance; ``--write-docs`` puts the tables in ``docs/bots.md``.

    python scripts/calibration.py --generate          # about 20 minutes of one core
    python scripts/calibration.py --write --write-docs
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import itertools
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from marrakech.arena import MatchConfig, ProgressBar, read_results, run_match
from marrakech.bots.calibration import CALIBRATION_FILE, Calibration, fit_scales
from marrakech.bots.value import load_value, progress
from marrakech.errors import MarrakechError
from marrakech.record import GameRecord
from marrakech.state import Phase

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bots.md"
MARKERS = ("<!-- calibration-table:start -->", "<!-- calibration-table:end -->")
STORED = ROOT / "benchmarks" / "strength"
FRESH = ROOT / "benchmarks" / "calibration"
OUT = ROOT / "src" / "marrakech" / "bots" / "data" / CALIBRATION_FILE
#: Where the sharpness ``a`` is fitted: every sixteenth of the game. Dense, so that the
#: map follows how fast the value's sureness changes (five knots at 0, 25, .., 100%
#: missed the sharp rise of the last quarter and, with few positions, the first one).
KNOTS = tuple(k / 16 for k in range(17))
#: The penalties on the bends of ``a`` tried (per position: the likelihood is a mean);
#: the one with the best cross-validated likelihood on the fitting games is used.
SMOOTHNESS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: Scales where the report prints the maps.
SHOWN = tuple(k / 8 for k in range(9))
STAGES = (0.25, 0.5, 0.75)
BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)
SEARCH = "search@iterations=2000"
#: Fit on every FIT_EVERY-th turn of the fitting games (and their stage points): every
#: turn, so that each knot has positions near it (three-player games have 30 turns).
FIT_EVERY = 1

#: The games played for the calibration: the three-player games (none are stored) and
#: four-player tables the stored results lack (weak, mixed and strong tables).
MATCHES = (
    ("search2k-2greedy-3p", (SEARCH, "greedy", "greedy"), 400),
    ("search2k-3p", (SEARCH, SEARCH, SEARCH), 150),
    ("greedy-random-3p", ("greedy", "greedy", "random"), 300),
    ("greedy-3p", ("greedy", "greedy", "greedy"), 400),
    ("greedy-4p", ("greedy", "greedy", "greedy", "greedy"), 400),
    ("search2k-4p", (SEARCH, SEARCH, SEARCH, SEARCH), 150),
)


def generate(folder: Path, seed: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, bots, games in MATCHES:
        path = folder / f"{name}.jsonl"
        config = MatchConfig(len(bots), bots, games=games, seed=seed)
        print(f"== {name}: {','.join(bots)}, {games} games", flush=True)
        outcome = run_match(
            config, out=path, resume=path.exists(), progress=ProgressBar(sys.stderr)
        )
        if outcome.interrupted:
            raise KeyboardInterrupt


@dataclass
class Positions:
    """The orient decisions of some games: the value's chances, each seat's share of the
    win, the progress, and which game (and which stage point) each one is."""

    chances: np.ndarray
    wins: np.ndarray
    progress: np.ndarray
    game: np.ndarray
    stage: np.ndarray  # index in STAGES where it is the game's stage point, else -1


FIELDS = ("chances", "wins", "progress", "game", "stage")


def records(
    folders: list[Path], counts: dict[str, int] | None = None
) -> dict[int, list[GameRecord]]:
    """Every arena game found, by player count; a game (same moves) played twice once.
    ``counts`` (if given) receives each file's number of games, by its path from the
    repository's root: results files grow as matches go on, so the shipped map says
    which games it was fitted on."""
    seen: set[str] = set()
    found: dict[int, list[GameRecord]] = {2: [], 3: [], 4: []}
    for folder in folders:
        for path in sorted(folder.rglob("*.jsonl")):
            try:
                config, games = read_results(path)
            except MarrakechError as error:
                print(f"skipped {path}: {error}", file=sys.stderr)
                continue
            if config.rules.token() != "standard":
                continue
            if counts is not None:
                counts[path.relative_to(ROOT).as_posix()] = len(games)
            for game in games:
                record = game.record
                key = f"{record.players}:{record.first_seat}:{','.join(map(str, record.actions))}"
                if key in seen:
                    continue
                seen.add(key)
                found[record.players].append(record)
    return found


def game_hash(record: GameRecord, seed: int) -> bytes:
    text = f"{seed}:{record.players}:{record.first_seat}:{','.join(map(str, record.actions))}"
    return hashlib.sha256(text.encode()).digest()


def held_out(record: GameRecord, seed: int) -> bool:
    """Whether the game is measured (else fitted on): half the games, by their moves."""
    return game_hash(record, seed)[-1] % 2 == 1


def positions(games: list[GameRecord], every: int) -> Positions:
    """The stage points of ``games`` and, with ``every`` > 0, every ``every``-th orient
    decision besides (the value's chances cost about a millisecond each)."""
    if not games:
        raise MarrakechError("no games to read")
    players = games[0].players
    model = load_value(players)
    chances, wins, done, game_of, stage_of = [], [], [], [], []
    for number, record in enumerate(games):
        states = list(record.states())
        final = states[-1]
        if not final.is_terminal:
            continue
        shares = list(final.outcome().win_shares)
        next_stage = 0
        decisions = 0
        for state in states:
            if state.phase is not Phase.ORIENT:
                continue
            decisions += 1
            t = progress(state)
            stage = -1
            if next_stage < len(STAGES) and t >= STAGES[next_stage]:
                stage = next_stage
                while next_stage < len(STAGES) and t >= STAGES[next_stage]:
                    next_stage += 1
            if stage < 0 and (every <= 0 or decisions % every):
                continue
            chances.append(model.chances(state))
            wins.append(shares)
            done.append(t)
            game_of.append(number)
            stage_of.append(stage)
    return Positions(
        np.array(chances),
        np.array(wins),
        np.array(done),
        np.array(game_of),
        np.array(stage_of),
    )


def cached_positions(
    games: list[GameRecord], every: int, cache: Path | None, name: str
) -> Positions:
    """:func:`positions`, kept in ``cache`` (keyed by the games' moves) for the next run."""
    digest = hashlib.sha256()
    for record in games:
        digest.update(f"{record.first_seat}:{','.join(map(str, record.actions))};".encode())
    key = f"{every}:{digest.hexdigest()}"
    path = cache / f"{name}.npz" if cache is not None else None
    if path is not None and path.exists():
        stored = np.load(path)
        if str(stored["key"]) == key:
            return Positions(*(stored[f] for f in FIELDS))
    found = positions(games, every)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, key=np.array(key), **{f: getattr(found, f) for f in FIELDS})
    return found


def calibrated(calibration: Calibration, chances: np.ndarray, done: np.ndarray) -> np.ndarray:
    return np.array([calibration.apply(list(p), t) for p, t in zip(chances, done, strict=True)])


@dataclass(frozen=True)
class Scores:
    positions: int
    slope: float
    slope_error: float
    brier: float
    brier_uniform: float
    rows: list[tuple[str, int, float, float]]  # bin, seats, mean chance, win share

    @property
    def skill(self) -> float:
        return 1.0 - self.brier / self.brier_uniform


def logistic_slope(x: np.ndarray, y: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    """The slope of ``y ~ sigmoid(c + b * x)`` (maximum likelihood; ``y`` may be a share)
    and its standard error, robust to the rows of one ``group`` (the seats of one
    position) being dependent: at two players one seat's row mirrors the other's."""
    design = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        hess = (design * (p * (1 - p))[:, None]).T @ design
        step = np.linalg.solve(hess, design.T @ (y - p))
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(design @ beta)))
    bread = np.linalg.inv((design * (p * (1 - p))[:, None]).T @ design)
    sums = np.zeros((int(group.max()) + 1, 2))
    np.add.at(sums, group, design * (y - p)[:, None])
    cov = bread @ (sums.T @ sums) @ bread
    return float(beta[1]), float(math.sqrt(cov[1, 1]))


def score(chances: np.ndarray, wins: np.ndarray) -> Scores:
    live = chances > 0
    p = chances[live]
    y = wins[live]
    uniform = np.broadcast_to(1.0 / live.sum(axis=1, keepdims=True), chances.shape)[live]
    clipped = np.clip(p, 1e-9, 1 - 1e-9)
    group = np.nonzero(live)[0]
    slope, error = logistic_slope(np.log(clipped / (1 - clipped)), y, group)
    rows = []
    for lo, hi in itertools.pairwise(BINS):
        inside = (p >= lo) & ((p < hi) if hi < 1 else (p <= hi))
        if inside.any():
            rows.append(
                (f"{lo:.1f}-{hi:.1f}", int(inside.sum()), p[inside].mean(), y[inside].mean())
            )
    return Scores(
        len(chances),
        slope,
        error,
        float(((p - y) ** 2).mean()),
        float(((uniform - y) ** 2).mean()),
        rows,
    )


WEAK = ("bot:greedy", "bot:random")
#: The fewest games between stronger bots worth a line of their own.
MIN_STRONG = 200


def is_strong(record: GameRecord) -> bool:
    """Whether every seat of the game is a bot stronger than ``greedy``."""
    return all(seat not in WEAK for seat in record.seats)


def measure(
    data: list[Positions], maps: list[Calibration], masks: list[np.ndarray]
) -> tuple[Scores, Scores]:
    """The scores before and after of the positions ``masks`` picks in each half, each
    half recalibrated with the map fitted on the other one."""
    raw, after, wins = [], [], []
    for h in (0, 1):
        at = masks[h]
        raw.append(data[h].chances[at])
        after.append(calibrated(maps[h], data[h].chances[at], data[h].progress[at]))
        wins.append(data[h].wins[at])
    y = np.concatenate(wins)
    return score(np.concatenate(raw), y), score(np.concatenate(after), y)


def concatenate(parts: list[Positions]) -> Positions:
    return Positions(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))


def log_loss(calibration: Calibration, data: Positions) -> float:
    """Minus the summed log-likelihood of the winners (R21 shares) under ``calibration``."""
    # np.interp is Calibration.scale (linear between knots, flat beyond), vectorised.
    a = np.interp(data.progress, calibration.knots, calibration.scales)
    live = data.chances > 0
    logp = np.where(live, np.log(np.where(live, data.chances, 1.0)), 0.0)
    z = np.where(live, a[:, None] * logp, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    logq = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-(data.wins * np.where(live, logq, 0.0)).sum())


def subset(data: Positions, keep: np.ndarray) -> Positions:
    return Positions(*(getattr(data, f)[keep] for f in FIELDS))


def fit_with(data: Positions, players: int, smooth: float) -> Calibration:
    keep = (data.progress > 0) & (data.progress < 1)
    scales = fit_scales(
        data.chances[keep], data.wins[keep], data.progress[keep], KNOTS, smooth=smooth
    )
    return Calibration(players, KNOTS, scales)


def choose_smoothness(data: Positions, players: int) -> float:
    """The penalty on the bends with the best likelihood in a two-fold cross-validation
    of ``data`` alone, split by game (the games of a half are in the order of their hash,
    so the parity of their number is a random split)."""
    inner = [subset(data, data.game % 2 == side) for side in (0, 1)]
    losses = {
        smooth: sum(
            log_loss(fit_with(inner[1 - side], players, smooth), inner[side]) for side in (0, 1)
        )
        for smooth in SMOOTHNESS
    }
    return min(losses, key=losses.__getitem__)


def fit(data: Positions, players: int) -> tuple[Calibration, float]:
    """The map fitted on ``data``, with the penalty cross-validation chose on it."""
    smooth = choose_smoothness(data, players)
    return fit_with(data, players, smooth), smooth


@dataclass(frozen=True)
class Result:
    """One player count: the map shipped (fitted on all the games), the two maps of the
    two-fold measure, and the scores before and after at each stage."""

    shipped: Calibration
    folds: tuple[Calibration, Calibration]
    #: The penalty on the bends chosen for each (shipped, fold 1, fold 2).
    smoothness: tuple[float, float, float]
    games: int
    positions: int
    stages: dict[int, tuple[Scores, Scores]]
    #: The same, in the games between bots stronger than greedy only (when enough).
    strong: dict[int, tuple[Scores, Scores]]


#: The recalibration slope aimed at, at every stage and player count.
TARGET = (0.9, 1.1)


def summary(results: dict[int, Result]) -> str:
    """Which cells meet the target, in a sentence (the docs' prose cites no figure)."""
    cells = [
        (players, STAGES[k], before, after)
        for players, result in results.items()
        for k, (before, after) in result.stages.items()
    ]
    low, high = TARGET
    missed = [
        f"{players} players at {stage:.0%} ({after.slope:.2f})"
        for players, stage, _, after in cells
        if not low <= after.slope <= high
    ]
    worse = [
        f"{players} players at {stage:.0%}"
        for players, stage, before, after in cells
        if after.brier > before.brier
    ]
    slopes = [after.slope for *_, after in cells]
    return (
        f"After the calibration the slope is within {low}-{high} in "
        f"{len(cells) - len(missed)} of the {len(cells)} cells (from {min(slopes):.2f} to "
        f"{max(slopes):.2f})"
        + (f"; it misses at {', '.join(missed)}" if missed else "")
        + ". The Brier score is "
        + (f"worse at {', '.join(worse)}" if worse else "no worse than before in any cell")
        + "."
    )


def report(results: dict[int, Result]) -> str:
    lines = [
        summary(results),
        "",
        "| players | stage | held-out games | slope before | slope after | Brier before "
        "| Brier after | uniform Brier | skill before | skill after |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for players, result in results.items():
        for k, stage in enumerate(STAGES):
            before, after = result.stages[k]
            lines.append(
                f"| {players} | {stage:.0%} | {before.positions} "
                f"| {before.slope:.2f} ± {before.slope_error:.2f} "
                f"| **{after.slope:.2f}** ± {after.slope_error:.2f} "
                f"| {before.brier:.4f} | {after.brier:.4f} | {before.brier_uniform:.4f} "
                f"| {before.skill:+.1%} | {after.skill:+.1%} |"
            )
    if any(result.strong for result in results.values()):
        lines += [
            "",
            "The same, in the games where every seat is a bot stronger than `greedy` "
            "(search, mcts, expectimax; the calibration does not know who plays):",
            "",
            "| players | stage | held-out games | slope before | slope after | Brier before "
            "| Brier after | uniform Brier |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for players, result in results.items():
            for k, (before, after) in result.strong.items():
                lines.append(
                    f"| {players} | {STAGES[k]:.0%} | {before.positions} "
                    f"| {before.slope:.2f} ± {before.slope_error:.2f} "
                    f"| {after.slope:.2f} ± {after.slope_error:.2f} "
                    f"| {before.brier:.4f} | {after.brier:.4f} | {before.brier_uniform:.4f} |"
                )
    shown = ", ".join(f"{k:g}" for k in SHOWN)
    lines += [
        "",
        f"| players | map | games, positions | penalty | scale a at progress {shown} |",
        "|---|---|---|---|---|",
    ]
    for players, result in results.items():
        maps = [
            ("shipped (all games)", result.shipped, f"{result.games}, {result.positions}"),
            ("fold 1 (measured on half 2)", result.folds[1], "half"),
            ("fold 2 (measured on half 1)", result.folds[0], "half"),
        ]
        for (name, calibration, size), smooth in zip(maps, result.smoothness, strict=True):
            scales = ", ".join(f"{calibration.scale(t):.3f}" for t in SHOWN)
            lines.append(f"| {players} | {name} | {size} | {smooth:g} | {scales} |")
    lines += [
        "",
        "Reliability on the held-out games: each seat's predicted chance, binned (seats "
        "in the bin, their mean chance, the share of the wins they took), before and "
        "after the calibration.",
    ]
    names = [f"{lo:.1f}-{hi:.1f}" for lo, hi in itertools.pairwise(BINS)]
    for players, result in results.items():
        lines += [
            "",
            f"| {players} players | stage | bin | seats before | chance before "
            "| won before | seats after | chance after | won after |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for k, stage in enumerate(STAGES):
            before, after = result.stages[k]
            table_b = {row[0]: row for row in before.rows}
            table_a = {row[0]: row for row in after.rows}
            for name in names:
                b, a = table_b.get(name), table_a.get(name)
                if b is None and a is None:
                    continue
                cells_b = f"{b[1]} | {b[2]:.3f} | {b[3]:.3f}" if b else "0 | - | -"
                cells_a = f"{a[1]} | {a[2]:.3f} | {a[3]:.3f}" if a else "0 | - | -"
                lines.append(f"| | {stage:.0%} | {name} | {cells_b} | {cells_a} |")
    total = ", ".join(f"{r.games} at {p} players" for p, r in results.items())
    lines += [
        "",
        f"_Generated by `python scripts/calibration.py --write --write-docs` on "
        f"{datetime.date.today().isoformat()} from {total} (arena games, each once). "
        "Two-fold by a hash of the moves: each half is measured with the map fitted on "
        "the other half (at every turn of its games, the penalty on the bends of a chosen "
        "by cross-validation inside that half: never a position of a game it is measured "
        "on); the map shipped is fitted on both the same way. Stage: the first turn "
        "(orient decision) where 25, 50 or 75% of the carpets are placed. Slope: "
        "logistic regression of each seat's win (R21 ties shared) on the logit of its "
        "chance (1: calibrated; below 1: too sure), ± "
        "its standard error (robust to the seats of one position being dependent); "
        "Brier: mean squared error of each seat's chance; skill: 1 - Brier / the "
        "uniform chance's Brier._",
    ]
    return "\n".join(lines)


def write_docs(table: str, doc: Path = DOC) -> None:
    """Put ``table`` between the calibration markers of ``doc``."""
    text = doc.read_text("utf-8")
    start, end = MARKERS
    if start not in text or end not in text:
        raise MarrakechError(f"{doc} has no {start} ... {end} markers")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{start}\n{table}\n{end}{tail}", "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generate", action="store_true", help="play the games it lacks")
    parser.add_argument("--seed", type=int, default=1, help="the games' and the split's seed")
    parser.add_argument(
        "--cache",
        type=Path,
        default=ROOT / "build" / "calibration",
        help="where the positions read are kept for the next run",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=None,
        help="games read per player count at most (a sample by a hash of the moves)",
    )
    parser.add_argument("--write", action="store_true", help=f"store the fit in {OUT.name}")
    parser.add_argument("--write-docs", action="store_true", help="update docs/bots.md")
    args = parser.parse_args(argv)
    if args.generate:
        generate(FRESH, args.seed)
    files: dict[str, int] = {}
    found = records([STORED, FRESH], files)
    results = {}
    for players in (2, 3, 4):
        games = sorted(found[players], key=lambda g: game_hash(g, args.seed))[: args.max_games]
        halves = [[g for g in games if held_out(g, args.seed) == bool(h)] for h in (0, 1)]
        if not all(halves):
            print(f"{players} players: no games (run --generate?)", file=sys.stderr)
            continue
        data = [
            cached_positions(half, FIT_EVERY, args.cache, f"{players}p-half{h}-{args.seed}")
            for h, half in enumerate(halves)
        ]
        # Two-fold: each half is measured with the map fitted on the other one; the map
        # shipped is fitted on both.
        (map0, smooth0), (map1, smooth1) = fit(data[1], players), fit(data[0], players)
        maps = [map0, map1]
        shipped, smooth = fit(concatenate(data), players)
        print(f"{players} players: {len(games)} games, penalty {smooth:g}, scales {shipped.scales}")
        stages, strong = {}, {}
        strong_games = [np.array([is_strong(g) for g in half], dtype=bool) for half in halves]
        for k in range(len(STAGES)):
            stages[k] = measure(data, maps, [d.stage == k for d in data])
            among = [(d.stage == k) & strong_games[h][d.game] for h, d in enumerate(data)]
            if sum(int(m.sum()) for m in among) >= MIN_STRONG:
                strong[k] = measure(data, maps, among)
            b, a = stages[k]
            print(
                f"  {STAGES[k]:.0%}: slope {b.slope:.3f} -> {a.slope:.3f} (±{a.slope_error:.3f}), "
                f"Brier {b.brier:.4f} -> {a.brier:.4f} (uniform {b.brier_uniform:.4f})"
            )
        positions_fitted = sum(int(((d.progress > 0) & (d.progress < 1)).sum()) for d in data)
        results[players] = Result(
            shipped,
            (maps[0], maps[1]),
            (smooth, smooth1, smooth0),
            len(games),
            positions_fitted,
            stages,
            strong,
        )
    table = report(results)
    if args.write:
        payload = {
            "players": {str(p): result.shipped.to_dict() for p, result in results.items()},
            "source": {
                "method": "scripts/calibration.py",
                "seed": args.seed,
                "games": {str(p): result.games for p, result in results.items()},
                "smoothness": {str(p): result.smoothness[0] for p, result in results.items()},
                "files": files,
            },
        }
        OUT.write_text(json.dumps(payload, indent=2) + "\n", "utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    if args.write_docs:
        write_docs(table)
        print(f"wrote the table in {DOC.relative_to(ROOT)}")
    else:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
