"""The HTTP API (docs/web-protocol.md): create and join games, list them, records, replays.

Bodies must say they are JSON (``415`` otherwise: a form or a text body, which any web
page could make a visitor's browser send without asking), are read with a size limit
and validated strictly (:mod:`marrakech.web.protocol`); creating and joining games are
rate-limited per client and capped (:mod:`marrakech.web.limits`). Every refusal is an
:class:`~marrakech.web.protocol.ApiError`, answered as ``{"error": code, "message": ...}``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import asdict

from fastapi import APIRouter, Request
from fastapi.responses import Response

from marrakech.errors import NotationError
from marrakech.events import Event
from marrakech.i18n import (
    LANGUAGES,
    RuleWords,
    describe_event,
    rule_option_words,
    rule_set_words,
)
from marrakech.palette import WEB_CARPETS
from marrakech.player_turns import TurnSpan, extend_turns, turn_number
from marrakech.record import GameRecord
from marrakech.rules import NAMED_RULE_SETS, PLAYER_COUNTS, RULE_OPTIONS
from marrakech.views import event_view, rim_view, state_view
from marrakech.web.accounts.sessions import signed_in
from marrakech.web.context import Context
from marrakech.web.http_protocol import read_json_body
from marrakech.web.limits import check_caps, client_key
from marrakech.web.protocol import (
    DEFAULT_LEVEL,
    GAME_ID,
    LEVEL_PLAYERS,
    LEVELS,
    MAX_IDS,
    REACTIONS,
    AnalysisStatus,
    ApiError,
    ChatLine,
    CreatedGame,
    CreatedSeat,
    CreateGame,
    GameSummary,
    Health,
    JoinedSeat,
    JoinGame,
    PageConfig,
    ProtocolError,
    Replay,
    RuleOptionInfo,
    RuleSetInfo,
    display_name,
    iso_time,
    parse_body,
    parse_json,
    seat_link,
)
from marrakech.web.room.chat import MAX_CHAT
from marrakech.web.room.meta import stored_meta
from marrakech.web.room_manager import RoomManager
from marrakech.web.routes import players as rated
from marrakech.web.store import StoredGame

router = APIRouter(prefix="/api")


@router.get("/health")
async def health(context: Context) -> Health:
    """For load balancers and uptime monitors: this instance is up and serves games."""
    manager = context.manager
    return Health(
        status="ok",
        instance=manager.cluster.instance,
        rooms=len(manager.rooms),
        bots_busy=manager.bots.busy,
        page=context.static.version,
    )


@router.get("/config")
async def page_config(context: Context) -> PageConfig:
    """What the page needs before it shows anything; the same for every page load."""
    return PageConfig(
        levels=list(LEVELS),
        level_players={level: list(LEVEL_PLAYERS[level]) for level in LEVELS},
        default_level=DEFAULT_LEVEL,
        rim=rim_view(),
        clocks=dict(context.manager.clock_seconds),
        players=list(PLAYER_COUNTS),
        rule_sets=[
            RuleSetInfo(name=name, **_words(rule_set_words, name)) for name in NAMED_RULE_SETS
        ],
        rule_options=[
            RuleOptionInfo(
                name=option.field,
                word=option.word,
                rule=option.rule,
                default=False,
                **_words(rule_option_words, option.field),
            )
            for option in RULE_OPTIONS
        ],
        palette=WEB_CARPETS,
        chat_max=MAX_CHAT,
        reactions=list(REACTIONS),
        external_bots=context.external_bots,
        limits={
            **asdict(context.limits),
            "messages_per_second": context.rate,
            "message_burst": context.burst,
        },
        reminders=context.reminders is not None and context.reminders.channel is not None,
        push=context.reminders is not None and context.reminders.devices is not None,
    )


def _words(words_of: Callable[[str, str], RuleWords], name: str) -> dict[str, dict[str, str]]:
    """``label``, ``help`` and ``short`` of ``name``, each by language."""
    by_lang = {lang: words_of(name, lang) for lang in LANGUAGES}
    return {
        part: {lang: getattr(words, part) for lang, words in by_lang.items()}
        for part in ("label", "help", "short")
    }


@router.post("/games", status_code=201, response_model_exclude_none=True)
async def create_game(request: Request, context: Context) -> CreatedGame:
    spec = parse_body(CreateGame, await read_json_body(request))
    creator = client_key(request.scope)
    await context.manager.check_address(creator)
    player = await signed_in(request, context.accounts)
    context.manager.check_creation_rate(creator, None if player is None else player.account.id)
    if player is not None:  # the caps on games and bots under way, per account too
        since = time.time() - context.limits.active
        bots = sum(seat.kind == "bot" for seat in spec.seats)
        check_caps(await context.accounts.usage(player, since), context.limits, bots)
    if spec.rated and spec.host_seat is not None and player is None:
        raise rated_needs_account()
    humans = [seat for seat in spec.seats if seat.kind == "human"]
    if player is not None and humans and not humans[0].name and not spec.name:
        # Signed in, the host is the account's player: its name, unless another is given.
        spec = spec.model_copy(update={"name": player.account.name})
    room, tokens = await context.manager.create(spec, creator)
    game_id = room.game_id
    if player is not None and room.host is not None and room.host in tokens:
        # Signed in: the creator's own seat (the host's) is the account's.
        await context.accounts.claim(player, [(game_id, tokens[room.host])])
    seats = []
    for seat in room.seats:
        token = tokens.get(seat.seat)
        seats.append(
            CreatedSeat(
                seat=seat.seat,
                kind=seat.kind,
                token=token,
                link=None if token is None else seat_link(game_id, token),
                level=seat.level if seat.kind == "bot" else None,
            )
        )
    return CreatedGame(
        game_id=game_id,
        host=room.host,
        seats=seats,
        spectator_link=f"/g/{game_id}",
        replay_link=f"/r/{game_id}",
    )


@router.get("/games")
async def list_games(context: Context, ids: str = "") -> list[GameSummary]:
    wanted = [game_id for game_id in ids.split(",") if game_id]
    if len(wanted) > MAX_IDS:
        raise ApiError(
            400, "bad_request", f"ids: expected at most {MAX_IDS} ids, found {len(wanted)}"
        )
    wanted = [game_id for game_id in wanted if GAME_ID.match(game_id)]
    games = await context.manager.store.summaries(wanted)
    return [game_summary(context.manager, game) for game in games]


@router.get("/games/open")
async def open_games(context: Context) -> list[GameSummary]:
    manager = context.manager
    games = await manager.store.open_games(50, time.time() - manager.open_game_ttl)
    return [game_summary(manager, game) for game in games]


@router.get("/games/{game_id}")
async def one_game(context: Context, game_id: str) -> GameSummary:
    check_id(game_id)
    games = await context.manager.store.summaries([game_id])
    if not games:
        raise no_game(game_id)
    return game_summary(context.manager, games[0])


@router.get("/games/{game_id}/analysis", response_model=AnalysisStatus)
async def game_analysis(request: Request, context: Context, game_id: str) -> Response:
    """A finished game's analysis (computed once, then served from a cache), or
    ``pending`` while it is computed."""
    check_id(game_id)
    key = (game_id, "analysis")
    cached = context.finished.get(key)
    if cached is not None:
        return finished_response(cached)
    context.replay_rates.check(client_key(request.scope), "replays and analyses")
    answer = await context.manager.analysis(game_id)
    if answer is None:
        raise no_game(game_id)
    text = answer.model_dump_json().encode()
    if answer.status == "ready":
        context.finished.put(key, text)
        return finished_response(text)
    return Response(text, media_type="application/json")


def game_summary(manager: RoomManager, game: StoredGame) -> GameSummary:
    """A game as the lobby lists it; a game live on this instance says who is here,
    who resigned and its clock's deadline, from its room."""
    room = manager.rooms.get(game.id)
    meta = room.meta() if room is not None else stored_meta(game)
    status = meta.status
    turn = room.turn_number() if room is not None else game.turns
    if status == "playing":
        turn = max(1, turn)
    elif status == "waiting":
        turn = 0
    host = next((seat.name for seat in game.seats if seat.host), "")
    return GameSummary(
        **meta.model_dump(exclude={"seats", "clock"}),
        seats=meta.seats,
        clock=meta.clock,
        version=game.version,
        updated=iso_time(game.updated or game.created),
        open_seats=[seat.seat for seat in game.seats if seat.kind == "open"],
        host=host,
        taken=sum(seat.kind != "open" for seat in game.seats),
        turn=turn,
        age=max(0, int(time.time() - game.created)),
        replay_link=f"/r/{game.id}" if status == "over" else None,
    )


