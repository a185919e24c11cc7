"""``marrakech arena``: play bots against each other, report win shares and ratings.

    marrakech arena --players 4 --bots mcts:0.2,greedy,greedy,greedy --games 400 \\
        --workers 2 --seed 1 --out results.jsonl --csv results.csv --plot ratings.png
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from marrakech.arena.match import MatchConfig
from marrakech.arena.output import save_csv, save_plot
from marrakech.arena.runner import BACKENDS, ProgressBar, read_results, run_match
from marrakech.arena.stats import format_table, seat_shares, summarise
from marrakech.arguments import add_game_options
from marrakech.bots import make_bot, parse_bot_spec
from marrakech.errors import MarrakechError
from marrakech.rules import STANDARD


def add_parser(subparsers: Any) -> None:
    """Add the ``arena`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "arena",
        help="play bots against each other and rate them",
        description=(
            "Play a match between bots with every seat arrangement rotated evenly, in "
            "parallel, and report per bot: win share with a 95 percent interval, the same "
            "corrected for dice luck, mean score, mean rank and a Bradley-Terry rating. "
            "Bot specs: NAME[:SECONDS][@KEY=VALUE]..., "
            "e.g. mcts:0.2, mcts@iterations=2000, expectimax@depth=2, greedy, random, or a "
            "level (easy, medium, hard, expert)."
        ),
    )
    add_game_options(parser, players=None, rules=None)
    parser.add_argument(
        "--bots",
        help="comma-separated bot specs, one per seat (e.g. mcts,greedy,greedy,greedy); "
        "--players defaults to their number",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games to play (default 100); with --resume, more games than the file's "
        "extend its match",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="parallel games (default: one per core)",
    )
    parser.add_argument("--seed", type=int, default=None, help="match seed (default 0)")
    parser.add_argument("--backend", choices=BACKENDS, default="local")
    parser.add_argument("--address", help="Ray cluster address (with --backend ray)")
    parser.add_argument(
        "--out", help="results file (JSON Lines, one game record per line); default arena-*.jsonl"
    )
    parser.add_argument("--csv", help="write the table as CSV")
    parser.add_argument("--plot", help="write a PNG of ratings and win shares")
    parser.add_argument("--resume", metavar="FILE", help="continue the match saved in FILE")
    parser.add_argument(
        "--records", metavar="DIR", help="also save each game record as DIR/game-N.json"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


DEFAULT_GAMES = 100


def _config(args: argparse.Namespace) -> MatchConfig:
    if not args.bots:
        raise MarrakechError("expected --bots (e.g. --bots mcts,greedy) or --resume FILE")
    bots = tuple(b.strip() for b in args.bots.split(","))
    for spec in dict.fromkeys(bots):
        try:
            # Build each bot once here: a bad value (a negative weight, an unknown
            # objective) is refused before any worker starts, not as a worker's traceback.
            make_bot(spec)
        except ValueError as error:
            raise MarrakechError(str(error)) from None
    players = len(bots) if args.players is None else args.players
    if len(bots) != players:
        raise MarrakechError(
            f"--bots gives {len(bots)} seats but --players is {players}: "
            "expected one bot spec per seat"
        )
    games = DEFAULT_GAMES if args.games is None else args.games
    return MatchConfig(players, bots, games, args.seed or 0, args.rules or STANDARD)


def _resumed(args: argparse.Namespace) -> MatchConfig:
    """The match of the results file ``--resume`` names, extended by ``--games``."""
    fixed = [
        option
        for option, value in (
            ("--bots", args.bots),
            ("--players", args.players),
            ("--rules", args.rules),
            ("--seed", args.seed),
            ("--out", args.out),
        )
        if value is not None
    ]
    if fixed:
        raise MarrakechError(
            f"--resume continues the match saved in {args.resume} with its own bots, players, "
            f"rules, seed and file; leave out {', '.join(fixed)} (--games may extend it)"
        )
    config, _ = read_results(args.resume)
    if args.games is not None and args.games < config.games:
        raise MarrakechError(
            f"{args.resume} holds a match of {config.games} games: --games may extend it, "
            f"found {args.games}"
        )
    return config if args.games is None else replace(config, games=args.games)


def _check(args: argparse.Namespace) -> None:
    """Every option that cannot work, refused before anything starts or prints."""
    if args.workers < 1:
        raise MarrakechError(f"--workers: expected at least 1, found {args.workers}")
    if args.games is not None and args.games < 1:
        raise MarrakechError(f"--games: expected at least 1, found {args.games}")
    if args.address and args.backend != "ray":
        raise MarrakechError("--address names a Ray cluster: add --backend ray")
    if args.out and not args.resume and Path(args.out).exists():
        raise MarrakechError(
            f"{args.out} already exists: continue its match with --resume {args.out}, or "
            "choose another --out"
        )
    # Every file the match ends with, checked now: not after an hour of games.
    for option, path in (("--out", args.out), ("--csv", args.csv), ("--plot", args.plot)):
        if path:
            _check_file(option, Path(path))
    if args.records:
        _check_folder("--records", Path(args.records))
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            message = "--plot needs matplotlib: pip install 'marrakech[arena]'"
            raise MarrakechError(message) from None


def _check_file(option: str, path: Path) -> None:
    """``path`` can be written: not a folder, in a folder that exists and may be written
    in (a missing folder is never created behind the player's back)."""
    if path.is_dir():
        raise MarrakechError(f"{option}: expected a file name, found the folder {path}")
    _check_folder(option, path.parent, f" for {path}")


def _check_folder(option: str, folder: Path, purpose: str = "") -> None:
    """``folder`` exists, is a folder and may be written in."""
    if not folder.exists():
        raise MarrakechError(
            f"{option}: expected an existing folder{purpose}, found no folder {folder} "
            f"(create it first: mkdir -p {folder})"
        )
    if not folder.is_dir():
        raise MarrakechError(f"{option}: expected a folder{purpose}, found the file {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise MarrakechError(
            f"{option}: expected a folder you may write in{purpose}, found {folder} "
            "(permission denied)"
        )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    _check(args)
    if args.resume:
        config = _resumed(args)
        out = args.resume
    else:
        config = _config(args)
        out = args.out or time.strftime("arena-%Y%m%d-%H%M%S.jsonl")
    timed = [s for s in set(config.bots) if parse_bot_spec(s)[1].get("seconds", 0) is not None]
    clocked = [s for s in timed if parse_bot_spec(s)[0] in ("mcts", "expectimax")]
    if clocked and not args.quiet:
        print(
            f"note: {', '.join(sorted(clocked))} play on a clock, so games depend on the machine's "
            "load; use @iterations=N (mcts) or @depth=N (expectimax) for exactly reproducible "
            "results"
        )
    arrangements = config.arrangement_count
    if config.games % arrangements and not args.quiet:
        print(
            f"note: {config.games} games do not divide evenly into the {arrangements} seat "
            "arrangements; use a multiple for exactly balanced seats"
        )
    if not args.quiet:
        print(
            f"arena: {config.players} players, rules {config.rules}, bots "
            f"{','.join(config.bots)}, {config.games} games, seed {config.seed}, "
            f"{args.workers} worker(s) on {args.backend}; results in {out}"
        )
    bar = None if args.quiet else ProgressBar()
    # `kill PID` (SIGTERM) stops the match as cleanly as Ctrl-C: finished games are kept.
    # SIGINT too, even when the shell started us with it ignored (a background job).
    previous = signal.signal(signal.SIGTERM, _interrupt)
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        outcome = run_match(
            config,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            out=out,
            resume=bool(args.resume),
            progress=bar,
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)
    if bar is not None:
        bar.finish()
    games = outcome.games
    if outcome.interrupted:
        print(
            f"stopped: {len(games)} of {config.games} games kept in {out}; "
            f"continue with: marrakech arena --resume {out}"
        )
    if not games:
        return 130 if outcome.interrupted else 0
    rows = summarise(games)
    print(format_table(rows))
    shares = "  ".join(
        f"seat {s}: {share:.1%}" for s, share in enumerate(seat_shares(games, config.players))
    )
    print(f"win share by seat: {shares}")
    if args.records:
        folder = Path(args.records)  # checked before the first game (_check)
        for game in games:
            (folder / f"game-{game.index:05d}.json").write_text(
                game.record.to_json(indent=1), encoding="utf-8"
            )
    if args.csv:
        save_csv(rows, args.csv)
    if args.plot:
        title = f"{config.players} players, {config.rules}, {len(games)} games"
        save_plot(rows, args.plot, title)
    return 130 if outcome.interrupted else 0
