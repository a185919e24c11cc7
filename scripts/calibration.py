"""Calibrate the winning chances for the table's strength, and measure them on fresh games.

``marrakech.bots.analysis.winning_chances`` (the hints', the analysis' and the end
screen's chances) is the learned value's softmax, recalibrated per player count along
the game by ``marrakech.bots.calibration``: each seat still in gets
``p ** (a + c * level) * exp(b * gap)``, normalised, where ``a`` (the sharpness), ``b``
(the weight of the strength gap) and ``c`` (the weight of the table's level) are
piecewise linear in the share of carpets placed (knots every sixteenth of the game,
their bends penalised), ``gap`` is the seat's strength minus the table's mean and
``level`` the table's mean minus 1500, in units of 400 ladder points (both 0 when the
strengths are not known: an evenly matched table of about ``greedy``'s strength). This
script:

1. reads the fresh games of ``scripts/calibration_games.py`` (``build/calibration-games``;
   ``--generate`` plays the ones missing): every pairing of ``random``, ``greedy`` and
   ``search@iterations=2000`` at 2, 3 and 4 players, evenly matched tables at every
   level among them, with the value's chances at every orient decision;
2. splits them in two by a hash of (table, game): never positions of one game on both
   sides; fits ``a``, ``b`` and ``c`` on one half (every third orient decision of its
   games and their stage points, the seats' strengths their ladder ratings,
   :func:`ladder`), the penalty on the bends chosen by a
   two-fold cross-validation inside that half, and measures the other half at 25, 50
   and 75% of the game (the first turn where that share of the carpets is placed):
   the recalibration slope and its intercept (logistic regression of each seat's win on
   the logit of its chance), the Brier score's skill over the uniform chance, and
   reliability tables, by kind of table (evenly matched at each level, mixed), with the
   strengths known and not known; ``--write`` stores the fit on all the games (penalty
   chosen the same way) and the bots' strengths in
   ``src/marrakech/bots/data/calibration.json``; ``--write-docs`` puts the tables in
   ``docs/bots.md``;
3. with ``--arena N``, also measures at most N stored arena games per player count
   (``benchmarks/strength``, ``benchmarks/calibration``: other bots, their seats'
   strengths from the ladder when rated), which the map never saw; with ``--compare
   FILE``, also an older map file (``git show 2b9ad62:src/marrakech/bots/data/calibration.json``:
   the map fitted on the arena games alone, issue 38).

    nice -n 19 python scripts/calibration_games.py          # ~10 minutes of a core
    git show 2b9ad62:src/marrakech/bots/data/calibration.json > build/calibration-old.json
    nice -n 19 python scripts/calibration.py --arena 600 \
        --compare build/calibration-old.json --write --write-docs
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import itertools
import json
import math
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from marrakech.arena import read_results
from marrakech.bots.calibration import (
    CALIBRATION_FILE,
    MIN_SCALE,
    RATING_SCALE,
    REFERENCE,
    Calibration,
    fit_calibration,
)
from marrakech.bots.value import load_value, progress
from marrakech.errors import MarrakechError
from marrakech.record import GameRecord
from marrakech.state import Phase

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bots.md"
MARKERS = ("<!-- calibration-table:start -->", "<!-- calibration-table:end -->")
LADDER_MARKERS = ("<!-- ladder-table:start -->", "<!-- ladder-table:end -->")
STORED = ROOT / "benchmarks" / "strength"
FRESH = ROOT / "benchmarks" / "calibration"
GAMES = ROOT / "build" / "calibration-games"
OUT = ROOT / "src" / "marrakech" / "bots" / "data" / CALIBRATION_FILE
#: Where ``a`` and ``b`` are fitted: every sixteenth of the game. Dense, so that the
#: map follows how fast the value's sureness changes (five knots at 0, 25, .., 100%
#: missed the sharp rise of the last quarter and, with few positions, the first one).
KNOTS = tuple(k / 16 for k in range(17))
#: The penalties on the bends tried (per position: the likelihood is a mean); the one
#: with the best cross-validated likelihood on the fitting games is used.
SMOOTHNESS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: Progress where the report prints the maps.
SHOWN = tuple(k / 8 for k in range(9))
STAGES = (0.25, 0.5, 0.75)
BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)
SEARCH = "search@iterations=2000"
#: Fit on every FIT_EVERY-th orient decision of each game (and its stage points): the
#: positions of one game are close to each other, and the fit's time grows with them.
FIT_EVERY = 3
#: The fresh games' bots (``scripts/calibration_games.py``'s short names) as specs.
SPECS = {"random": "random", "greedy": "greedy", "search2k": SEARCH}
#: The levels' bots and the ladder spec whose rating they take, per player count: the
#: learned level's policy of that count; ``hard`` and ``expert`` search far more
#: iterations than any rated spec (``LEVEL_ITERATIONS``), so they take the best rated
#: ``search`` spec's rating (a floor).
LEVEL_SPECS = {
    2: {"policy": "policy-2p", "search-quick": "search-quick@iterations=17500"},
    4: {"policy": "policy-4p", "search-quick": "search-quick@iterations=11000"},
}
#: Specs the ladder does not rate at a player count, and the rated spec they take:
#: ``search@iterations=2000`` at four players takes ``search@iterations=5000``'s (the
#: nearest budget rated there).
STAND_INS = {4: {SEARCH: "search@iterations=5000"}}


def ladder(doc: Path = DOC) -> dict[int, dict[str, float]]:
    """The bots' strengths by player count: the ratings of docs/bots.md's ladder table
    (``scripts/bot_strength.py``), with the levels' bots (:data:`LEVEL_SPECS`) and the
    stand-ins (:data:`STAND_INS`); at three players, which the ladder does not rate, the
    mean of a spec's two- and four-player ratings."""
    text = doc.read_text("utf-8")
    start, end = LADDER_MARKERS
    if start not in text or end not in text:
        raise MarrakechError(f"{doc} has no {start} ... {end} markers")
    table = text.split(start, 1)[1].split(end, 1)[0]
    rated: dict[int, dict[str, float]] = {2: {}, 4: {}}
    for players, spec, rating in re.findall(
        r"^\| (\d) \| `([^`]+)` \| \d+ \| \*\*(\d+)\*\*", table, flags=re.MULTILINE
    ):
        rated[int(players)][spec] = float(rating)
    for players, table_ in rated.items():
        if not table_:
            raise MarrakechError(f"{doc}'s ladder table rates no bot at {players} players")
        for spec, stand_in in STAND_INS.get(players, {}).items():
            table_.setdefault(spec, table_[stand_in])
        for name, spec in LEVEL_SPECS[players].items():
            table_[name] = table_[spec]
        table_["search"] = max(r for s, r in table_.items() if s.startswith("search@"))
        table_["search-quick"] = table_["search"]
    both = sorted(set(rated[2]) & set(rated[4]))
    rated[3] = {spec: (rated[2][spec] + rated[4][spec]) / 2 for spec in both}
    return {players: rated[players] for players in (2, 3, 4)}


