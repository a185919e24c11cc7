"""What a browser sends (docs/web-protocol.md), and the vocabulary both directions share.

Every message from a browser is untrusted: it is size-checked, parsed as JSON, and
validated strictly (no extra fields, no type coercion). A fault becomes a
:class:`ProtocolError` (WebSocket) or an :class:`ApiError` (HTTP) whose message says what
was expected and what was found::

    >>> parse_client_message('{"type": "action", "seat": 1, "version": 7, "action": "L"}')
    ActionMessage(type='action', seat=1, version=7, action='L')
    >>> for text in ('{"type": "action", "seat": "1", "version": 7, "action": "L"}', "[1]"):
    ...     try:
    ...         parse_client_message(text)
    ...     except ProtocolError as error:
    ...         print(error)
    bad_message: seat: expected a valid integer (found '1')
    bad_message: expected a JSON object, found a JSON list
"""

from __future__ import annotations

import json
import re
import reprlib
from collections.abc import Iterable
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from marrakech.bots import LEVEL_PLAYERS as BOT_LEVEL_PLAYERS
from marrakech.bots import LEVELS as BOT_LEVELS
from marrakech.bots import check_level_players
from marrakech.rules import NAMED_RULE_SETS, PLAYER_COUNTS, RULE_OPTIONS, parse_rules
from marrakech.web.protocol.display_names import Name, RequiredName, same_looking_seat
from marrakech.web.protocol.refusals import ApiError, ProtocolError

#: Largest WebSocket message accepted from a client, in bytes (UTF-8).
MAX_MESSAGE_BYTES = 4096
#: Largest HTTP request body (a game record to replay is the big one: ~10 KiB typical).
MAX_BODY_BYTES = 256 * 1024
#: At most this many ids in one lobby query.
MAX_IDS = 50
#: What a game id may look like (the server makes 12 URL-safe characters).
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

Lang = Literal["en", "fr"]
#: The bot levels a seat may ask for, weakest first: the bot registry's (its one home).
LEVELS: tuple[str, ...] = tuple(BOT_LEVELS)
#: The player counts each level plays (``learned``: 2 and 4 only, a shipped policy for
#: each), so that a page offers a level only where it plays.
LEVEL_PLAYERS: dict[str, tuple[int, ...]] = {level: BOT_LEVEL_PLAYERS[level] for level in LEVELS}
#: The level of a bot seat that names none.
DEFAULT_LEVEL = "medium"


def _known_level(level: str) -> str:
    if level not in LEVELS:
        *weaker, strongest = (repr(known) for known in LEVELS)
        raise ValueError(f"expected {', '.join(weaker)} or {strongest}")  # (found ...) follows
    return level


#: A bot level: one of :data:`LEVELS`.
Level = Annotated[
    str, AfterValidator(_known_level), Field(json_schema_extra={"enum": list(LEVELS)})
]


def _one_of(known: tuple[Any, ...]) -> str:
    *others, last = (repr(value) for value in known)
    return f"{', '.join(others)} or {last}" if others else last


def _known_players(players: int) -> int:
    if players not in PLAYER_COUNTS:
        raise ValueError(f"expected {_one_of(PLAYER_COUNTS)}")  # (found ...) follows
    return players


def _known_rule_set(name: str) -> str:
    if name not in NAMED_RULE_SETS:
        raise ValueError(f"expected a rule set among {_one_of(tuple(NAMED_RULE_SETS))}")
    return name


def _known_options(options: dict[str, bool]) -> dict[str, bool]:
    fields = tuple(option.field for option in RULE_OPTIONS)
    unknown = sorted(set(options) - set(fields))
    if unknown:
        raise ValueError(f"expected rule options among {_one_of(fields)}, found {unknown[0]!r}")
    return options


