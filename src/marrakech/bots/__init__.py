"""Bots: one protocol (:class:`Bot`), several strengths, chosen by name or level.

>>> import random
>>> from marrakech import State
>>> bot = make_bot("random")
>>> bot.choose(State.new(players=4), random.Random(0)) in State.new(players=4).legal_actions()
True
"""

from __future__ import annotations

from collections.abc import Callable

from marrakech.bots.base import Bot
from marrakech.bots.random_bot import RandomBot

#: Bot names -> factories taking keyword budgets. The bots issue adds the stronger ones.
BOTS: dict[str, Callable[..., Bot]] = {"random": RandomBot}
#: Player-facing levels -> bot names.
LEVELS: dict[str, str] = {"easy": "random"}


def make_bot(name: str, **budget: object) -> Bot:
    """A bot by name (``random``, ...) or by level (``easy``, ...)."""
    key = LEVELS.get(name, name)
    factory = BOTS.get(key)
    if factory is None:
        known = ", ".join([*BOTS, *LEVELS])
        raise ValueError(f"unknown bot {name!r}: expected one of {known}")
    return factory(**budget)


__all__ = ["BOTS", "LEVELS", "Bot", "RandomBot", "make_bot"]
