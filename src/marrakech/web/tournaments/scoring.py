"""A tournament's points and standings, derived from its games' places alone.

Nothing here is stored: the standings are recomputed from the stored games (their
seats' places, R21) whenever they are asked for, so a server killed mid-tournament
loses nothing a game did not store.

**Points by place** (lichess's arena, 2 for a win, 1 for a draw, 0 for a loss, widened
to 2 to 4 players): in a game of ``n`` players the ``k``-th position is worth
``2 (n - k)``; players who share a place (R21: equal scores and dirhams share the
win, and any other place) share the positions they cover, each getting their mean. So
two players sharing the win of a 2-player game get 1 each (a draw), and the points of a
game always add up to ``n (n - 1)``::

    >>> place_points(1, 1, 2), place_points(2, 1, 2), place_points(1, 2, 2)
    (2, 0, 1)
    >>> [place_points(p, c, 4) for p, c in ((1, 1), (2, 2), (4, 1))]
    [6, 3, 0]

**Streaks** (arenas only): after two wins in a row (first place, alone) a player is *on
fire*: every game's points count double until a game that is not a win, which ends the
streak (it counts double too). A Swiss event has no streak; its byes are worth a win.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: Games played in a row with first place alone before the points count double.
STREAK = 2


def place_points(place: int, sharing: int, players: int) -> int:
    """The points of a ``place`` (1 first) shared by ``sharing`` players, in a game of
    ``players`` (2 to 4): the mean of the positions the place covers, each worth
    ``2 (players - position)``. The mean of consecutive positions is always whole."""
    if not 2 <= players <= 4:
        raise ValueError(f"players: expected 2 to 4, found {players}")
    if not 1 <= sharing <= players or not 1 <= place <= players - sharing + 1:
        raise ValueError(
            f"place: expected 1..{players} shared by 1..{players}, found {place} by {sharing}"
        )
    last = place + sharing - 1
    return (players - place) + (players - last)


@dataclass(frozen=True)
class GameResult:
    """One pairing of a tournament as its standings read it: the entrants in seat order
    and, once the game is over, each seat's place (R21, ties shared: ``(1, 1, 3)``).

    ``places`` is None while the game goes on. A bye (Swiss) has one entrant,
    ``bye=True`` and no game. ``order`` sorts an entrant's games (the pairing's
    sequence number)."""

    entrants: tuple[str, ...]
    places: tuple[int, ...] | None = None
    order: int = 0
    round: int = 0
    bye: bool = False

    @property
    def over(self) -> bool:
        return self.bye or self.places is not None


@dataclass
class Standing:
    """One entrant's line of the standings: ``rank`` (1 first, shared on equal
    ``score`` and tie-break), points, games finished and won, and the ``sheet``: each
    finished game's points in order (doubled ones marked ``fire``)."""

    entrant: str
    rank: int = 0
    score: int = 0
    games: int = 0
    wins: int = 0
    tiebreak: int = 0
    on_fire: bool = False
    playing: bool = False
    sheet: list[tuple[int, bool]] = field(default_factory=list)


def standings(
    entrants: Iterable[str], results: Iterable[GameResult], *, players: int, streaks: bool
) -> list[Standing]:
    """The standings of a tournament whose games of ``players`` are ``results``, over
    ``entrants`` (everyone who joined, in joining order: those without a game yet are
    listed too). ``streaks``: the arena's doubled points (see the module's docstring).
    Ordered by score, then tie-break (the arena: wins; Swiss: the sum of the scores of
    the entrants one met, Buchholz), then wins; equal lines share a rank."""
    lines = {entrant: Standing(entrant) for entrant in entrants}
    ordered = sorted(results, key=lambda result: (result.order, result.round))
    streak: dict[str, int] = {}
    met: dict[str, list[str]] = {}
    for result in ordered:
        for entrant in result.entrants:
            lines.setdefault(entrant, Standing(entrant))
        if not result.over:
            for entrant in result.entrants:
                lines[entrant].playing = True
            continue
        if result.bye:
            line = lines[result.entrants[0]]
            line.score += place_points(1, 1, players)
            line.games += 1
            line.sheet.append((place_points(1, 1, players), False))
            continue
        places = result.places or ()
        if len(places) != len(result.entrants):
            raise ValueError(
                f"places: expected {len(result.entrants)}, found {len(places)}: {places}"
            )
        for seat, entrant in enumerate(result.entrants):
            line = lines[entrant]
            place = places[seat]
            sharing = places.count(place)
            points = place_points(place, sharing, len(places))
            fire = streaks and streak.get(entrant, 0) >= STREAK
            won = place == 1 and sharing == 1
            streak[entrant] = streak.get(entrant, 0) + 1 if won else 0
            line.score += points * 2 if fire else points
            line.games += 1
            line.wins += won
            line.sheet.append((points * 2 if fire else points, fire))
            met.setdefault(entrant, []).extend(e for e in result.entrants if e != entrant)
    for entrant, line in lines.items():
        line.on_fire = streaks and streak.get(entrant, 0) >= STREAK
        if streaks:
            line.tiebreak = line.wins
        else:
            line.tiebreak = sum(lines[other].score for other in met.get(entrant, []))

    def key(line: Standing) -> tuple[int, int, int]:
        return (-line.score, -line.tiebreak, -line.wins)

    table = sorted(lines.values(), key=key)  # stable: joining order among equals
    for index, line in enumerate(table):
        same = index > 0 and key(table[index - 1]) == key(line)
        line.rank = table[index - 1].rank if same else index + 1
    return table


def podium(table: Sequence[Standing]) -> list[Standing]:
    """The podium of final standings: the lines ranked 1 to 3 that played a game
    (shared ranks share the step)."""
    return [line for line in table if line.rank <= 3 and line.games > 0]
