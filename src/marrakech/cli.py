"""The ``marrakech`` command: ``perft``, ``bench``, ``replay``, ``analyse`` and the layers'
commands.

Subcommands of the optional layers (``serve``, ``admin``, ``play``, ``arena``) live with their layer
and are imported only when used, so the core command works without their extras.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
from collections.abc import Sequence

from marrakech import __version__
from marrakech.arguments import Parser, add_game_options
from marrakech.completion import SHELLS, completion_script
from marrakech.errors import MarrakechError
from marrakech.rules import STANDARD

#: Subcommands provided by optional layers: name -> (module, extra, help).
LAYER_COMMANDS: dict[str, tuple[str, str, str]] = {
    "serve": ("marrakech.web.cli", "web", "start the web app (lobby, live games, replays)"),
    "admin": (
        "marrakech.web.admin_cli",
        "web",
        "run the web app: hide chat messages, list reports, ban addresses, back up",
    ),
    "play": ("marrakech.tui.cli", "tui", "play in the terminal"),
    "learn": ("marrakech.tui.tutorial", "tui", "learn to play: short lessons in the terminal"),
    "arena": ("marrakech.arena.cli", "arena", "play bots against each other and rate them"),
    "evaluate": (
        "marrakech.arena.evaluate",
        "arena",
        "rate a policy or bot against the reference bots, on the bots' ladder",
    ),
    "compile": (
        "marrakech.fast.cli",
        "fast",
        "compile the fast kernels now, so that no later program waits for them",
    ),
    "train": (
        "marrakech.training.cli",
        "fast",
        "train a network by self-play with search, generation by generation",
    ),
    "pretrain": (
        "marrakech.training.pretrain",
        "fast",
        "a network for `marrakech train --init` from the recorded games",
    ),
    "connect": (
        "marrakech.web.connect.cli",
        "connect",
        "play a seat of a game on a server with a bot or a policy file",
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="marrakech", description="The board game Marrakech: engine, bots, play.")
    parser.add_argument("--version", action="version", version=f"marrakech {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    perft = commands.add_parser(
        "perft",
        help="count game-tree leaves (regression check)",
        description="Count the leaves of the game tree from the start (or --position) to "
        "each depth 1..DEPTH, chance outcomes included: the engine's regression check "
        "(docs/engine.md lists the expected counts).",
    )
    add_game_options(perft, players=None, rules=None)
    perft.add_argument(
        "--position", help="start from this position string (it holds its players and rules)"
    )
    perft.add_argument("depth", type=int, help="plies to count (each depth 1..DEPTH printed)")

    bench = commands.add_parser(
        "bench",
        help="time random games through the engine",
        description="Play random games through the pure-Python engine (core) or the "
        "compiled kernels (fast) and print games, actions and decisions per second.",
    )
    add_game_options(bench)
    bench.add_argument(
        "--engine",
        choices=("core", "fast"),
        default="core",
        help="core: the pure-Python engine (default); fast: the compiled kernels",
    )
    bench.add_argument(
        "--games", type=int, default=None, help="games to play (default 1000 core, 200000 fast)"
    )
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--workers", type=int, default=1, help="processes to play in (default 1)")
    bench.add_argument(
        "--batch",
        type=int,
        default=None,
        metavar="N",
        help="fast engine: also time batched stepping of N games (default 4096, 0 to skip)",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")

    replay = commands.add_parser(
        "replay",
        help="print every position of a game record",
        description="Print every position of a game record (or one game of arena "
        "results) as a board, with its action and position string, then each seat's "
        "dice luck. A terminal whose encoding cannot draw the board gets it in ASCII.",
    )
    replay.add_argument("file", help="a JSON game record, or an arena results file")
    replay.add_argument(
        "--game", type=int, metavar="N", help="with arena results: the game to show (its index)"
    )
    replay.add_argument("--ascii", action="store_true", help="ASCII instead of Unicode")

    analyse = commands.add_parser(
        "analyse",
        help="each seat's winning chances after every turn of a game record",
        description="Each seat's winning chances and expected final margin after every "
        "turn of a game record (the learned value; exact at the end), then the turns "
        "that moved them most.",
    )
    analyse.add_argument("file", help="a JSON game record, or an arena results file")
    analyse.add_argument(
        "--game", type=int, metavar="N", help="with arena results: the game to show (its index)"
    )
    analyse.add_argument(
        "--swings", type=int, default=5, metavar="K", help="the K biggest swings to list (5)"
    )

    for name, (module, extra, help_text) in LAYER_COMMANDS.items():
        try:
            layer = importlib.import_module(module)
        except ImportError:
            sub = commands.add_parser(
                name,
                help=f"{help_text} (needs the '{extra}' extra)",
                description=f"{help_text[:1].upper()}{help_text[1:]}: this needs the "
                f"'{extra}' extra (pip install 'marrakech[{extra}]').",
            )
            sub.set_defaults(missing_extra=extra)
            continue
        layer.add_parser(commands)
        layer_parser = commands.choices[name]
        if not layer_parser.description:  # every subcommand's help says what it does
            layer_parser.description = f"{help_text[:1].upper()}{help_text[1:]}."

    completion = commands.add_parser(
        "completion",
        help="print a shell completion script (bash or zsh)",
        description="Print the completion script of the marrakech command for bash or "
        "zsh, built from its options. Load it in the current shell with "
        "'source <(marrakech completion bash)', or save it where the shell reads "
        "completions (docs/terminal.md).",
    )
    completion.add_argument("shell", choices=SHELLS, help="bash or zsh")
    for sub in commands.choices.values():
        sub.set_defaults(subcommand_parser=sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if unknown:  # said by the subcommand, with its own usage line
        args.subcommand_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return _run(parser, args)
    except BrokenPipeError:
        # The reader went away (`marrakech replay FILE | head`): stop quietly as other
        # command-line tools do, with the status of a process ended by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if getattr(args, "missing_extra", None):
        parser.error(
            f"'{args.command}' needs the '{args.missing_extra}' extra: "
            f"pip install 'marrakech[{args.missing_extra}]'"
        )
    try:
        if args.command == "perft":
            return _perft(args)
        if args.command == "bench":
            return _bench(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "analyse":
            return _analyse(args)
        if args.command == "completion":
            print(completion_script(parser, args.shell), end="")
            return 0
        if hasattr(args, "run"):
            result: int = args.run(args)
            return result
    except MarrakechError as error:
        print(f"marrakech {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    args.subcommand_parser.print_help(sys.stderr)
    return 2


def _perft(args: argparse.Namespace) -> int:
    from marrakech.perft import perft
    from marrakech.state import State

    if args.position is not None:
        given = [name for name in ("players", "rules") if getattr(args, name) is not None]
        if given:
            raise MarrakechError(
                "--position holds its own players and rules: leave out "
                + ", ".join(f"--{name}" for name in given)
            )
        state = State.from_notation(args.position)
    else:
        state = State.new(args.players or 4, args.rules or STANDARD)
    if args.depth < 0:
        raise MarrakechError(f"depth must be >= 0, found {args.depth}")
    for depth in range(1, args.depth + 1):
        print(f"perft {depth} {perft(state, depth)}", flush=True)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from marrakech.bench import bench_core

    fast = args.engine == "fast"
    games = args.games if args.games is not None else (200_000 if fast else 1000)
    if games < 1:
        raise MarrakechError(f"--games must be at least 1, found {games}")
    if args.workers < 1:
        raise MarrakechError(f"--workers must be at least 1, found {args.workers}")
    if args.batch is not None and args.batch < 0:
        raise MarrakechError(f"--batch must be 0 or more games, found {args.batch}")
    if not fast and args.batch:
        raise MarrakechError("--batch times the compiled kernels: add --engine fast")
    if fast:
        try:
            from marrakech.fast.bench import bench_fast

            batch = 4096 if args.batch is None else args.batch
            result = bench_fast(args.players, args.rules, games, args.seed, args.workers, batch)
        except ImportError as error:
            print(f"marrakech bench: {error}", file=sys.stderr)
            return 2
    else:
        result = bench_core(args.players, args.rules, games, args.seed, args.workers)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        workers = f", {args.workers} workers" if args.workers > 1 else ""
        print(f"engine {args.engine}, {args.players} players, rules {args.rules}{workers}")
        print("\n".join(result.lines()))
    return 0


def _replay(args: argparse.Namespace) -> int:
    from marrakech.arena import read_game
    from marrakech.luck import dice_luck
    from marrakech.render import can_draw_unicode, render, supports_color

    record = read_game(args.file, args.game)
    color = supports_color()
    unicode = not args.ascii
    if unicode and not can_draw_unicode(sys.stdout):
        unicode = False
        print(
            f"marrakech replay: standard output's encoding ({sys.stdout.encoding}) cannot "
            "draw the board's lines: drawn in ASCII (--ascii does it on purpose; a UTF-8 "
            "locale such as LANG=C.UTF-8 draws them)",
            file=sys.stderr,
        )
    actions = (None, *record.actions)
    for number, (action, state) in enumerate(zip(actions, record.states(), strict=True)):
        heading = "start" if action is None else f"{number}. {action}"
        print(f"== {heading}")
        print(render(state, unicode=unicode, color=color))
        print(state.notation())
    luck = "  ".join(f"seat {seat}: {x:+.1f}" for seat, x in enumerate(dice_luck(record)))
    print(f"dice luck (dirhams the die moved beyond each roll's expectation): {luck}")
    return 0


def _analyse(args: argparse.Namespace) -> int:
    from marrakech.arena import read_game
    from marrakech.bots.analysis import analyse_game

    if args.swings < 0:
        raise MarrakechError(f"--swings must be 0 or more, found {args.swings}")
    record = read_game(args.file, args.game)
    analysis = analyse_game(record)
    seats = range(record.players)
    names = [
        f"seat {s}" + (f" ({record.seats[s]})" if s < len(record.seats) else "") for s in seats
    ]
    print(
        "winning chances and expected final margins (points ahead of the others' mean) "
        "after each turn (learned value; exact at the end)"
    )
    print("  ".join(f"{s}: {name}" for s, name in zip(seats, names, strict=True)))
    print(f"{'turn':>4}  {'seat':>4}  " + "  ".join(f"{f'seat {s}':>14}" for s in seats))
    for turn in analysis.turns:
        who = "-" if turn.seat is None else str(turn.seat)
        cells = "  ".join(
            f"{c:>6.1%} {m:>+7.1f}" for c, m in zip(turn.chances, turn.margins, strict=True)
        )
        print(f"{turn.turn:>4}  {who:>4}  {cells}")
    swings = analysis.swings(args.swings)
    if swings:
        print(f"biggest swings (of {len(analysis.turns) - 1} turns):")
    for swing in swings:
        played = " ".join(str(action) for action in swing.turn.actions)
        print(
            f"  turn {swing.turn.turn} (seat {swing.turn.seat}: {played}): seat {swing.seat} "
            f"{swing.before:.1%} -> {swing.after:.1%} ({swing.change:+.1%})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
