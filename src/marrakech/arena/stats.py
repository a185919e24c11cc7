"""Match statistics: win shares with confidence intervals, means, and ratings.

Per bot spec (seats holding the same spec are pooled):

* **games**: seat-games played (one ``mcts`` against three ``greedy`` over 400 games
  gives ``mcts`` 400 and ``greedy`` 1200);
* **win share**: wins per seat-game, a shared win (R21) split between its winners; the
  95% interval is Wilson's score interval on that proportion (seat-games of one bot in
  the same game are not independent, so with pooled seats the interval is a little
  narrow; the single-seat bot, the one a strength claim is about, is exact);
* **luck-corrected win share**: the win share with the dice's luck taken out
  (:mod:`marrakech.luck`): the same quantity, estimated with a narrower interval
  (:func:`luck_corrected`);
* **mean score** (R20) and **mean rank** (R21, 1 = win);
* **rating**: a Bradley-Terry model fitted on every pair of seats with different bots in
  every game (the better rank wins the pair, equal ranks count half each), by Hunter's
  MM algorithm with one virtual draw between each two bots so that a bot that never
  loses still gets a finite rating. Ratings are on the Elo scale (400 points = 10:1
  odds), centred so their mean is 1500; a pair of bots 200 points apart win about 76%
  of the pairs between them. Each rating has a 95% interval from a bootstrap over the
  games (:func:`rating_intervals`).

>>> shares = wilson(45, 100)
>>> round(shares[0], 3), round(shares[1], 3)
(0.356, 0.548)
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from marrakech.arena.match import GameResult

Z95 = 1.959963984540054
#: Fewer seat-games than this and :func:`luck_corrected` keeps the raw share: the
#: regression behind the correction needs a sample to estimate its slope.
MIN_CORRECTED = 30


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion (95% by default)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def luck_corrected(
    wins: Sequence[float], lucks: Sequence[float], z: float = Z95
) -> tuple[float, float, float]:
    """A win share and its 95% interval, corrected for dice luck: ``(share, low, high)``.

    ``wins[i]`` is a seat-game's win (1, 0, or a split share, R21) and ``lucks[i]`` its
    dice luck (:func:`marrakech.luck.dice_luck`), whose expectation is exactly
    zero. The estimate is ``mean(wins) - c * mean(lucks)`` with ``c`` the regression
    slope of wins on luck (a control variate): unbiased for the win share but for an
    O(1/n) term from estimating ``c``, with the variance of the part of the wins that
    luck does not explain. In two-player games between bots the correlation is about
    0.7, which narrows the interval as much as twice the games would. Below
    :data:`MIN_CORRECTED` seat-games, when no seat was ever lucky or unlucky, or when
    every game had the same result (a clean sweep leaves nothing to explain, and a
    normal interval would be of zero width), it is the raw share with Wilson's interval.

    >>> wins = [1, 1, 1, 0, 0] * 8             # 60% of 40 games, the wins mostly lucky
    >>> lucks = [8.0, 4.0, -1.0, -6.0, -3.0] * 8
    >>> [round(x, 3) for x in luck_corrected(wins, lucks)]
    [0.569, 0.475, 0.662]
    >>> [round(x, 3) for x in wilson(24, 40)]  # the raw share's interval
    [0.446, 0.737]
    """
    n = len(wins)
    if n != len(lucks):
        raise ValueError(f"expected one luck per win, found {n} wins and {len(lucks)} lucks")
    raw = sum(wins) / n if n else 0.0
    mean_luck = sum(lucks) / n if n else 0.0
    spread = sum((x - mean_luck) ** 2 for x in lucks)
    if n < MIN_CORRECTED or spread <= 1e-12 or min(wins) == max(wins):
        low, high = wilson(sum(wins), n, z)
        return (raw, low, high)
    slope = sum((w - raw) * (x - mean_luck) for w, x in zip(wins, lucks, strict=True)) / spread
    share = raw - slope * mean_luck
    residual = sum(
        (w - raw - slope * (x - mean_luck)) ** 2 for w, x in zip(wins, lucks, strict=True)
    )
    half = z * math.sqrt(residual / (n - 2) / n)
    return (min(1.0, max(0.0, share)), max(0.0, share - half), min(1.0, share + half))


@dataclass(frozen=True)
class BotSummary:
    """One line of the arena table (``luck`` is the mean dice luck per seat-game, in
    dirhams; ``corrected_*`` the luck-corrected win share and its interval)."""

    bot: str
    games: int
    wins: float
    win_share: float
    ci_low: float
    ci_high: float
    mean_score: float
    mean_rank: float
    rating: float
    rating_low: float
    rating_high: float
    seconds_per_decision: float
    luck: float
    corrected_share: float
    corrected_low: float
    corrected_high: float

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


def _pairs(game: GameResult, index: dict[str, int]) -> list[tuple[int, int, float]]:
    """The pairs of a game between seats of different bots: (i, j, share of i's win)."""
    seats = [index[s] for s in game.seats]
    found: list[tuple[int, int, float]] = []
    for a in range(len(seats)):
        for b in range(a + 1, len(seats)):
            if seats[a] != seats[b]:
                won = 1.0 if game.ranks[a] < game.ranks[b] else 0.0
                found.append((seats[a], seats[b], 0.5 if game.ranks[a] == game.ranks[b] else won))
    return found


def _fit(pairs: Iterable[list[tuple[int, int, float]]], n: int, iterations: int) -> list[float]:
    """Hunter's MM fit of Bradley-Terry strengths (geometric mean 1) from game pairs."""
    wins = [[0.5 if i != j else 0.0 for j in range(n)] for i in range(n)]  # virtual draws
    for game in pairs:
        for i, j, won in game:
            wins[i][j] += won
            wins[j][i] += 1.0 - won
    strength = [1.0] * n
    for _ in range(iterations):
        changed = 0.0
        for i in range(n):
            won_i = sum(wins[i])
            denominator = sum(
                (wins[i][j] + wins[j][i]) / (strength[i] + strength[j]) for j in range(n) if j != i
            )
            new = won_i / denominator if denominator > 0 else strength[i]
            changed = max(changed, abs(math.log(new / strength[i])))
            strength[i] = new
        mean_log = sum(math.log(s) for s in strength) / n
        strength = [s / math.exp(mean_log) for s in strength]
        if changed < 1e-10:
            break
    return strength


def _elo(strength: float) -> float:
    return 1500.0 + 400.0 * math.log10(strength)


def bradley_terry(
    games: Sequence[GameResult], bots: Sequence[str], iterations: int = 2000
) -> dict[str, float]:
    """Elo-scale Bradley-Terry ratings (mean 1500) from the pairwise results of games."""
    if len(bots) == 1:
        return {bots[0]: 1500.0}
    index = {bot: i for i, bot in enumerate(bots)}
    strength = _fit((_pairs(game, index) for game in games), len(bots), iterations)
    return {bot: _elo(strength[index[bot]]) for bot in bots}


#: Bootstrap resamples behind each rating's interval.
RATING_RESAMPLES = 200


def rating_intervals(
    games: Sequence[GameResult], bots: Sequence[str], resamples: int = RATING_RESAMPLES
) -> dict[str, tuple[float, float]]:
    """95% intervals of the ratings: the games resampled with replacement (a game's
    pairs stay together, since they are not independent), refitted each time, and the
    2.5th and 97.5th percentiles kept. Seeded, so a table always shows the same bounds."""
    if len(bots) == 1 or not games:
        return {bot: (1500.0, 1500.0) for bot in bots}
    index = {bot: i for i, bot in enumerate(bots)}
    pairs = [_pairs(game, index) for game in games]
    rng = random.Random(len(games))
    samples: list[list[float]] = [[] for _ in bots]
    for _ in range(resamples):
        drawn = (pairs[rng.randrange(len(pairs))] for _ in pairs)
        for i, strength in enumerate(_fit(drawn, len(bots), 500)):
            samples[i].append(_elo(strength))
    bounds: dict[str, tuple[float, float]] = {}
    for bot, values in zip(bots, samples, strict=True):
        values.sort()
        low = values[int(0.025 * (len(values) - 1))]
        high = values[math.ceil(0.975 * (len(values) - 1))]
        bounds[bot] = (low, high)
    return bounds


def summarise(games: Sequence[GameResult]) -> list[BotSummary]:
    """The arena table, best win share first."""
    order: list[str] = []
    for game in sorted(games, key=lambda g: g.index):
        for spec in game.seats:
            if spec not in order:
                order.append(spec)
    ratings = bradley_terry(games, order) if games else {}
    intervals = rating_intervals(games, order)
    rows: list[BotSummary] = []
    for bot in order:
        played = 0
        wins = 0.0
        score = 0
        rank = 0
        seconds = 0.0
        decisions = 0
        won: list[float] = []
        luck: list[float] = []
        for game in games:
            for seat, spec in enumerate(game.seats):
                if spec != bot:
                    continue
                played += 1
                won.append(game.win_share(seat))
                luck.append(game.luck[seat])
                wins += won[-1]
                score += game.scores[seat]
                rank += game.ranks[seat]
                seconds += game.seconds[seat]
                decisions += game.decisions[seat]
        low, high = wilson(wins, played)
        corrected = luck_corrected(won, luck)
        rows.append(
            BotSummary(
                bot=bot,
                games=played,
                wins=wins,
                win_share=wins / played if played else 0.0,
                ci_low=low,
                ci_high=high,
                mean_score=score / played if played else 0.0,
                mean_rank=rank / played if played else 0.0,
                rating=ratings.get(bot, 1500.0),
                rating_low=intervals[bot][0],
                rating_high=intervals[bot][1],
                seconds_per_decision=seconds / decisions if decisions else 0.0,
                luck=sum(luck) / played if played else 0.0,
                corrected_share=corrected[0],
                corrected_low=corrected[1],
                corrected_high=corrected[2],
            )
        )
    rows.sort(key=lambda r: -r.win_share)
    return rows


def seat_shares(games: Sequence[GameResult], players: int) -> list[float]:
    """Each seat's share of the wins (first-seat advantage check)."""
    shares = [0.0] * players
    for game in games:
        for seat in game.winners:
            shares[seat] += game.win_share(seat)
    total = len(games) or 1
    return [s / total for s in shares]


def format_table(rows: Sequence[BotSummary]) -> str:
    """The arena table as aligned text."""
    header = (
        f"{'bot':<28} {'games':>6} {'win share':>9} {'95% CI':>15} "
        f"{'luck-corrected':>26} {'luck':>5} "
        f"{'score':>6} {'rank':>5} {'rating':>7} {'s/dec':>7}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        ci = f"{r.ci_low:.1%}-{r.ci_high:.1%}"
        corrected = f"{r.corrected_share:.1%} ({r.corrected_low:.1%}-{r.corrected_high:.1%})"
        lines.append(
            f"{r.bot:<28} {r.games:>6} {r.win_share:>9.1%} {ci:>15} "
            f"{corrected:>26} {r.luck:>+5.1f} "
            f"{r.mean_score:>6.1f} {r.mean_rank:>5.2f} {r.rating:>7.0f} "
            f"{r.seconds_per_decision:>7.3f}"
        )
    return "\n".join(lines)
