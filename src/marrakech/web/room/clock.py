"""The turn clock: when a human's time runs out, a bot stands in for the seat.

The owner of a game keeps the running turn's deadline, stores it (with the
resignations waiting for the next decision, R22) whenever either changes, and sets a
timer. A room reloaded after a restart or a takeover resumes the stored deadline with
at least :data:`RESUME_SECONDS` left (:func:`resumed_deadline`).

A turn-based clock (issue 25: hours or days per move, :mod:`marrakech.web.turn_based_clocks`)
adds each seat's time bank to its turn's deadline and spends it when a move takes
longer than its time; its owner stores the banks with the deadline, and tells the
instance's :class:`~marrakech.web.turn_based_events.TurnEvents` when a turn starts. Its room
may be unloaded while the turn runs: the deadline is then the clocks' sweep's.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

from marrakech.web import turn_based_clocks
from marrakech.web.protocol import Clock
from marrakech.web.room.meta import clock_view
from marrakech.web.store import GameStore, StoredGame
from marrakech.web.turn_based_events import TurnEvent, TurnEvents

log = logging.getLogger("marrakech.web")

#: A turn resumed after a restart or a takeover keeps its stored deadline, but gets at
#: least this long (or its whole time, if shorter) for its player to reconnect.
RESUME_SECONDS = 30.0

#: (seat, player-turn number, deadline in epoch seconds).
Deadline = tuple[int, int, float]
#: (seat, player-turn number): whose time runs.
Target = tuple[int, int]


def resumed_deadline(game: StoredGame) -> Deadline | None:
    """The stored turn clock of ``game``, with at least :data:`RESUME_SECONDS` left (or
    the turn's whole time, if shorter) from now: the players could not play while no
    instance ran the game."""
    if game.turn_clock is None:
        return None
    seat, turn, deadline = game.turn_clock
    return seat, turn, max(deadline, time.time() + min(RESUME_SECONDS, game.clock_seconds))


class TurnClock:
    """One game's clock: the running turn's deadline, stored by the owner, and the
    timer that calls ``on_time_out(target)`` when it passes."""

    def __init__(
        self,
        game: StoredGame,
        store: GameStore,
        later: Callable[[Coroutine[Any, Any, None]], None],
        on_time_out: Callable[[Target], None],
        events: TurnEvents | None = None,
    ) -> None:
        self.game_id = game.id
        self.mode = game.clock
        self.seconds = game.clock_seconds
        #: Whether this is a turn-based clock (banks, deadlines swept from the store).
        self.turn_based = turn_based_clocks.is_turn_based(game.clock)
        #: Each seat's time bank left (turn-based clocks; zeros otherwise).
        self.banks: tuple[float, ...] = (
            turn_based_clocks.parse_banks(game.clock_banks, game.players, game.clock_seconds)
            if self.turn_based
            else (0.0,) * game.players
        )
        self._events = events
        self.stand_in_level = game.stand_in_level
        self._store = store
        # The room's methods, held weakly (the room holds this clock): see BotLoop.
        self._later = weakref.WeakMethod(later)
        self._on_time_out = weakref.WeakMethod(on_time_out)
        #: The running turn's clock: the stored one, if it is still this turn's.
        self.deadline: Deadline | None = resumed_deadline(game)
        self._timer: asyncio.TimerHandle | None = None
        #: The turn clock and pending resignations as last stored (or being stored;
        #: None after a failure, so the next update stores them again).
        self._stored: tuple[Deadline | None, frozenset[int], str] | None = (
            game.turn_clock,
            game.pending_resigns,
            self._banks_text(),
        )

    @property
    def running(self) -> bool:
        return self.mode != "none"

    @property
    def stored(self) -> bool:
        """Whether the store holds the clock as it is (or is being given it)."""
        return self._stored is not None

    def view(self) -> Clock:
        """The clock as the pages see it now."""
        bank = None
        if self.turn_based and self.deadline is not None:
            bank = self.banks[self.deadline[0]]
        return clock_view(self.mode, self.seconds, self.stand_in_level, self.deadline, bank)

    def _banks_text(self) -> str:
        full = all(bank >= self.seconds for bank in self.banks)
        return "" if not self.turn_based or full else turn_based_clocks.encode_banks(self.banks)

    def restart(self) -> None:
        """Give the running turn its whole time again from the next :meth:`update`."""
        self.deadline = None

    def postpone(self, seconds: float) -> None:
        """Run out again ``seconds`` from now (the stand-in could not be stored)."""
        if self.deadline is not None:
            seat, turn, _ = self.deadline
            self.deadline = (seat, turn, time.time() + seconds)

    def update(self, target: Target | None, pending: frozenset[int], arm: bool) -> None:
        """Start ``target``'s clock if its turn is new; if ``arm`` (the owner), store it
        with the ``pending`` resignations when either changed, and set the timer."""
        now = time.time()
        started = False
        if target is None or self.deadline is None or self.deadline[:2] != target:
            if self.turn_based and self.deadline is not None:  # the turn ended
                self.banks = turn_based_clocks.spend(
                    self.banks, self.deadline[0], self.deadline[2], now
                )
            if target is None:
                self.deadline = None
            else:
                bank = self.banks[target[0]] if self.turn_based else 0.0
                self.deadline = (*target, now + self.seconds + bank)
                started = True
        self.cancel()
        if not arm:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no running loop: stored and armed at the next change
            return
        turn = (self.deadline, pending, self._banks_text())
        later = self._later()
        if turn != self._stored and later is not None:
            self._stored = turn
            later(self._save(*turn))
        if started and self.turn_based and self._events is not None and self.deadline:
            seat, number, moment = self.deadline
            self._events.emit(TurnEvent("turn_started", self.game_id, seat, number, moment))
        if self.deadline is not None:
            delay = max(0.0, self.deadline[2] - time.time())
            self._timer = loop.call_later(delay, self._time_out, self.deadline[:2])

    async def store_pending(self, pending: frozenset[int]) -> None:
        """Store the pending resignations now (raises if the store fails)."""
        await self._store.save_turn_state(self.game_id, self.deadline, pending)
        self._stored = (self.deadline, pending, self._banks_text())

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _time_out(self, target: Target) -> None:
        self._timer = None
        on_time_out = self._on_time_out()
        if on_time_out is not None:  # else the room is gone: so is its turn
            on_time_out(target)

    async def _save(self, deadline: Deadline | None, pending: frozenset[int], banks: str) -> None:
        try:
            if self.turn_based:
                await turn_based_clocks.save_turn(
                    self._store, self.game_id, deadline, pending, banks
                )
            else:
                await self._store.save_turn_state(self.game_id, deadline, pending)
        except Exception:  # they live on here; stored at the next change or sweep
            log.exception("could not store the turn state of game %s", self.game_id)
            self._stored = None
