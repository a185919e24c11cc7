"""Measure the bots' strength with the arena and regenerate the table in docs/bots.md.

Each match of ``MATCHES`` is played with ``marrakech.arena.run_match`` into
``--results DIR/<name>.jsonl`` (resumable: an interrupted run continues where it
stopped), then the table between the ``strength-table`` markers of ``docs/bots.md`` is
rewritten from every results file found.

    python scripts/bot_strength.py                       # play everything, update the doc
    python scripts/bot_strength.py --only mcts-greedy-2p --games 200 --workers 2
    python scripts/bot_strength.py --table-only          # just rebuild the table

The budgets are iteration/depth counts, not seconds, so every number is reproducible
exactly (same seed, same games) on any machine and with any number of workers.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from marrakech.arena import MatchConfig, ProgressBar, read_results, run_match, summarise
from marrakech.arena.evaluate import OPPONENTS
from marrakech.arena.match import GameResult
from marrakech.arena.stats import BotSummary, bradley_terry, rating_intervals
from marrakech.errors import MarrakechError

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bots.md"
START, END = "<!-- strength-table:start -->", "<!-- strength-table:end -->"
TIMING = ("<!-- timing-table:start -->", "<!-- timing-table:end -->")
LUCK = ("<!-- luck-table:start -->", "<!-- luck-table:end -->")
LADDER = ("<!-- ladder-table:start -->", "<!-- ladder-table:end -->")
CURVE = ("<!-- curve-table:start -->", "<!-- curve-table:end -->")
MARGIN = ("<!-- margin-table:start -->", "<!-- margin-table:end -->")
LEARNED = ("<!-- learned-table:start -->", "<!-- learned-table:end -->")
TIMED_SPECS = (
    "random",
    "greedy",
    "hard",
    "expert",
    "hard-v1",
    "expert-v1",
    "search@iterations=70000",
    "expert-v1@iterations=780",
)

MCTS = "mcts@iterations=300"
MCTS_LONG = "mcts@iterations=1000"  # about 0.15 s a decision
EXPECTIMAX = "expectimax@depth=2"

# Equal time as counts (benchmarks/bench_search.py, one run: the compiled search runs
# 706,097 iterations per CPU-second at 2 players and 442,323 at 4; version 0.1's MCTS
# 7,771 and 6,401): 0.1 s a decision for `expert` and `expert-v1`, a quarter of it for
# the new `hard`. A tenth of the interactive second, so that hundreds of games fit.
EXPERT_2P = "search@iterations=70000"
EXPERT_4P = "search@iterations=44000"
HARD_2P = "search-quick@iterations=17500"
EXPERT_V1_2P = "expert-v1@iterations=780"
EXPERT_V1_4P = "expert-v1@iterations=640"


@dataclass(frozen=True)
class Match:
    name: str
    players: int
    bots: tuple[str, ...]
    games: int
    target: str
    threshold: float  # win share the first bot must reach (0 = no target)


MATCHES = (
    Match("greedy-random-2p", 2, ("greedy", "random"), 400, "greedy beats random >= 90%", 0.90),
    Match("expectimax-greedy-2p", 2, (EXPECTIMAX, "greedy"), 400, "expectimax >= 65%", 0.65),
    Match("mcts-greedy-2p", 2, (MCTS, "greedy"), 400, "mcts >= 75%", 0.75),
    Match("mcts1000-greedy-2p", 2, (MCTS_LONG, "greedy"), 400, "mcts >= 75%", 0.75),
    Match("mcts-expectimax-2p", 2, (MCTS, EXPECTIMAX), 400, "mcts beats expectimax", 0.50),
    # The interactive budget: 1 s a decision on a clock, so not exactly reproducible.
    Match("mcts1s-greedy-2p", 2, ("mcts", "greedy"), 400, "mcts (1 s) >= 75%", 0.75),
    Match("mcts-3greedy-4p", 4, (MCTS, "greedy", "greedy", "greedy"), 400, "mcts >= 45%", 0.45),
    Match(
        "mcts1000-3greedy-4p",
        4,
        (MCTS_LONG, "greedy", "greedy", "greedy"),
        400,
        "mcts >= 45%",
        0.45,
    ),
    # Issue 17: the compiled search with the learned value, at equal time (see above).
    Match("expert-expertv1-2p", 2, (EXPERT_2P, EXPERT_V1_2P), 400, "expert >= 65%", 0.65),
    Match("expert-greedy-2p", 2, (EXPERT_2P, "greedy"), 400, "expert >= 75%", 0.75),
    Match(
        "expert-3greedy-4p",
        4,
        (EXPERT_4P, "greedy", "greedy", "greedy"),
        400,
        "expert >= 42%",
        0.42,
    ),
    Match(
        "expert-3expertv1-4p",
        4,
        (EXPERT_4P, EXPERT_V1_4P, EXPERT_V1_4P, EXPERT_V1_4P),
        400,
        "expert >= 33%",
        0.33,
    ),
    Match("hard-expertv1-2p", 2, (HARD_2P, EXPERT_V1_2P), 400, "hard (1/4 time) >= 50%", 0.50),
    # Issue 38, item 4: the ladder's top, expert against hard (four times its search);
    # 800 games, as 400 left the luck-corrected interval reaching below 50%.
    Match("expert-hard-2p", 2, (EXPERT_2P, HARD_2P), 800, "expert beats hard", 0.50),
    # What 35 times the search buys head to head, between two bots stronger than greedy.
    Match("expert-search2k-2p", 2, (EXPERT_2P, "search@iterations=2000"), 400, "-", 0.0),
    # The new expert's budget curve against greedy (the old one: the mcts rows above).
    Match("search2k-greedy-2p", 2, ("search@iterations=2000", "greedy"), 200, "-", 0.0),
    Match("search10k-greedy-2p", 2, ("search@iterations=10000", "greedy"), 200, "-", 0.0),
    # Max-n or paranoid at four players, at a small budget (issue 17, item 4); measured
    # with the first fit of the value (results in first-value/, see docs/bots.md).
    Match(
        "search5k-3greedy-4p",
        4,
        ("search@iterations=5000", "greedy", "greedy", "greedy"),
        200,
        "max-n",
        0.0,
    ),
    Match(
        "paranoid5k-3greedy-4p",
        4,
        ("search@iterations=5000@paranoid=true", "greedy", "greedy", "greedy"),
        200,
        "paranoid",
        0.0,
    ),
)

# Issue 27: the learned baselines against the reference opponents of `marrakech evaluate`
# (its files have these names: `marrakech evaluate policy-2p --players 2 --games 400
# --seed 1 --out benchmarks/strength` plays the same games).
MATCHES += tuple(
    Match(
        f"{policy}-{label}-{players}p",
        players,
        (policy, *(opponent,) * (players - 1)),
        400,
        "learned baseline",
        0.0,
    )
    for players, policy in ((2, "policy-2p"), (4, "policy-4p"))
    for label, opponent in OPPONENTS[players].items()
)


def results_path(folder: Path, match: Match) -> Path:
    return folder / f"{match.name}.jsonl"


def play(match: Match, folder: Path, games: int, workers: int, seed: int) -> None:
    config = MatchConfig(match.players, match.bots, games, seed)
    path = results_path(folder, match)
    resume = False
    if path.exists():
        stored, _ = read_results(path)
        if replace(stored, games=config.games) != config:
            raise MarrakechError(f"{path} holds another match; move it away first")
        resume = True
        config = replace(config, games=max(games, stored.games))
    print(f"== {match.name}: {','.join(match.bots)}, {games} games", flush=True)
    outcome = run_match(
        config, workers=workers, out=path, resume=resume, progress=ProgressBar(sys.stderr)
    )
    if outcome.interrupted:
        raise KeyboardInterrupt


def _row(match: Match, path: Path) -> str | None:
    if not path.exists():
        return None
    config, games = read_results(path)
    if not games:
        return None
    rows: dict[str, BotSummary] = {r.bot: r for r in summarise(games)}
    first = rows[match.bots[0]]
    others = [rows[b] for b in dict.fromkeys(match.bots[1:])]
    met = (
        "-"
        if match.threshold <= 0
        else "yes"
        if first.ci_low >= match.threshold
        else ("likely" if first.win_share >= match.threshold else "no")
    )
    opponents = ", ".join(f"`{o.bot}` {o.win_share:.1%}" for o in others)
    return (
        f"| {config.players} | `{first.bot}` vs {opponents} | {len(games)} | "
        f"**{first.win_share:.1%}** ({first.ci_low:.1%}-{first.ci_high:.1%}) | "
        f"{first.corrected_share:.1%} ({first.corrected_low:.1%}-{first.corrected_high:.1%}) | "
        f"{first.mean_score:.1f} / {others[0].mean_score:.1f} | "
        f"{first.rating - others[0].rating:+.0f} | {first.seconds_per_decision:.3f} | "
        f"{match.target} | {met} |"
    )


def table(folder: Path) -> str:
    lines = [
        "| players | match (first bot vs the others' win share) | games | first bot's win "
        "share (95% CI) | luck-corrected (95% CI) | mean score (first / other) | rating gap "
        "| s / decision (first bot) | target | met |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for match in MATCHES:
        row = _row(match, results_path(folder, match))
        if row is not None:
            lines.append(row)
    stamp = time.strftime("%Y-%m-%d")
    lines.append("")
    lines.append(
        f"_Generated by `scripts/bot_strength.py` on {stamp} from `{folder.name}/`; "
        "'met' is yes when the whole 95% interval clears the target, likely when only "
        "the point estimate does. Luck-corrected: the same win share with the dice's luck "
        "taken out (a control variate, see arena.md), a narrower interval. Seconds per "
        "decision are as measured during the runs, on a machine shared with other work; "
        "the time table below has idle figures._"
    )
    return "\n".join(lines)


def _played(
    folder: Path, minimum: int = 1
) -> Iterator[tuple[Match, MatchConfig, list[GameResult]]]:
    """Each match with at least ``minimum`` games in ``folder``, its config and games."""
    for match in MATCHES:
        path = results_path(folder, match)
        if not path.exists():
            continue
        config, games = read_results(path)
        if len(games) >= minimum:
            yield match, config, games


def luck_table(folder: Path) -> str:
    """How much the dice's money decides each match: the spread of a seat's dice luck
    (``GameResult.luck``, see ``marrakech.luck``), how often the luckiest seat wins,
    and the first bot's win share in the games the dice favoured it and in the others."""
    lines = [
        "| players | match | games | luck per seat-game (sd, dirhams) | luckiest seat wins | "
        "first bot wins when luckier | when less lucky |",
        "|---|---|---|---|---|---|---|",
    ]
    for match, config, games in _played(folder):
        spread: list[float] = []
        luckiest = 0.0
        split = {True: [0, 0.0], False: [0, 0.0]}  # luckier?: [games, wins]
        for game in games:
            luck = game.luck
            luckiest += game.win_share(max(range(len(luck)), key=luck.__getitem__))
            seat = game.seats.index(match.bots[0])
            spread.append(luck[seat])
            rivals = max(x for s, x in enumerate(luck) if s != seat)
            bucket = split[luck[seat] > rivals]
            bucket[0] += 1
            bucket[1] += game.win_share(seat)
        mean = sum(spread) / len(spread)
        sd = (sum((x - mean) ** 2 for x in spread) / max(1, len(spread) - 1)) ** 0.5
        when = [f"{b[1] / b[0]:.1%} ({b[0]})" if b[0] else "-" for b in (split[True], split[False])]
        lines.append(
            f"| {config.players} | `{'`, `'.join(dict.fromkeys(match.bots))}` | {len(games)} | "
            f"{sd:.1f} | {luckiest / len(games):.1%} | {when[0]} | {when[1]} |"
        )
    lines.append("")
    lines.append(
        f"_Generated by `scripts/bot_strength.py` on {time.strftime('%Y-%m-%d')}; "
        "'luckier' means more dice luck than every other seat; games in brackets._"
    )
    return "\n".join(lines)


