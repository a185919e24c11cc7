"""Shell completion for the ``marrakech`` command, built from its argument parser.

``marrakech completion bash`` and ``marrakech completion zsh`` print a script that
completes the subcommands, each subcommand's options, the values an option takes from a
list (``--lang en|fr``, ``--engine core|fast``), and file or folder names where a path
is expected. The script is written from the parser itself, so a new option or
subcommand completes with no change here::

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="demo")
    >>> commands = parser.add_subparsers(dest="command")
    >>> play = commands.add_parser("play", help="play")
    >>> _ = play.add_argument("--lang", choices=["en", "fr"])
    >>> _ = play.add_argument("--load", metavar="FILE")
    >>> [(o.names, o.values, o.path) for o in describe(parser).commands["play"].options]
    [(('-h', '--help'), None, ''), (('--lang',), ('en', 'fr'), ''), (('--load',), (), 'file')]
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field

from marrakech.rules import NAMED_RULE_SETS, PLAYER_COUNTS, RULE_OPTIONS

#: The shells a script can be printed for.
SHELLS = ("bash", "zsh")

#: Options and arguments that name a file (or a folder) though their metavar does not
#: say so, by their ``dest``.
_FILE_DESTS = {"file", "replay", "load", "out", "csv", "plot", "resume"}
_FOLDER_DESTS = {"records"}


#: The values offered for options of the shared types (:mod:`marrakech.arguments`),
#: by the type's name: the player counts, and the rule sets with and without options.
_TYPE_VALUES: dict[str, tuple[str, ...]] = {
    "players_argument": tuple(str(count) for count in PLAYER_COUNTS),
    "rules_argument": (
        *NAMED_RULE_SETS,
        *(f"{name}+{option.word}" for name in NAMED_RULE_SETS for option in RULE_OPTIONS),
    ),
}


@dataclass(frozen=True)
class OptionInfo:
    """One option: its names, its help, and what follows it: None (nothing: a flag),
    the values it may take (``()``: any), and ``path`` (``file``, ``folder`` or ``''``)."""

    names: tuple[str, ...]
    help: str
    values: tuple[str, ...] | None
    path: str = ""


@dataclass(frozen=True)
class CommandInfo:
    """A subcommand: its help, options, and what its positional arguments complete
    (the choices of the first one, or ``path``)."""

    help: str
    options: tuple[OptionInfo, ...]
    positional_values: tuple[str, ...] = ()
    positional_path: str = ""


@dataclass(frozen=True)
class ParserInfo:
    """The command: its own options and its subcommands, in the parser's order."""

    options: tuple[OptionInfo, ...]
    commands: dict[str, CommandInfo] = field(default_factory=dict)


def _path_kind(action: argparse.Action) -> str:
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    if metavar == "DIR" or action.dest in _FOLDER_DESTS:
        return "folder"
    if metavar == "FILE" or action.dest in _FILE_DESTS:
        return "file"
    return ""


def _options(parser: argparse.ArgumentParser) -> tuple[OptionInfo, ...]:
    found = []
    # argparse offers no public list of a parser's actions; ``_actions`` is the one
    # every completion tool reads.
    for action in parser._actions:
        if not action.option_strings:
            continue
        takes = action.nargs != 0
        values: tuple[str, ...] | None = None
        if takes:
            values = tuple(str(c) for c in action.choices) if action.choices else ()
            values = values or _TYPE_VALUES.get(getattr(action.type, "__name__", ""), ())
        found.append(
            OptionInfo(tuple(action.option_strings), action.help or "", values, _path_kind(action))
        )
    return tuple(found)


def describe(parser: argparse.ArgumentParser) -> ParserInfo:
    """What the completion scripts complete, read off ``parser``."""
    commands: dict[str, CommandInfo] = {}
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            positionals = [a for a in sub._actions if not a.option_strings]
            first = positionals[0] if positionals else None
            values = tuple(str(c) for c in first.choices) if first and first.choices else ()
            path = _path_kind(first) if first is not None else ""
            commands[name] = CommandInfo(helps.get(name, ""), _options(sub), values, path)
    return ParserInfo(_options(parser), commands)


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser``'s command for ``shell`` (bash or zsh)."""
    if shell not in SHELLS:
        raise ValueError(f"expected a shell among {', '.join(SHELLS)}, found {shell!r}")
    info = describe(parser)
    return _bash(parser.prog, info) if shell == "bash" else _zsh(parser.prog, info)


# -- bash -------------------------------------------------------------------------


def _words(words: tuple[str, ...] | list[str]) -> str:
    return " ".join(words)