@dataclass
class Positions:
    """Orient decisions of some games: the value's chances, each seat's share of the win,
    the progress, which game (and which stage point) each one is, and (when known) the
    seats' strengths (NaN: not known) and the kind of table (:func:`kind`)."""

    chances: np.ndarray
    wins: np.ndarray
    progress: np.ndarray
    game: np.ndarray
    stage: np.ndarray  # index in STAGES where it is the game's stage point, else -1
    strengths: np.ndarray | None = field(default=None)
    kind: np.ndarray | None = field(default=None)


FIELDS = ("chances", "wins", "progress", "game", "stage")
ALL_FIELDS = (*FIELDS, "strengths", "kind")


def gaps(data: Positions) -> np.ndarray:
    """Each seat's strength gap (:func:`marrakech.bots.calibration.strength_gaps`,
    vectorised): a seat not known is taken at the mean of those known, a table with no
    seat known is evenly matched."""
    live = data.chances > 0
    if data.strengths is None:
        return np.zeros_like(data.chances)
    s = np.asarray(data.strengths, dtype=np.float64)
    known = ~np.isnan(s)
    count = known.sum(axis=1, keepdims=True)
    mean_known = np.where(count > 0, np.where(known, s, 0.0).sum(axis=1, keepdims=True), 0.0)
    mean_known = mean_known / np.maximum(count, 1)
    filled = np.where(known, s, mean_known)
    mean_live = (filled * live).sum(axis=1, keepdims=True) / live.sum(axis=1, keepdims=True)
    return np.where(live, (filled - mean_live) / RATING_SCALE, 0.0)


