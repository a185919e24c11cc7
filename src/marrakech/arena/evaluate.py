"""``marrakech evaluate``: put a policy (or any bot) on the bots' ladder, the same way.

    marrakech evaluate policy-2p --players 2 --games 400 --seed 1
    marrakech evaluate my-policy.npz --players 4 --games 400 --seed 1
    marrakech evaluate mypackage.agent:act --players 2 --games 40

It plays the policy against each reference opponent of :data:`OPPONENTS` (``random``,
``greedy``, ``hard`` and ``expert`` at the fixed budgets of the ladder in docs/bots.md),
one arena match each (:func:`marrakech.arena.run_match`: seats rotated, game ``i``
seeded by ``(seed, i)``), prints each match's win share with its Wilson and
luck-corrected intervals (:func:`marrakech.arena.summarise`), then fits the
Bradley-Terry ladder (:func:`marrakech.arena.stats.bradley_terry`, bootstrap intervals)
over these games and the reference results files of the same player count
(``--ladder``, by default ``benchmarks/strength`` of a checkout when it is there), so the
policy is rated on the ladder every bot is rated on. Nothing here computes a statistic
of its own: the numbers are the arena's.

Each match is saved as ``--out DIR/<name>-<opponent>-<N>p.jsonl`` and a stopped run
continues where it stopped (game ``i`` depends on the seed and ``i`` only).
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from marrakech.arena.match import GameResult, MatchConfig
from marrakech.arena.runner import ProgressBar, read_results, run_match
from marrakech.arena.stats import bradley_terry, rating_intervals, summarise
from marrakech.bots import make_bot, parse_bot_spec
from marrakech.bots.policy import PolicyError, PolicyNetwork, load_function
from marrakech.errors import MarrakechError
from marrakech.state import State

#: The reference opponents by player count, weakest first: the bot specs of the ladder
#: in docs/bots.md. ``hard`` and ``expert`` are the compiled search at fixed counts
#: (reproducible on any machine): ``expert`` at a tenth of its interactive second
#: (iterations per CPU-second from benchmarks/bench_search.py) and ``hard`` at a quarter
#: of that, as ``scripts/bot_strength.py`` measures them.
OPPONENTS: dict[int, dict[str, str]] = {
    2: {
        "random": "random",
        "greedy": "greedy",
        "hard": "search-quick@iterations=17500",
        "expert": "search@iterations=70000",
    },
    3: {
        "random": "random",
        "greedy": "greedy",
        "hard": "search-quick@iterations=11000",
        "expert": "search@iterations=44000",
    },
    4: {
        "random": "random",
        "greedy": "greedy",
        "hard": "search-quick@iterations=11000",
        "expert": "search@iterations=44000",
    },
}
#: Where a checkout keeps the ladder's results files.
DEFAULT_LADDER = Path("benchmarks") / "strength"


@dataclass(frozen=True)
class Policy:
    """What ``marrakech evaluate`` was given: the bot spec the arena plays and a short
    name for its results files."""

    spec: str
    name: str


def policy_spec(text: str) -> Policy:
    """A policy as a bot spec: a ``.npz`` policy file, ``MODULE:CALLABLE`` or a bot spec.

    Each is checked before any game, with an error that says what was expected.
    """
    expected = (
        "expected a bot spec (policy-2p, greedy, ...), a .npz policy file or "
        "MODULE:CALLABLE taking (observation, mask) and returning a decision id"
    )
    if not text.strip():
        raise MarrakechError(f"{expected}, found {text!r}")
    path = Path(text)
    if text.endswith(".npz") or path.is_file():
        if not path.is_file():
            raise MarrakechError(f"policy file {text!r} not found ({expected})")
        try:
            PolicyNetwork.load(path)
        except PolicyError as error:
            raise MarrakechError(str(error)) from None
        resolved = str(path.resolve())
        if "@" in resolved:
            raise MarrakechError(f"policy file {resolved!r}: a path with '@' cannot be a bot spec")
        return Policy(f"policy@weights={resolved}", _slug(path.stem))
    try:
        parse_bot_spec(text)
    except ValueError as spec_error:
        if ":" not in text:
            raise MarrakechError(f"{expected}, found {text!r} ({spec_error})") from None
        try:
            load_function(text)
        except PolicyError as error:
            raise MarrakechError(str(error)) from None
        return Policy(f"policy@function={text}", _slug(text.rpartition(":")[2]))
    try:
        make_bot(text)
    except ValueError as error:
        raise MarrakechError(str(error)) from None
    return Policy(text, _slug(text))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_") or "policy"


def match_name(policy: Policy, opponent: str, players: int) -> str:
    """The results file's name (no suffix) of ``policy`` against ``opponent``."""
    return f"{policy.name}-{opponent}-{players}p"