def _bash_value_cases(options: tuple[OptionInfo, ...], indent: str) -> list[str]:
    """``case "$prev"`` branches: what follows each option that takes a value."""
    lines = []
    for option in options:
        if option.values is None:
            continue
        names = "|".join(option.names)
        if option.values:
            reply = f'COMPREPLY=($(compgen -W "{_words(option.values)}" -- "$cur"))'
        elif option.path == "folder":
            reply = 'COMPREPLY=($(compgen -d -- "$cur"))'
        elif option.path == "file":
            reply = 'COMPREPLY=($(compgen -f -- "$cur"))'
        else:
            reply = "COMPREPLY=()"  # any value: nothing to offer
        lines.append(f"{indent}{names}) {reply}; return ;;")
    return lines


def _bash(prog: str, info: ParserInfo) -> str:
    function = "_" + re.sub(r"\W", "_", prog)
    top = [*info.commands, *(name for o in info.options for name in o.names)]
    lines = [
        f"# bash completion for {prog}: generated by `{prog} completion bash`.",
        f"# Load it with: source <({prog} completion bash)",
        f"{function}() {{",
        "    local cur prev command i",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    command=""',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in',
        "            -*) ;;",
        '            *) command="${COMP_WORDS[i]}"; break ;;',
        "        esac",
        "    done",
        '    if [[ -z "$command" ]]; then',
        f'        COMPREPLY=($(compgen -W "{_words(top)}" -- "$cur"))',
        "        return",
        "    fi",
        '    case "$command" in',
    ]
    for name, command in info.commands.items():
        options = [n for o in command.options for n in o.names]
        lines.append(f"        {name})")
        lines.append('            case "$prev" in')
        lines.extend(_bash_value_cases(command.options, "                "))
        lines.append("            esac")
        lines.append('            if [[ "$cur" == -* ]]; then')
        lines.append(f'                COMPREPLY=($(compgen -W "{_words(options)}" -- "$cur"))')
        if command.positional_values:
            words = _words(command.positional_values)
            lines.append("            else")
            lines.append(f'                COMPREPLY=($(compgen -W "{words}" -- "$cur"))')
        elif command.positional_path:
            flag = "-d" if command.positional_path == "folder" else "-f"
            lines.append("            else")
            lines.append(f'                COMPREPLY=($(compgen {flag} -- "$cur"))')
        lines.append("            fi")
        lines.append("            ;;")
    lines += [
        "    esac",
        "}",
        f"complete -o filenames -F {function} {prog}",
        "",
    ]
    return "\n".join(lines)


# -- zsh --------------------------------------------------------------------------


def _zsh_text(text: str) -> str:
    """Help text inside a single-quoted ``_arguments`` spec: no brackets, colons or
    quotes to end it early."""
    text = " ".join(text.split())
    text = text.replace("[", "(").replace("]", ")").replace(":", r"\:")
    return text.replace("'", "'\\''")


def _zsh_option(option: OptionInfo) -> str:
    help_text = _zsh_text(option.help)
    if option.values is None:
        action = ""
    elif option.values:
        action = f":value:({' '.join(option.values)})"
    elif option.path == "folder":
        action = ":folder:_files -/"
    elif option.path == "file":
        action = ":file:_files"
    else:
        action = ":value: "
    if len(option.names) == 1:
        return f"'{option.names[0]}[{help_text}]{action}'"
    names = " ".join(option.names)
    return f"'({names})'{{{','.join(option.names)}}}'[{help_text}]{action}'"


def _zsh(prog: str, info: ParserInfo) -> str:
    function = "_" + re.sub(r"\W", "_", prog)
    lines = [
        f"#compdef {prog}",
        f"# zsh completion for {prog}: generated by `{prog} completion zsh`.",
        f"# Load it with: source <({prog} completion zsh), or save it as {function}",
        "# in a folder of $fpath.",
        f"{function}() {{",
        "    local -a commands",
        "    commands=(",
    ]
    for name, command in info.commands.items():
        lines.append(f"        '{name}:{_zsh_text(command.help)}'")
    lines += [
        "    )",
        "    if (( CURRENT == 2 )); then",
        "        _describe 'command' commands",
        "        return",
        "    fi",
        "    local command=$words[2]",
        "    shift words",
        "    (( CURRENT-- ))",
        "    case $command in",
    ]
    for name, command in info.commands.items():
        specs = [_zsh_option(option) for option in command.options]
        if command.positional_values:
            specs.append(f"'1:value:({' '.join(command.positional_values)})'")
        elif command.positional_path:
            files = "_files -/" if command.positional_path == "folder" else "_files"
            specs.append(f"'1:{command.positional_path}:{files}'")
        lines.append(f"        {name})")
        lines.append("            _arguments \\")
        lines.extend(f"                {spec} \\" for spec in specs)
        lines.append("                && return 0")
        lines.append("            ;;")
    lines += [
        "    esac",
        "}",
        'if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then',
        f'    {function} "$@"',
        "else",
        f"    compdef {function} {prog}",
        "fi",
        "",
    ]
    return "\n".join(lines)


__all__ = ["SHELLS", "CommandInfo", "OptionInfo", "ParserInfo", "completion_script", "describe"]
