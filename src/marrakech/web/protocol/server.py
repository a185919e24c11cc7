"""What the server sends on the WebSocket (docs/web-protocol.md): every message as a model.

A :data:`ServerMessage` (:class:`Welcome`, :class:`Update`, :class:`GameChanged`,
:class:`BotsBusy`, :class:`ErrorMessage`, :class:`Pong`...) and what is inside them; its
HTTP answers are in :mod:`marrakech.web.protocol.http_answers`. The server builds each
one through its model, so what it sends is what the types say::

    >>> ErrorMessage(code="game_over", message="the game is over", version=80).model_dump_json()
    '{"type":"error","code":"game_over","message":"the game is over","version":80}'

The positions and events inside them are the core's views (:mod:`marrakech.views`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import pydantic_core
from pydantic import Field, TypeAdapter, model_validator

from marrakech.rules import parse_rules
from marrakech.web.protocol.client import ClockMode, StrictModel
from marrakech.web.protocol.refusals import ErrorCode
from marrakech.web.store import GameStatus, SeatKind

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


#: Whether a seat's player is here: ``connected`` (one of its pages is open),
#: ``away`` (none is), ``open`` (nobody holds the seat yet). Bots are ``connected``.
Presence = Literal["connected", "away", "open"]
#: A game as players see it: ``waiting`` for seats, ``playing``, or ``over``.
PlayStatus = Literal["waiting", "playing", "over"]


def play_status(status: GameStatus) -> PlayStatus:
    """The protocol's word for a stored status (the store says ``running``).

    >>> play_status("running"), play_status("waiting")
    ('playing', 'waiting')
    """
    return "playing" if status == "running" else status


class SeatInfo(StrictModel):
    """What anyone may know about a seat (never its token): who sits there, whether
    they are here, whether a bot stands in for them (its level), whether they resigned
    (R22), whether they host the game, and how many hints they used (one per position
    they asked about)."""

    seat: int
    kind: SeatKind
    level: str | None
    name: str
    presence: Presence
    stand_in: str | None
    resigned: bool
    host: bool
    hints: int = 0
    #: A program plays the seat: its connection declared itself a bot (an external bot,
    #: ``marrakech connect``), shown as "bot (external)" to everyone.
    external: bool = False


class Clock(StrictModel):
    """A game's turn clock. ``mode`` ``none`` has no ``seconds``; the ``turn_*`` ones are
    turn-based (hours or days per move, docs/playing.md); otherwise each turn
    (orient, roll, place) has ``seconds``, and when they run out a bot of
    ``stand_in_level`` plays for the seat until its player takes it back.

    ``seat`` is the seat whose time runs now (None: no clock, the game is not started
    or is over, or a bot is to move), ``deadline`` when it ends (ISO 8601 UTC to the
    millisecond), ``remaining`` the seconds left when the server wrote the message: a
    page counts down from ``remaining``, unbothered by its own clock being wrong."""

    mode: ClockMode
    seconds: int | None
    stand_in_level: str
    seat: int | None = None
    deadline: str | None = None
    remaining: float | None = None
    #: A turn-based clock's (issue 25): the seconds of ``remaining`` that come from the
    #: running seat's time bank (spent only past the move's own time).
    bank: float | None = None


class GameMeta(StrictModel):
    """A game's setting: who sits where, the rules (the rule set's token, e.g.
    ``standard+orient-last``), its language, its status, its clock, whether players
    may ask for ``hints``, and once the game is over the id of its rematch (None until
    a player asks for one)."""

    game_id: str
    players: int
    rules: str
    seats: list[SeatInfo]
    first_seat: int
    lang: str
    created: str
    status: PlayStatus
    clock: Clock
    hints: bool = False
    rematch: str | None = None
    #: Whether the game has a chat (its host may turn it off at creation).
    chat: bool = True
    #: Whether the game is rated (its end moves its accounts' and bots' ratings).
    rated: bool = False

    #: The named rule set under the options (``standard``, ``bga``), or ``custom``, and
    #: each rule option (:data:`marrakech.rules.RULE_OPTIONS`, by field) on or off: both
    #: read from ``rules`` when not given, so no client parses the token.
    rule_set: str = ""
    options: dict[str, bool] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _rules_read(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("rules"), str):
            rules = parse_rules(data["rules"])
            data = {"rule_set": rules.base.name, "options": rules.options(), **data}
        return data


class TitheInfo(StrictModel):
    """A tithe paid (R11-R13): by ``payer`` to ``payee``, ``paid`` of ``due`` dirhams."""

    payer: int
    payee: int
    due: int
    paid: int
    region: list[str]


class AssamStep(StrictModel):
    """Where Assam is and faces (``"d4"``, ``"N"``); ``arc``: he got there by a rim arc
    (R2), for drawing his walk."""

    square: str
    facing: str
    arc: bool = False


class TurnSummary(StrictModel):
    """One player turn at a glance: the events from version ``start`` (excluded) to
    ``end`` (included: the position after the turn is ``states[end]`` of a replay).

    ``turn`` is the player-turn number (1 for the first turn of the game: turns, not
    actions), ``orient`` the orientation chosen (``L``/``S``/``R``; None if the turn had
    none), ``roll`` the die, ``path`` Assam's squares and ``walk`` his walk to draw it (where he
    stood, then each step), ``tithe`` what was paid,
    ``placed`` the carpet's two squares and ``colour`` its colour letter,
    ``eliminated`` the seats out during the turn (R13) and ``resigned`` those who left
    (R22), ``log`` the turn's sentences in the connection's language."""

    seat: int
    turn: int
    start: int
    end: int
    orient: str | None
    roll: int | None
    path: list[str]
    walk: list[AssamStep]
    tithe: TitheInfo | None
    placed: list[str] | None
    colour: str | None
    eliminated: list[int]
    resigned: list[int]
    log: list[str]


#: Per legal orientation, each roll's landing square, probability and tithe: the
#: core's :func:`marrakech.views.preview_view`.
PreviewView = list[dict[str, Any]]


class Swing(StrictModel):
    """A turn where a seat's winning chances moved most: ``before`` to ``after``
    (0..1), over the turn ending at position ``version`` (a replay's ``states``)."""

    seat: int
    turn: int
    version: int
    before: float
    after: float


class Analysis(StrictModel):
    """A finished game, looked back on (computed once, off the event loop, stored).

    ``luck`` is each seat's dice luck in dirhams (:mod:`marrakech.luck`); the series
    have one point per position after each player turn, the first at the start:
    ``turns`` its player-turn number, ``versions`` its position in a replay's
    ``states``, ``scores[i][seat]`` (R20) and ``chances[i][seat]`` (the seat's share
    of the win, 0..1, estimated as ``method`` says, e.g. ``playouts:200``).
    ``swings`` are the biggest moves of any seat's chances, biggest first."""

    game_id: str
    luck: list[float]
    turns: list[int]
    versions: list[int]
    scores: list[list[int]]
    chances: list[list[float]]
    swings: list[Swing]
    method: str


class Welcome(StrictModel):
    """The answer to a ``hello``, and again whenever a connection must start afresh."""

    type: Literal["welcome"] = "welcome"
    game: GameMeta
    you: list[int]
    version: int
    state: StateView
    log: list[str]
    legal: Legal
    #: While a seat is to orient, the core's preview of each orientation (else None).
    preview: PreviewView | None = None
    #: The last finished player turn (None before the first ends).
    last_move: TurnSummary | None = None
    #: The turns since the last turn of a seat of this connection (its "what happened
    #: since your last turn"), oldest first; empty for spectators.
    since: list[TurnSummary] = Field(default_factory=list)
    #: The game's analysis once it is over and computed (see :class:`AnalysisReady`).
    analysis: Analysis | None = None


class Update(StrictModel):
    """After every accepted action: what happened, what changed, what each seat may do.

    ``changes`` is what changed in the state view since the connection's previous
    message (:func:`view_changes`), which the page merges into the view it has; the
    whole view comes as ``state`` instead when that is simpler (``changes`` is then
    None). The update is written once per language, not once per connection: ``legal``
    is the one field that differs between connections::

        >>> clock = Clock(mode="none", seconds=None, stand_in_level="medium")
        >>> update = Update(version=1, events=[], log=["..."], changes={"phase": "roll"},
        ...                 state=None, preview=None, last_move=None, clock=clock,
        ...                 legal={"0": ["L"]})
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
    preview: PreviewView | None
    last_move: TurnSummary | None
    clock: Clock
    legal: Legal

    def json_without_legal(self) -> str:
        """This update's JSON without ``legal`` (see :meth:`json_with_legal`): views are
        plain JSON data, which pydantic-core writes as plain data, without the model's
        schema, twice as fast as the standard library's encoder."""
        return Update.shared_json(**{name: getattr(self, name) for name in _UPDATE_SHARED})

    @staticmethod
    def shared_json(**fields: Any) -> str:
        """:meth:`json_without_legal` of the update of these ``fields`` (all but
        ``type`` and ``legal``), written without making the model: a room writes one
        for every version it sends."""
        data: dict[str, Any] = {"type": "update"}  # first, as the model writes it
        for name in _UPDATE_SHARED:
            data[name] = _plain(fields[name])
        return pydantic_core.to_json(data).decode()

    @staticmethod
    def json_with_legal(shared: str, legal: Legal) -> str:
        """The JSON of the update whose :meth:`json_without_legal` is ``shared``, with
        one connection's ``legal`` put back in (last, where the model has it)."""
        return f'{shared[:-1]},"legal":{_LEGAL.dump_json(legal).decode()}}}'


def _plain(value: Any) -> Any:
    return value.model_dump() if isinstance(value, StrictModel) else value


#: The fields of an update that every connection shares (all but ``legal``), but its
#: ``type``.
_UPDATE_SHARED = tuple(name for name in Update.model_fields if name not in ("type", "legal"))


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
        if old is value or old == value:  # a board kept from view to view: not compared
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


#: Why a game's setting changed (a page may say so): a seat was ``joined``, a player
#: came (``connected``) or left (``away``), the host ``started`` the game, ``replaced``
#: an absent player by a bot or ``kicked`` one before the start, a player's ``timeout``
#: put a stand-in bot in its seat, a player ``took_back`` the seat, ``resigned``, the
#: game ended and a ``rematch`` was created, a player used a ``hint``.
ChangeReason = Literal[
    "joined",
    "connected",
    "away",
    "started",
    "replaced",
    "kicked",
    "timeout",
    "took_back",
    "resigned",
    "resign_pending",
    "rematch",
    "hint",
]


class GameChanged(StrictModel):
    """The game's setting changed: ``reason`` says how, ``seat`` which seat (None when
    no one seat: ``started``, ``rematch``)."""

    type: Literal["game"] = "game"
    game: GameMeta
    reason: ChangeReason
    seat: int | None = None


class RematchSeat(StrictModel):
    """A seat of the rematch held by this connection: its token and link."""

    seat: int
    token: str
    link: str


class RematchReady(StrictModel):
    """The game's rematch exists: its id, and the new token and link of each seat this
    connection holds (never another's); spectators get only ``spectator_link``."""

    type: Literal["rematch"] = "rematch"
    game_id: str
    seats: list[RematchSeat]
    spectator_link: str


class AnalysisReady(StrictModel):
    """The analysis of the finished game (sent when computed; in later welcomes)."""

    type: Literal["analysis"] = "analysis"
    analysis: Analysis


class HintOption(StrictModel):
    """One legal decision as the hint's search saw it: ``action`` its token (``L``,
    ``c6-c7``...), ``chance`` the seat's winning chance after it (0..1), ``share`` the
    part of the search spent on it."""

    action: str
    chance: float
    share: float


class HintAdvice(StrictModel):
    """The answer to a ``hint``, to the asking connection only: advice for ``seat`` in
    the position at ``version`` (a page that has moved on drops it), every legal
    decision in ``options``, the advised one first
    (:func:`marrakech.bots.analysis.hint`)."""

    type: Literal["hint"] = "hint"
    version: int
    seat: int
    options: list[HintOption]


class ErrorMessage(StrictModel):
    """A message refused, nothing changed; ``version`` is the game's current one (None
    before the hello was accepted)."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    version: int | None


class ChatLine(StrictModel):
    """A line of a game's chat: ``id`` (the store's), its author's ``seat`` (None: a
    spectator), its ``channel``, a ``text`` message or a ``reaction`` (the text is then
    its code: ``gg``, ``wp``, ``oops``, ``thanks``), ``at`` when it was written. Pages
    insert the text as text, never as HTML."""

    id: int
    seat: int | None
    channel: Literal["players", "spectators"]
    kind: Literal["text", "reaction"]
    text: str
    at: str


class ChatLines(StrictModel):
    """Chat lines this connection may see: new ones, or (``history``) every line so
    far after a ``welcome``, which replace what the page shows."""

    type: Literal["chat"] = "chat"
    lines: list[ChatLine]
    history: bool = False


class ChatHidden(StrictModel):
    """Chat lines to take away: ``hidden`` by the operator (for everyone), ``held``
    after reports of several players of the game (for everyone, until the operator
    decides), or ``reported`` by this connection (for it alone)."""

    type: Literal["chat_hidden"] = "chat_hidden"
    ids: list[int]
    reason: Literal["hidden", "held", "reported"]


class Pong(StrictModel):
    """The answer to a ``ping``."""

    type: Literal["pong"] = "pong"


AnyServerMessage = (
    Welcome
    | Update
    | GameChanged
    | BotsBusy
    | ErrorMessage
    | Pong
    | RematchReady
    | AnalysisReady
    | HintAdvice
    | ChatLines
    | ChatHidden
)
ServerMessage = Annotated[AnyServerMessage, Field(discriminator="type")]
#: Validates a message of the server (tests, clients written in Python).
SERVER_MESSAGE: TypeAdapter[AnyServerMessage] = TypeAdapter(ServerMessage)


#: Every public name of this module, re-exported by :mod:`marrakech.web.protocol`.
__all__ = [
    "SERVER_MESSAGE",
    "Analysis",
    "AnalysisReady",
    "AnyServerMessage",
    "AssamStep",
    "BotsBusy",
    "ChangeReason",
    "ChatHidden",
    "ChatLine",
    "ChatLines",
    "Clock",
    "ErrorMessage",
    "EventView",
    "GameChanged",
    "GameMeta",
    "HintAdvice",
    "HintOption",
    "Legal",
    "NeedView",
    "PlayStatus",
    "Pong",
    "Presence",
    "PreviewView",
    "RematchReady",
    "RematchSeat",
    "RimArc",
    "SeatInfo",
    "ServerMessage",
    "StateView",
    "Swing",
    "TitheInfo",
    "TurnSummary",
    "Update",
    "Welcome",
    "iso_time",
    "play_status",
    "seat_link",
    "view_changes",
]