def levels(data: Positions) -> np.ndarray:
    """Each position's table level (:func:`marrakech.bots.calibration.table_level`,
    vectorised; 0 where no seat is known)."""
    if data.strengths is None:
        return np.zeros(len(data.chances))
    live = data.chances > 0
    s = np.asarray(data.strengths, dtype=np.float64)
    known = live & ~np.isnan(s)
    count = known.sum(axis=1)
    mean = np.where(known, s, 0.0).sum(axis=1) / np.maximum(count, 1)
    return np.where(count > 0, (mean - REFERENCE) / RATING_SCALE, 0.0)


def kind(bots: list[str]) -> str:
    """A table's kind: ``even <bot>`` when every seat is the same bot, else ``mixed``."""
    return f"even {bots[0]}" if len(set(bots)) == 1 else "mixed"


def game_half(name: str, game: int, seed: int) -> int:
    """Which half a fresh game is in (0 or 1), by a hash of its table and number."""
    return hashlib.sha256(f"{seed}:{name}:{game}".encode()).digest()[-1] % 2


def fresh_positions(
    folder: Path, players: int, seed: int, strengths: dict[str, float]
) -> tuple[list[Positions], list[str]]:
    """The two halves of the fresh games at ``players`` (:func:`game_half`), and the
    kinds of table their ``kind`` indexes."""
    files = sorted(folder.glob(f"*-{players}p-seed{seed}.npz"))
    if not files:
        raise MarrakechError(
            f"no fresh games at {players} players in {folder} (run scripts/calibration_games.py)"
        )
    kinds: list[str] = []
    parts: list[list[Positions]] = [[], []]
    offset = 0
    for path in files:
        name = path.name.removesuffix(f"-seed{seed}.npz")
        stored = np.load(path)
        chances, game = stored["chances"], stored["game"]
        done, wins_by_game, bots = stored["progress"], stored["wins"], stored["bots"]
        games = len(wins_by_game)
        table_kind = kind(list(bots[0]))
        if table_kind not in kinds:
            kinds.append(table_kind)
        rated = np.array(
            [[strengths.get(SPECS[b], math.nan) for b in row] for row in bots], dtype=float
        )
        # Group each game's positions (in the order played): their number in the game,
        # and the first one past each stage.
        order = np.argsort(game, kind="stable")
        grouped = game[order]
        number = np.empty(len(game), dtype=np.int64)
        number[order] = np.arange(len(order)) - np.searchsorted(grouped, grouped)
        stage = np.full(len(game), -1)
        for k, point in enumerate(STAGES):
            past = done[order] >= point
            _, first = np.unique(grouped[past], return_index=True)
            at = order[past][first]
            stage[at] = np.where(stage[at] < 0, k, stage[at])
        half = np.array([game_half(name, g, seed) for g in range(games)])
        for h in (0, 1):
            keep = (half[game] == h) & ((stage >= 0) | (number % FIT_EVERY == 0))
            parts[h].append(
                Positions(
                    chances[keep],
                    wins_by_game[game[keep]],
                    done[keep],
                    game[keep] + offset,
                    stage[keep],
                    rated[game[keep]],
                    np.full(int(keep.sum()), kinds.index(table_kind)),
                )
            )
        offset += games
    return [concatenate(part) for part in parts], kinds


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


