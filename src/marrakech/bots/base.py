"""The bot protocol: ``bot.choose(state, rng) -> action``.

A bot sees only the public engine API, never mutates the state it is given (states are
immutable anyway), and is deterministic for a given ``rng``. Budgets (iterations or
seconds) are constructor parameters, each within its range (:data:`MAX_SECONDS`,
:data:`MAX_ITERATIONS`, :data:`MAX_DEPTH`)::

    >>> check_budget("mcts", float("inf"), "iterations", None)
    Traceback (most recent call last):
    ...
    ValueError: seconds must be more than 0 and at most 60, found inf

A bot that searches has a ``stop`` attribute: a flag (a :class:`threading.Event`) that,
once set, has ``choose`` return at once with the best decision found so far. An
interface sets it when the player quits or takes back while the bot thinks
(:func:`choose_stoppable`).
"""

from __future__ import annotations

import math
import random
from typing import Protocol, runtime_checkable

from marrakech.actions import Action
from marrakech.state import State

#: The longest clock a bot may be given for one decision, in seconds.
MAX_SECONDS = 60.0
#: The most iterations (search, mcts) a bot may be given for one decision.
MAX_ITERATIONS = 10_000_000
#: The deepest search in whole turns (beyond the 48 turns of a game by the standard rules).
MAX_DEPTH = 60


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a legal decision for the seat to move."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """A legal decision for ``state`` (which must be a decision node)."""
        ...


class StopFlag(Protocol):
    """What a searching bot's ``stop`` is: set, the search ends (a threading.Event)."""

    def is_set(self) -> bool: ...


def stopped(flag: StopFlag | None) -> bool:
    """Whether a search was told to stop."""
    return flag is not None and flag.is_set()


def choose_stoppable(bot: Bot, state: State, rng: random.Random, stop: StopFlag) -> Action:
    """``bot.choose(state, rng)``, told to end its search once ``stop`` is set (a bot
    without a ``stop`` attribute answers at once anyway: it does not search)."""
    if not hasattr(bot, "stop"):
        return bot.choose(state, rng)
    bot.stop = stop
    try:
        return bot.choose(state, rng)
    finally:
        bot.stop = None


def check_decision_node(state: State) -> None:
    if state.is_chance or state.is_terminal:
        raise ValueError(f"a bot chooses at a decision node, found the {state.phase.name} phase")


def check_range(name: str, value: float, low: float, high: float, low_open: bool = False) -> None:
    """Refuse ``value`` outside ``low..high`` (``low`` itself excluded if ``low_open``),
    saying the range; NaN and infinities are outside every range."""
    inside = math.isfinite(value) and (low < value if low_open else low <= value) and value <= high
    if not inside:
        number = f"{high:g}" if isinstance(high, float) else str(high)
        span = f"more than {low:g} and at most {number}" if low_open else f"{low} to {number}"
        raise ValueError(f"{name} must be {span}, found {value}")


def check_budget(
    bot: str, seconds: float | None, count: str, value: int | None, required: bool = True
) -> None:
    """A search budget is a clock (``seconds``), a count (``iterations``, ``depth``), or
    both; at least one (unless not ``required``), each within its range."""
    if seconds is not None:
        check_range("seconds", seconds, 0, MAX_SECONDS, low_open=True)
    if value is not None:
        check_range(count, value, 1, MAX_DEPTH if count == "depth" else MAX_ITERATIONS)
    if required and seconds is None and value is None:
        raise ValueError(f"{bot} needs a budget: seconds, {count}, or both")
