"""Ratings of players and bots on one scale (rated games, issue 24).

A rated game is a free-for-all of 2 to 4 seats whose end ranks them, ties shared (R21):
openskill's Plackett-Luce model rates exactly that, one rating per player (a mean ``mu``
and an uncertainty ``sigma``, starting at 25 and 25/3). A seat that resigned or ran out
of time ranks last, behind every seat that played on (:func:`ranks_with_leavers`); two
who left share the last place. What a page shows is the conservative rating
``mu - 3 sigma`` on a familiar scale (:func:`shown`): a newcomer shows 1000 and climbs as
the model grows sure, so a lucky first win does not top the leaderboard.

The bot levels are rated on the same scale: seeded from the arena's games between bots
(``bot_ratings.json``, written by ``scripts/bot_ratings.py`` from ``benchmarks/strength/``)
and then rated from their games against people like anyone, so that a player can read
"you play like hard" (:func:`plays_like`: the strongest level whose number the player's
reaches).

>>> winner, loser = rate([START, START], [1, 2])
>>> winner.mu > START.mu > loser.mu, winner.games
(True, 1)
>>> shown(START)
1000
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

#: Display scale: ``shown = BASE + SCALE * (mu - 3 sigma)``.
BASE, SCALE = 1000, 20
#: Where the arena's seeds of the bot levels are kept.
BOT_RATINGS = Path(__file__).with_name("bot_ratings.json")


@dataclass(frozen=True)
class Rating:
    """One player's rating: openskill's ``mu`` and ``sigma``, and the rated games behind
    it."""

    mu: float
    sigma: float
    games: int = 0

    def to_dict(self) -> dict[str, float | int]:
        return {"mu": self.mu, "sigma": self.sigma, "games": self.games}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        try:
            mu, sigma, games = float(data["mu"]), float(data["sigma"]), int(data.get("games", 0))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(
                f"expected a rating {{'mu': number, 'sigma': number}}, found {data!r}"
            ) from error
        if not sigma > 0 or games < 0:
            raise ValueError(f"expected sigma > 0 and games >= 0, found {data!r}")
        return cls(mu, sigma, games)


@cache
def model() -> PlackettLuce:
    """The one model every rating goes through (its defaults: mu 25, sigma 25/3)."""
    return PlackettLuce()


START = Rating(model().mu, model().sigma)


def conservative(rating: Rating) -> float:
    """``mu - 3 sigma``: the player is better than this, very likely."""
    return rating.mu - 3 * rating.sigma


def shown(rating: Rating) -> int:
    """The number a page shows (never below 0).

    >>> shown(Rating(30.0, 2.0))
    1480
    """
    return max(0, round(BASE + SCALE * conservative(rating)))


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """Every seat's rating after one game, given its competition ranks (1 first; ties
    share a rank, as R21 ranks them).

    >>> a, b, c = rate([START, START, START], [1, 2, 2])
    >>> b == c and a.mu > b.mu
    True
    """
    if not 2 <= len(ratings) <= 4 or len(ranks) != len(ratings):
        raise ValueError(
            f"expected 2 to 4 ratings and as many ranks, found {len(ratings)} and {len(ranks)}"
        )
    if sorted(ranks)[0] != 1 or any(not 1 <= rank <= len(ranks) for rank in ranks):
        raise ValueError(f"expected ranks from 1 to {len(ranks)}, found {list(ranks)!r}")
    the_model = model()
    teams = [[the_model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    rated = the_model.rate(teams, ranks=[float(rank) for rank in ranks])
    return [
        Rating(team[0].mu, team[0].sigma, before.games + 1)
        for team, before in zip(rated, ratings, strict=True)
    ]


def ranks_with_leavers(ranks: Sequence[int], leavers: Sequence[int]) -> list[int]:
    """The ranks a rated game counts: the seats in ``leavers`` (resigned, or out of time)
    last, sharing that place; the others keep their order from the end of the game.

    >>> ranks_with_leavers([1, 2, 3, 4], leavers=[0])
    [4, 1, 2, 3]
    >>> ranks_with_leavers([2, 1, 2], leavers=[1, 2])
    [1, 2, 2]
    """
    left = set(leavers)
    stayed = sorted((rank, seat) for seat, rank in enumerate(ranks) if seat not in left)
    result = [0] * len(ranks)
    place = 0
    for index, (rank, seat) in enumerate(stayed):
        if index == 0 or rank != stayed[index - 1][0]:
            place = index + 1
        result[seat] = place
    for seat in left:
        result[seat] = len(stayed) + 1
    return result


@cache
def bot_seeds(players: int | None = None) -> dict[str, Rating]:
    """The bot levels' ratings from the arena's games (``bot_ratings.json``): those seeded
    over every player count, and, for a game of ``players``, those seeded for that count
    alone (``learned`` is another policy at each count, and has no seed at three: it
    does not play three players)."""
    data = json.loads(BOT_RATINGS.read_text(encoding="utf-8"))
    seeds = {level: Rating.from_dict(rating) for level, rating in data["levels"].items()}
    if players is not None:
        by_count = data.get("by_players", {}).get(str(players), {})
        seeds.update({level: Rating.from_dict(rating) for level, rating in by_count.items()})
    return seeds


def plays_like(rating: Rating, bots: Mapping[str, Rating]) -> str | None:
    """The strongest bot level whose number shown (:func:`shown`, as the leaderboard
    shows it) the player's reaches; None below every level, or without bots.

    The sentence says what the numbers beside it say: a player shown 872 after one loss
    to ``easy`` does not "play like medium" (shown 1420) however near the two means are.
    A newcomer's doubt keeps the number low, so the level named climbs as the results
    grow sure; one surprising result (a win over ``hard``) moves the rating, and the
    sentence with it, no more than the model says it should.

    >>> bots = {"easy": Rating(-15.0, 2.0), "medium": Rating(25.7, 1.6)}
    >>> plays_like(Rating(23.0, 7.0), bots), shown(Rating(23.0, 7.0))
    ('easy', 1040)
    >>> plays_like(Rating(30.0, 1.0), bots), plays_like(Rating(-30.0, 2.0), bots)
    ('medium', None)
    """
    mine = shown(rating)
    reached = [level for level in bots if shown(bots[level]) <= mine]
    return max(reached, key=lambda level: shown(bots[level]), default=None)
