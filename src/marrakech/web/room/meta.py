"""A game's summary (:class:`~marrakech.web.protocol.GameMeta`), built in one place for
a live room and for a game only in the store (the lobby's list).

>>> from marrakech.web.store import SeatRow, StoredGame
>>> seats = (SeatRow(0, "human"), SeatRow(1, "open"))
>>> game = StoredGame("g1", 2, "bga+orient-last", 0, "en", seats)
>>> meta = stored_meta(game)
>>> meta.rule_set, meta.options, [seat.presence for seat in meta.seats]
('bga', {'orient_last': True}, ['away', 'open'])
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from marrakech.web.protocol import (
    Clock,
    GameMeta,
    PlayStatus,
    Presence,
    SeatInfo,
    iso_time,
    play_status,
)
from marrakech.web.store import SeatRow, StoredGame


def seat_info(row: SeatRow, presence: Presence, resigned: bool, external: bool = False) -> SeatInfo:
    """A seat as every page sees it (never its token); ``external``: a program that
    declared itself a bot plays it."""
    return SeatInfo(
        seat=row.seat,
        kind=row.kind,
        level=row.level,
        name=row.name,
        presence=presence,
        stand_in=row.stand_in,
        resigned=resigned,
        host=row.host,
        hints=row.hints,
        external=external and row.kind == "human",
    )


@functools.lru_cache(maxsize=64)
def _still_clock(mode: str, seconds: int, stand_in_level: str) -> Clock:
    """A clock with no turn running (immutable, so one serves every update that shows
    it: most games have no clock, and each update carries one)."""
    shown = seconds if mode != "none" else None
    return Clock(mode=mode, seconds=shown, stand_in_level=stand_in_level)  # type: ignore[arg-type]


def clock_view(
    mode: str,
    seconds: int,
    stand_in_level: str,
    deadline: tuple[int, int, float] | None,
    bank: float | None = None,
) -> Clock:
    """The clock as the pages see it now: with the running turn's ``deadline`` (seat,
    turn, epoch seconds), its seat, moment and the seconds left (``bank`` of them in
    its seat's time bank, on a turn-based clock)."""
    clock = _still_clock(mode, seconds, stand_in_level)
    if deadline is None:
        return clock
    seat, _, moment = deadline
    remaining = max(0.0, moment - time.time())
    written = datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
    return clock.model_copy(
        update={
            "seat": seat,
            "deadline": written.replace("+00:00", "Z"),
            "remaining": round(remaining, 3),
            "bank": None if bank is None else round(bank, 1),
        }
    )


def game_meta(
    game: StoredGame,
    seats: Sequence[SeatInfo],
    status: PlayStatus,
    clock: Clock,
    rematch: str | None,
    rules: str | None = None,
) -> GameMeta:
    """The summary of ``game`` (its setting) with what its room may know better: the
    seats' presence, the status, the clock, the rematch (and the rules token, written
    as the core writes it)."""
    return GameMeta(
        game_id=game.id,
        players=game.players,
        rules=game.rules if rules is None else rules,
        seats=list(seats),
        first_seat=game.first_seat,
        lang=game.lang,
        created=iso_time(game.created),
        status=status,
        clock=clock,
        hints=game.hints,
        rematch=rematch,
        chat=game.chat,
        rated=game.rated,
    )


def stored_presence(row: SeatRow) -> Presence:
    """A seat's presence as the store alone says it: nobody is known to be here."""
    if row.kind == "open":
        return "open"
    return "connected" if row.kind == "bot" else "away"


def stored_meta(game: StoredGame) -> GameMeta:
    """The summary of a game no room of this instance holds (a turn-based clock's
    running turn as stored: such a room is unloaded while its players are away)."""
    seats = [seat_info(row, stored_presence(row), resigned=False) for row in game.seats]
    running = None
    if game.clock.startswith("turn_") and game.status == "running":
        running = game.turn_clock
    clock = clock_view(game.clock, game.clock_seconds, game.stand_in_level, running)
    return game_meta(game, seats, play_status(game.status), clock, game.rematch)
