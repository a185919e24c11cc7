"""The leaderboard and the players' profiles (issue 24; docs/web.md, "Ratings").

``GET /api/leaderboard?players=N`` ranks the accounts rated at ``N`` players that
played at least the server's minimum of rated games (``--leaderboard-min-games``), by
the number shown (:func:`marrakech.web.ratings.shown`), with the bot levels' ratings at
that count beside them, and apart the provisional ratings of those with fewer games.
``GET /api/players/{name}`` is an account's profile: member since, games played and
won by player count, ratings and their history, last games (links to their replays),
the bots it beat and the bot level it plays like. Both read the store
(:class:`~marrakech.web.ratings.queries.RatingQueries`) and are limited per client as
replays are.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from marrakech.web.accounts.names import name_key
from marrakech.web.context import Context
from marrakech.web.limits import client_key
from marrakech.web.protocol import ApiError, iso_time
from marrakech.web.ratings import Rating, plays_like, shown
from marrakech.web.ratings.queries import RatingQueries
from marrakech.web.ratings.standings import first_rating, rating_of
from marrakech.web.store import GameStore
from marrakech.web.store.queries import AccountQueries
from marrakech.web.store.schema import Dialects

router = APIRouter(prefix="/api")

#: The player counts a rating is kept for (one leaderboard each).
COUNTS = (2, 3, 4)
#: Rows of a leaderboard, and games a profile lists.
LEADERS, LAST_GAMES = 100, 20


class Leader(BaseModel):
    place: int
    name: str
    rating: int
    games: int
    wins: int


class BotRating(BaseModel):
    level: str
    rating: int
    games: int


class Leaderboard(BaseModel):
    players: int
    min_games: int
    leaders: list[Leader]
    #: The accounts with 1 to ``min_games - 1`` rated games, ranked apart the same way.
    provisional: list[Leader]
    bots: list[BotRating]


class Results(BaseModel):
    players: int
    played: int
    won: int


class CountRating(BaseModel):
    players: int
    rating: int
    games: int
    wins: int
    plays_like: str | None
    #: That bot level's rating at this count: the number the leaderboard shows.
    plays_like_rating: int | None


class HistoryPoint(BaseModel):
    players: int
    game_id: str
    at: str
    place: int
    rating: int


class LastGame(BaseModel):
    game_id: str
    players: int
    status: str
    rated: bool
    place: int | None
    at: str
    link: str


class BotBeaten(BaseModel):
    level: str
    times: int


class Profile(BaseModel):
    name: str
    member_since: str
    results: list[Results]
    ratings: list[CountRating]
    history: list[HistoryPoint]
    last_games: list[LastGame]
    bots_beaten: list[BotBeaten]
    #: The strongest bot level the account's rating reaches at the count it played most
    #: (:func:`marrakech.web.ratings.plays_like`), and that count.
    plays_like: str | None
    plays_like_players: int | None


def _queries(context: Context) -> tuple[RatingQueries, AccountQueries]:
    postgres = context.manager.store.dialect == "postgresql"
    return _compiled("postgresql" if postgres else "sqlite")


@cache
def _compiled(dialect: Dialects) -> tuple[RatingQueries, AccountQueries]:
    return RatingQueries(dialect), AccountQueries(dialect)


async def seat_of(store: GameStore, game_id: str, account_id: str) -> int | None:
    """The seat an account holds in a game, if any."""
    q, _ = _compiled("postgresql" if store.dialect == "postgresql" else "sqlite")
    params = {"game_id": game_id, "account_id": account_id}
    (rows,) = await store.transact([(q.account_seat.sql, q.account_seat.params(params))])
    return int(rows[0]["seat"]) if rows else None


def _check_players(players: int) -> int:
    if players not in COUNTS:
        raise ApiError(400, "bad_request", f"players: expected 2, 3 or 4, found {players}")
    return players


async def bot_ratings(context: Context, q: RatingQueries) -> dict[int, dict[str, Rating]]:
    """Every bot level's rating by player count (the levels that play it): stored once
    it played a rated game, its seed (:func:`marrakech.web.ratings.bot_seeds`) before."""
    from marrakech.web.protocol import LEVEL_PLAYERS, LEVELS

    (rows,) = await context.manager.store.transact([(q.bot_ratings.sql, q.bot_ratings.params({}))])
    stored = {(int(row["players"]), row["player"]): rating_of(row) for row in rows}
    return {
        count: {
            level: stored.get((count, level), first_rating("bot", level, count))
            for level in LEVELS
            if count in LEVEL_PLAYERS[level]  # learned: not at three players
        }
        for count in COUNTS
    }


@router.get("/leaderboard")
async def leaderboard(request: Request, context: Context, players: int = 2) -> Leaderboard:
    """The accounts' ranking at ``players`` players (at least the minimum of games)."""
    _check_players(players)
    context.replay_rates.check(client_key(request.scope), "pages of ratings")
    q, _ = _queries(context)
    least = context.leaderboard_min_games
    ranges = ((least, 2**31 - 1), (1, least - 1))  # the listed, the provisional
    listed, provisional = await context.manager.store.transact(
        [
            (
                q.leaderboard.sql,
                q.leaderboard.params(
                    {"players": players, "min_games": low, "max_games": high, "limit": LEADERS}
                ),
            )
            for low, high in ranges
        ]
    )
    bots = (await bot_ratings(context, q))[players]
    return Leaderboard(
        players=players,
        min_games=least,
        leaders=_ranked(listed),
        provisional=_ranked(provisional),
        bots=[
            BotRating(level=level, rating=shown(rating), games=rating.games)
            for level, rating in bots.items()
        ],
    )


