"""The game store: every game as its rule set, its seats and its action log.

Replays, spectating and resuming after a restart all read the same rows, so there is one
truth. The server talks to a :class:`GameStore` (a small asynchronous protocol):
:class:`~marrakech.web.store.sqlite.SQLiteStore` (one file, the default, run in its own
thread by :class:`~marrakech.web.store.worker.StoreWorker`) or
:class:`~marrakech.web.store.postgres.PostgresStore` (one database shared by several
server instances), both on the one schema of :mod:`~marrakech.web.store.schema`, whose
columns are read into these plain frozen dataclasses by name::

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
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

SeatKind = Literal["human", "open", "bot"]
GameStatus = Literal["waiting", "running", "over"]
#: One statement of :meth:`GameStore.transact`: its SQL and parameters.
Step = tuple[str, dict[str, Any]]


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
    """One seat: ``human`` (has a token hash), ``open`` (anyone may join) or ``bot``.

    ``stand_in`` is the level of a bot playing for an absent human (its time ran out,
    or the host asked); ``host`` marks the game's host; ``joined`` a seat taken from
    the lobby (the host may open it again before the start). A ``human`` seat of a
    rematch has no ``token_hash`` until its player comes back to the old game.
    """

    seat: int
    kind: SeatKind
    level: str | None = None
    name: str = ""
    token_hash: str | None = None
    stand_in: str | None = None
    host: bool = False
    joined: bool = False
    #: The hints the seat's player asked for (one per position), for everyone to see;
    #: written only by :meth:`GameStore.count_hint`.
    hints: int = 0


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
    #: The turn clock: ``none``, ``relaxed``, ``blitz`` or a turn-based one
    #: (``turn_1h``, ``turn_12h``, ``turn_1d``, ``turn_3d``), its seconds per turn (0 for
    #: none), and the level of the bot that stands in for a player out of time.
    clock: str = "none"
    clock_seconds: int = 0
    stand_in_level: str = "medium"
    #: The player-turn number (turns, not actions) as of the last append.
    turns: int = 0
    #: The id of the game's rematch, once a player asked for one.
    rematch: str | None = None
    #: The analysis of the finished game (JSON), once computed.
    analysis: str | None = None
    #: Whether players may ask for hints (the seats count the hints they used).
    hints: bool = False
    #: The running turn's clock as its owner last set it: (seat, player-turn number,
    #: deadline in epoch seconds), so a restart or another instance taking the game
    #: over keeps the turn's deadline; None when no clock runs.
    turn_clock: tuple[int, int, float] | None = None
    #: Seats that resigned while another seat's roll was awaited, resigning at the next
    #: decision (R22), kept by the owner so that a restart does not drop them.
    pending_resigns: frozenset[int] = frozenset()
    #: Whether the game has a chat (its host may turn it off at creation).
    chat: bool = True
    #: Whether the game is rated (chosen at creation): its human seats are accounts',
    #: and its end moves their ratings and its bots' (docs/web.md, "Ratings").
    rated: bool = False
    #: A turn-based clock's time banks left, by seat (seconds, comma-separated; ``''``
    #: while all are full: :mod:`marrakech.web.turn_based_clocks`).
    clock_banks: str = ""

    def __post_init__(self) -> None:
        if self.version < 0:
            object.__setattr__(self, "version", len(self.actions))

    @property
    def bots(self) -> int:
        """How many seats bots play."""
        return sum(seat.kind == "bot" for seat in self.seats)


ChatChannel = Literal["players", "spectators"]
ChatKind = Literal["text", "reaction"]
BanKind = Literal["address", "account"]
#: The ``seat`` of a chat line a spectator wrote.
SPECTATOR = -1


@dataclass(frozen=True)
class ChatRow:
    """One line of a game's chat: a message (``text``) or a quick reaction (its code),
    written by ``seat`` (:data:`SPECTATOR` for a spectator) in ``channel``. ``id`` is
    the store's (0 until stored); ``address`` who wrote it (for bans only, never
    shown); ``account_id`` the author's account, once accounts exist."""

    game_id: str
    seat: int
    channel: ChatChannel
    kind: ChatKind
    text: str
    at: float = 0.0
    id: int = 0
    address: str = ""
    account_id: str | None = None
    reports: int = 0
    #: The operator hid it (for good).
    hidden: bool = False
    #: Hidden from everyone until the operator decides, after :data:`HOLD_REPORTS`
    #: players' reports (:func:`distinct_players`).
    held: bool = False
    #: The operator dismissed its reports: shown again, never held again.
    dismissed: bool = False
    #: Who reported it (:attr:`Reporter.key`): each of them no longer sees it.
    reporters: tuple[str, ...] = ()


