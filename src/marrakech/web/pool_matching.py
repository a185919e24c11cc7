"""Quick pairing's matching (issue 37): who sits at which table after a wave.

Pure: no store, no clock. A wave hands :func:`match` the players waiting in one pool
(one clock, rated or casual) and gets back the tables to start; everyone else waits for
the next wave. Lichess's pools are the model (lila ``modules/pool``): a weighted
matching where rating distance costs, each wave a player missed brings a bonus, and a
pair that blocked each other pays a penalty that no bonus can pay back.

- **Tables of 2, 3 or 4.** A player asks for one size or any (``sizes``). The players
  of a size are sorted by rating, and the tables are runs of neighbours in that order
  (the best tables of ``k`` players of one line are runs of ``k``, unless a blocked
  pair sits in one): a dynamic programme picks the runs that seat the most players at
  the least cost, in ``O(n)`` per size.
- **Cost.** A table's spread (its highest rating minus its lowest) less each player's
  bonus (:data:`MISS_BONUS` per missed wave, up to :data:`MAX_BONUS`), plus
  :data:`BLOCK_PENALTY` per blocked pair at it.
- **Tolerance.** A table is made only if its spread plus penalties is within every
  player's tolerance: :data:`BASE_RANGE` widened by :data:`RANGE_PER_MISS` per missed
  wave. So two players far apart meet after a few waves, and a blocked pair never does.
- **Bots.** A player who waited :attr:`Rules.bot_after` seconds and accepts bots gets a
  table of their size (two for "any") filled with bots; which bots is the caller's
  decision (the player's rated level, :mod:`marrakech.web.pools`).

>>> waiting = [Waiting("a", 1000), Waiting("b", 1040), Waiting("c", 1900)]
>>> [table.players for table in match(waiting, Rules())]
[('a', 'b')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: The sizes of a table (R4's player counts).
SIZES = (2, 3, 4)
#: Rating points a missed wave takes off a table's cost.
MISS_BONUS = 12.0
#: The most a player's missed waves take off.
MAX_BONUS = 400.0
#: What a pair that blocked each other adds to a table's cost: more than any tolerance.
BLOCK_PENALTY = 5000.0
#: The rating spread any player accepts at once, and how much it widens per missed wave.
BASE_RANGE = 150.0
RANGE_PER_MISS = 50.0
#: The widest spread a player accepts, however long they waited.
MAX_RANGE = 1500.0


@dataclass(frozen=True)
class Waiting:
    """A player waiting in a pool: ``key`` says who (an account or a guest's device),
    ``rating`` their shown rating, ``misses`` the waves they missed, ``waited`` the
    seconds since they joined, ``sizes`` the table sizes they accept, ``bots`` whether
    bots may fill their table after the wait."""

    key: str
    rating: float
    misses: int = 0
    waited: float = 0.0
    sizes: frozenset[int] = frozenset({2})
    bots: bool = True

    @property
    def bonus(self) -> float:
        return min(MAX_BONUS, MISS_BONUS * self.misses)

    @property
    def tolerance(self) -> float:
        return min(MAX_RANGE, BASE_RANGE + RANGE_PER_MISS * self.misses)


@dataclass(frozen=True)
class Rules:
    """A pool's settings: ``bot_after`` seconds before bots fill a table (None: never)."""

    bot_after: float | None = 30.0


@dataclass(frozen=True)
class Table:
    """A table to start: its players' keys (in rating order), and ``bots`` seats more."""

    players: tuple[str, ...]
    bots: int = 0

    @property
    def size(self) -> int:
        return len(self.players) + self.bots


@dataclass
class _Line:
    """The players of one size, sorted, and the blocked pairs among them."""

    players: list[Waiting]
    blocked: frozenset[frozenset[str]] = field(default_factory=frozenset)

    def cost(self, start: int, size: int) -> float | None:
        """The cost of the run of ``size`` players from ``start``, or None if someone
        at it would not accept it."""
        run = self.players[start : start + size]
        penalty = sum(
            BLOCK_PENALTY
            for i, a in enumerate(run)
            for b in run[i + 1 :]
            if frozenset((a.key, b.key)) in self.blocked
        )
        spread = run[-1].rating - run[0].rating + penalty
        if spread > min(player.tolerance for player in run):
            return None
        return spread - sum(player.bonus for player in run)


def _tables_of(line: _Line, size: int) -> list[tuple[str, ...]]:
    """The runs of ``size`` that seat the most players of ``line``, at the least cost."""
    players = line.players
    count = len(players)
    # best[i]: (players seated, -cost) over the first i players; choice[i]: run or skip.
    best: list[tuple[int, float]] = [(0, 0.0)] * (count + 1)
    took = [False] * (count + 1)
    for end in range(1, count + 1):
        best[end], took[end] = best[end - 1], False
        if end >= size:
            cost = line.cost(end - size, size)
            if cost is not None:
                seated, score = best[end - size]
                candidate = (seated + size, score - cost)
                if candidate > best[end]:
                    best[end], took[end] = candidate, True
    tables = []
    end = count
    while end > 0:
        if took[end]:
            tables.append(tuple(player.key for player in players[end - size : end]))
            end -= size
        else:
            end -= 1
    return tables[::-1]


def match(
    waiting: Iterable[Waiting],
    rules: Rules,
    blocked: Iterable[frozenset[str]] = (),
) -> list[Table]:
    """The tables of one wave. Bigger tables are formed first (a player who accepts
    any size helps fill them), then each player left who waited past
    :attr:`Rules.bot_after` and accepts bots gets a table of bots. ``blocked``: the
    pairs of keys that must not meet (a penalty no wait pays back)."""
    left = sorted(waiting, key=lambda player: (player.rating, player.key))
    keys = [player.key for player in left]
    if len(set(keys)) != len(keys):
        raise ValueError(f"expected each player once in a wave, found {sorted(keys)}")
    pairs = frozenset(frozenset(pair) for pair in blocked)
    tables: list[Table] = []
    for size in sorted(SIZES, reverse=True):
        line = _Line([player for player in left if size in player.sizes], pairs)
        formed = _tables_of(line, size)
        seated = {key for table in formed for key in table}
        tables.extend(Table(table) for table in formed)
        left = [player for player in left if player.key not in seated]
    if rules.bot_after is not None:
        for player in left:
            if player.bots and player.waited >= rules.bot_after:
                size = min(player.sizes) if len(player.sizes) == 1 else 2
                tables.append(Table((player.key,), bots=size - 1))
    return tables


def full_table(waiting: Sequence[Waiting]) -> bool:
    """Whether enough players wait for some size to make a table of it (a wave then
    starts at once rather than at its time)."""
    return any(sum(size in player.sizes for player in waiting) >= size for size in SIZES)


def fill_open_table(rating: float, size: int, seats: int, waiting: Iterable[Waiting]) -> list[str]:
    """The players who take ``seats`` open seats of a table of ``size`` already made (a
    turn-based game that waits for people, its host rated ``rating``): those who accept
    its size, nearest in rating first, each within their own tolerance.

    >>> waiting = [Waiting("a", 1300), Waiting("b", 1100), Waiting("c", 1010)]
    >>> fill_open_table(1000, 2, 1, waiting), fill_open_table(1000, 3, 1, waiting)
    (['c'], [])
    """
    fits = [
        player
        for player in waiting
        if size in player.sizes and abs(player.rating - rating) <= player.tolerance
    ]
    fits.sort(key=lambda player: (abs(player.rating - rating), player.key))
    return [player.key for player in fits[:seats]]