def _ranked(rows: list[dict[str, Any]]) -> list[Leader]:
    return [
        Leader(
            place=place,
            name=row["name"],
            rating=shown(rating_of(row)),
            games=int(row["games"]),
            wins=int(row["wins"]),
        )
        for place, row in enumerate(rows, 1)
    ]


@router.get("/players/{name:path}")
async def profile(request: Request, context: Context, name: str) -> Profile:
    """An account's profile (404 for a name no account has, or a deleted one's)."""
    context.replay_rates.check(client_key(request.scope), "pages of ratings")
    q, accounts = _queries(context)
    store = context.manager.store
    (found,) = await store.transact(
        [(accounts.account_named.sql, accounts.account_named.params({"key": name_key(name)}))]
    )
    if not found:
        raise ApiError(404, "not_found", f"no player named {name!r}")
    account = found[0]
    me = {"account_id": account["id"]}
    steps: list[tuple[str, dict[str, Any]]] = [
        (statement.sql, statement.params(values))
        for statement, values in (
            (q.results_of, me),
            (q.ratings_of, me),
            (q.history_of, me),
            (q.last_games_of, {**me, "limit": LAST_GAMES}),
            (q.bots_beaten_by, me),
        )
    ]
    results, ratings, history, last, beaten = await store.transact(steps)
    bots = await bot_ratings(context, q)
    counted = []
    for row in ratings:
        count = int(row["players"])
        like = plays_like(rating_of(row), bots[count])
        counted.append(
            CountRating(
                players=count,
                rating=shown(rating_of(row)),
                games=int(row["games"]),
                wins=int(row["wins"]),
                plays_like=like,
                plays_like_rating=None if like is None else shown(bots[count][like]),
            )
        )
    most = max(counted, key=lambda one: one.games, default=None)
    return Profile(
        name=account["name"],
        member_since=iso_time(float(account["created"])),
        results=[
            Results(players=int(row["players"]), played=int(row["played"]), won=int(row["won"]))
            for row in results
        ],
        ratings=counted,
        history=[
            HistoryPoint(
                players=int(row["players"]),
                game_id=row["game_id"],
                at=iso_time(float(row["at"])),
                place=int(row["place"]),
                rating=shown(Rating(float(row["mu"]), float(row["sigma"]))),
            )
            for row in history
        ],
        last_games=[
            LastGame(
                game_id=row["game_id"],
                players=int(row["players"]),
                status=row["status"],
                rated=bool(row["rated"]),
                place=None if row["place"] is None else int(row["place"]),
                at=iso_time(float(row["updated"] or row["created"])),
                link=f"/r/{row['game_id']}" if row["status"] == "over" else f"/g/{row['game_id']}",
            )
            for row in last
        ],
        bots_beaten=[BotBeaten(level=row["level"], times=int(row["times"])) for row in beaten],
        plays_like=None if most is None else most.plays_like,
        plays_like_players=None if most is None or most.plays_like is None else most.players,
    )
