"""``marrakech play``: play in the terminal, or step through a game record.

marrakech play                       # the setup screen
marrakech play --players 3 --lang fr
marrakech play --seats human,medium,hard --seed 7   # straight into a game (3 players)
marrakech play --load game.json      # resume a saved game
marrakech play --replay game.json    # step through a record

Everything is checked before the screen opens: a refused command exits 2 with one line
saying what was expected and what was found. Seats are numbered from 1 here (``--first``),
as the game shows them; records and the arena count them from 0.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import textual  # noqa: F401  (without the 'tui' extra, `marrakech play` says what to install)

from marrakech.arena import read_game
from marrakech.arguments import add_game_options
from marrakech.errors import MarrakechError
from marrakech.record import GameRecord
from marrakech.rules import PLAYER_COUNTS, STANDARD
from marrakech.tui.session import SeatError, SeatSpec, check_seat_players, record_seats
from marrakech.tui.strings import LANGUAGE_NAMES
from marrakech.tui.timing import SPEEDS

if TYPE_CHECKING:
    from marrakech.tui.app import PlayOptions


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``play`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "play",
        help="play in the terminal",
        description=(
            "Play Marrakech in the terminal against bots or friends (Textual). Without "
            "--seats a setup screen asks for the seats, the rule set and who starts. Seats "
            "are numbered from 1 (--first), as the game shows them."
        ),
    )
    add_game_options(
        parser,
        players=None,
        rules=None,
        players_help="2, 3 or 4 (default: as many as --seats gives, else 4)",
    )
    parser.add_argument(
        "--lang", choices=sorted(LANGUAGE_NAMES), default="en", help="en (default) or fr"
    )
    parser.add_argument(
        "--seats",
        help="skip the setup: one entry per seat, comma-separated: human, a bot level "
        "(easy, medium, hard, expert) or a bot spec as marrakech arena --bots takes them "
        "(mcts:0.5, mcts@iterations=300, expectimax@depth=2); the number of seats is the "
        "number of players. With --load: who plays the record on",
    )
    parser.add_argument(
        "--first",
        type=int,
        default=None,
        metavar="SEAT",
        help="the seat that starts, 1 to the number of players (default: drawn at random)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed for the die, the piles and the bots"
    )
    parser.add_argument(
        "--speed",
        choices=list(SPEEDS),
        default="normal",
        help="how fast Assam walks and bots play: slow, normal (default), fast, instant "
        "(F2 changes it while playing, Esc skips to your turn)",
    )
    parser.add_argument(
        "--no-hints",
        dest="hints",
        action="store_false",
        help="a game without hints (by default H shows the decision a short search "
        "advises, and the end screen counts the hints each human used)",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--replay", metavar="FILE", help="step through a JSON game record")
    group.add_argument("--load", metavar="FILE", help="resume a saved JSON game record")
    parser.add_argument(
        "--game",
        type=int,
        metavar="N",
        help="with --replay or --load of arena results: the game to open (its index, from 0)",
    )
    parser.set_defaults(run=run)


def _seats(text: str) -> tuple[SeatSpec, ...]:
    if not text.strip():
        raise MarrakechError(f"--seats: expected one entry per seat, found {text!r}")
    seats = []
    for part in text.split(","):
        try:
            seats.append(SeatSpec.parse(part))
        except MarrakechError as error:
            raise MarrakechError(f"--seats: {error}") from None
    return tuple(seats)


def _record(args: argparse.Namespace) -> tuple[str, GameRecord] | None:
    """The record given with --replay or --load (and --game), as (option, record)."""
    option, path = ("--replay", args.replay) if args.replay else ("--load", args.load)
    if path is None:
        if args.game is not None:
            raise MarrakechError(
                "--game N picks a game of arena results: give them with --replay or --load"
            )
        return None
    given = [name for name in ("players", "rules") if getattr(args, name) is not None]
    if given:
        raise MarrakechError(
            f"{option}: the record holds its players and rules: leave out "
            + ", ".join(f"--{name}" for name in given)
        )
    if args.first is not None:
        raise MarrakechError(f"{option}: the record holds who started: leave out --first")
    if args.seats is not None and option == "--replay":
        raise MarrakechError(
            "--replay: the record holds its seats: leave out --seats "
            "(--load FILE --seats ... plays a record on with other seats)"
        )
    return option, read_game(path, args.game)


def options_from_args(args: argparse.Namespace) -> PlayOptions:
    """The :class:`~marrakech.tui.app.PlayOptions` for parsed arguments (checked)."""
    from marrakech.tui.app import PlayOptions

    seats = _seats(args.seats) if args.seats is not None else None
    opened = _record(args)
    if opened is not None:
        option, record = opened
        options = PlayOptions(players=record.players, rules=record.rules, lang=args.lang)
        options.seed, options.speed, options.hints = args.seed, args.speed, args.hints
        if option == "--replay":
            options.replay = record
            return options
        if seats is not None and len(seats) != record.players:
            raise MarrakechError(
                f"--seats: expected {record.players} seats for the record's {record.players} "
                f"players, found {len(seats)} ({args.seats!r})"
            )
        if seats is None:
            try:
                check_seat_players(record_seats(record), record.players, "the record")
            except SeatError as error:
                raise MarrakechError(f"{error} (choose the seats with --seats)") from None
        else:
            check_seat_players(seats, record.players, "--seats: the command line")
        options.load, options.seats = record, seats
        return options
    players = args.players
    if seats is not None:
        if players is not None and len(seats) != players:
            raise MarrakechError(
                f"--seats: expected {players} seats for --players {players}, "
                f"found {len(seats)} ({args.seats!r})"
            )
        if len(seats) not in PLAYER_COUNTS:
            raise MarrakechError(
                f"--seats: expected {', '.join(map(str, PLAYER_COUNTS[:-1]))} or "
                f"{PLAYER_COUNTS[-1]} seats, found {len(seats)} ({args.seats!r})"
            )
        players = len(seats)
        check_seat_players(seats, players, "--seats: the command line")
    players = players or 4
    options = PlayOptions(players=players, rules=args.rules or STANDARD, lang=args.lang)
    options.seed, options.seats, options.speed = args.seed, seats, args.speed
    options.hints = args.hints
    if args.first is not None:
        if not 1 <= args.first <= players:
            raise MarrakechError(f"--first: expected a seat 1..{players}, found {args.first}")
        options.first_seat = args.first - 1
    return options


def run(args: argparse.Namespace) -> int:
    from marrakech.render import can_draw_unicode

    options = options_from_args(args)
    if not can_draw_unicode(sys.stdout):
        # The screen draws lines, arrows and dice: a Latin-1 or ASCII terminal would
        # show garbage, or fail on the first of them.
        raise MarrakechError(
            "expected a terminal whose encoding draws Unicode (UTF-8), found "
            f"{sys.stdout.encoding}: set a UTF-8 locale (LANG=C.UTF-8) to play, or read a "
            "game record as ASCII with marrakech replay FILE --ascii"
        )
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise MarrakechError(
            "expected a terminal on standard input and output, found a file or a pipe "
            "(to read a game record as text: marrakech replay FILE)"
        )
    from marrakech.tui.app import MarrakechApp

    MarrakechApp(options).run()
    return 0
