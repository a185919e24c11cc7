"""Command-line arguments that every layer's ``marrakech`` subcommand shares.

The ``marrakech`` command (:mod:`marrakech.cli`) sits above every layer and gathers their
subcommands; the layers build their own parsers (``play`` in :mod:`marrakech.tui.cli`,
``arena`` in :mod:`marrakech.arena.cli`...) and take the common options from here, below
them, rather than from the command above them::

    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_game_options(parser)
    >>> args = parser.parse_args(["--players", "3", "--rules", "bga"])
    >>> args.players, args.rules.name
    (3, 'bga')
"""

from __future__ import annotations

import argparse

from marrakech.errors import MarrakechError
from marrakech.rules import PLAYER_COUNTS, STANDARD, RuleSet, parse_rules


def rules_argument(text: str) -> RuleSet:
    """An argparse type: a rule set word (``standard``, ``bga``, ``custom:...``)."""
    try:
        return parse_rules(text)
    except MarrakechError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def players_argument(text: str) -> int:
    """An argparse type: 2, 3 or 4 players."""
    if text not in [str(count) for count in PLAYER_COUNTS]:
        raise argparse.ArgumentTypeError(f"expected 2, 3 or 4 players, found {text!r}")
    return int(text)


def add_game_options(
    parser: argparse.ArgumentParser,
    players: int | None = 4,
    rules: RuleSet | None = STANDARD,
    players_help: str | None = None,
) -> None:
    """``--players`` and ``--rules``, shared by every subcommand that starts games.

    A default of None lets a subcommand tell an option left out from one given (the
    player count may follow from the seats, a resumed match keeps its own rules).
    """
    default = f" (default {players})" if players else ""
    parser.add_argument(
        "--players",
        type=players_argument,
        default=players,
        help=players_help or f"2, 3 or 4{default}",
    )
    parser.add_argument(
        "--rules",
        type=rules_argument,
        default=rules,
        help="standard (default), bga, or custom:C2/C3/C4:MONEY:own|no-own",
    )
