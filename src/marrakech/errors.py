"""Errors raised by the engine, grouped by cause.

All of them are :class:`ValueError` subclasses under :class:`MarrakechError`, so callers
can catch one family without knowing the details::

    >>> from marrakech import State, parse_action, IllegalActionError
    >>> try:
    ...     State.new(players=3).apply(parse_action("r3"))
    ... except IllegalActionError as error:
    ...     print(error)
    illegal action r3 in the ORIENT phase of seat 0: expected one of L, S, R
"""

from __future__ import annotations


class MarrakechError(ValueError):
    """Base class of every error the engine raises on bad input."""


class NotationError(MarrakechError):
    """Text (an action token, a position string, a game record) that does not parse."""


class IllegalActionError(MarrakechError):
    """An action that parses but is not legal in the position it is applied to."""


class InvalidStateError(MarrakechError):
    """A position that the rules cannot reach or cannot play from."""
