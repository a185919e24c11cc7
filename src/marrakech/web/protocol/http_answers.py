"""What the server answers over HTTP (docs/web-protocol.md): each answer as a model.

The page's settings (:class:`PageConfig`), a game created (:class:`CreatedGame`), listed
(:class:`GameSummary`) or joined (:class:`JoinedSeat`), a replay (:class:`Replay`), the
health check (:class:`Health`), and :class:`HttpError` for every error. The server
builds each answer through its model, so what it answers is what the types say::

    >>> HttpError(error="not_found", message="no game abc").model_dump_json()
    '{"error":"not_found","message":"no game abc"}'

What it sends on the WebSocket is in :mod:`marrakech.web.protocol.server`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from marrakech.web.protocol.client import StrictModel
from marrakech.web.protocol.refusals import ApiErrorCode
from marrakech.web.protocol.server import (
    Analysis,
    ChatLine,
    EventView,
    GameMeta,
    RimArc,
    StateView,
)
from marrakech.web.store import SeatKind


class RuleSetInfo(StrictModel):
    """A named rule set as the page offers it: its ``name`` (what ``CreateGame.rules``
    takes) and its words by language (``label`` in the form, ``help`` under it,
    ``short`` in a game's summary)."""

    name: str
    label: dict[str, str]
    help: dict[str, str]
    short: dict[str, str]


class RuleOptionInfo(RuleSetInfo):
    """A yes/no rule option: its ``name`` is the field of ``CreateGame.options``
    (``orient_last``), ``word`` its word in a rules token (``orient-last``), ``rule``
    the rule that says it (``R32``)."""

    word: str
    rule: str
    default: bool


class PageConfig(StrictModel):
    """What the page asks once per load, before it shows anything (``GET /api/config``):
    the bot levels, weakest first, the player counts each plays, the level a new bot
    seat starts at, the board's rim for the board to draw, and the seconds per turn of
    each clock."""

    levels: list[str]
    #: The player counts each level plays (``learned``: 2 and 4 only): the page offers
    #: a level only at those, and the server refuses it at the others.
    level_players: dict[str, list[int]] = Field(default_factory=dict)
    default_level: str
    rim: list[RimArc]
    #: The seconds per player turn of each clock a game may have (``none``: 0).
    clocks: dict[str, int]
    #: The player counts a game may have (:data:`marrakech.rules.PLAYER_COUNTS`).
    players: list[int]
    #: The named rule sets, in the order the form offers them, with their words.
    rule_sets: list[RuleSetInfo]
    #: The yes/no rule options every rule set has, with their words.
    rule_options: list[RuleOptionInfo]
    #: The carpets' colours by letter (``base``, ``dark``, ``light``, ``ink``).
    palette: dict[str, dict[str, str]]
    #: The chat: the most characters of a message, the quick reactions' codes.
    chat_max: int = 200
    reactions: list[str] = Field(default_factory=list)
    #: What one client address may ask of this instance (the fields of
    #: :class:`marrakech.web.limits.Limits`, and ``messages_per_second`` and
    #: ``message_burst`` per WebSocket): public, so a page or a load test can keep
    #: within them.
    limits: dict[str, float]
    #: Whether programs that declare themselves bots may take seats: ``allow`` (any
    #: seat), ``invited`` (by an invitation link only, not from the lobby) or ``refuse``
    #: (``marrakech serve --external-bots``).
    external_bots: str = "allow"
    #: Whether this server sends email reminders (it was given ``--smtp-url``).
    reminders: bool = False
    #: Whether this server sends Web Push notifications (it was given ``--web-push``).
    push: bool = False


class GameSummary(GameMeta):
    """A game as the lobby lists it: its setting, how far it is, its open seats.

    ``host`` is the host's name (empty if unnamed or none yet), ``taken`` the seats
    held by people or bots, ``open_seats`` the others, ``turn`` the player-turn
    number (the turn being played, or the last one once over: turns, not actions),
    ``age`` the seconds since its creation, ``replay_link`` its replay once over."""

    version: int
    updated: str
    open_seats: list[int]
    host: str
    taken: int
    turn: int
    age: int
    replay_link: str | None


class CreatedSeat(StrictModel):
    """A seat of a new game; a human seat's secret token and link (``token``, ``link``)
    and a bot's ``level`` are left out where they do not apply."""

    seat: int
    kind: SeatKind
    token: str | None = None
    link: str | None = None
    level: str | None = None


class CreatedGame(StrictModel):
    """The answer to ``POST /api/games``; ``host`` is the host's seat (None: the first
    player to join an open seat will host)."""

    game_id: str
    host: int | None = None
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
    #: The player turn at each position, as the lobby counts turns
    #: (:mod:`marrakech.player_turns`): a 30-turn game ends at 30, not at its 90-odd actions.
    turns: list[int] = Field(default_factory=list)
    #: The game's chat as it may be shown (hidden and reported lines left out; the
    #: spectators' channel once the game is over).
    chat: list[ChatLine] = Field(default_factory=list)


class AnalysisStatus(StrictModel):
    """``GET /api/games/{id}/analysis``: ``pending`` (being computed, or the game is
    not over: ``over`` says which) or ``ready`` with the analysis."""

    status: Literal["pending", "ready"]
    over: bool
    analysis: Analysis | None


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


#: Every public name of this module, re-exported by :mod:`marrakech.web.protocol`.
__all__ = [
    "AnalysisStatus",
    "CreatedGame",
    "CreatedSeat",
    "GameSummary",
    "Health",
    "HttpError",
    "JoinedSeat",
    "PageConfig",
    "Replay",
    "RuleOptionInfo",
    "RuleSetInfo",
]