def arena_positions(
    games: list[GameRecord], cache: Path | None, name: str, strengths: dict[str, float]
) -> Positions:
    """The stage points of stored arena games, their seats' strengths from the ladder
    (NaN for a bot it does not rate) and their kind of table."""
    data = cached_positions(games, 0, cache, name)
    seats = [[seat.removeprefix("bot:") for seat in record.seats] for record in games]
    data.strengths = np.array(
        [[strengths.get(seat, math.nan) for seat in seats[g]] for g in data.game], dtype=float
    )
    data.kind = np.array([0 if len(set(seats[g])) == 1 else 1 for g in data.game])
    return data


def concatenate(parts: list[Positions]) -> Positions:
    fields = [f for f in ALL_FIELDS if all(getattr(p, f) is not None for p in parts)]
    return Positions(**{f: np.concatenate([getattr(p, f) for p in parts]) for f in fields})


def subset(data: Positions, keep: np.ndarray) -> Positions:
    return Positions(
        **{f: getattr(data, f)[keep] for f in ALL_FIELDS if getattr(data, f) is not None}
    )


def calibrated(calibration: Calibration, data: Positions, strengths: bool = True) -> np.ndarray:
    """``data``'s chances under ``calibration`` (:meth:`Calibration.apply`, vectorised),
    with the seats' strengths when ``strengths`` and known, else evenly matched."""
    a = np.interp(data.progress, calibration.knots, calibration.scales)
    if strengths and calibration.level:
        c = np.interp(data.progress, calibration.knots, calibration.level)
        a = np.maximum(MIN_SCALE, a + c * levels(data))
    b = (
        np.interp(data.progress, calibration.knots, calibration.strength)
        if strengths and calibration.strength
        else np.zeros(len(data.progress))
    )
    live = data.chances > 0
    logp = np.where(live, np.log(np.where(live, data.chances, 1.0)), 0.0)
    z = np.where(live, a[:, None] * logp + b[:, None] * gaps(data), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    q = np.exp(z)
    return np.asarray(q / q.sum(axis=1, keepdims=True))


@dataclass(frozen=True)
class Scores:
    positions: int
    slope: float
    slope_error: float
    intercept: float
    brier: float
    brier_uniform: float
    rows: list[tuple[str, int, float, float]]  # bin, seats, mean chance, win share

    @property
    def skill(self) -> float:
        return 1.0 - self.brier / self.brier_uniform


def logistic_slope(x: np.ndarray, y: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    """The slope of ``y ~ sigmoid(c + b * x)`` and its standard error
    (:func:`logistic_fit`)."""
    _, slope, error = logistic_fit(x, y, group)
    return slope, error


def logistic_fit(x: np.ndarray, y: np.ndarray, group: np.ndarray) -> tuple[float, float, float]:
    """The intercept and slope of ``y ~ sigmoid(c + b * x)`` (maximum likelihood; ``y``
    may be a share) and the slope's standard error, robust to the rows of one ``group``
    (the seats of one position) being dependent: at two players one seat's row
    mirrors the other's."""
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
    return float(beta[0]), float(beta[1]), float(math.sqrt(cov[1, 1]))


def score(chances: np.ndarray, wins: np.ndarray) -> Scores:
    live = chances > 0
    p = chances[live]
    y = wins[live]
    uniform = np.broadcast_to(1.0 / live.sum(axis=1, keepdims=True), chances.shape)[live]
    clipped = np.clip(p, 1e-9, 1 - 1e-9)
    group = np.nonzero(live)[0]
    intercept, slope, error = logistic_fit(np.log(clipped / (1 - clipped)), y, group)
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
        intercept,
        float(((p - y) ** 2).mean()),
        float(((uniform - y) ** 2).mean()),
        rows,
    )


def log_loss(calibration: Calibration, data: Positions) -> float:
    """Minus the summed log-likelihood of the winners (R21 shares) under ``calibration``
    (with the seats' strengths when known)."""
    q = calibrated(calibration, data)
    live = data.chances > 0
    return float(-(data.wins * np.where(live, np.log(np.where(live, q, 1.0)), 0.0)).sum())


def fit_with(data: Positions, players: int, smooth: float) -> Calibration:
    # The first turn is kept (its chances are nearly even: it tells the strength term's
    # weight), the end is not (the chances are exact there).
    keep = data.progress < 1
    known = data.strengths is not None
    scales, strength, level = fit_calibration(
        data.chances[keep],
        data.wins[keep],
        data.progress[keep],
        KNOTS,
        gaps(data)[keep] if known else None,
        levels(data)[keep] if known else None,
        smooth=smooth,
    )
    return Calibration(players, KNOTS, scales, *((strength, level) if known else ()))


def choose_smoothness(data: Positions, players: int) -> float:
    """The penalty on the bends with the best likelihood in a two-fold cross-validation
    of ``data`` alone, split by game (the parity of the game's number)."""
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


#: The chances measured: the value's, an older map's (``--compare``), and the map's with
#: the strengths not known (evenly matched) and known.
COLUMNS = ("value", "older map", "strengths not known", "strengths known")


def measure(
    halves: list[Positions],
    maps: list[Calibration],
    masks: list[np.ndarray],
    older: Calibration | None,
) -> dict[str, Scores]:
    """The scores of the positions ``masks`` picks in each half, each half recalibrated
    with the map fitted on the other one (``maps[h]`` measures half ``h``)."""
    picked = [subset(halves[h], masks[h]) for h in (0, 1)]
    both = concatenate(picked)
    found = {"value": score(both.chances, both.wins)}
    if older is not None:
        found["older map"] = score(calibrated(older, both, strengths=False), both.wins)
    for name, known in (("strengths not known", False), ("strengths known", True)):
        chances = np.concatenate([calibrated(maps[h], picked[h], strengths=known) for h in (0, 1)])
        found[name] = score(chances, both.wins)
    return found


@dataclass(frozen=True)
class Result:
    """One player count: the map shipped (fitted on all the fresh games), the penalty
    chosen, the games, and the scores by kind of table and stage."""

    shipped: Calibration
    smoothness: float
    games: int
    positions: int
    #: (kind of table, stage) -> scores by column; kinds: "all", "evenly matched",
    #: "even <bot>", "mixed", and "arena" (stored arena games, with --arena).
    cells: dict[tuple[str, int], dict[str, Scores]]


#: The recalibration slope aimed at, at every stage and player count.
TARGET = (0.9, 1.1)


def cell(scores: Scores) -> str:
    return (
        f"{scores.slope:.2f} ± {scores.slope_error:.2f} | {scores.intercept:+.2f} "
        f"| {scores.skill:+.1%}"
    )


def report(results: dict[int, Result], arena: int | None, compare: str | None) -> str:
    columns = [c for c in COLUMNS if compare is not None or c != "older map"]
    evenly = [
        (players, k, scores["strengths known"])
        for players, result in results.items()
        for (group, k), scores in result.cells.items()
        if group == "evenly matched"
    ]
    low, high = TARGET
    inside = sum(low <= s.slope <= high for *_, s in evenly)
    lines = [
        f"On held-out evenly matched games, the strengths known, the calibrated chances' "
        f"slope is within "
        f"{low}-{high} in {inside} of the {len(evenly)} cells (from "
        f"{min(s.slope for *_, s in evenly):.2f} to {max(s.slope for *_, s in evenly):.2f}).",
        "",
        "| players | tables | stage | positions | "
        + " | ".join(f"{c}: slope ± se | intercept | Brier skill" for c in columns)
        + " |",
        "|---|---|---|---|" + "---|---|---|" * len(columns),
    ]
    for players, result in results.items():
        for (group, k), scores in result.cells.items():
            lines.append(
                f"| {players} | {group} | {STAGES[k]:.0%} | {scores['value'].positions} | "
                + " | ".join(cell(scores[c]) for c in columns)
                + " |"
            )
    lines += [
        "",
        f"| players | games, positions | penalty | at progress "
        f"{', '.join(f'{t:g}' for t in SHOWN)}: sharpness a; strength weight b; "
        "level weight c |",
        "|---|---|---|---|",
    ]
    for players, result in results.items():
        a = ", ".join(f"{result.shipped.scale(t):.2f}" for t in SHOWN)
        b = ", ".join(f"{result.shipped.strength_weight(t):.2f}" for t in SHOWN)
        c = ", ".join(
            f"{np.interp(t, result.shipped.knots, result.shipped.level):.2f}" for t in SHOWN
        )
        lines.append(
            f"| {players} | {result.games}, {result.positions} | {result.smoothness:g} "
            f"| a: {a}; b: {b}; c: {c} |"
        )
    lines += [
        "",
        "Reliability on the held-out fresh games, strengths known: each seat's calibrated "
        "chance, binned (seats in the bin, their mean chance, the share of the wins they "
        "took), at evenly matched tables and mixed ones.",
    ]
    names = [f"{lo:.1f}-{hi:.1f}" for lo, hi in itertools.pairwise(BINS)]
    for players, result in results.items():
        lines += [
            "",
            f"| {players} players | stage | bin | even: seats | chance | won "
            "| mixed: seats | chance | won |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for k, stage in enumerate(STAGES):
            tables = [
                {row[0]: row for row in result.cells[(group, k)]["strengths known"].rows}
                for group in ("evenly matched", "mixed")
            ]
            for name in names:
                rows = [table.get(name) for table in tables]
                if not any(rows):
                    continue
                cells = [f"{r[1]} | {r[2]:.3f} | {r[3]:.3f}" if r else "0 | - | -" for r in rows]
                lines.append(f"| | {stage:.0%} | {name} | {' | '.join(cells)} |")
    total = ", ".join(f"{r.games} at {p} players" for p, r in results.items())
    command = (
        "python scripts/calibration.py"
        + (f" --arena {arena}" if arena else "")
        + (" --compare build/calibration-old.json" if compare else "")
    )
    lines += [
        "",
        f"_Generated by `{command} --write --write-docs` on "
        f"{datetime.date.today().isoformat()} from the fresh games of "
        f"`scripts/calibration_games.py` ({total}). Two-fold by a hash of (table, game): "
        "each half is measured with the map fitted on the other half (the penalty on the "
        "bends chosen by cross-validation inside that half: never a position of a game it "
        "is measured on); the map shipped is fitted on both the same way. Tables: "
        "evenly matched (every seat the same bot: `even random`, `even greedy`, "
        "`even search2k` = `search@iterations=2000`; `evenly matched` pools them), "
        "`mixed` (one bot against the others)"
        + (
            f", `arena` (at most {arena} stored arena games per player count, other bots "
            "too: the seats' strengths from the ladder where it rates them)"
            if arena
            else ""
        )
        + (
            "; `older map`: the map fitted on the arena games alone (issue 27), read from "
            "`git show 2b9ad62:src/marrakech/bots/data/calibration.json`"
            if compare
            else ""
        )
        + ". Stage: the first turn (orient decision) where 25, 50 or 75% of the carpets "
        "are placed. Slope and intercept: logistic regression of each seat's win (R21 "
        "ties shared) on the logit of its chance (slope 1 and intercept 0: calibrated; a "
        "slope below 1: too sure), ± the slope's standard error (robust to the seats of "
        "one position being dependent); Brier skill: 1 - Brier / the uniform chance's "
        "Brier (0: no better than saying 1 / players)._",
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


def load_older(path: Path, players: int) -> Calibration:
    entry = json.loads(path.read_text("utf-8"))["players"][str(players)]
    return Calibration(players, tuple(entry["knots"]), tuple(entry["scales"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--generate", action="store_true", help="play the fresh games missing first"
    )
    parser.add_argument("--seed", type=int, default=1, help="the games' and the split's seed")
    parser.add_argument("--games", type=Path, default=GAMES, help="the fresh games' folder")
    parser.add_argument(
        "--cache",
        type=Path,
        default=ROOT / "build" / "calibration",
        help="where the arena games' positions read are kept for the next run",
    )
    parser.add_argument(
        "--arena", type=int, default=0, help="stored arena games measured per player count"
    )
    parser.add_argument("--compare", type=Path, default=None, help="an older map file to measure")
    parser.add_argument("--write", action="store_true", help=f"store the fit in {OUT.name}")
    parser.add_argument("--write-docs", action="store_true", help="update docs/bots.md")
    args = parser.parse_args(argv)
    if args.generate:
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "calibration_games.py"), "--seed",
             str(args.seed), "--out", str(args.games)],
            check=True,
        )  # fmt: skip
    strengths = ladder()
    stored = records([STORED, FRESH]) if args.arena else {}
    results = {}
    for players in (2, 3, 4):
        halves, kinds = fresh_positions(args.games, players, args.seed, strengths[players])
        # Two-fold: each half is measured with the map fitted on the other one; the map
        # shipped is fitted on both.
        maps = [fit(halves[1], players)[0], fit(halves[0], players)[0]]
        everything = concatenate(halves)
        shipped, smooth = fit(everything, players)
        older = load_older(args.compare, players) if args.compare else None
        print(
            f"{players} players: penalty {smooth:g}, a {shipped.scales}, "
            f"b {shipped.strength}, c {shipped.level}"
        )
        groups: dict[str, list[int]] = {"all": list(range(len(kinds)))}
        groups["evenly matched"] = [i for i, name in enumerate(kinds) if name.startswith("even")]
        for i, name in enumerate(kinds):
            groups.setdefault(name, []).append(i)
        cells = {}
        for group, members in groups.items():
            for k in range(len(STAGES)):
                masks = [(h.stage == k) & np.isin(np.asarray(h.kind), members) for h in halves]
                cells[(group, k)] = measure(halves, maps, masks, older)
        if args.arena and stored.get(players):
            games = sorted(stored[players], key=lambda g: game_hash(g, args.seed))[: args.arena]
            arena = arena_positions(
                games, args.cache, f"{players}p-arena-{args.seed}", strengths[players]
            )
            for k in range(len(STAGES)):
                at = arena.stage == k
                # The map shipped never saw an arena game: it measures them all.
                cells[("arena", k)] = measure([arena, arena], [shipped, shipped],
                                              [at, np.zeros_like(at)], older)  # fmt: skip
        for (group, k), scores in cells.items():
            line = ", ".join(
                f"{name} {s.slope:.2f} ({s.intercept:+.2f}) {s.skill:+.1%}"
                for name, s in scores.items()
            )
            print(f"  {group} {STAGES[k]:.0%} [{scores['value'].positions}]: {line}")
        results[players] = Result(
            shipped,
            smooth,
            len(np.unique(everything.game)),
            int((everything.progress < 1).sum()),
            cells,
        )
    table = report(results, args.arena, str(args.compare) if args.compare else None)
    if args.write:
        payload = {
            "players": {str(p): result.shipped.to_dict() for p, result in results.items()},
            "strengths": {
                str(p): {name: round(rating, 1) for name, rating in sorted(strengths[p].items())}
                for p in (2, 3, 4)
            },
            "source": {
                "method": "scripts/calibration.py",
                "games": "scripts/calibration_games.py",
                "seed": args.seed,
                "games_by_players": {str(p): result.games for p, result in results.items()},
                "smoothness": {str(p): result.smoothness for p, result in results.items()},
                "rating_scale": RATING_SCALE,
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
