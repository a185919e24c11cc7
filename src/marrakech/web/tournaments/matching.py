"""Who plays whom: an arena's waiting entrants, and a Swiss event's rounds.

Both take the standings (:mod:`marrakech.web.tournaments.scoring`) and return groups of
entrants, each group one game of ``players`` (2 to 4) in seat order. Nothing random:
the same standings give the same pairings, so a server that pairs again after a crash
decides as the first would have.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations

#: How many groups a Swiss round's search for the fewest rematches may weigh before it
#: settles for the best grouping found (some 50 ms at most; far more than a field of a
#: hundred needs when its rematches can be avoided).
REMATCH_SEARCH_BUDGET = 20_000


def _group(
    pool: list[str],
    players: int,
    met: Mapping[str, Mapping[str, int]],
    person: Callable[[str], bool] | None = None,
) -> list[tuple[str, ...]]:
    """Groups of ``players`` from ``pool`` (best first), top down: each group is the
    best one left and the ``players - 1`` next ones it met least (its last opponents
    last), so neighbours in the standings meet unless they just did. With ``person``,
    every group holds one at least (the nearest person joins a group that has none;
    with no person left, the rest wait)."""
    left = list(pool)
    groups: list[tuple[str, ...]] = []
    while len(left) >= players:
        if person is not None and not any(person(entrant) for entrant in left):
            break
        first = left.pop(0)
        seen = met.get(first, {})
        # stable: among opponents met as often, the nearest in the standings
        others = sorted(left, key=lambda other: seen.get(other, 0))[: players - 1]
        if person is not None and not any(person(e) for e in (first, *others)):
            nearest = next(entrant for entrant in left if person(entrant))
            others = [*others[:-1], nearest]
        for other in others:
            left.remove(other)
        group = [first, *sorted(others, key=pool.index)]
        groups.append(tuple(group))
    return groups


def _rematches(group: Sequence[str], met: Mapping[str, Mapping[str, int]]) -> int:
    """How many meetings the pairs of ``group`` already had."""
    return sum(met.get(one, {}).get(other, 0) for one, other in combinations(group, 2))


def _fewest_rematches(
    pool: list[str], players: int, met: Mapping[str, Mapping[str, int]]
) -> list[tuple[str, ...]]:
    """Groups of ``players`` covering ``pool`` (best first, a multiple of ``players``)
    whose pairs met the fewest times before: of the groupings with the fewest, the first
    the top-down order reaches (each group the best one left with the ones it met
    least, the nearest first), so that when no rematch is forced the result is
    :func:`_group`'s. Where going top down would leave the last ones nobody but a past
    opponent, this looks further (a branch-and-bound search weighing at most
    :data:`REMATCH_SEARCH_BUDGET` groups, then the best grouping found)."""
    best: list[tuple[str, ...]] = []
    best_cost = float("inf")
    steps = 0

    def search(left: list[str], groups: list[tuple[str, ...]], cost: int) -> None:
        nonlocal best, best_cost, steps
        if not left:
            best, best_cost = list(groups), cost
            return
        first, rest = left[0], left[1:]
        seen = met.get(first, {})
        nearest = sorted(rest, key=lambda other: seen.get(other, 0))  # stable
        for others in combinations(nearest, players - 1):
            if best_cost == 0 or steps > REMATCH_SEARCH_BUDGET:
                return
            steps += 1
            group = (first, *sorted(others, key=pool.index))
            more = cost + _rematches(group, met)
            if more < best_cost:
                remaining = [entrant for entrant in rest if entrant not in others]
                search(remaining, [*groups, group], more)

    search(pool, [], 0)
    return best


def arena_pairs(
    waiting: Sequence[str],
    players: int,
    *,
    ranking: Sequence[str],
    last_opponents: Mapping[str, Sequence[str]],
    person: Callable[[str], bool] | None = None,
) -> list[tuple[str, ...]]:
    """An arena's new games: the ``waiting`` entrants (no game under way) grouped by
    their place in ``ranking`` (the standings' order, best first), ``players`` a
    game, each avoiding the opponents of its last game when another is waiting. Those
    left over (fewer than ``players``) wait for the next game to end. ``person``: every
    game holds one at least (an account's tournament: bots never play bots only).

    >>> arena_pairs(["d", "a", "c", "b"], 2, ranking="abcd", last_opponents={"a": ["b"]})
    [('a', 'c'), ('b', 'd')]
    >>> arena_pairs(["a", "b", "C"], 2, ranking="abC", last_opponents={}, person=str.isupper)
    [('a', 'C')]
    """
    if not 2 <= players <= 4:
        raise ValueError(f"players: expected 2 to 4, found {players}")
    place = {entrant: index for index, entrant in enumerate(ranking)}
    pool = sorted(waiting, key=lambda entrant: (place.get(entrant, len(place)), entrant))
    met = {entrant: {other: 1 for other in last_opponents.get(entrant, ())} for entrant in pool}
    return _group(pool, players, met, person)


def swiss_round(
    ranking: Sequence[str],
    players: int,
    *,
    met: Mapping[str, Mapping[str, int]],
    byes: Mapping[str, int],
) -> tuple[list[tuple[str, ...]], list[str]]:
    """A Swiss round: the games, and the byes. ``ranking``: the entrants still in, by
    the standings (best first); ``met``: how often each pair met already; ``byes``: the
    byes each had. When the entrants do not fill whole games the byes go to the lowest
    ranked among those with the fewest byes; the rest are grouped top down, each with
    the nearest it met least, with as few rematches as any grouping has: where going
    top down would leave the last ones only past opponents, the round is grouped so that
    they meet new ones (:func:`_fewest_rematches`).

    >>> swiss_round(["a", "b", "c"], 2, met={}, byes={})
    ([('a', 'b')], ['c'])
    >>> swiss_round(["a", "b", "c"], 2, met={}, byes={"c": 1})
    ([('a', 'c')], ['b'])
    >>> met = {"a": {"b": 1}, "b": {"a": 1, "d": 1}, "d": {"b": 1}}
    >>> swiss_round(["a", "b", "c", "d"], 2, met=met, byes={})
    ([('a', 'd'), ('b', 'c')], [])
    """
    if not 2 <= players <= 4:
        raise ValueError(f"players: expected 2 to 4, found {players}")
    pool = list(ranking)
    count = len(pool) % players
    # the fewest byes first, then the lowest ranked
    candidates = sorted(reversed(pool), key=lambda entrant: byes.get(entrant, 0))
    bye = candidates[:count]
    return _fewest_rematches([e for e in pool if e not in bye], players, met), bye