#: A player count (:data:`marrakech.rules.PLAYER_COUNTS`, R4).
Players = Annotated[
    int, AfterValidator(_known_players), Field(json_schema_extra={"enum": list(PLAYER_COUNTS)})
]
#: A named rule set (:data:`marrakech.rules.NAMED_RULE_SETS`).
RuleSetName = Annotated[
    str,
    AfterValidator(_known_rule_set),
    Field(json_schema_extra={"enum": list(NAMED_RULE_SETS)}),
]
#: Rule options (:data:`marrakech.rules.RULE_OPTIONS`, by field name) on or off.
RuleOptions = Annotated[dict[str, bool], AfterValidator(_known_options)]

#: The turn clocks a game may have (R-free: a server setting, not a rule of the game).
#: ``turn_*``: turn-based, an hour to three days per move (issue 25).
ClockMode = Literal["none", "relaxed", "blitz", "turn_1h", "turn_12h", "turn_1d", "turn_3d"]


class StrictModel(BaseModel):
    """A message of the protocol: no extra field, no type coercion, immutable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


_Body = TypeVar("_Body", bound=StrictModel)


Token = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class Hello(StrictModel):
    """First message of a connection: the seat tokens it holds (none for a spectator).

    ``bot``: the connection is a program playing its seats (``marrakech connect``, the
    :class:`marrakech.web.connect.GameClient`): the other players see those seats as
    "bot (external)" (docs/web-protocol.md, "External bots")."""

    type: Literal["hello"]
    tokens: list[Token] = Field(default_factory=list, max_length=4)
    lang: Lang = "en"
    bot: bool = False


class ActionMessage(StrictModel):
    """A decision token (``L``, ``c3-c4``...) or ``roll`` for ``seat`` at ``version``."""

    type: Literal["action"]
    seat: int = Field(ge=0, le=3)
    version: int = Field(ge=0)
    action: str = Field(min_length=1, max_length=16)


class Ping(StrictModel):
    type: Literal["ping"]


Seat = Annotated[int, Field(ge=0, le=3)]


class ResignMessage(StrictModel):
    """``seat`` (held by this connection) leaves the game (R22), at any moment of play."""

    type: Literal["resign"]
    seat: Seat


class StartMessage(StrictModel):
    """The host starts a game that waits for seats: bots of ``level`` (default
    ``medium``) take the open seats and play begins."""

    type: Literal["start"]
    level: Level | None = None


class ReplaceMessage(StrictModel):
    """The host has a bot of ``level`` play for an absent human ``seat`` (a stand-in,
    until the player sends ``take_back``)."""

    type: Literal["replace"]
    seat: Seat
    level: Level | None = None


class KickMessage(StrictModel):
    """The host opens again a seat claimed from the lobby whose player is away, before
    the game starts."""

    type: Literal["kick"]
    seat: Seat


class TakeBackMessage(StrictModel):
    """A returning player takes ``seat`` back from the bot standing in for it."""

    type: Literal["take_back"]
    seat: Seat


class RematchMessage(StrictModel):
    """After the end: the same seats in a new game (the first ask creates it)."""

    type: Literal["rematch"]


class HintMessage(StrictModel):
    """Advice for ``seat``'s decision (held by this connection and to orient or place
    now); without ``seat``, for the connection's seat that is to decide. The answer, a
    ``hint`` message, goes to this connection only."""

    type: Literal["hint"]
    seat: Seat | None = None


#: The quick reactions a chat offers, by code (each page words them in its language).
REACTIONS = ("gg", "wp", "oops", "thanks")
#: A chat's channels: the players', and the spectators' (players see it once it is over).
ChatChannel = Literal["players", "spectators"]


class ChatMessage(StrictModel):
    """A chat message, written by the connection's seat (``seat``: which, for a page
    holding several) in the players' channel, or by a spectator in the spectators'.
    The text is checked by the room (length, characters: ``chat_too_long``,
    ``chat_bad_text``), so its refusal says exactly what was wrong."""

    type: Literal["chat"]
    text: str = Field(max_length=2000)
    channel: ChatChannel | None = None
    seat: Seat | None = None


class ReactMessage(StrictModel):
    """A quick reaction (:data:`REACTIONS`), sent as its code."""

    type: Literal["react"]
    reaction: Literal["gg", "wp", "oops", "thanks"]
    seat: Seat | None = None


class ReportMessage(StrictModel):
    """Report chat line ``id`` of this game to the operator (it is then hidden from
    the reporter and from the replay)."""

    type: Literal["report"]
    id: int = Field(ge=1)


class MuteMessage(StrictModel):
    """Stop (``muted``) or start again showing ``seat``'s chat to this connection (the
    page remembers it and says it again after each welcome)."""

    type: Literal["mute"]
    seat: Seat
    muted: bool = True


AnyClientMessage = (
    Hello
    | ActionMessage
    | Ping
    | ResignMessage
    | StartMessage
    | ReplaceMessage
    | KickMessage
    | TakeBackMessage
    | RematchMessage
    | HintMessage
    | ChatMessage
    | ReactMessage
    | ReportMessage
    | MuteMessage
)
#: The messages a connection may send once its hello was accepted, besides actions.
SeatMessage = (
    ResignMessage | StartMessage | ReplaceMessage | KickMessage | TakeBackMessage | RematchMessage
)
#: Validates a seat command forwarded between server instances (its ``model_dump``).
SEAT_MESSAGE: TypeAdapter[SeatMessage] = TypeAdapter(
    Annotated[SeatMessage, Field(discriminator="type")]
)
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
_CLIENT_MESSAGE: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)


def message_type(model: type[StrictModel]) -> str:
    """The ``type`` a message model declares (``type: Literal["wave"]``)."""
    value: str = get_args(model.model_fields["type"].annotation)[0]
    return value


def message_types(models: Iterable[type[StrictModel]]) -> str:
    """The ``type`` of each model, as refusals list them: ``"action", "hint"``."""
    return ", ".join(f'"{message_type(model)}"' for model in models)


#: The ``type`` of every client message, as error messages list them.
CLIENT_TYPES = message_types(get_args(AnyClientMessage))


class SeatSpec(StrictModel):
    """A seat of a new game: a human (gets a link), an open seat (lobby) or a bot."""

    kind: Literal["human", "open", "bot"]
    level: Level | None = None
    name: Name = ""

    @model_validator(mode="after")
    def _level_for_bots_only(self) -> SeatSpec:
        if self.level is not None and self.kind != "bot":
            raise ValueError(f"level is for bot seats only, found one on a {self.kind} seat")
        return self


class CreateGame(StrictModel):
    """``POST /api/games``. The host is the first ``human`` seat (else the first player
    to join an open seat); ``name`` names it, and is needed when a seat is open."""

    players: Players
    rules: RuleSetName = "standard"
    #: The rule options turned on or off (:data:`marrakech.rules.RULE_OPTIONS`, by field
    #: name: ``{"orient_last": true}`` is Board Game Arena's "rotate Assam at the end of
    #: the turn", R32); an option may also be given as a field of its own
    #: (``"orient_last": true``), as before options were declared in one place.
    options: RuleOptions = Field(default_factory=dict)
    seats: list[SeatSpec] = Field(min_length=2, max_length=4)
    first_seat: int | Literal["random"] = "random"
    lang: Lang = "en"
    clock: ClockMode = "none"
    #: The level of the bot that plays for a human whose time ran out.
    stand_in_level: Level | None = None
    #: Whether players may ask for a hint during their decisions (each seat's hints
    #: are counted for everyone to see).
    hints: bool = True
    #: Whether the game has a chat (players', spectators', quick reactions).
    chat: bool = True
    #: Whether the game is rated (docs/web.md, "Ratings"): its people's seats are taken
    #: by signed-in accounts only (its creator's, and those who join its open seats),
    #: bots allowed.
    rated: bool = False
    name: Name = ""

    @model_validator(mode="before")
    @classmethod
    def _options_as_fields(cls, data: Any) -> Any:
        """Move an option given as a field of its own into ``options``."""
        if not isinstance(data, dict):
            return data
        given = [option.field for option in RULE_OPTIONS if option.field in data]
        if not given:
            return data
        data = dict(data)
        options = data.get("options", {})
        if isinstance(options, dict):
            data["options"] = {**{field: data.pop(field) for field in given}, **options}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> CreateGame:
        if len(self.seats) != self.players:
            raise ValueError(
                f"expected {self.players} seats for {self.players} players, found {len(self.seats)}"
            )
        for seat, spec in enumerate(self.seats):
            if spec.level is not None:
                _check_level_players(f"seats[{seat}].level", spec.level, self.players)
        if self.stand_in_level is not None:
            _check_level_players("stand_in_level", self.stand_in_level, self.players)
        if isinstance(self.first_seat, int) and not 0 <= self.first_seat < self.players:
            raise ValueError(
                f"first_seat: expected 0..{self.players - 1} or 'random', found {self.first_seat}"
            )
        host = self.host_seat
        if host is None and self.name:
            raise ValueError(
                "name: expected no host's name in a game without a human seat (the first"
                f" player to join an open seat hosts it), found {self.name!r}"
            )
        if host is not None and self.name and self.seats[host].name not in ("", self.name):
            raise ValueError(
                f"name: expected the host's name once, found {self.name!r} and"
                f" {self.seats[host].name!r} on seat {host}"
            )
        for seat, spec in enumerate(self.seats):
            twin = same_looking_seat(spec.name, enumerate(s.name for s in self.seats[:seat]))
            if spec.name and twin is not None:
                raise ValueError(
                    f"seats[{seat}].name: expected a name unlike the other seats' (players"
                    f" are told apart by their names), found {spec.name!r}, which looks"
                    f" like seat {twin}'s {self.seats[twin].name!r}"
                )
        humans = sum(seat.kind == "human" for seat in self.seats)
        if self.rated and humans > 1:
            raise ValueError(
                "rated: expected at most one person's seat taken at creation (the"
                " creator's; the others join its open seats, each signed in), found"
                f" {humans}"
            )
        if self.rated and not any(seat.kind in ("human", "open") for seat in self.seats):
            raise ValueError(
                "rated: expected a seat for a person (human or open): bots alone are not rated"
            )
        if any(seat.kind == "open" for seat in self.seats) and host is not None:
            if not (self.name or self.seats[host].name):
                raise ValueError(
                    "name: expected the host's name (the lobby shows it beside the open"
                    " seats), found none"
                )
        return self

    @property
    def host_seat(self) -> int | None:
        """The seat of the game's host: the first human one (None: the first to join)."""
        return next((n for n, seat in enumerate(self.seats) if seat.kind == "human"), None)

    @property
    def rules_token(self) -> str:
        """The rule set's token (``standard+orient-last``...)."""
        return parse_rules(self.rules).with_options(**self.options).token()