@router.post("/games/{game_id}/join")
async def join_game(request: Request, context: Context, game_id: str) -> JoinedSeat:
    check_id(game_id)
    spec = parse_body(JoinGame, await read_json_body(request))
    await context.manager.check_address(client_key(request.scope))
    context.join_rates.check(client_key(request.scope), "seats taken")
    player = await signed_in(request, context.accounts)
    if player is not None:  # one account from several addresses: its own budget too
        context.join_rates.check(f"account:{player.account.id}", "seats taken", "your account")
    games = await context.manager.store.summaries([game_id])
    if games and games[0].rated:
        if player is None:
            raise rated_needs_account()
        if await rated.seat_of(context.manager.store, game_id, player.account.id) is not None:
            raise ApiError(
                409,
                "already_seated",
                "your account already has a seat in this rated game: one seat an account",
            )
    try:
        if spec.bot and context.external_bots != "allow":
            invited = context.external_bots == "invited"
            raise ApiError(
                403,
                "bots_refused",
                "this server takes no external bot from the lobby"
                + (": ask the host for an invitation link" if invited else ""),
            )
        token = await context.manager.join(game_id, spec.seat, spec.name, bot=spec.bot)
    except KeyError:
        raise no_game(game_id) from None
    if player is not None:
        await context.accounts.claim(player, [(game_id, token)])
    return JoinedSeat(seat=spec.seat, token=token, link=seat_link(game_id, token))


