"""The game store: every game as its rule set, its seats and its action log.

Replays, spectating and resuming after a restart all read the same rows, so there is one
truth. The server talks to a :class:`GameStore` (a small asynchronous protocol):
:class:`~marrakech.web.sqlite_store.SQLiteStore` (one file, the default, run in its own
thread by :class:`~marrakech.web.store_worker.StoreWorker`) or
:class:`~marrakech.web.postgres_store.PostgresStore` (one database shared by several
server instances). The rows are plain frozen dataclasses::

    >>> game = StoredGame("g1", players=3, rules="standard", first_seat=0, lang="en",
    ...                   seats=(SeatRow(0, "human"), SeatRow(1, "bot", level="easy")),
    ...                   actions=(ActionRow("L", 0), ActionRow("r3", 0)))
    >>> game.version, game.status
    (2, 'running')

Tokens are never stored: only their SHA-256 (:func:`hash_token`); a seat token carries 192
random bits, so a fast hash is enough and the database alone cannot act for a seat.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

SeatKind = Literal["human", "open", "bot"]
GameStatus = Literal["waiting", "running", "over"]


class StoreError(RuntimeError):
    """The store cannot be opened or used (bad file, newer schema, ...)."""


class StoreConflict(StoreError):
    """A write lost a race: the game moved on (another instance or task wrote first)."""


def hash_token(token: str) -> str:
    """The stored form of a seat token (hex SHA-256); the token itself is never stored.

    >>> len(hash_token("secret")), hash_token("secret") == hash_token("secret")
    (64, True)
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SeatRow:
    """One seat: ``human`` (has a token hash), ``open`` (anyone may join) or ``bot``."""

    seat: int
    kind: SeatKind
    level: str | None = None
    name: str = ""
    token_hash: str | None = None


@dataclass(frozen=True)
class ActionRow:
    """One accepted action: its token and the acting seat (for a draw, the pile's seat)."""

    token: str
    seat: int
    at: float = 0.0


@dataclass(frozen=True)
class StoredGame:
    """A game as stored: rule set, seats, action log, and bookkeeping for the lobby."""

    id: str
    players: int
    rules: str
    first_seat: int
    lang: str
    seats: tuple[SeatRow, ...]
    actions: tuple[ActionRow, ...] = ()
    status: GameStatus = "running"
    created: float = field(default_factory=time.time)
    updated: float = 0.0
    bot_to_move: bool = False
    #: Who created the game (:func:`marrakech.web.limits.client_key`), for the caps.
    creator: str = ""
    #: The number of accepted actions (``len(actions)`` unless this is a summary, whose
    #: ``actions`` are left out); computed when not given.
    version: int = -1

    def __post_init__(self) -> None:
        if self.version < 0:
            object.__setattr__(self, "version", len(self.actions))

    @property
    def bots(self) -> int:
        """How many seats bots play."""
        return sum(seat.kind == "bot" for seat in self.seats)


@dataclass(frozen=True)
class Append:
    """One :meth:`GameStore.append_actions` call, as stores batch them."""

    game_id: str
    version: int
    actions: tuple[ActionRow, ...]
    status: GameStatus
    bot_to_move: bool


@dataclass(frozen=True)
class Usage:
    """Unfinished games touched since a moment, and their bot seats: one client's (by
    the ``creator`` key its games were created under) and everyone's."""

    games: int = 0
    bots: int = 0
    all_games: int = 0
    all_bots: int = 0


class GameStore(Protocol):
    """What the server needs from a store; every method is a coroutine, and none blocks
    the event loop (:class:`~marrakech.web.store_worker.StoreWorker` runs SQLite's in a
    thread; :class:`~marrakech.web.postgres_store.PostgresStore` is asynchronous).

    Implementations must make :meth:`append_actions` atomic and conditional on the
    version (optimistic concurrency), which is what lets several server instances share
    one database safely.
    """

    async def create_game(self, game: StoredGame) -> None:
        """Insert a new game with its seats (and any initial actions)."""
        ...

    async def load_game(self, game_id: str) -> StoredGame | None:
        """The whole game, or None if there is no such game."""
        ...

    async def load_actions(self, game_id: str, start: int) -> list[ActionRow]:
        """The game's actions from number ``start`` (0-based) on."""
        ...

    async def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
    ) -> None:
        """Append ``actions`` after the first ``version`` actions, atomically, and only
        then return (the server broadcasts nothing before).

        Raises :class:`StoreConflict` if the game is not at ``version`` (or, on a shared
        database, this instance does not own the game).
        """
        ...

    async def claim_seat(self, game_id: str, seat: int, token_hash: str, name: str) -> bool:
        """Turn an ``open`` seat into a ``human`` one; False if it was not open. A game
        left without open seats goes from ``waiting`` to ``running``."""
        ...

    async def summaries(self, game_ids: Sequence[str]) -> list[StoredGame]:
        """Those of the games that exist, in the order asked, without their actions."""
        ...

    async def open_games(self, limit: int) -> list[StoredGame]:
        """Games with an open seat that are not over, newest first, without actions."""
        ...

    async def games_with_bot_to_move(self) -> list[str]:
        """Ids of unfinished games waiting for a bot: the server resumes them at start."""
        ...

    async def usage(self, creator: str, since: float) -> Usage:
        """Unfinished games updated since ``since`` (epoch seconds) and their bot seats:
        those created under ``creator``, and all of them (the server's caps)."""
        ...

    async def close(self) -> None:
        """Release the connections."""
        ...


def default_db_path() -> Path:
    """``marrakech.sqlite3`` in the user's data directory (platformdirs).

    On Linux that is ``~/.local/share/marrakech/marrakech.sqlite3``.
    """
    from platformdirs import user_data_path

    return user_data_path("marrakech", appauthor=False) / "marrakech.sqlite3"