def play(
    config: MatchConfig, path: Path, workers: int, quiet: bool
) -> tuple[list[GameResult], bool]:
    """Play (or continue) one match into ``path``: its games, and whether it stopped."""
    resume = path.exists()
    if resume:
        stored, _ = read_results(path)
        if replace(stored, games=config.games) != config:
            raise MarrakechError(
                f"{path} holds another match ({stored.to_dict()}): move it away, or give "
                "another --out"
            )
        config = replace(config, games=max(config.games, stored.games))
    if not quiet:
        verb = "continuing" if resume else "playing"
        print(f"{verb} {','.join(config.bots)}: {config.games} games into {path}", flush=True)
    bar = None if quiet else ProgressBar(sys.stderr)
    outcome = run_match(config, workers=workers, out=path, resume=resume, progress=bar)
    if bar is not None:
        bar.finish()
    return outcome.games, outcome.interrupted


def reference_games(folder: Path | None, players: int, skip: set[Path]) -> list[GameResult]:
    """Every game of the results files directly in ``folder`` at ``players`` players
    under the standard rules (the ladder's), except the files in ``skip``."""
    if folder is None:
        return []
    found: list[GameResult] = []
    for path in sorted(folder.glob("*.jsonl")):
        if path.resolve() in skip:
            continue
        config, games = read_results(path)
        if config.players == players and config.rules.token() == "standard":
            found.extend(games)
    return found


def ladder(games: list[GameResult]) -> list[tuple[str, int, float, float, float]]:
    """(bot spec, games, rating, low, high) of every bot of ``games``, best first."""
    bots = list(dict.fromkeys(seat for game in games for seat in game.seats))
    ratings = bradley_terry(games, bots)
    bounds = rating_intervals(games, bots)
    played = {bot: sum(1 for game in games if bot in game.seats) for bot in bots}
    return [
        (bot, played[bot], ratings[bot], *bounds[bot])
        for bot in sorted(bots, key=lambda b: -ratings[b])
    ]


