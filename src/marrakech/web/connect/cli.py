"""``marrakech connect URL``: play a seat of a game on a server with a bot or a policy.

    marrakech connect 'http://127.0.0.1:8000/g/GAME#t=TOKEN' --bot expert
    marrakech connect http://127.0.0.1:8000/ --policy my_agent.py --name "Ana's agent"

The URL is a seat's invitation link, a game's link (one of its open seats is taken) or
a server's root (an open seat of its lobby is taken). The seat is shown to the other
players as "bot (external)". The result is printed when the game ends; a seat's link is
printed when one is taken, to come back to it (docs/connect.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import websockets  # noqa: F401 (without it, marrakech.cli says which extra to install)

from marrakech.web.connect import default_name, load_agent, load_policy
from marrakech.web.connect.game_client import GameClient
from marrakech.web.connect.seats import take_seat


def add_parser(subparsers: Any) -> None:
    """Add ``connect`` to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "connect",
        help="play a seat of a game on a server with a bot or a policy file",
        description="Take a seat of a game on a Marrakech server and play it with a bot "
        "spec or a policy file, as an external bot (shown so to the other players), "
        "reconnecting when the connection drops, within the game's clock. URL: a "
        "seat's invitation link (/g/GAME#t=TOKEN), a game's link (one of its open "
        "seats) or a server's root (an open seat of its lobby). Prints the result.",
    )
    parser.add_argument("url", help="an invitation link, a game's link or a server's root")
    who = parser.add_mutually_exclusive_group()
    who.add_argument(
        "--bot",
        default=None,
        metavar="SPEC",
        help="a bot spec as docs/bots.md gives them: easy, medium, hard, expert, "
        "search:0.5, mcts@iterations=400... (default medium)",
    )
    who.add_argument(
        "--policy",
        metavar="FILE[:NAME]",
        help="a Python file (or package.module) defining bot, choose(state, rng) or "
        "policy(observation, mask) (docs/connect.md)",
    )
    parser.add_argument(
        "--name", help="the seat's name when taking an open seat (default: the bot's, '(bot)')"
    )
    parser.add_argument("--seat", type=int, metavar="N", help="with a game's link: which open seat")
    parser.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="with a server's root: a game of N players"
    )
    parser.add_argument(
        "--lang", choices=("en", "fr"), default="en", help="the game log's language"
    )
    parser.add_argument("--seed", type=int, default=None, help="the bot's random seed")
    parser.add_argument(
        "--patience",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="give up after this long without a connection (300)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    agent = load_policy(args.policy) if args.policy else load_agent(args.bot or "medium")

    def report(line: str) -> None:
        if not args.quiet:
            print(f"marrakech connect: {line}", file=sys.stderr, flush=True)

    name = args.name or default_name(agent)
    target = take_seat(args.url, name, seat=args.seat, players=args.players)
    report(f"seat link {target.link()} (marrakech connect LINK plays it again)")
    client = GameClient(
        target, agent, lang=args.lang, seed=args.seed, patience=args.patience, report=report
    )
    result = client.run()
    print(result.summary(), flush=True)
    return 0