ReporterKind = Literal["player", "spectator"]
ChatDecisionKind = Literal["hidden", "dismissed"]
#: Reports of distinct players of a game (:func:`distinct_players`) that hold a line.
HOLD_REPORTS = 2


@dataclass(frozen=True)
class Reporter:
    """Who reports a chat line: a ``player`` (holding a seat of the game then) or a
    ``spectator``, its address (the client key) and signed-in account if any."""

    kind: ReporterKind
    address: str
    account_id: str | None = None

    @property
    def key(self) -> str:
        """Who it is, once per line: its account if signed in, else its address."""
        if self.account_id is not None:
            return f"account:{self.account_id}"
        return f"address:{self.address}"


def distinct_players(reports: Iterable[tuple[str, str, str | None]]) -> int:
    """How many distinct players reported a line, from its players' reports (each its
    reporter key, address and account, in the order they came): a report counts unless
    its address or its account counted already, so one address (a household, two
    tabs) counts once and so does one account from several addresses.

    >>> distinct_players([("address:a", "a", None), ("account:1", "a", "1")])
    1
    >>> one = [("account:1", "a", "1"), ("account:1", "b", "1")]
    >>> distinct_players([*one, ("address:c", "c", None)])
    2
    """
    seen: set[str] = set()
    count = 0
    for key, address, account in reports:
        marks = {key} | ({f"address:{address}"} if address else set())
        if account is not None:
            marks.add(f"account:{account}")
        if marks & seen:
            continue
        seen |= marks
        count += 1
    return count


@dataclass(frozen=True)
class ChatReport:
    """A reported chat line waiting for the operator (:meth:`GameStore.chat_reports`):
    the line, and who reported it."""

    line: ChatRow
    reporters: tuple[Reporter, ...]


@dataclass(frozen=True)
class ChatDecision:
    """The operator's decision on a chat line (``marrakech admin``), the ``id``-th."""

    id: int
    game_id: str
    line_id: int
    decision: ChatDecisionKind


@dataclass(frozen=True)
class GameEnd:
    """How a game ended, stored with the append that ends it: each seat's place (1
    first, ties shared as R21 ranks them, a seat that resigned or ran out of time last:
    :func:`marrakech.web.ratings.ranks_with_leavers`). A rated game's ratings move in
    the same transaction (:mod:`marrakech.web.ratings.standings`)."""

    places: tuple[int, ...]


@dataclass(frozen=True)
class Append:
    """One :meth:`GameStore.append_actions` call, as stores batch them."""

    game_id: str
    version: int
    actions: tuple[ActionRow, ...]
    status: GameStatus
    bot_to_move: bool
    turns: int = 0
    end: GameEnd | None = None