def add_parser(subparsers: Any) -> None:
    """Add the ``evaluate`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "evaluate",
        help="rate a policy or bot against the reference bots, on the bots' ladder",
        description=(
            "Play POLICY against random, greedy, hard and expert (fixed budgets: the "
            "ladder of docs/bots.md), seats rotated, and print its win shares with 95 "
            "percent intervals (Wilson, and corrected for dice luck) and its place on the "
            "Bradley-Terry ladder. POLICY is a bot spec (policy-2p, greedy, ...), a .npz "
            "policy file (the format of marrakech.bots.policy) or MODULE:CALLABLE, a "
            "function of (observation, mask) returning a decision id."
        ),
    )
    parser.add_argument("policy", metavar="POLICY", help="bot spec, .npz file or MODULE:CALLABLE")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--games", type=int, default=400, help="games per opponent (400)")
    parser.add_argument("--seed", type=int, default=1, help="match seed (1, the ladder's)")
    parser.add_argument("--workers", type=int, default=1, help="parallel games (1)")
    parser.add_argument(
        "--opponents",
        default="random,greedy,hard,expert",
        help="which reference opponents, comma-separated (default all four)",
    )
    parser.add_argument(
        "--out", default=".", help="folder for the results files (default: here); must exist"
    )
    parser.add_argument(
        "--ladder",
        default=None,
        help=f"folder of reference results files (default {DEFAULT_LADDER} if it exists; "
        "'none' for these games alone)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(run=run)


def _check_plays(policy: Policy, players: int) -> None:
    """One decision of a fresh game of ``players``, before any match: a policy trained
    for another player count, or a function that answers an illegal id, is refused here
    with its own message rather than by a worker in the middle of a match."""
    state, rng = State.new(players=players), random.Random(0)
    while state.is_chance:
        state = state.apply(state.legal_actions()[0])
    try:
        make_bot(policy.spec).choose(state, rng)
    except ValueError as error:
        raise MarrakechError(f"{policy.spec} cannot play {players}-player games: {error}") from None


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    policy = policy_spec(args.policy)
    players: int = args.players
    if args.games < 1:
        raise MarrakechError(f"expected at least 1 game, found {args.games}")
    labels = [label.strip() for label in args.opponents.split(",") if label.strip()]
    known = OPPONENTS[players]
    unknown = [label for label in labels if label not in known]
    if unknown or not labels:
        raise MarrakechError(
            f"expected opponents among {', '.join(known)}, found {', '.join(unknown) or 'none'}"
        )
    _check_plays(policy, players)
    out = Path(args.out)
    if not out.is_dir():
        raise MarrakechError(f"--out {out}: no such folder (it is not created)")
    if args.ladder is None:
        folder: Path | None = DEFAULT_LADDER if DEFAULT_LADDER.is_dir() else None
    elif args.ladder.lower() == "none":
        folder = None
    else:
        folder = Path(args.ladder)
        if not folder.is_dir():
            raise MarrakechError(f"--ladder {folder}: no such folder")
    previous = signal.signal(signal.SIGTERM, _interrupt)
    results: list[tuple[str, str, list[GameResult]]] = []
    written: set[Path] = set()
    stopped = False
    try:
        for label in labels:
            opponent = known[label]
            config = MatchConfig(
                players, (policy.spec,) + (opponent,) * (players - 1), args.games, args.seed
            )
            path = out / f"{match_name(policy, label, players)}.jsonl"
            written.add(path.resolve())
            games, stopped = play(config, path, args.workers, args.quiet)
            results.append((label, opponent, games))
            if stopped:
                break
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(f"\n{policy.spec} at {players} players, seed {args.seed}, seats rotated")
    header = (
        f"{'opponent':<38} {'games':>5}  {'win share (95% CI)':<24} "
        f"{'luck-corrected (95% CI)':<24} {'score':>11}"
    )
    print(header)
    print("-" * len(header))
    for label, opponent, games in results:
        if not games:
            continue
        rows = {row.bot: row for row in summarise(games)}
        mine, theirs = rows[policy.spec], rows[opponent]
        raw = f"{mine.win_share:.1%} ({mine.ci_low:.1%}-{mine.ci_high:.1%})"
        corrected = (
            f"{mine.corrected_share:.1%} ({mine.corrected_low:.1%}-{mine.corrected_high:.1%})"
        )
        print(
            f"{label + ' (' + opponent + ')':<38} {len(games):>5}  {raw:<24} {corrected:<24} "
            f"{mine.mean_score:5.1f}/{theirs.mean_score:<5.1f}"
        )
    par = 1 / players
    print(f"(par: {par:.0%}; a shared win counts 1/k, R21; score: mean R20 score, policy/opponent)")
    own = [game for _, _, games in results for game in games]
    if own:
        everything = own + reference_games(folder, players, written)
        source = f"these games and {folder}/" if folder is not None else "these games alone"
        ladder_rows = ladder(everything)
        # The fit centres the ratings on their mean, which moves with the set of bots;
        # the gap to greedy, a bot every ladder holds, does not: quote that one.
        anchor = next((rating for bot, _, rating, _, _ in ladder_rows if bot == "greedy"), None)
        print(f"\nBradley-Terry ladder at {players} players ({source}; mean 1500, 95% CI):")
        for bot, count, rating, low, high in ladder_rows:
            mark = "  <--" if bot == policy.spec else ""
            gap = "" if anchor is None else f"  {rating - anchor:+5.0f} vs greedy"
            print(f"  {rating:6.0f} ({low:.0f}-{high:.0f}){gap}  {bot} [{count} games]{mark}")
    if stopped:
        print(f"stopped: run the same command again to continue (results in {out}/)")
        return 130
    return 0
