"""What the server sends (docs/web-protocol.md): every message and answer as a model.

On the WebSocket a :data:`ServerMessage` (:class:`Welcome`, :class:`Update`,
:class:`GameChanged`, :class:`BotsBusy`, :class:`ErrorMessage`, :class:`Pong`); over HTTP
the answers (:class:`PageConfig`, :class:`CreatedGame`, :class:`GameSummary`,
:class:`JoinedSeat`, :class:`Replay`, :class:`Health`, and :class:`HttpError` for every
error). The server builds each one
through its model, so what it sends is what the types say::

    >>> ErrorMessage(code="game_over", message="the game is over", version=80).model_dump_json()
    '{"type":"error","code":"game_over","message":"the game is over","version":80}'

The positions and events inside them are the core's views (:mod:`marrakech.views`).
"""

from __future__ import annotations

import json
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
    """After every accepted action: what happened, what changed, what each seat may do.

    ``changes`` is what changed in the state view since the connection's previous
    message (:func:`view_changes`), which the page merges into the view it has; the
    whole view comes as ``state`` instead when that is simpler (``changes`` is then
    None). The update is written once per language, not once per connection: ``legal``
    is the one field that differs between connections::

        >>> update = Update(version=1, events=[], log=["..."], changes={"phase": "roll"},
        ...                 state=None, legal={"0": ["L"]})
        >>> shared = update.model_copy(update={"legal": {}}).json_without_legal()
        >>> Update.json_with_legal(shared, {"0": ["L"]}) == update.model_dump_json()
        True
    """

    type: Literal["update"] = "update"
    version: int
    events: list[EventView]
    log: list[str]
    changes: StateView | None
    state: StateView | None
    legal: Legal

    def json_without_legal(self) -> str:
        """This update's JSON without ``legal`` (see :meth:`json_with_legal`), written by
        the standard library: views are plain JSON data, which it writes faster."""
        data = {name: getattr(self, name) for name in _UPDATE_SHARED}
        return _JSON.encode(data)

    @staticmethod
    def json_with_legal(shared: str, legal: Legal) -> str:
        """The JSON of the update whose :meth:`json_without_legal` is ``shared``, with
        one connection's ``legal`` put back in (last, where the model has it)."""
        return f'{shared[:-1]},"legal":{_LEGAL.dump_json(legal).decode()}}}'


#: The fields of an update that every connection shares (all but ``legal``).
_UPDATE_SHARED = tuple(name for name in Update.model_fields if name != "legal")
#: Writes compact JSON as pydantic does (made once: ``json.dumps`` with options would
#: build an encoder at every call).
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class NeedView(ValueError):
    """Two views differ in a way :func:`view_changes` does not describe: send the view."""


def view_changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from view ``before`` to view ``after``, for the page to merge in.

    Two levels deep: a changed key whose value is an object (or a list of the same
    length, keyed by index) holds only its changed entries, each entry whole; anything
    else is the new value, ``null`` included. Nothing is ever removed: a key that
    disappears raises :class:`NeedView` (the page then gets the whole view)::

        >>> view_changes({"a": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1}, {"f": 2}]},
        ...              {"a": 1, "b": {"c": 2, "d": None}, "e": [{"f": 1}, {"f": 5}]})
        {'b': {'d': None}, 'e': {'1': {'f': 5}}}
    """
    if not before.keys() <= after.keys():
        raise NeedView("a key disappeared")
    changes: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key, _ABSENT)
        if old == value:
            continue
        if isinstance(old, dict) and isinstance(value, dict):
            if not old.keys() <= value.keys():
                raise NeedView(f"a key of {key} disappeared")
            changes[key] = {k: v for k, v in value.items() if old.get(k, _ABSENT) != v}
        elif isinstance(old, list) and isinstance(value, list) and len(old) == len(value):
            changes[key] = {
                str(i): v for i, (o, v) in enumerate(zip(old, value, strict=True)) if o != v
            }
        elif isinstance(old, list) and isinstance(value, dict):
            raise NeedView(f"{key} became an object")
        else:
            changes[key] = value
    return changes


#: A key a view did not have before (never equal to any JSON value).
_ABSENT = object()


class BotsBusy(StrictModel):
    """The server's bots think less than usual (many games ask at once), or again as
    usual; sent to the connections of games with bots, and after a ``welcome``."""

    type: Literal["bots"] = "bots"
    busy: bool


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
    Welcome | Update | GameChanged | BotsBusy | ErrorMessage | Pong,
    Field(discriminator="type"),
]
#: Validates a message of the server (tests, clients written in Python).
SERVER_MESSAGE: TypeAdapter[Welcome | Update | GameChanged | BotsBusy | ErrorMessage | Pong] = (
    TypeAdapter(ServerMessage)
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


class Health(StrictModel):
    """``GET /api/health``: the instance answering, its live rooms, whether its bots
    are busy, and the version of the page's files it serves."""

    status: Literal["ok"]
    instance: str
    rooms: int
    bots_busy: bool
    page: str


class HttpError(StrictModel):
    """The body of every HTTP error."""

    error: ApiErrorCode
    message: str