def rated_needs_account() -> ApiError:
    """The refusal of a guest's seat in a rated game."""
    return ApiError(
        403,
        "sign_in_required",
        "a rated game's seats are for signed-in accounts: sign in first (or play an"
        " unrated game, open to anyone)",
    )


@router.get("/games/{game_id}/record")
async def game_record(context: Context, game_id: str) -> Response:
    """The core's JSON game record, as a download."""
    record = await stored_record(context, game_id)
    return Response(
        record.to_json(indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="marrakech-{game_id}.json"'},
    )


@router.get("/games/{game_id}/replay", response_model=Replay)
async def game_replay(
    request: Request, context: Context, game_id: str, lang: str = "en"
) -> Response:
    """A game's replay: a finished game's is computed once, then served from a cache;
    its chat is read each time (the operator may hide a line)."""
    lang = check_lang(lang)
    check_id(game_id)
    key = (game_id, lang)
    cached = context.finished.get(key)
    if cached is not None:
        chat = await context.manager.replay_chat(game_id, over=True)
        return replay_response(with_chat(cached, chat), over=True)
    context.replay_rates.check(client_key(request.scope), "replays and analyses")
    record = await stored_record(context, game_id)
    text, over = await asyncio.to_thread(replay_json, record, lang)
    if over:
        context.finished.put(key, text)
    chat = await context.manager.replay_chat(game_id, over)
    return replay_response(with_chat(text, chat), over)


#: Seconds browsers may keep a finished game's replay: not a day as its analysis, as
#: the operator may hide a line of its chat.
REPLAY_MAX_AGE = 300


def replay_response(text: bytes, over: bool) -> Response:
    headers = {"Cache-Control": f"public, max-age={REPLAY_MAX_AGE}"} if over else None
    return Response(text, media_type="application/json", headers=headers)


def with_chat(replay_text: bytes, chat: list[ChatLine]) -> bytes:
    """A replay's JSON (:func:`replay_json`, without its chat) with ``chat`` put in."""
    lines = b",".join(line.model_dump_json().encode() for line in chat)
    return replay_text[:-1] + b',"chat":[' + lines + b"]}"


@router.post("/replay", response_model=Replay)
async def uploaded_replay(request: Request, context: Context, lang: str = "en") -> Response:
    lang = check_lang(lang)
    context.replay_rates.check(client_key(request.scope), "replays and analyses")
    data = uploaded_record(await read_json_body(request))
    try:
        record = await asyncio.to_thread(GameRecord.from_dict, data)
    except NotationError as error:
        raise ApiError(400, "bad_record", str(error)) from None
    text, _ = await asyncio.to_thread(replay_json, record, lang)
    return Response(with_chat(text, []), media_type="application/json")


#: The keys a game record may have: those the core writes, ``start`` and ``meta``
#: included (they are optional).
RECORD_KEYS = frozenset(GameRecord(2, start="", meta={"": ""}).to_dict())
#: The largest ``meta`` of an uploaded record, as JSON.
MAX_META_BYTES = 4096


def uploaded_record(body: bytes) -> dict[str, object]:
    """The JSON object of an uploaded record, refused (``bad_record``) with a key the
    core does not write or a ``meta`` past :data:`MAX_META_BYTES`; the core checks the
    rest (:meth:`GameRecord.from_dict`)."""
    try:
        data = parse_json(body)
    except ProtocolError as error:
        raise ApiError(
            400, "bad_record", error.message.replace("JSON object", "JSON game record")
        ) from None
    if not isinstance(data, dict):
        raise ApiError(
            400, "bad_record", f"expected a JSON game record, found a JSON {type(data).__name__}"
        )
    unknown = sorted(str(key)[:40] for key in data if key not in RECORD_KEYS)
    if unknown:
        raise ApiError(
            400,
            "bad_record",
            f"unexpected field {', '.join(map(repr, unknown[:5]))}: a record has only "
            f"{', '.join(sorted(RECORD_KEYS))}",
        )
    seats = data.get("seats")
    if isinstance(seats, list):  # the core checks the shape; names are the web's rule
        for number, label in enumerate(seats):
            if isinstance(label, str):
                try:
                    display_name(label)
                except ValueError as error:
                    raise ApiError(400, "bad_record", f"seats[{number}]: {error}") from None
    meta = data.get("meta")
    if meta is not None:
        size = len(json.dumps(meta, ensure_ascii=False).encode())
        if size > MAX_META_BYTES:
            raise ApiError(
                400,
                "bad_record",
                f'"meta": expected at most {MAX_META_BYTES} bytes of JSON, found {size}',
            )
    return data


async def stored_record(context: Context, game_id: str) -> GameRecord:
    check_id(game_id)
    record = await context.manager.record(game_id)
    if record is None:
        raise no_game(game_id)
    return record


def record_names(record: GameRecord) -> tuple[str, ...]:
    """Each seat's player's name in a record ("" for ``human``, ``open``, ``bot:…``), as
    the replay page's panels read them (static/js/replay.js ``metaFromRecord``), so its
    log names players as they do.

    >>> record_names(GameRecord(3, seats=("Ann", "bot:easy", "human")))
    ('Ann', '', '')
    """
    return tuple(
        "" if label in ("", "human", "open") or label.startswith("bot:") else label
        for label in record.seats
    )


def replay(record: GameRecord, lang: str) -> Replay:
    """Everything a replay page shows: every position, every event, the log.

    >>> from marrakech import State, parse_action
    >>> view = replay(GameRecord.from_actions(State.new(3), [parse_action("L")]), "en")
    >>> len(view.states), view.log, view.turns
    (2, ['Red turned Assam left, to face West.'], [1, 1])
    """
    state = record.initial_state()
    states = [state_view(state)]
    events = []
    lines = []
    names = record_names(record)
    # Player turns, as the lobby counts them (marrakech.player_turns), position by position.
    spans: list[TurnSpan] = []
    described: list[Event] = []
    turns = [turn_number(spans, state, waiting=False)]
    for action in record.actions:
        event = state.describe(action)
        state = event.after
        states.append(state_view(state))
        events.append(event_view(event))
        lines.append(describe_event(event, lang, names))
        described.append(event)
        extend_turns(spans, described)
        turns.append(turn_number(spans, state, waiting=False))
    return Replay(record=record.to_dict(), states=states, events=events, log=lines, turns=turns)


def replay_json(record: GameRecord, lang: str) -> tuple[bytes, bool]:
    """A replay as JSON, and whether its game is over (then it never changes). Run out
    of the event loop: a record has up to 2000 actions, 40-50 ms of CPU."""
    built = replay(record, lang)
    text = built.model_dump_json(exclude={"chat"}).encode()
    return text, built.states[-1]["phase"] == "over"


def finished_response(text: bytes) -> Response:
    """An answer about a finished game: the same forever, so browsers may keep it."""
    headers = {"Cache-Control": "public, max-age=86400"}
    return Response(text, media_type="application/json", headers=headers)


def check_id(game_id: str) -> None:
    if not GAME_ID.match(game_id):
        raise no_game(game_id)


def no_game(game_id: str) -> ApiError:
    shown = game_id if GAME_ID.match(game_id) else "(malformed id)"
    return ApiError(404, "not_found", f"no game {shown}")


def check_lang(lang: str) -> str:
    if lang not in ("en", "fr"):
        raise ApiError(400, "bad_request", f"lang: expected 'en' or 'fr', found {lang[:20]!r}")
    return lang
