"""Bots: one protocol (:class:`Bot`), four strengths, chosen by name, level or spec.

======  ============  ============================================  ====================
level   bot           how it plays                                  interactive budget
======  ============  ============================================  ====================
easy    random        uniform over the legal decisions              instant
medium  greedy        one turn deep with a static evaluation        instant
hard    expectimax    max-n search over die and replies, by turns   about 1 s a decision
expert  mcts          Monte Carlo tree search, random playouts      about 1 s a decision
======  ============  ============================================  ====================

A *bot spec* names a bot and, optionally, its budget: ``NAME[:SECONDS][@KEY=VALUE]...``,
for example ``mcts:0.2`` (0.2 s a decision), ``mcts@iterations=2000`` (exactly 2000
iterations, no clock: reproducible), ``expectimax@depth=2`` or ``hard``.

>>> import random
>>> from marrakech import State
>>> bot = make_bot("random")
>>> bot.choose(State.new(players=4), random.Random(0)) in State.new(players=4).legal_actions()
True
>>> make_bot("mcts:0.2").seconds, make_bot("expert@iterations=300").iterations
(0.2, 300)
>>> parse_bot_spec("expectimax:0.5@depth=3")
('expectimax', {'seconds': 0.5, 'depth': 3})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marrakech.bots.base import Bot
from marrakech.bots.expectimax import ExpectimaxBot
from marrakech.bots.greedy import GreedyBot
from marrakech.bots.mcts import MctsBot
from marrakech.bots.random_bot import RandomBot

#: Bot names -> factories taking keyword budgets.
BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "expectimax": ExpectimaxBot,
    "mcts": MctsBot,
}
#: Player-facing levels -> bot names.
LEVELS: dict[str, str] = {
    "easy": "random",
    "medium": "greedy",
    "hard": "expectimax",
    "expert": "mcts",
}

#: Budget keywords each bot takes, with the type of their value.
#: The evaluation's weights (:class:`marrakech.bots.evaluation.Weights`), taken by every
#: bot that evaluates positions.
_WEIGHTS: dict[str, type] = {"area": float, "region": float, "threat": float}

OPTIONS: dict[str, dict[str, type]] = {
    "random": {"seconds": float, "iterations": int},
    "greedy": {"seconds": float, "iterations": int, **_WEIGHTS},
    "expectimax": {
        "seconds": float,
        "depth": int,
        "width": int,
        "orient_width": int,
        "iterations": int,
        **_WEIGHTS,
    },
    "mcts": {
        "seconds": float,
        "iterations": int,
        "exploration": float,
        "rollouts": int,
        "use_fast": bool,
        "reuse": bool,
        "heuristic": float,
        "prior": float,
        "informed": bool,
        "objective": str,
        **_WEIGHTS,
    },
}


def _known() -> str:
    return ", ".join([*BOTS, *LEVELS])


def bot_name(name: str) -> str:
    """The bot name behind a name or a level (``hard`` -> ``expectimax``)."""
    key = LEVELS.get(name, name)
    if key not in BOTS:
        raise ValueError(f"unknown bot {name!r}: expected one of {_known()}")
    return key


def _convert(spec: str, key: str, text: str, kind: type) -> Any:
    if text.lower() == "none" and key in ("seconds", "iterations", "depth", "rollouts"):
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

    A level is accepted for the name. ``@iterations=N`` alone (no ``:SECONDS``) drops the
    default time budget so the bot is reproducible; ``@seconds=none`` does it explicitly.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"expected a bot spec such as 'mcts:0.5', found {spec!r}")
    head, *options = spec.strip().split("@")
    name_text, _, seconds_text = head.partition(":")
    name = bot_name(name_text.strip())
    allowed = OPTIONS.get(name, {})
    budget: dict[str, Any] = {}
    if seconds_text:
        budget["seconds"] = _convert(spec, "seconds", seconds_text, float)
    for option in options:
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
    fixed = ("iterations" in budget) or ("depth" in budget)
    if fixed and "seconds" not in budget and name in ("mcts", "expectimax"):
        budget["seconds"] = None  # a count budget alone: no clock, reproducible
    return name, budget


def make_bot(name: str, **budget: Any) -> Bot:
    """A bot by name (``random``...), level (``easy``...) or spec (``mcts:0.2``).

    Keyword budgets (``seconds=``, ``iterations=``...) override those of the spec.
    """
    key, options = parse_bot_spec(name)
    options.update(budget)
    try:
        return BOTS[key](**options)
    except TypeError as error:
        raise ValueError(f"bot {name!r}: {error}") from None


__all__ = [
    "BOTS",
    "LEVELS",
    "OPTIONS",
    "Bot",
    "ExpectimaxBot",
    "GreedyBot",
    "MctsBot",
    "RandomBot",
    "bot_name",
    "make_bot",
    "parse_bot_spec",
]
