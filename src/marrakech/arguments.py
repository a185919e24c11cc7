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

Every parser of the command is a :class:`Parser`: a refused option is one line saying
what was expected and what was found (:func:`one_line`), as the commands' own refusals.
"""

from __future__ import annotations

import argparse
import re
from typing import NoReturn

from marrakech.errors import MarrakechError
from marrakech.i18n import rule_option_words
from marrakech.rules import (
    NAMED_RULE_SETS,
    PLAYER_COUNTS,
    RULE_OPTIONS,
    STANDARD,
    RuleSet,
    parse_rules,
)

#: argparse's own refusals, reworded as "expected ..., found ..." (its words differ a
#: little between Python versions: quotes around the choices or not).
_REWORDINGS: tuple[tuple[str, str], ...] = (
    (r"invalid choice: (.*) \(choose from (.*)\)", "expected one of {2}, found {1}"),
    (r"invalid int value: (.*)", "expected a whole number, found {1}"),
    (r"invalid float value: (.*)", "expected a number, found {1}"),
    (r"expected one argument", "expected a value after it, found none"),
    (r"not allowed with argument (.*)", "expected it or {1}, not both, found both"),
    (r"the following arguments are required: (.*)", "expected {1}, found none"),
    (r"unrecognized arguments: (.*)", "expected no more arguments, found {1!r}"),
    (r"ambiguous option: (\S+) could match (.*)", "{1}: expected one option, found several: {2}"),
)


def one_line(message: str) -> str:
    """An argparse refusal in the command's own format: one line, what was expected,
    what was found, the option first.

    >>> one_line("argument --lang: invalid choice: 'de' (choose from 'en', 'fr')")
    "--lang: expected one of en, fr, found 'de'"
    >>> one_line("argument --first: invalid int value: 'x'")
    "--first: expected a whole number, found 'x'"
    >>> one_line("the following arguments are required: file")
    'expected file, found none'
    """
    message = " ".join(message.split())
    prefix = ""
    argument = re.match(r"argument (\S+?)(?:/\S+)?: (.*)", message)
    if argument:
        name, message = argument.groups()
        prefix = "" if name == "COMMAND" else f"{name}: "
    for pattern, template in _REWORDINGS:
        found = re.fullmatch(pattern, message)
        if found:
            groups = [found.group(0), *(found.groups())]
            if "choose from" in pattern:
                groups[2] = ", ".join(choice.strip(" '") for choice in groups[2].split(","))
            message = template.format(*groups)
            break
    return prefix + message


class Parser(argparse.ArgumentParser):
    """An argument parser whose refusals are one line (:func:`one_line`) with a pointer
    to the help, and exit 2 as before."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def rules_help() -> str:
    """The help of ``--rules``: the rule sets and the options that may follow them.

    >>> print(rules_help())  # doctest: +NORMALIZE_WHITESPACE
    standard (default), bga, or custom:C2/C3/C4:MONEY:own|no-own, each optionally
    followed by +orient-last (R32: rotate Assam at the end of the turn), e.g. bga+orient-last
    """
    sets = [name + (" (default)" if name == STANDARD.name else "") for name in NAMED_RULE_SETS]
    options = ", ".join(
        f"+{option.word} ({option.rule}: {_lower_first(rule_option_words(option.field).label)})"
        for option in RULE_OPTIONS
    )
    example = f"{list(NAMED_RULE_SETS)[-1]}+{RULE_OPTIONS[0].word}"
    return (
        f"{', '.join(sets)}, or custom:C2/C3/C4:MONEY:own|no-own, each optionally "
        f"followed by {options}, e.g. {example}"
    )


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


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
        help=rules_help(),
    )
