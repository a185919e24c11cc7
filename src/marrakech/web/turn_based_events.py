"""What happens to a turn-based game's clock, for whoever wants to know (issue 25).

The rooms and the clocks' sweep say here when a player's turn starts (the game's owner,
once a turn) and when its time is about to run out (the sweep of whichever instance
claims it first, once a turn): reminders (email, and later Web Push) subscribe to
:class:`TurnEvents` and never slow a move down. A listener may be a plain function or a
coroutine function; an error of a listener is logged, never raised to the game::

    >>> import asyncio
    >>> events, heard = TurnEvents(), []
    >>> unsubscribe = events.subscribe(heard.append)
    >>> events.emit(TurnEvent("turn_started", "g1", seat=2, turn=7, deadline=1e9))
    >>> [(event.kind, event.seat) for event in heard]
    [('turn_started', 2)]
    >>> unsubscribe(); events.emit(TurnEvent("deadline_near", "g1", 2, 7, 1e9)); len(heard)
    1
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger("marrakech.web")

#: ``turn_started``: a human seat's turn began; ``deadline_near``: its deadline is less
#: than :func:`marrakech.web.turn_based_clocks.warn_before` away (a quarter of its time per
#: move, at most 12 hours; turn-based clocks, and real-time ones of an hour or more).
TurnEventKind = Literal["turn_started", "deadline_near"]


@dataclass(frozen=True)
class TurnEvent:
    """Seat ``seat`` of game ``game_id`` must move by ``deadline`` (epoch seconds) in
    its player-turn number ``turn``."""

    kind: TurnEventKind
    game_id: str
    seat: int
    turn: int
    deadline: float


Listener = Callable[[TurnEvent], Awaitable[None] | None]


class TurnEvents:
    """The listeners of one instance's turn events."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every event from now on; returns its unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def emit(self, event: TurnEvent) -> None:
        """Tell every listener (a coroutine runs in the background)."""
        for listener in list(self._listeners):
            try:
                result = listener(event)
            except Exception:
                log.exception("a turn listener failed on %s", event)
                continue
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(self._wait(result, event))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _wait(self, result: Awaitable[None], event: TurnEvent) -> None:
        try:
            await result
        except Exception:
            log.exception("a turn listener failed on %s", event)
