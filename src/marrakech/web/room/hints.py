"""Players' hints: one search per position, in a bot worker, cached; each seat's hints
counted (once per position) for all to see.

The advice goes to the asking connection only, and is dropped if the game moved past
its position while it was computed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import replace
from typing import Any, Protocol

from marrakech.state import Phase, State
from marrakech.web.analysis_jobs import advise, table_strengths
from marrakech.web.bot_workers import BotScheduler
from marrakech.web.connection import Client
from marrakech.web.protocol import ChangeReason, HintAdvice, HintOption, ProtocolError
from marrakech.web.store import GameStore, SeatRow

log = logging.getLogger("marrakech.web")

#: The seats' strengths the chances take (:func:`table_strengths`), None if none known.
Strengths = tuple[float, ...] | None


class HintedRoom(Protocol):
    """What hints need of a room."""

    game_id: str
    state: State
    seats: list[SeatRow]
    closed: bool
    clients: set[Client]

    @property
    def version(self) -> int: ...

    def send_error(self, client: Client, error: ProtocolError) -> None: ...

    def seats_changed(self, reason: ChangeReason, seat: int | None) -> None: ...


class Hints:
    """The hint of the current position (being computed or done) and the seats counted
    as having used it."""

    def __init__(self, bots: BotScheduler, store: GameStore) -> None:
        self._bots = bots
        self._store = store
        #: ((version, strengths), task): a second ask for the same position and table
        #: costs nothing.
        self._advice: tuple[tuple[int, Strengths], asyncio.Task[HintAdvice]] | None = None
        #: The seats counted as having used a hint for the position at this version.
        self._hinted: tuple[int, set[int]] = (-1, set())

    def ask(self, room: HintedRoom, client: Client, seat: int) -> Coroutine[Any, Any, None]:
        """Start (or reuse) the advice of the room's position; the coroutine returned
        (the room's to run) sends it to ``client`` once ready."""
        version = room.version
        key = (version, table_strengths(room.seats))
        if self._advice is None or self._advice[0] != key:
            task = asyncio.get_running_loop().create_task(
                self._advise(version, room.state, key[1]), name=f"hint for game {room.game_id}"
            )
            self._advice = (key, task)
        return self._send(room, client, seat, version, self._advice[1])

    def cancel(self) -> None:
        if self._advice is not None:
            self._advice[1].cancel()

    async def _advise(self, version: int, state: State, strengths: Strengths) -> HintAdvice:
        # The chances are for the players at this table: a bot's level moves them.
        options = await self._bots.run(advise, state.notation(), strengths)
        return HintAdvice(
            version=version,
            seat=state.to_move,
            options=[HintOption(action=a, chance=c, share=s) for a, c, s in options],
        )

    async def _send(
        self,
        room: HintedRoom,
        client: Client,
        seat: int,
        version: int,
        task: asyncio.Task[HintAdvice],
    ) -> None:
        try:
            advice = await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the hint of game %s at version %d failed", room.game_id, version)
            if self._advice is not None and self._advice[1] is task:
                self._advice = None  # the next ask tries again
            room.send_error(
                client, ProtocolError("server_error", "the server could not compute the hint")
            )
            return
        if room.closed or room.version != version or client not in room.clients:
            return  # the position moved on: this advice is for one nobody sees any more
        await self._count(room, seat, version)
        if room.version == version:
            client.send(advice.model_dump_json())

    async def _count(self, room: HintedRoom, seat: int, version: int) -> None:
        """Count ``seat``'s hint (once per position: here, and in the store for a room
        reloaded or owned by another instance since), store it and tell everyone."""
        counted_at, seats = self._hinted
        if counted_at != version:
            seats = set()
            self._hinted = (version, seats)
        if seat in seats:
            return
        seats.add(seat)
        count = room.seats[seat].hints + 1
        try:
            # The store counts once per seat and version, across reloads and instances.
            count = await self._store.count_hint(room.game_id, seat, version)
        except Exception:  # the advice is still given; the count lives in memory
            log.exception("could not store a hint of game %s", room.game_id)
        if count == room.seats[seat].hints:
            return  # counted for this position before this room was loaded
        room.seats[seat] = replace(room.seats[seat], hints=count)
        room.seats_changed("hint", seat)


def check_hint_phase(state: State) -> None:
    """A hint is for a decision: refuse at a roll (or a reveal)."""
    if state.phase not in (Phase.ORIENT, Phase.PLACE):
        raise ProtocolError(
            "not_your_turn",
            "a hint is for a decision (orient or place), found the"
            f" {state.phase.name.lower()} phase: roll the die first",
        )
