"""What a game's end stores, in the transaction of the append that ends it: each seat's
place and, in a rated game, the new ratings of its accounts and bot levels with a
history row each (issue 24; docs/web.md, "Ratings").

Both stores run the same steps, SQLite in its thread and PostgreSQL asynchronously
(rows locked until the commit), so the statements are :class:`~marrakech.web.store.queries.
RatingQueries` and the arithmetic is here, plain functions of the rows read:

1. the game's seats (:func:`entrants`): who is rated, an account for a human seat
   (a seat nobody signed in to is left out), a bot level for a bot seat (two bots of
   one level are one player: its rating moves by their mean);
2. each entrant's rating row, added from the start (an account) or from the arena's
   seed (a bot level, :func:`marrakech.web.ratings.bot_seeds`) before its first game;
3. the new ratings (:func:`settle`), written with a history row each.

>>> seats = [
...     {"seat": 0, "kind": "human", "level": None, "account_id": "a1"},
...     {"seat": 1, "kind": "bot", "level": "hard", "account_id": None},
...     {"seat": 2, "kind": "human", "level": None, "account_id": None},
... ]
>>> [(e.kind, e.player, e.places) for e in entrants(seats, (2, 1, 3))]
[('account', 'a1', (2,)), ('bot', 'hard', (1,))]
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from marrakech.web.ratings import START, Rating, bot_seeds, rate
from marrakech.web.ratings.queries import RatingQueries
from marrakech.web.store import GameEnd

#: A player's rating row is keyed by its kind and id (an account's id, a bot's level).
Key = tuple[str, str]


@dataclass(frozen=True)
class Entrant:
    """A rated player of a game and the places of its seats (a bot level may sit twice)."""

    kind: str
    player: str
    places: tuple[int, ...]

    @property
    def key(self) -> Key:
        return (self.kind, self.player)


def entrants(seats: Sequence[Mapping[str, Any]], places: Sequence[int]) -> list[Entrant]:
    """The rated players of a game's seats (rows of ``end_seats``, by seat), in the
    order they first sit."""
    found: dict[Key, list[int]] = {}
    for row in seats:
        seat = int(row["seat"])
        if row["kind"] == "bot" and row["level"]:
            key = ("bot", str(row["level"]))
        elif row["kind"] == "human" and row["account_id"]:
            key = ("account", str(row["account_id"]))
        else:
            continue
        found.setdefault(key, []).append(places[seat])
    return [
        Entrant(kind, player, tuple(seat_places)) for (kind, player), seat_places in found.items()
    ]


def is_rated(game_rated: bool, players: Sequence[Entrant]) -> bool:
    """Whether a game's end moves ratings: a rated game with at least two rated seats,
    one of them an account's (bots alone do not rate each other)."""
    seats = sum(len(entrant.places) for entrant in players)
    return game_rated and seats >= 2 and any(e.kind == "account" for e in players)


def first_rating(kind: str, player: str, players: int) -> Rating:
    """A player's rating before its first rated game of ``players``: the start, or a bot
    level's seed (at that player count)."""
    if kind == "bot":
        return bot_seeds(players).get(player, START)
    return START


def rating_of(row: Mapping[str, Any]) -> Rating:
    """A ratings row as a :class:`Rating`."""
    return Rating(float(row["mu"]), float(row["sigma"]), int(row["games"]))


@dataclass(frozen=True)
class Settled:
    """One entrant's rating before and after the game, and its place (its best seat's)."""

    entrant: Entrant
    before: Rating
    after: Rating
    won: bool

    @property
    def place(self) -> int:
        return min(self.entrant.places)


def settle(players: Sequence[Entrant], current: Mapping[Key, Rating]) -> list[Settled]:
    """Every entrant's new rating: one openskill team per seat, ranked by the seats'
    places (shared places are ties, R21); a player with several seats (a bot level)
    takes the mean of its seats' new means and the smallest of their deviations, and
    counts one game.

    >>> a = Entrant("account", "a1", (1,))
    >>> b = Entrant("bot", "easy", (2, 3))
    >>> out = settle([a, b], {a.key: START, b.key: Rating(10.0, 3.0)})
    >>> out[0].after.mu > START.mu, out[1].after.games, out[0].won, out[1].won
    (True, 1, True, False)
    """
    seat_ratings: list[Rating] = []
    seat_places: list[int] = []
    owners: list[int] = []
    for index, entrant in enumerate(players):
        for place in entrant.places:
            seat_ratings.append(current[entrant.key])
            seat_places.append(place)
            owners.append(index)
    # Places as competition ranks from 1 (a seat left out may have held a place).
    distinct = sorted(set(seat_places))
    ranks = [1 + sum(seat_places.count(p) for p in distinct if p < place) for place in seat_places]
    rated = rate(seat_ratings, ranks)
    settled = []
    for index, entrant in enumerate(players):
        mine = [rating for rating, owner in zip(rated, owners, strict=True) if owner == index]
        before = current[entrant.key]
        after = Rating(
            sum(r.mu for r in mine) / len(mine), min(r.sigma for r in mine), before.games + 1
        )
        won = min(entrant.places) == 1
        settled.append(Settled(entrant, before, after, won))
    return settled


