"""Friends and challenges over HTTP (issue 37, item 2; docs/web-protocol.md, "Friends
and challenges"). Every route needs a signed-in account (``401`` without):

- ``GET /api/friends``: the players you follow (online, playing: the game to watch),
  those you blocked, and your challenges; ``GET /api/challenges``: your challenges
  only, what every page of the site asks every :data:`HEARTBEAT_SECONDS` (it is also
  how the server knows a page of yours is open);
- ``POST /api/friends/follow``, ``/unfollow``, ``/block``, ``/unblock`` ``{"name"}``;
- ``POST /api/challenges`` ``{"to": NAME, "game": {settings}}``: a 2-player game's
  settings, checked as ``POST /api/games`` checks them;
- ``POST /api/challenges/{id}/accept``: the game is made, both players seated (each
  seat linked to its account), the answer carries the accepter's seat link and the
  challenger's pages find theirs in ``GET /api/challenges``;
  ``/decline``, ``/cancel`` (the challenger's).
"""

from __future__ import annotations

import json
import logging
import time

from fastapi import APIRouter, Request
from pydantic import Field

from marrakech.web.accounts.service import Account, SignedIn
from marrakech.web.accounts.sessions import signed_in
from marrakech.web.context import Context, WebContext
from marrakech.web.friendships import HEARTBEAT_SECONDS, Challenge
from marrakech.web.http_protocol import read_json_body
from marrakech.web.limits import client_key
from marrakech.web.protocol import ApiError, CreateGame, SeatSpec, parse_body, seat_link
from marrakech.web.protocol.client import (
    ClockMode,
    Lang,
    Level,
    RuleOptions,
    RuleSetName,
    StrictModel,
)
from marrakech.web.reminders.challenge_push import queue_challenge_push

router = APIRouter(prefix="/api")
log = logging.getLogger("marrakech.web")


class ChallengeSettings(StrictModel):
    """A challenge's game: ``POST /api/games``'s settings for 2 players (the challenger
    at seat 0, the challenged at seat 1, who starts drawn by lot)."""

    rules: RuleSetName = "standard"
    options: RuleOptions = Field(default_factory=dict)
    clock: ClockMode = "none"
    stand_in_level: Level | None = None
    hints: bool = True
    chat: bool = True
    rated: bool = False
    lang: Lang = "en"


class NewChallenge(StrictModel):
    to: str = Field(max_length=100)
    game: ChallengeSettings = Field(default_factory=ChallengeSettings)


class NameAsk(StrictModel):
    name: str = Field(max_length=100)


class ChallengeInfo(StrictModel):
    id: str
    #: The challenger's name and the challenged's.
    by: str
    to: str
    #: Whether it was sent to the reader.
    incoming: bool
    status: str
    game: ChallengeSettings
    #: Seconds until an open challenge expires.
    expires_in: int
    game_id: str | None = None
    #: The reader's seat in the game, once accepted.
    link: str | None = None


class Challenges(StrictModel):
    challenges: list[ChallengeInfo]
    #: Seconds until the page should ask again.
    again_in: int


class FriendInfo(StrictModel):
    name: str
    online: bool
    #: The game it plays (to watch: ``/g/ID``), if any.
    playing: str | None = None
    #: The quick-pairing pool it waits in (``blitz:casual``...), if any.
    waiting: str | None = None


class Friends(Challenges):
    friends: list[FriendInfo]
    blocked: list[str]


class Answered(StrictModel):
    challenge: ChallengeInfo


async def _me(request: Request, context: WebContext) -> SignedIn:
    found = await signed_in(request, context.accounts)
    if found is None:
        raise ApiError(401, "unauthorized", "expected to be signed in: sign in first")
    return found


def _info(challenge: Challenge, now: float) -> ChallengeInfo:
    return ChallengeInfo(
        id=challenge.id,
        by=challenge.challenger,
        to=challenge.challenged,
        incoming=challenge.incoming,
        status=challenge.status,
        game=ChallengeSettings.model_validate_json(challenge.settings),
        expires_in=max(0, int(challenge.expires - now)) if challenge.status == "open" else 0,
        game_id=challenge.game_id,
        link=(
            seat_link(challenge.game_id, challenge.token)
            if challenge.game_id and challenge.token
            else None
        ),
    )


def game_spec(settings: ChallengeSettings, challenger: str, challenged: str | None) -> CreateGame:
    """The ``POST /api/games`` body of a challenge's game, checked as that route checks
    it (a ``400`` saying what was expected): seat 0 the challenger's, seat 1 open until
    the challenged player accepts (``challenged``: then theirs)."""
    body = {
        **settings.model_dump(exclude_none=True),
        "players": 2,
        "seats": [{"kind": "human"}, {"kind": "open"}],
        "name": challenger,
    }
    spec = parse_body(CreateGame, json.dumps(body).encode())
    if challenged is None:
        return spec
    # Both seats are people's now (a rated game's checks, one seat taken by its
    # creator and the other open, hold for the challenge as sent).
    seats = [SeatSpec(kind="human", name=challenger), SeatSpec(kind="human", name=challenged)]
    return spec.model_copy(update={"seats": seats})