def margin_table(folder: Path) -> str:
    """How far each match is from a win share: the first bot's final margin (R20 score
    minus the best other seat's) spread over the games. A target of 75% needs the lower
    quartile above 0, so the quartile says how many points every game would still need."""
    lines = [
        "| players | match | games | first bot wins | margin: mean | lower quartile | "
        "median | upper quartile | sd |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for match, config, games in _played(folder, minimum=2):
        margins: list[float] = []
        wins = 0.0
        for game in games:
            seat = game.seats.index(match.bots[0])
            best = max(x for s, x in enumerate(game.scores) if s != seat)
            margins.append(game.scores[seat] - best)
            wins += game.win_share(seat)
        low, median, high = statistics.quantiles(margins, n=4, method="inclusive")
        lines.append(
            f"| {config.players} | `{'`, `'.join(dict.fromkeys(match.bots))}` | {len(games)} | "
            f"{wins / len(games):.1%} | {statistics.fmean(margins):+.1f} | {low:+.1f} | "
            f"{median:+.1f} | {high:+.1f} | {statistics.pstdev(margins):.1f} |"
        )
    lines.append("")
    lines.append(
        f"_Generated by `scripts/bot_strength.py` on {time.strftime('%Y-%m-%d')}: the first "
        "bot's score minus the best other seat's (R20; ties on score are settled by dirhams, "
        "R21, so a margin of 0 can be a win or a loss)._"
    )
    return "\n".join(lines)


def _games_by_players(folder: Path) -> dict[int, list[GameResult]]:
    found: dict[int, list[GameResult]] = {}
    for _, config, games in _played(folder, minimum=0):
        found.setdefault(config.players, []).extend(games)
    return found


def ladder_table(folder: Path) -> str:
    """Bradley-Terry ratings (Elo scale, 95% bootstrap intervals) of every bot spec over
    all the matches of a player count, fitted together: one ladder per player count."""
    lines = [
        "| players | bot spec | games | rating (95% CI) |",
        "|---|---|---|---|",
    ]
    for players, games in sorted(_games_by_players(folder).items()):
        bots = list(dict.fromkeys(seat for game in games for seat in game.seats))
        ratings = bradley_terry(games, bots)
        bounds = rating_intervals(games, bots)
        played = {bot: sum(1 for game in games if bot in game.seats) for bot in bots}
        for bot in sorted(bots, key=lambda b: -ratings[b]):
            low, high = bounds[bot]
            lines.append(
                f"| {players} | `{bot}` | {played[bot]} | **{ratings[bot]:.0f}** "
                f"({low:.0f}-{high:.0f}) |"
            )
    lines.append("")
    lines.append(
        f"_Generated by `scripts/bot_strength.py` on {time.strftime('%Y-%m-%d')}: one "
        "Bradley-Terry fit per player count over every game of every results file (each "
        "game counts as the pairwise results of its seats; mean 1500; ratings are "
        "comparable within a player count only)._"
    )
    return "\n".join(lines)


def curve_table(folder: Path) -> str:
    """Old and new expert against greedy (one or three), by budget, per player count."""
    lines = [
        "| players | bot spec | games | s / decision | win share vs `greedy` (95% CI) "
        "| luck-corrected |",
        "|---|---|---|---|---|---|",
    ]
    rows = []
    for match in MATCHES:
        path = results_path(folder, match)
        if match.bots[1:] != ("greedy",) * (match.players - 1) or not path.exists():
            continue
        if not match.bots[0].startswith(("mcts", "search", "expert")):
            continue
        _, games = read_results(path)
        if not games:
            continue
        first = {r.bot: r for r in summarise(games)}[match.bots[0]]
        # per player count, each bot's budgets in order (its variants after it)
        order = (match.players, match.bots[0].split("@")[0], "paranoid" in match.bots[0])
        rows.append(
            (
                (*order, first.seconds_per_decision),
                f"| {match.players} | `{first.bot}` | {len(games)} | "
                f"{first.seconds_per_decision:.3f} | "
                f"{first.win_share:.1%} ({first.ci_low:.1%}-{first.ci_high:.1%}) | "
                f"{first.corrected_share:.1%} ({first.corrected_low:.1%}-"
                f"{first.corrected_high:.1%}) |",
            )
        )
    lines.extend(line for _, line in sorted(rows))
    lines.append("")
    lines.append(
        f"_Generated by `scripts/bot_strength.py` on {time.strftime('%Y-%m-%d')}; seconds "
        "per decision as measured during the runs (one worker, a shared machine)._"
    )
    return "\n".join(lines)


def learned_table(folder: Path) -> str:
    """The learned baselines against each reference opponent of `marrakech evaluate`
    (issue 27): what that command prints, per match, from the same results files."""
    lines = [
        "| players | policy | opponent | games | policy's win share (95% CI) | "
        "luck-corrected (95% CI) | mean score (policy / opponent) |",
        "|---|---|---|---|---|---|---|",
    ]
    for match, config, games in _played(folder):
        if not match.bots[0].startswith("policy"):
            continue
        rows = {row.bot: row for row in summarise(games)}
        mine, theirs = rows[match.bots[0]], rows[match.bots[1]]
        label = match.name.split("-")[-2]
        lines.append(
            f"| {config.players} | `{mine.bot}` | {label} (`{theirs.bot}`) | {len(games)} | "
            f"**{mine.win_share:.1%}** ({mine.ci_low:.1%}-{mine.ci_high:.1%}) | "
            f"{mine.corrected_share:.1%} ({mine.corrected_low:.1%}-{mine.corrected_high:.1%}) | "
            f"{mine.mean_score:.1f} / {theirs.mean_score:.1f} |"
        )
    lines.append("")
    lines.append(
        f"_Generated by `scripts/bot_strength.py` on {time.strftime('%Y-%m-%d')} from the "
        "results files of `marrakech evaluate policy-Np --players N --games 400 --seed 1 "
        "--out benchmarks/strength`; par is 50% at two players, 25% at four; a match with "
        "fewer than 400 games was still being played (it continues with the same command)._"
    )
    return "\n".join(lines)


def update_doc(text: str, doc: Path = DOC, markers: tuple[str, str] = (START, END)) -> None:
    start, end = markers
    body = doc.read_text(encoding="utf-8")
    if start not in body or end not in body:
        raise MarrakechError(f"{doc} has no {start} ... {end} markers")
    head, rest = body.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")


def timing(positions: int, seed: int) -> str:
    """Seconds per decision of each bot spec over positions sampled from random games."""
    import random

    from marrakech import State, random_action
    from marrakech.bots import make_bot

    rng = random.Random(seed)
    samples: dict[int, list[State]] = {}
    for players in (2, 4):
        found: list[State] = []
        while len(found) < positions:
            state = State.new(players)
            seen = []
            while not state.is_terminal:
                if not state.is_chance:
                    seen.append(state)
                state = state.apply(random_action(state, rng))
            found.extend(rng.sample(seen, min(4, positions - len(found))))
        samples[players] = found
    lines = [
        "| bot spec | players | decisions | mean s | max s | budget | search per decision |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec in TIMED_SPECS:
        for players, states in samples.items():
            bot = make_bot(spec)
            times = []
            depths: list[int] = []
            iterations: list[int] = []
            for state in states:
                began = time.perf_counter()
                bot.choose(state, random.Random(0))
                times.append(time.perf_counter() - began)
                if hasattr(bot, "last_depth"):
                    depths.append(bot.last_depth)
                if hasattr(bot, "last_iterations"):
                    iterations.append(bot.last_iterations)
            budget = getattr(bot, "seconds", None)
            search = "-"
            if depths:
                search = f"{min(depths)}-{max(depths)} turns deep"
            elif iterations:
                search = f"{sum(iterations) / len(iterations):.0f} iterations (mean)"
            lines.append(
                f"| `{spec}` | {players} | {len(times)} | {sum(times) / len(times):.3f} | "
                f"{max(times):.3f} | {'-' if budget is None else f'{budget:g} s'} | {search} |"
            )
            print(lines[-1], flush=True)
    lines.append("")
    lines.append(
        f"_Measured by `scripts/bot_strength.py --timing` on {time.strftime('%Y-%m-%d')}, "
        f"{positions} positions per player count sampled from random games._"
    )
    return "\n".join(lines)


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "strength"))
    parser.add_argument("--games", type=int, help="games per match (default: each match's)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="comma-separated match names")
    parser.add_argument("--table-only", action="store_true", help="do not play, only rebuild")
    parser.add_argument("--print", action="store_true", help="print the table, leave the doc")
    parser.add_argument(
        "--timing", type=int, metavar="N", help="time every bot on N positions and stop"
    )
    args = parser.parse_args(argv)
    if args.timing:
        text = timing(args.timing, args.seed)
        if not args.print:
            update_doc(text, markers=TIMING)
        return 0
    folder = Path(args.results)
    folder.mkdir(parents=True, exist_ok=True)
    chosen: tuple[Match, ...] = MATCHES
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {m.name for m in MATCHES}
        if unknown:
            parser.error(f"unknown match {sorted(unknown)}; expected {[m.name for m in MATCHES]}")
        chosen = tuple(m for m in MATCHES if m.name in names)
    if not args.table_only:
        signal.signal(signal.SIGTERM, _stop)  # `kill PID` stops as cleanly as Ctrl-C
        # and so does `kill -INT`, even in a background job (started with SIGINT ignored)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            for match in chosen:
                play(match, folder, args.games or match.games, args.workers, args.seed)
        except KeyboardInterrupt:
            print("stopped; finished games are kept, run again to continue", file=sys.stderr)
    text = table(folder)
    luck = luck_table(folder)
    ladder = ladder_table(folder)
    curve = curve_table(folder)
    margin = margin_table(folder)
    learned = learned_table(folder)
    if not args.print:
        update_doc(learned, markers=LEARNED)
        update_doc(text)
        update_doc(luck, markers=LUCK)
        update_doc(ladder, markers=LADDER)
        update_doc(curve, markers=CURVE)
        update_doc(margin, markers=MARGIN)
    print(text, luck, ladder, curve, margin, learned, sep="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