#: Runs one statement (its SQL and parameters) in the end's transaction: its rows.
Run = Callable[[str, dict[str, Any]], list[dict[str, Any]]]
AsyncRun = Callable[[str, dict[str, Any]], Awaitable[list[dict[str, Any]]]]


def _place_steps(
    game_id: str, end: GameEnd, seats: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    if len(end.places) != len(seats):
        raise ValueError(
            f"game {game_id}: expected a place for each of its {len(seats)} seats, "
            f"found {len(end.places)}"
        )
    return [
        {"game_id": game_id, "at_seat": int(row["seat"]), "new_place": end.places[int(row["seat"])]}
        for row in seats
    ]


def _new_row(q: RatingQueries, entrant: Entrant, players: int, now: float) -> dict[str, Any]:
    seed = first_rating(entrant.kind, entrant.player, players)
    return q.add_rating.params(
        {
            "kind": entrant.kind,
            "player": entrant.player,
            "players": players,
            "mu": seed.mu,
            "sigma": seed.sigma,
            "games": seed.games,
            "now": now,
        }
    )


def _key_params(entrant: Entrant, players: int) -> dict[str, Any]:
    return {"kind": entrant.kind, "player": entrant.player, "players": players}


def _writes(
    q: RatingQueries, game_id: str, players: int, settled: Sequence[Settled], now: float
) -> list[tuple[str, dict[str, Any]]]:
    steps: list[tuple[str, dict[str, Any]]] = []
    for one in settled:
        key = _key_params(one.entrant, players)
        wins = int(one.won)
        steps.append(
            (
                q.save_rating.sql,
                {
                    **key,
                    "new_mu": one.after.mu,
                    "new_sigma": one.after.sigma,
                    "new_games": one.after.games,
                    "new_wins": wins,  # added to the row's below
                    "now": now,
                },
            )
        )
        steps.append(
            (
                q.insert_history.sql,
                {
                    "game_id": game_id,
                    **key,
                    "at": now,
                    "place": one.place,
                    "mu_before": one.before.mu,
                    "sigma_before": one.before.sigma,
                    "mu": one.after.mu,
                    "sigma": one.after.sigma,
                },
            )
        )
    return steps


def end_game(q: RatingQueries, run: Run, game_id: str, end: GameEnd, now: float) -> None:
    """Store a game's end (places, ratings) through ``run``, in the caller's
    transaction (SQLite's)."""
    seats = run(q.end_seats.sql, {"game_id": game_id})
    for params in _place_steps(game_id, end, seats):
        run(q.set_place.sql, params)
    players = entrants(seats, end.places)
    if not seats or not is_rated(bool(seats[0]["rated"]), players):
        return
    count = int(seats[0]["players"])
    current: dict[Key, Rating] = {}
    wins: dict[Key, int] = {}
    for entrant in sorted(players, key=lambda e: e.key):  # one lock order for everyone
        run(q.add_rating.sql, _new_row(q, entrant, count, now))
        row = run(q.rating.sql, _key_params(entrant, count))[0]
        current[entrant.key], wins[entrant.key] = rating_of(row), int(row["wins"])
    for sql, params in _writes(q, game_id, count, settle(players, current), now):
        if "new_wins" in params:
            params["new_wins"] += wins[(params["kind"], params["player"])]
        run(sql, params)


async def end_game_async(
    q: RatingQueries, run: AsyncRun, game_id: str, end: GameEnd, now: float
) -> None:
    """:func:`end_game` for an asynchronous driver (PostgreSQL's; its rows stay locked
    until the transaction commits)."""
    seats = await run(q.end_seats.sql, {"game_id": game_id})
    for params in _place_steps(game_id, end, seats):
        await run(q.set_place.sql, params)
    players = entrants(seats, end.places)
    if not seats or not is_rated(bool(seats[0]["rated"]), players):
        return
    count = int(seats[0]["players"])
    current: dict[Key, Rating] = {}
    wins: dict[Key, int] = {}
    for entrant in sorted(players, key=lambda e: e.key):
        await run(q.add_rating.sql, _new_row(q, entrant, count, now))
        row = (await run(q.rating.sql, _key_params(entrant, count)))[0]
        current[entrant.key], wins[entrant.key] = rating_of(row), int(row["wins"])
    for sql, params in _writes(q, game_id, count, settle(players, current), now):
        if "new_wins" in params:
            params["new_wins"] += wins[(params["kind"], params["player"])]
        await run(sql, params)
