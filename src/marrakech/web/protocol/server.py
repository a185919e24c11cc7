"""What the server sends (docs/web-protocol.md): every message and answer as a model.

On the WebSocket a :data:`ServerMessage` (:class:`Welcome`, :class:`Update`,
:class:`GameChanged`, :class:`ErrorMessage`, :class:`Pong`); over HTTP the answers
(:class:`PageConfig`, :class:`CreatedGame`, :class:`GameSummary`, :class:`JoinedSeat`,
:class:`Replay`, and :class:`HttpError` for every error). The server builds each one
through its model, so what it sends is what the types say::

    >>> ErrorMessage(code="game_over", message="the game is over", version=80).model_dump_json()
    '{"type":"error","code":"game_over","message":"the game is over","version":80}'

The positions and events inside them are the core's views (:mod:`marrakech.views`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from marrakech.web.protocol.client import ApiErrorCode, ErrorCode, StrictModel
from marrakech.web.store import GameStatus, SeatKind, SeatRow, StoredGame

#: A position: the core's :func:`marrakech.views.state_view`.
StateView = dict[str, Any]
#: What one action did: the core's :func:`marrakech.views.event_view`.
EventView = dict[str, Any]
#: One arc of the board's rim (R2): the core's :func:`marrakech.views.rim_view`.
RimArc = dict[str, Any]
#: The tokens each seat of a connection may send now, by seat number (``{"0": ["L"]}``).
Legal = dict[str, list[str]]
_LEGAL: TypeAdapter[Legal] = TypeAdapter(Legal)


def iso_time(epoch: float) -> str:
    """The protocol's times: ISO 8601 UTC to the second.

    >>> iso_time(1714564800.25)
    '2024-05-01T12:00:00Z'
    """
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def seat_link(game_id: str, token: str) -> str:
    """The page of a game for the holder of a seat token (in the fragment: never logged)."""
    return f"/g/{game_id}#t={token}"


class SeatInfo(StrictModel):
    """What anyone may know about a seat (never its token)."""

    seat: int
    kind: SeatKind
    level: str | None
    name: str

    @classmethod
    def of(cls, seat: SeatRow) -> SeatInfo:
        return cls(seat=seat.seat, kind=seat.kind, level=seat.level, name=seat.name)


class GameMeta(StrictModel):
    """A game's setting: who sits where, the rules, its language, its status."""

    game_id: str
    players: int
    rules: str
    seats: list[SeatInfo]
    first_seat: int
    lang: str
    created: str
    status: GameStatus


class Welcome(StrictModel):
    """The answer to a ``hello``, and again whenever a connection must start afresh."""

    type: Literal["welcome"] = "welcome"
    game: GameMeta
    you: list[int]
    version: int
    state: StateView
    log: list[str]
    legal: Legal


class Update(StrictModel):
    """After every accepted action: the new position, what happened, what each seat may do.

    The state is serialised once per language, not once per connection: ``legal`` is
    the one field that differs between connections::

        >>> update = Update(version=1, state={}, events=[], log=["..."], legal={"0": ["L"]})
        >>> shared = update.model_copy(update={"legal": {}}).json_without_legal()
        >>> Update.json_with_legal(shared, {"0": ["L"]}) == update.model_dump_json()
        True
    """

    type: Literal["update"] = "update"
    version: int
    state: StateView
    events: list[EventView]
    log: list[str]
    legal: Legal

    def json_without_legal(self) -> str:
        """This update's JSON without ``legal`` (see :meth:`json_with_legal`)."""
        return self.model_dump_json(exclude={"legal"})

    @staticmethod
    def json_with_legal(shared: str, legal: Legal) -> str:
        """The JSON of the update whose :meth:`json_without_legal` is ``shared``, with
        one connection's ``legal`` put back in (last, where the model has it)."""
        return f'{shared[:-1]},"legal":{_LEGAL.dump_json(legal).decode()}}}'


class GameChanged(StrictModel):
    """The game's setting changed (an open seat was joined)."""

    type: Literal["game"] = "game"
    game: GameMeta


class ErrorMessage(StrictModel):
    """A message refused, nothing changed; ``version`` is the game's current one (None
    before the hello was accepted)."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    version: int | None


class Pong(StrictModel):
    """The answer to a ``ping``."""

    type: Literal["pong"] = "pong"


ServerMessage = Annotated[
    Welcome | Update | GameChanged | ErrorMessage | Pong, Field(discriminator="type")
]
#: Validates a message of the server (tests, clients written in Python).
SERVER_MESSAGE: TypeAdapter[Welcome | Update | GameChanged | ErrorMessage | Pong] = TypeAdapter(
    ServerMessage
)


class PageConfig(StrictModel):
    """What the page asks once per load, before it shows anything (``GET /api/config``):
    the bot levels, weakest first, the level a new bot seat starts at, and the board's
    rim for the board to draw."""

    levels: list[str]
    default_level: str
    rim: list[RimArc]


class GameSummary(GameMeta):
    """A game as the lobby lists it: its setting, how far it is, its open seats."""

    version: int
    updated: str
    open_seats: list[int]

    @classmethod
    def of(cls, game: StoredGame) -> GameSummary:
        return cls(
            game_id=game.id,
            players=game.players,
            rules=game.rules,
            seats=[SeatInfo.of(seat) for seat in game.seats],
            first_seat=game.first_seat,
            lang=game.lang,
            created=iso_time(game.created),
            status=game.status,
            version=game.version,
            updated=iso_time(game.updated or game.created),
            open_seats=[seat.seat for seat in game.seats if seat.kind == "open"],
        )


class CreatedSeat(StrictModel):
    """A seat of a new game; a human seat's secret token and link (``token``, ``link``)
    and a bot's ``level`` are left out where they do not apply."""

    seat: int
    kind: SeatKind
    token: str | None = None
    link: str | None = None
    level: str | None = None


class CreatedGame(StrictModel):
    """The answer to ``POST /api/games``."""

    game_id: str
    seats: list[CreatedSeat]
    spectator_link: str
    replay_link: str


class JoinedSeat(StrictModel):
    """The answer to ``POST /api/games/{id}/join``: the claimed seat's token and link."""

    seat: int
    token: str
    link: str


class Replay(StrictModel):
    """Everything a replay page shows: the record, every position, every event, the log
    (position ``i + 1`` follows event ``i``)."""

    record: dict[str, Any]
    states: list[StateView]
    events: list[EventView]
    log: list[str]


class HttpError(StrictModel):
    """The body of every HTTP error."""

    error: ApiErrorCode
    message: str