async def _challenges(context: WebContext, account: SignedIn) -> Challenges:
    friendships = context.friendships
    await friendships.touch(account.account.id)
    found = await friendships.challenges(account.account.id)
    now = time.time()
    waiting = any(not c.incoming and c.status == "open" for c in found)
    return Challenges(
        challenges=[_info(challenge, now) for challenge in found],
        # A challenger waiting for the answer asks more often, to reach the game soon.
        again_in=3 if waiting else HEARTBEAT_SECONDS,
    )


@router.get("/challenges")
async def my_challenges(request: Request, context: Context) -> Challenges:
    """The account's challenges; a page of it is open (the heartbeat)."""
    return await _challenges(context, await _me(request, context))


@router.get("/friends")
async def my_friends(request: Request, context: Context) -> Friends:
    me = await _me(request, context)
    base = await _challenges(context, me)
    friendships = context.friendships
    friends = await friendships.friends(me.account.id)
    blocked = await friendships.blocked(me.account.id)
    return Friends(
        **base.model_dump(),
        friends=[
            FriendInfo(name=f.name, online=f.online, playing=f.playing, waiting=f.waiting)
            for f in friends
        ],
        blocked=[player.name for player in blocked],
    )


@router.post("/friends/{change}")
async def change_friend(request: Request, context: Context, change: str) -> Friends:
    """Follow, unfollow, block or unblock a player by name; the friends list after."""
    actions = {
        "follow": context.friendships.follow,
        "unfollow": context.friendships.unfollow,
        "block": context.friendships.block,
        "unblock": context.friendships.unblock,
    }
    if change not in actions:
        raise ApiError(
            404, "not_found", f"expected follow, unfollow, block or unblock, found {change[:20]!r}"
        )
    form = parse_body(NameAsk, await read_json_body(request))
    me = await _me(request, context)
    await actions[change](me.account.id, form.name)
    return await my_friends(request, context)


@router.post("/challenges", status_code=201)
async def send_challenge(request: Request, context: Context) -> Answered:
    """Challenge a player by name with a 2-player game's settings."""
    form = parse_body(NewChallenge, await read_json_body(request))
    address = client_key(request.scope)
    await context.manager.check_address(address)
    me = await _me(request, context)
    game_spec(form.game, me.account.name, None)  # refused now, not at the answer
    settings = form.game.model_dump_json(exclude_none=True)
    challenge = await context.friendships.challenge(me.account.id, address, form.to, settings)
    try:  # a push to the challenged player's devices, if no page of theirs is open
        devices = context.reminders.devices if context.reminders is not None else None
        await queue_challenge_push(devices, challenge.id, challenge.challenged_id)
    except Exception:  # the challenge stands: its page shows it anyway
        log.exception("could not queue the push of challenge %s", challenge.id)
    return Answered(challenge=_info(challenge, time.time()))


@router.post("/challenges/{challenge_id}/{answer}")
async def answer_challenge(
    request: Request, context: Context, challenge_id: str, answer: str
) -> Answered:
    """Accept (the game is made, both seated), decline or cancel a challenge."""
    if answer not in ("accept", "decline", "cancel"):
        raise ApiError(
            404, "not_found", f"expected accept, decline or cancel, found {answer[:20]!r}"
        )
    address = client_key(request.scope)
    me = await _me(request, context)
    friendships = context.friendships
    if answer == "cancel":
        await friendships.cancel(me.account.id, challenge_id)
    elif answer == "decline":
        await friendships.answer(me.account.id, challenge_id, accept=False)
    else:
        await context.manager.check_address(address)
        await friendships.answer(me.account.id, challenge_id, accept=True)
        try:
            await _start(context, me, challenge_id, address)
        except Exception:
            await friendships.reopen(challenge_id)  # the answer is not lost: it waits again
            raise
    challenge = await friendships.get(me.account.id, challenge_id)
    return Answered(challenge=_info(challenge, time.time()))


async def _start(context: WebContext, me: SignedIn, challenge_id: str, address: str) -> None:
    """Make an accepted challenge's game, the accepter (``me``) its creator for the caps;
    each seat linked to its player's account."""
    friendships = context.friendships
    challenge = await friendships.get(me.account.id, challenge_id)
    settings = ChallengeSettings.model_validate_json(challenge.settings)
    spec = game_spec(settings, challenge.challenger, challenge.challenged)
    context.manager.check_creation_rate(address, me.account.id)
    room, tokens = await context.manager.create(spec, address)
    challenger = SignedIn(Account(challenge.challenger_id, challenge.challenger, 0.0), "")
    await context.accounts.claim(challenger, [(room.game_id, tokens[0])])
    await context.accounts.claim(me, [(room.game_id, tokens[1])])
    await friendships.seat(challenge_id, room.game_id, (tokens[0], tokens[1]))