def group_appends(appends: Sequence[Append]) -> tuple[list[int], list[int]]:
    """The indices of the appends a store's group commit writes together, in a few
    statements for all (one per game, not ending it, every action at the commit's
    time), and of those it writes one at a time, after them and in their order.

    >>> plain = Append("g1", 0, (ActionRow("L", 0),), "running", False)
    >>> group_appends([plain, Append("g2", 0, (), "running", False), plain])
    ([1], [0, 2])
    """
    games = Counter(append.game_id for append in appends)
    together: list[int] = []
    alone: list[int] = []
    for i, append in enumerate(appends):
        plain = append.end is None and not any(row.at for row in append.actions)
        (together if plain and games[append.game_id] == 1 else alone).append(i)
    return together, alone


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
    the event loop (:class:`~marrakech.web.store.worker.StoreWorker` runs SQLite's in a
    thread; :class:`~marrakech.web.store.postgres.PostgresStore` is asynchronous).

    Implementations must make :meth:`append_actions` atomic and conditional on the
    version (optimistic concurrency), which is what lets several server instances share
    one database safely.

    A method is declared here once and written once per database: in
    :class:`~marrakech.web.store.sqlite.SQLiteStore` as a plain function of the same
    parameters (the worker forwards it by name, nothing to add there) and in
    :class:`~marrakech.web.store.postgres.PostgresStore` as a coroutine
    (``tests/web/test_store_faces.py`` checks that the three agree).
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
        turns: int = 0,
        end: GameEnd | None = None,
    ) -> None:
        """Append ``actions`` after the first ``version`` actions, atomically, and only
        then return (the server broadcasts nothing before); ``turns`` is the game's
        player-turn number after them (the lobby shows it). ``end``, with the append
        that ends the game, stores the seats' places and, in a rated game, moves the
        ratings, in the same transaction: all of it is stored or none.

        Raises :class:`StoreConflict` if the game is not at ``version`` (or, on a shared
        database, this instance does not own the game).
        """
        ...

    async def claim_seat(self, game_id: str, seat: int, token_hash: str, name: str) -> bool:
        """Turn an ``open`` seat into a ``human`` one (``joined``; the host if the game
        has none); False if it was not open. A game left without open seats goes from
        ``waiting`` to ``running``."""
        ...

    async def update_seats(
        self, game_id: str, seats: Sequence[SeatRow], status: GameStatus, bot_to_move: bool
    ) -> None:
        """Write every seat of the game as given (the host's start, kick and replace,
        stand-ins, take-backs), with the game's status and whether a bot is to move."""
        ...

    async def activate_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        """Give a rematch's human seat that has none its token hash; False if the seat
        has one already (or is not a human seat)."""
        ...

    async def set_rematch(self, game_id: str, rematch_id: str) -> str:
        """Record the game's rematch unless it has one: the rematch's id either way."""
        ...

    async def save_analysis(self, game_id: str, analysis: str) -> None:
        """Keep the analysis (JSON) of a finished game with it."""
        ...

    async def save_turn_state(
        self,
        game_id: str,
        turn_clock: tuple[int, int, float] | None,
        pending_resigns: frozenset[int],
    ) -> None:
        """Keep what the owner holds between actions: the running turn's clock and the
        pending resignations (see :class:`StoredGame`)."""
        ...

    async def count_hint(self, game_id: str, seat: int, version: int) -> int:
        """Count one more hint used by ``seat`` for the position at ``version`` (the
        game's accepted actions), unless one was counted for that seat and version
        already (a reloaded room, another instance): its count now."""
        ...

    async def summaries(self, game_ids: Sequence[str]) -> list[StoredGame]:
        """Those of the games that exist, in the order asked, without their actions."""
        ...

    async def open_games(self, limit: int, since: float = 0.0) -> list[StoredGame]:
        """Games waiting for players whose seats changed (created or joined) since
        ``since`` (epoch seconds), newest first, without actions."""
        ...

    async def games_to_resume(self) -> list[str]:
        """Ids of unfinished games waiting for a bot or running a player's real-time
        turn clock: the server resumes them at start and in its sweep (on PostgreSQL,
        those no living instance owns). Turn-based clocks are swept from the database
        instead (:mod:`marrakech.web.turn_based_clocks`): their rooms stay unloaded."""
        ...

    async def usage(self, creator: str, since: float) -> Usage:
        """Unfinished games updated since ``since`` (epoch seconds) and their bot seats:
        those created under ``creator``, and all of them (the server's caps)."""
        ...

    async def add_chat(self, row: ChatRow) -> ChatRow:
        """Store a chat line (never with the game's actions: chat does not delay a
        move): the row as stored, with its ``id`` and time."""
        ...

    async def load_chat(self, game_id: str, limit: int) -> list[ChatRow]:
        """The game's last ``limit`` chat lines, oldest first (hidden ones included)."""
        ...

    async def report_chat(self, game_id: str, line_id: int, reporter: Reporter) -> ChatRow | None:
        """Count ``reporter``'s report of the line (once per :attr:`Reporter.key`) and
        hold the line if :data:`HOLD_REPORTS` distinct players reported it (unless the
        operator decided on it): the line then, or None if the game has no such line."""
        ...

    async def chat_line(self, line_id: int) -> ChatRow | None:
        """A chat line by its id, whatever its game (with its reporters), or None."""
        ...

    async def decide_chat(
        self, game_id: str, line_id: int, decision: ChatDecisionKind
    ) -> ChatDecision | None:
        """The operator's decision on a line: ``hidden`` for good, or its reports
        ``dismissed`` (shown again, never held again); stored in order for the
        instances (:meth:`chat_decisions`). None if the game has no such line."""
        ...

    async def chat_decisions(self, after: int | None) -> list[ChatDecision]:
        """The operator's decisions after the ``after``-th, oldest first (None: the
        last one only, where an instance starts reading)."""
        ...

    async def chat_reports(self, limit: int) -> list[ChatReport]:
        """The reports queue: reported lines the operator did not decide on, the most
        recent first."""
        ...

    async def ban(self, kind: BanKind, value: str, reason: str) -> None:
        """Ban an address or an account (its id); banning again keeps the first."""
        ...

    async def unban(self, kind: BanKind, value: str) -> bool:
        """Lift a ban; False if there was none."""
        ...

    async def is_banned(self, kind: BanKind, value: str) -> bool:
        """Whether an address (or account) is banned."""

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``: the SQL :meth:`transact` takes."""
        ...

    async def transact(self, steps: Sequence[Step]) -> list[list[dict[str, Any]]]:
        """Run ``steps`` (SQL compiled for :attr:`dialect` and its parameters) in one
        transaction, in order: each one's rows by column name (none without
        ``RETURNING``). The accounts' statements (:class:`marrakech.web.store.queries.
        AccountQueries`) run through it. :class:`StoreConflict` (nothing written) if a
        step breaks a uniqueness rule."""
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
