"""``marrakech play``: play in the terminal, or step through a game record.

marrakech play                       # the setup screen
marrakech play --players 3 --lang fr
marrakech play --seats human,medium,hard --seed 7   # straight into a game
marrakech play --load game.json      # resume a saved game
marrakech play --replay game.json    # step through a record
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

import textual  # noqa: F401  (without the 'tui' extra, `marrakech play` says what to install)

from marrakech.arguments import add_game_options
from marrakech.errors import MarrakechError
from marrakech.record import GameRecord
from marrakech.tui.session import SeatSpec
from marrakech.tui.strings import LANGUAGE_NAMES

if TYPE_CHECKING:
    from marrakech.tui.app import PlayOptions


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``play`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "play",
        help="play in the terminal",
        description=(
            "Play Marrakech in the terminal against bots or friends (Textual). Without "
            "--seats a setup screen asks for the seats, the rule set and who starts."
        ),
    )
    add_game_options(parser)
    parser.add_argument(
        "--lang", choices=sorted(LANGUAGE_NAMES), default="en", help="en (default) or fr"
    )
    parser.add_argument(
        "--seats",
        help="skip the setup: one entry per seat, comma-separated: human or a bot level "
        "(easy, medium, hard, expert) or bot name, e.g. human,medium,medium",
    )
    parser.add_argument(
        "--first", type=int, default=None, help="the seat that starts (0-based; default random)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for the die, piles and bots")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--replay", metavar="FILE", help="step through a JSON game record")
    group.add_argument("--load", metavar="FILE", help="resume a saved JSON game record")
    parser.set_defaults(run=run)


def _read(path: str) -> GameRecord:
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as error:
        raise MarrakechError(f"cannot read {path}: {error.strerror}") from None
    return GameRecord.from_json(text)


def options_from_args(args: argparse.Namespace) -> PlayOptions:
    """The :class:`~marrakech.tui.app.PlayOptions` for parsed arguments (checked)."""
    from marrakech.tui.app import PlayOptions

    options = PlayOptions(players=args.players, rules=args.rules, lang=args.lang, seed=args.seed)
    if args.seats:
        seats = tuple(SeatSpec.parse(part) for part in args.seats.split(","))
        if len(seats) != args.players:
            raise MarrakechError(
                f"--seats: expected {args.players} seats for --players {args.players}, "
                f"found {len(seats)} ({args.seats!r})"
            )
        options.seats = seats
    if args.first is not None:
        if not 0 <= args.first < args.players:
            raise MarrakechError(
                f"--first: expected a seat 0..{args.players - 1}, found {args.first}"
            )
        options.first_seat = args.first
    if args.replay:
        options.replay = _read(args.replay)
    if args.load:
        options.load = _read(args.load)
    return options


def run(args: argparse.Namespace) -> int:
    from marrakech.tui.app import MarrakechApp

    MarrakechApp(options_from_args(args)).run()
    return 0
