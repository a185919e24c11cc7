"""Tournaments' HTTP API (docs/web.md, "Tournaments"): the list the lobby shows, a
tournament's page (standings, games, podium), joining and withdrawing, private
tournaments created by any account, and an account's results for its profile."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from marrakech.web.accounts.names import name_key
from marrakech.web.accounts.sessions import signed_in
from marrakech.web.context import Context
from marrakech.web.http_protocol import read_json_body
from marrakech.web.limits import client_key
from marrakech.web.protocol import ApiError, iso_time, parse_body
from marrakech.web.protocol.client import StrictModel
from marrakech.web.protocol.server import seat_link
from marrakech.web.store.queries import AccountQueries
from marrakech.web.tournaments.service import Tournaments, TournamentView, account_entrant
from marrakech.web.tournaments.tournament import MAX_MINUTES, MAX_ROUNDS, Tournament, TournamentSpec

router = APIRouter(prefix="/api")
#: The games a tournament's page lists (those under way first, then the latest).
LISTED_GAMES = 30


class TournamentSummary(BaseModel):
    id: str
    name: str
    kind: str
    players: int
    clock: str
    rules: str
    starts: str
    ends: str | None
    rounds: int
    status: str
    private: bool
    rated: bool
    max_rating: int | None
    link: str


class StandingLine(BaseModel):
    rank: int
    name: str
    bot: bool
    score: int
    games: int
    wins: int
    on_fire: bool
    playing: bool
    sheet: list[int]
    withdrawn: bool


class TournamentGame(BaseModel):
    game_id: str
    round: int
    names: list[str]
    places: list[int] | None
    link: str


class MyGame(BaseModel):
    game_id: str
    seat: int
    link: str


class TournamentPage(BaseModel):
    tournament: TournamentSummary
    round: int
    standings: list[StandingLine]
    games: list[TournamentGame]
    podium: list[StandingLine]
    joined: bool
    my_game: MyGame | None


class NewTournament(StrictModel):
    """A private tournament an account creates for its friends."""

    name: str = Field(min_length=1, max_length=60)
    kind: Literal["arena", "swiss"] = "arena"
    players: int = 2
    clock: str = "blitz"
    rules: str = "standard"
    minutes: int = Field(default=0, ge=0, le=MAX_MINUTES)
    rounds: int = Field(default=0, ge=0, le=MAX_ROUNDS)
    #: Seconds from now to the start (0: at once).
    starts_in: int = Field(default=0, ge=0, le=7 * 24 * 3600)
    bots: list[str] = Field(default_factory=list, max_length=3)


class TournamentResult(BaseModel):
    tournament: TournamentSummary
    rank: int
    score: int
    entrants: int


def service(context: Context) -> Tournaments:
    tournaments = context.tournaments
    if tournaments is None:
        raise RuntimeError("the app has not started: its lifespan opens the tournaments")
    return tournaments


def summary(tournament: Tournament) -> TournamentSummary:
    return TournamentSummary(
        id=tournament.id,
        name=tournament.name,
        kind=tournament.kind,
        players=tournament.players,
        clock=tournament.clock,
        rules=tournament.rules,
        starts=iso_time(tournament.starts),
        ends=iso_time(tournament.ends) if tournament.kind == "arena" else None,
        rounds=tournament.rounds,
        status=tournament.status,
        private=tournament.private,
        rated=tournament.rated,
        max_rating=tournament.max_rating,
        link=f"/t/{tournament.id}",
    )


@router.get("/tournaments")
async def listed(context: Context) -> list[TournamentSummary]:
    """The public tournaments about to start or under way, the soonest first."""
    return [summary(one) for one in await service(context).listed()]


@router.post("/tournaments", status_code=201)
async def create(request: Request, context: Context) -> TournamentSummary:
    """A private tournament (joined by its link), created by a signed-in account."""
    body = parse_body(NewTournament, await read_json_body(request))
    player = await signed_in(request, context.accounts)
    if player is None:
        raise ApiError(403, "sign_in_required", "sign in to create a tournament")
    address = client_key(request.scope)
    await context.manager.check_address(address)
    context.manager.check_creation_rate(address, player.account.id)
    spec = TournamentSpec(
        name=body.name,
        kind=body.kind,
        players=body.players,
        clock=body.clock,
        rules=body.rules,
        minutes=body.minutes,
        rounds=body.rounds,
        private=True,
        bots=tuple(body.bots),
        creator=player.account.id,
    )
    try:
        spec = spec.checked()
    except ValueError as error:
        raise ApiError(400, "bad_request", str(error)) from None
    spec = TournamentSpec(**{**spec.__dict__, "starts": spec.starts + body.starts_in})
    created = await service(context).create(spec)
    assert created is not None  # no schedule key: never a duplicate
    return summary(created)


def _lines(view: TournamentView) -> list[StandingLine]:
    names = view.names()
    active = {entry.entrant for entry in view.entries if entry.active}
    return [
        StandingLine(
            rank=line.rank,
            name=names.get(line.entrant, line.entrant),
            bot=line.entrant.startswith("bot:"),
            score=line.score,
            games=line.games,
            wins=line.wins,
            on_fire=line.on_fire,
            playing=line.playing,
            sheet=[points for points, _ in line.sheet],
            withdrawn=line.entrant not in active,
        )
        for line in view.table
    ]


@router.get("/tournaments/{tournament_id}")
async def page(request: Request, context: Context, tournament_id: str) -> TournamentPage:
    """A tournament: its standings, its games (to watch), its podium once over, and,
    for a signed-in entrant, whether it joined and the link of its game under way."""
    tournaments = service(context)
    tournaments.page_rates.check(client_key(request.scope), "tournament pages")
    view = await tournaments.view(tournament_id)
    if view is None:
        raise ApiError(404, "not_found", f"no tournament {tournament_id!r}")
    tournament, names = view.tournament, view.names()
    player = await signed_in(request, context.accounts)
    me = account_entrant(player.account.id) if player is not None else None
    my_game = None
    games: list[TournamentGame] = []
    for pairing in sorted(view.pairings, key=lambda p: (p.places is not None, -p.number)):
        if pairing.bye:
            continue
        if me in pairing.entrants and pairing.places is None and pairing.created:
            seat = pairing.entrants.index(me)
            token = tournaments.seat_token(tournament, pairing.game_id, seat, me)
            my_game = MyGame(
                game_id=pairing.game_id, seat=seat, link=seat_link(pairing.game_id, token)
            )
        if len(games) < LISTED_GAMES:
            games.append(
                TournamentGame(
                    game_id=pairing.game_id,
                    round=pairing.round,
                    names=[names.get(entrant, entrant) for entrant in pairing.entrants],
                    places=list(pairing.places) if pairing.places else None,
                    link=f"/g/{pairing.game_id}",
                )
            )
    lines = _lines(view)
    finished = tournament.status == "over" and not any(line.playing for line in lines)
    return TournamentPage(
        tournament=summary(tournament),
        round=view.round,
        standings=lines,
        games=games,
        podium=[line for line in lines if line.rank <= 3 and line.games] if finished else [],
        joined=me is not None and any(e.entrant == me and e.active for e in view.entries),
        my_game=my_game,
    )


async def _account(request: Request, context: Context) -> tuple[str, str]:
    player = await signed_in(request, context.accounts)
    if player is None:
        raise ApiError(403, "sign_in_required", "sign in to play in a tournament")
    await context.manager.check_address(client_key(request.scope))
    context.join_rates.check(client_key(request.scope), "tournaments joined")
    return player.account.id, player.account.name


@router.post("/tournaments/{tournament_id}/join", status_code=204)
async def join(request: Request, context: Context, tournament_id: str) -> None:
    """Enter the signed-in account: paired as soon as others wait (an arena) or at
    the next round (Swiss)."""
    account_id, name = await _account(request, context)
    await service(context).join(tournament_id, account_id, name)


@router.post("/tournaments/{tournament_id}/withdraw", status_code=204)
async def withdraw(request: Request, context: Context, tournament_id: str) -> None:
    """Pair the signed-in account no more (its points stay)."""
    account_id, _ = await _account(request, context)
    await service(context).withdraw(tournament_id, account_id)


@router.get("/tournaments/player/{name}")
async def results(request: Request, context: Context, name: str) -> list[TournamentResult]:
    """The last tournaments an account played to their end, with its rank."""
    context.replay_rates.check(client_key(request.scope), "pages of ratings")
    store = context.manager.store
    accounts = AccountQueries("postgresql" if store.dialect == "postgresql" else "sqlite")
    (found,) = await store.transact(
        [(accounts.account_named.sql, accounts.account_named.params({"key": name_key(name)}))]
    )
    if not found:
        raise ApiError(404, "not_found", f"no player named {name!r}")
    return [
        TournamentResult(tournament=summary(view.tournament), rank=rank, score=score, entrants=n)
        for view, rank, score, n in await service(context).results(found[0]["id"])
    ]
