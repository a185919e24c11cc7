"""Bots: one protocol (:class:`Bot`), every strength, chosen by name, level or spec.

======  ==============  ==============================================  ==================
level   bot             how it plays                                    interactive budget
======  ==============  ==============================================  ==================
easy    random          uniform over the legal decisions                instant
learned policy          the shipped policy network of the player count  instant
medium  greedy          one turn deep with a static evaluation          instant
hard    search-quick    compiled MCTS with the learned value            160,000 iterations
expert  search          compiled MCTS with the learned value            640,000 iterations
-       expectimax      max-n search over die and replies, by turns     1 s a decision
-       mcts            Python MCTS, compiled playouts                  1 s a decision
-       hard-v1         ``expectimax`` at its level settings (frozen)   1 s a decision
-       expert-v1       ``mcts`` at its level settings (frozen)         1 s a decision
-       policy-2p       a learned policy network (2 players)            instant
-       policy-4p       a learned policy network (4 players)            instant
-       az              a network of marrakech train, Gumbel search     32 simulations
======  ==============  ==============================================  ==================

``policy`` (the ``learned`` level) plays ``policy-2p`` at two players and ``policy-4p`` at
four, and refuses three players (:data:`LEVEL_PLAYERS`); given ``@weights=FILE.npz`` or
``@function=MODULE:CALLABLE`` it plays any policy (:mod:`marrakech.bots.policy`).

``hard-v1`` and ``expert-v1`` are the ``hard`` and ``expert`` levels of version 0.1, kept
by name as baselines for the ladder. A registry line may preset options (``search-quick``
is ``search`` with the ``hard`` budget); a spec overrides them. The ``hard`` and
``expert`` budgets are iterations by player count (at two players in the table above;
:data:`marrakech.bots.search.LEVEL_ITERATIONS`), what the search runs in a quarter of a
second and in one second on a quiet machine, with three times that as a cap: a busy
machine makes them slower, not weaker.

A *bot spec* names a bot and, optionally, its budget: ``NAME[:SECONDS][@KEY=VALUE]...``,
for example ``mcts:0.2`` (0.2 s a decision), ``search@iterations=20000`` (exactly 20000
iterations, no clock: reproducible), ``expectimax@depth=2`` or ``hard``.

>>> import random
>>> from marrakech import State
>>> bot = make_bot("random")
>>> bot.choose(State.new(players=4), random.Random(0)) in State.new(players=4).legal_actions()
True
>>> make_bot("mcts:0.2").seconds, make_bot("expert@iterations=300").iterations
(0.2, 300)
>>> make_bot("hard").budget, make_bot("hard").seconds, make_bot("expert").seconds
('hard', 0.75, 3.0)
>>> parse_bot_spec("expectimax:0.5@depth=3")
('expectimax', {'seconds': 0.5, 'depth': 3})
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from marrakech.bots.az import AzBot
from marrakech.bots.base import Bot
from marrakech.bots.expectimax import ExpectimaxBot
from marrakech.bots.greedy import GreedyBot
from marrakech.bots.mcts import MctsBot
from marrakech.bots.policy import SHIPPED_PLAYERS, PolicyBot
from marrakech.bots.random_bot import RandomBot
from marrakech.bots.search import SearchBot
from marrakech.rules import PLAYER_COUNTS


@dataclass(frozen=True)
class BotEntry:
    """One line of the registry: a bot's name, its class, its player-facing level,
    options preset for this name (``(("seconds", 0.25),)``; a spec overrides them), and
    the player counts it plays with those presets (R4's, unless it refuses some)."""

    name: str
    factory: type[Bot]
    level: str | None = None
    presets: tuple[tuple[str, Any], ...] = ()
    players: tuple[int, ...] = PLAYER_COUNTS


#: Every bot, weakest level first. Adding a bot is one file in ``bots/`` and one line
#: here; names, levels, specs and every interface's list of levels come from it.
REGISTRY: tuple[BotEntry, ...] = (
    BotEntry("random", RandomBot, level="easy"),
    # Learned baselines (issue 27): a network over the observation, no search. Between
    # random and greedy on the ladder at both player counts (docs/bots.md), so the
    # ``learned`` level comes second, weakest first.
    BotEntry("policy", PolicyBot, level="learned", players=SHIPPED_PLAYERS),
    BotEntry("policy-2p", PolicyBot, presets=(("weights", "policy-2p"),), players=(2,)),
    BotEntry("policy-4p", PolicyBot, presets=(("weights", "policy-4p"),), players=(4,)),
    BotEntry("greedy", GreedyBot, level="medium"),
    BotEntry("expectimax", ExpectimaxBot),
    BotEntry("mcts", MctsBot),
    # Version 0.1's hard and expert levels, frozen as baselines (their level settings
    # were the constructors' defaults).
    BotEntry("hard-v1", ExpectimaxBot),
    BotEntry("expert-v1", MctsBot),
    # The levels search a count (their budget's iterations at the game's player count,
    # what they search in 0.25 s and 1 s on a quiet machine), so that a busy machine
    # does not make them weaker; their seconds are only a cap (three times that).
    BotEntry(
        "search-quick",
        SearchBot,
        level="hard",
        presets=(("budget", "hard"), ("seconds", 0.75)),
    ),
    BotEntry("search", SearchBot, level="expert", presets=(("budget", "expert"), ("seconds", 3.0))),
    # A network of marrakech train (issue 38): az@weights=FILE.npz[@simulations=N].
    BotEntry("az", AzBot),
)

#: Bot names -> their classes (constructors taking keyword budgets and options).
BOTS: dict[str, type[Bot]] = {entry.name: entry.factory for entry in REGISTRY}
#: Bot names -> the options their registry line presets.
PRESETS: dict[str, dict[str, Any]] = {entry.name: dict(entry.presets) for entry in REGISTRY}
#: Player-facing levels, weakest first -> bot names.
LEVELS: dict[str, str] = {entry.level: entry.name for entry in REGISTRY if entry.level}
#: Player-facing levels -> the player counts each plays (``learned``: 2 and 4 only).
LEVEL_PLAYERS: dict[str, tuple[int, ...]] = {
    entry.level: entry.players for entry in REGISTRY if entry.level
}
#: Budgets that count work rather than time: giving one alone drops the default clock.
COUNT_BUDGETS = ("iterations", "depth")


@dataclass(frozen=True)
class Option:
    """A keyword a bot's constructor takes: its value type, whether ``none`` is allowed,
    and its default."""

    kind: type
    optional: bool
    default: Any


@cache
def options_of(name: str) -> dict[str, Option]:
    """The keywords bot ``name`` takes, read from its constructor's signature and types.

    >>> options_of("greedy")["area"]
    Option(kind=<class 'float'>, optional=True, default=None)
    """
    factory = BOTS[bot_name(name)]
    hints = typing.get_type_hints(factory.__init__)
    options: dict[str, Option] = {}
    for key, parameter in inspect.signature(factory).parameters.items():
        hint = hints[key]
        members = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        kinds = [member for member in members if member is not type(None)]
        if len(kinds) != 1 or kinds[0] not in (bool, int, float, str):
            raise TypeError(f"bot {name}: option {key} must be bool, int, float or str")
        default = PRESETS.get(bot_name(name), {}).get(key, parameter.default)
        options[key] = Option(kinds[0], len(kinds) < len(members), default)
    return options


def _known() -> str:
    return ", ".join([*BOTS, *LEVELS])


def bot_name(name: str) -> str:
    """The bot name behind a name or a level (``hard`` -> ``expectimax``)."""
    key = LEVELS.get(name, name)
    if key not in BOTS:
        raise ValueError(f"unknown bot {name!r}: expected one of {_known()}")
    return key


def player_games(players: Sequence[int]) -> str:
    """Player counts as English says them: ``2- or 4-player games``.

    >>> player_games((2, 3, 4)), player_games((4,))
    ('2-, 3- or 4-player games', '4-player games')
    """
    *others, last = map(str, players)
    head = "".join(f"{count}-, " for count in others[:-1])
    return (f"{head}{others[-1]}- or " if others else "") + f"{last}-player games"


def check_level_players(level: str, players: int) -> None:
    """Refuse a level that does not play ``players``-player games, saying which it plays.

    >>> check_level_players("learned", 3)
    Traceback (most recent call last):
    ...
    ValueError: the learned level plays 2- or 4-player games only, found 3 players
    """
    counts = LEVEL_PLAYERS.get(level)
    if counts is None:
        raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
    if players not in counts:
        raise ValueError(
            f"the {level} level plays {player_games(counts)} only, found {players} players"
        )


def check_players(bot: Bot, players: int) -> None:
    """Refuse, before a game starts, a bot that would refuse the game at its first
    decision (a policy trained for another player count): a ``ValueError`` saying why.
    A bot declares it with a ``check_players(players)`` method; others play any count."""
    check = getattr(bot, "check_players", None)
    if callable(check):
        check(players)


def _convert(spec: str, key: str, text: str, option: Option) -> Any:
    kind = option.kind
    if option.optional and text.lower() == "none":
        return None
    if kind is bool:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"bot spec {spec!r}: {key} expects true or false, found {text!r}")
    try:
        return kind(text)
    except ValueError:
        raise ValueError(
            f"bot spec {spec!r}: {key} expects {'an integer' if kind is int else 'a number'}, "
            f"found {text!r}"
        ) from None


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``NAME[:SECONDS][@KEY=VALUE]...`` into the bot name and its keywords.

    A level is accepted for the name. A count budget (``@iterations=N``, ``@depth=N``)
    alone, without ``:SECONDS``, drops the default time budget so the bot is
    reproducible; ``@seconds=none`` does it explicitly.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"expected a bot spec such as 'mcts:0.5', found {spec!r}")
    head, *extra = spec.strip().split("@")
    name_text, _, seconds_text = head.partition(":")
    name = bot_name(name_text.strip())
    allowed = options_of(name)
    budget: dict[str, Any] = {}
    if seconds_text:
        budget["seconds"] = _convert(spec, "seconds", seconds_text, allowed["seconds"])
    for option in extra:
        key, equals, value = option.partition("=")
        key = key.strip()
        if not equals or not key:
            raise ValueError(f"bot spec {spec!r}: expected @KEY=VALUE, found {'@' + option!r}")
        if key not in allowed:
            raise ValueError(
                f"bot spec {spec!r}: {name} takes {', '.join(allowed) or 'no options'}, "
                f"found {key!r}"
            )
        budget[key] = _convert(spec, key, value.strip(), allowed[key])
    counted = any(key in budget for key in COUNT_BUDGETS)
    if counted and "seconds" not in budget and allowed["seconds"].default is not None:
        budget["seconds"] = None  # a count budget alone: no clock, reproducible
    return name, budget


def make_bot(name: str, **budget: Any) -> Bot:
    """A bot by name (``random``...), level (``easy``...) or spec (``mcts:0.2``).

    Keyword budgets (``seconds=``, ``iterations=``...) override those of the spec. The
    bot's ``name`` is its registry name (``make_bot("hard").name == "search-quick"``).
    """
    key, given = parse_bot_spec(name)
    options = {**PRESETS.get(key, {}), **given, **budget}
    try:
        bot = BOTS[key](**options)
    except TypeError as error:
        raise ValueError(f"bot {name!r}: {error}") from None
    # A registry line that reuses a class (hard-v1, search-quick) names its own bots.
    if bot.name != key:
        bot.name = key
    return bot


__all__ = [
    "BOTS",
    "COUNT_BUDGETS",
    "LEVELS",
    "LEVEL_PLAYERS",
    "PRESETS",
    "REGISTRY",
    "Bot",
    "BotEntry",
    "ExpectimaxBot",
    "GreedyBot",
    "MctsBot",
    "Option",
    "PolicyBot",
    "RandomBot",
    "SearchBot",
    "bot_name",
    "check_level_players",
    "check_players",
    "make_bot",
    "options_of",
    "parse_bot_spec",
    "player_games",
]
