"""``marrakech admin tournament``: the operator's tournaments, on the server's database.

::

    $ marrakech admin tournament create "Hourly blitz arena" --minutes 45 --in 10
    $ marrakech admin tournament create "Weekly Swiss" --kind swiss --rounds 5 \\
          --clock turn_1d --starts 2026-12-07T18:00Z --players 3 --bot medium
    $ marrakech admin tournament create "Under 1200" --minutes 30 --max-rating 1200
    $ marrakech admin tournament list

Every running instance picks a new tournament up at its next tick (a second).
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from typing import Any

from marrakech.web.protocol import iso_time
from marrakech.web.store import GameStore
from marrakech.web.tournaments.service import Tournaments
from marrakech.web.tournaments.tournament import CLOCKS, TournamentSpec


def _starts(text: str) -> float:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a date and time (2026-12-07T18:00Z), found {text!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def add_parser(actions: Any) -> None:
    """Add ``tournament create`` and ``tournament list`` to ``marrakech admin``."""
    parser = actions.add_parser(
        "tournament",
        help="create an arena or a Swiss event, list those to come",
        description="Create a tournament (docs/web.md, 'Tournaments'), or list those not over yet.",
    )
    commands = parser.add_subparsers(dest="tournament", metavar="COMMAND", required=True)
    create = commands.add_parser("create", help="create a tournament")
    create.add_argument("name", help="its name, as pages show it")
    create.add_argument("--kind", choices=("arena", "swiss"), default="arena")
    create.add_argument("--minutes", type=int, default=60, help="an arena's length (60)")
    create.add_argument("--rounds", type=int, default=5, help="a Swiss event's rounds (5)")
    create.add_argument("--players", type=int, default=2, help="players a game, 2 to 4 (2)")
    create.add_argument("--clock", choices=CLOCKS, default="blitz", help="its games' (blitz)")
    create.add_argument("--rules", default="standard", help="its games' rule set (standard)")
    when = create.add_mutually_exclusive_group()
    when.add_argument("--starts", type=_starts, help="when, ISO 8601 (UTC unless said)")
    when.add_argument("--in", dest="in_minutes", type=int, help="in this many minutes")
    create.add_argument("--max-rating", type=int, help="only accounts rated up to this")
    create.add_argument(
        "--bot", action="append", default=[], metavar="LEVEL", help="a bot entrant (repeatable)"
    )
    create.add_argument("--private", action="store_true", help="listed nowhere: by link")
    create.add_argument("--unrated", action="store_true", help="its games are not rated")
    commands.add_parser("list", help="the tournaments not over yet, private ones included")


async def run(store: GameStore, args: argparse.Namespace) -> str:
    """Do ``args.tournament``; what to print. :class:`ValueError` for a bad setting."""
    tournaments = Tournaments(store)
    if args.tournament == "list":
        lines = []
        for private in (False, True):
            for one in await tournaments.listed(limit=1000, private=private):
                lines.append(
                    f"{one.id}  {one.status:9}  {iso_time(one.starts)}  {one.kind:5}  "
                    f"{one.name}{'  (private)' if one.private else ''}  /t/{one.id}"
                )
        return "\n".join(lines) or "no tournament to come"
    starts = args.starts
    if args.in_minutes is not None:
        starts = time.time() + 60 * args.in_minutes
    spec = TournamentSpec(
        name=args.name,
        kind=args.kind,
        players=args.players,
        clock=args.clock,
        rules=args.rules,
        starts=starts or 0.0,
        minutes=args.minutes,
        rounds=args.rounds,
        private=args.private,
        rated=not args.unrated,
        max_rating=args.max_rating,
        bots=tuple(args.bot),
    )
    created = await tournaments.create(spec)
    assert created is not None  # no schedule key: never a duplicate
    starting = iso_time(created.starts)
    return f"created {created.kind} {created.name!r}, starting {starting}: /t/{created.id}"
