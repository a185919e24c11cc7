"""The argument checks of a batch of games: one message per mistake, for every engine.

A batch engine (the compiled :class:`marrakech.fast.Batch`, the pure-Python
:class:`~marrakech.envs.python_batch.PythonBatch`, and through :class:`~marrakech.envs.VectorEnv`
their callers) takes a number of games, a rule set, boolean masks, arrays of decision
ids, seats and game indices. Each is checked here and nowhere else::

    >>> check_games(8)
    8
    >>> check_index(-1, 8)
    7
    >>> check_games(0)
    Traceback (most recent call last):
    ...
    ValueError: a batch holds 1..16777216 games, found n=0

The module reads the arrays it is handed through their ``shape`` and ``dtype`` only, so
it needs no NumPy and lives in the core, below both engines.
"""

from __future__ import annotations

import operator
from typing import Any, Protocol

from marrakech.rules import RuleSet, check_players
from marrakech.state import State

__all__ = [
    "CHANCE_SLOTS",
    "MAX_GAMES",
    "SearchSettings",
    "check_flags",
    "check_games",
    "check_ids",
    "check_index",
    "check_players",
    "check_rules",
    "check_search_budget",
    "check_seats",
    "check_seeds",
    "check_state",
]

#: Largest batch accepted (the kernels index with 64-bit integers; this bounds memory).
MAX_GAMES = 1 << 24
#: Chance outcomes one batch step may resolve, so the width of ``last_chance()``: a
#: 2-player reset draws two tops (R7), and under R32 rolls too; under R32 a roll that
#: eliminates (R13) hands the die to the next seat, so a 4-player step may roll 3 times.
CHANCE_SLOTS = 4


def _whole(value: object) -> int | None:
    """``value`` as an int if it is a whole number (a numpy integer too), not a bool."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def check_games(n: object) -> int:
    """The number of games of a batch: a whole number ``1..MAX_GAMES``."""
    count = _whole(n)
    if count is None or not 1 <= count <= MAX_GAMES:
        raise ValueError(f"a batch holds 1..{MAX_GAMES} games, found n={n!r}")
    return count


def check_seeds(seeds: object, n: int) -> list[int | None]:
    """One seed per game, as Gymnasium's ``reset(seed=[...])`` takes them: a sequence of
    ``n`` whole numbers or ``None`` (that game's generators go on as they are)::

        >>> check_seeds([3, None], 2)
        [3, None]
        >>> check_seeds([3], 2)
        Traceback (most recent call last):
        ...
        ValueError: seed: expected one seed (an int or None) per game, 2 in all, found 1
    """
    if isinstance(seeds, str | bytes) or not hasattr(seeds, "__len__"):
        raise TypeError(
            f"seed: expected an int, None or a list of {n} seeds (int or None), "
            f"found {type(seeds).__name__}"
        )
    values = list(seeds)  # type: ignore[call-overload]
    if len(values) != n:
        raise ValueError(
            f"seed: expected one seed (an int or None) per game, {n} in all, found {len(values)}"
        )
    checked: list[int | None] = []
    for i, value in enumerate(values):
        whole = None if value is None else _whole(value)
        if value is not None and whole is None:
            raise TypeError(f"seed[{i}]: expected an int or None, found {value!r}")
        checked.append(whole)
    return checked


def check_rules(rules: object) -> RuleSet:
    """``rules`` if it is a :class:`RuleSet` (a word goes through ``parse_rules`` first)."""
    if not isinstance(rules, RuleSet):
        raise TypeError(f"expected a RuleSet (see parse_rules), found {type(rules).__name__}")
    return rules


def check_flags(flags: Any, n: int, what: str) -> None:
    """``flags`` (an array) is one boolean per game; ``what`` names the mask."""
    if flags.shape != (n,) or flags.dtype.kind != "b":
        raise ValueError(
            f"{what} mask: expected {n} booleans, found shape {flags.shape} of {flags.dtype}"
        )


def check_ids(ids: Any, n: int) -> None:
    """``ids`` (an array) is one integer decision id per game."""
    if ids.shape != (n,) or ids.dtype.kind not in "iu":
        raise ValueError(
            f"step: expected {n} integer decision ids, found shape {ids.shape} of {ids.dtype}"
        )


def check_seats(seats: Any, n: int, players: int) -> None:
    """``seats`` (an integer array) is one seat ``0..players-1`` per game."""
    if seats.shape != (n,):
        raise ValueError(f"observations: expected {n} seats, found shape {seats.shape}")
    if seats.size and (seats.min() < 0 or seats.max() >= players):
        raise ValueError(
            f"observations: seats must be 0..{players - 1}, found "
            f"{int(seats.min())}..{int(seats.max())}"
        )


def check_index(i: object, n: int) -> int:
    """Game ``i`` of ``n`` as an index ``0..n-1`` (negative ones count from the end)."""
    index = _whole(i)
    if index is None or not -n <= index < n:
        raise IndexError(f"game index must be 0..{n - 1}, found {i!r}")
    return index % n


def check_state(state: object, players: int) -> State:
    """``state`` if it is a :class:`State` of ``players`` seats (to put in a batch)."""
    if not isinstance(state, State):
        raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
    if state.players != players:
        raise ValueError(
            f"set_state: this batch plays {players} players, found a state of {state.players}"
        )
    return state


class SearchSettings(Protocol):
    """What a batch reads of a ``search`` bot (:class:`marrakech.bots.SearchBot`) to play
    it for all its games at once."""

    seconds: float | None
    iterations: int | None
    exploration: float
    prior: float
    playout: float
    paranoid: bool


def check_search_budget(bot: SearchSettings) -> int:
    """The iterations of a ``search`` bot a batch runs for all its games at once: it
    needs a count budget and no clock (``search@iterations=N``), so that its decisions
    are the same whatever the load."""
    seconds, iterations = getattr(bot, "seconds", None), getattr(bot, "iterations", None)
    if seconds is not None or not isinstance(iterations, int) or iterations < 1:
        raise ValueError(
            f"a batch runs search with iterations and no clock (search@iterations=N), "
            f"found seconds={seconds!r}, iterations={iterations!r}"
        )
    return iterations