def _check_level_players(field: str, level: str, players: int) -> None:
    """A level for a game it plays (``learned`` refuses 3 players): refused at creation,
    so that no bot refuses its first decision in the middle of the game."""
    try:
        check_level_players(level, players)
    except ValueError as error:
        raise ValueError(f"{field}: {error}") from None


class JoinGame(StrictModel):
    """``POST /api/games/{id}/join``: an open seat and the name of who takes it."""

    seat: int = Field(ge=0, le=3)
    name: RequiredName
    #: A program takes the seat (an external bot): shown as such to the other players.
    bot: bool = False


#: Shows a faulty value briefly, however deeply nested.
_SHORT = reprlib.Repr()
_SHORT.maxlevel = 2


def _where(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif not part.startswith("function-"):  # a validator's name, not a field
            parts.append(("." if parts else "") + part)
    return "".join(parts)


def describe_validation_error(error: ValidationError, tagged: bool = False) -> str:
    """One clause per fault (at most 5): ``field: expected ... (found X)``.

    ``tagged``: the first location item is the union tag (the message ``type``), not a
    field the sender wrote.
    """
    lines = []
    for item in error.errors(include_url=False)[:5]:
        loc = tuple(item.get("loc", ()))
        kind = str(item.get("type", ""))
        if tagged and loc and kind != "union_tag_not_found":
            loc = loc[1:]
        where = _where(loc)
        prefix = f"{where}: " if where else ""
        message = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        message = message.replace("Input should be", "expected")
        if kind == "missing":
            line = f"{prefix}expected this field, found nothing"
        elif kind == "extra_forbidden":
            line = f"{prefix}unexpected field"
        elif kind == "union_tag_not_found":
            line = f"type: expected one of {CLIENT_TYPES}, found nothing"
        elif kind == "union_tag_invalid":
            tag = item.get("ctx", {}).get("tag")
            line = f"type: expected one of {CLIENT_TYPES}, found {tag!r}"
        elif kind == "model_type" or "found" in message:
            line = prefix + message
        else:
            shown = _SHORT.repr(item.get("input"))  # bounded: nested input cannot recurse
            if len(shown) > 40:
                shown = shown[:37] + "..."
            line = f"{prefix}{message} (found {shown})"
        lines.append(line)
    return "; ".join(lines)


def parse_json(text: str | bytes) -> Any:
    """Parse JSON from a client; :class:`ProtocolError` (``bad_message``) if it is not
    JSON or nests arrays and objects too deeply to be read.

    >>> try:
    ...     parse_json("[" * 100_000)
    ... except ProtocolError as error:
    ...     print(error.message)
    expected JSON nested at most a few hundred levels deep
    """
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProtocolError("bad_message", f"expected a JSON object: {error}") from None
    except RecursionError:
        raise ProtocolError(
            "bad_message", "expected JSON nested at most a few hundred levels deep"
        ) from None


def _json_object(text: str | bytes) -> dict[str, Any]:
    data = parse_json(text)
    if not isinstance(data, dict):
        raise ProtocolError(
            "bad_message", f"expected a JSON object, found a JSON {type(data).__name__}"
        )
    return data


def parse_client_message(text: str | bytes) -> AnyClientMessage:
    """Check the size, parse and validate one WebSocket message from a client."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            "too_large", f"messages are at most {MAX_MESSAGE_BYTES} bytes, found {size}"
        )
    data = _json_object(text)
    try:
        return _CLIENT_MESSAGE.validate_python(data)
    except ValidationError as error:
        raise ProtocolError("bad_message", describe_validation_error(error, tagged=True)) from None


def parse_body(model: type[_Body], body: bytes) -> _Body:
    """Validate an HTTP JSON body against ``model``; :class:`ApiError` (400) on faults."""
    try:
        return model.model_validate(_json_object(body))
    except ProtocolError as error:
        raise ApiError(400, "bad_request", error.message) from None
    except ValidationError as error:
        raise ApiError(400, "bad_request", describe_validation_error(error)) from None


#: Every public name of this module, re-exported by :mod:`marrakech.web.protocol`.
__all__ = [
    "CLIENT_TYPES",
    "DEFAULT_LEVEL",
    "GAME_ID",
    "LEVELS",
    "LEVEL_PLAYERS",
    "MAX_BODY_BYTES",
    "MAX_IDS",
    "MAX_MESSAGE_BYTES",
    "REACTIONS",
    "SEAT_MESSAGE",
    "ActionMessage",
    "AnyClientMessage",
    "ChatChannel",
    "ChatMessage",
    "ClientMessage",
    "ClockMode",
    "CreateGame",
    "Hello",
    "HintMessage",
    "JoinGame",
    "KickMessage",
    "Lang",
    "Level",
    "MuteMessage",
    "Ping",
    "Players",
    "ReactMessage",
    "RematchMessage",
    "ReplaceMessage",
    "ReportMessage",
    "ResignMessage",
    "RuleOptions",
    "RuleSetName",
    "Seat",
    "SeatMessage",
    "SeatSpec",
    "StartMessage",
    "StrictModel",
    "TakeBackMessage",
    "Token",
    "describe_validation_error",
    "message_type",
    "message_types",
    "parse_body",
    "parse_client_message",
    "parse_json",
]
