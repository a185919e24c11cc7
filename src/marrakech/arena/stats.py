"""Match statistics: win shares with confidence intervals, means, and ratings.

Per bot spec (seats holding the same spec are pooled):

* **games**: seat-games played (one ``mcts`` against three ``greedy`` over 400 games
  gives ``mcts`` 400 and ``greedy`` 1200);
* **win share**: wins per seat-game, a shared win (R21) split between its winners; the
  95% interval is Wilson's score interval on that proportion (seat-games of one bot in
  the same game are not independent, so with pooled seats the interval is a little
  narrow; the single-seat bot, the one a strength claim is about, is exact);
* **mean score** (R20) and **mean rank** (R21, 1 = win);
* **rating**: a Bradley-Terry model fitted on every pair of seats with different bots in
  every game (the better rank wins the pair, equal ranks count half each), by Hunter's
  MM algorithm with one virtual draw between each two bots so that a bot that never
  loses still gets a finite rating. Ratings are on the Elo scale (400 points = 10:1
  odds), centred so their mean is 1500; a pair of bots 200 points apart win about 76%
  of the pairs between them.

>>> shares = wilson(45, 100)
>>> round(shares[0], 3), round(shares[1], 3)
(0.356, 0.548)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from marrakech.arena.match import GameResult

Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion (95% by default)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class BotSummary:
    """One line of the arena table."""

    bot: str
    games: int
    wins: float
    win_share: float
    ci_low: float
    ci_high: float
    mean_score: float
    mean_rank: float
    rating: float
    seconds_per_decision: float

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


def bradley_terry(
    games: Sequence[GameResult], bots: Sequence[str], iterations: int = 2000
) -> dict[str, float]:
    """Elo-scale Bradley-Terry ratings (mean 1500) from the pairwise results of games."""
    index = {bot: i for i, bot in enumerate(bots)}
    n = len(bots)
    if n == 1:
        return {bots[0]: 1500.0}
    wins = [[0.0] * n for _ in range(n)]  # wins[i][j]: pairs i won against j
    for i in range(n):
        for j in range(n):
            if i != j:
                wins[i][j] = 0.5  # the virtual draw that keeps every rating finite
    for game in games:
        seats = [index[s] for s in game.seats]
        for a in range(len(seats)):
            for b in range(a + 1, len(seats)):
                i, j = seats[a], seats[b]
                if i == j:
                    continue
                if game.ranks[a] < game.ranks[b]:
                    wins[i][j] += 1.0
                elif game.ranks[a] > game.ranks[b]:
                    wins[j][i] += 1.0
                else:
                    wins[i][j] += 0.5
                    wins[j][i] += 0.5
    strength = [1.0] * n
    for _ in range(iterations):
        changed = 0.0
        for i in range(n):
            won = sum(wins[i])
            denominator = sum(
                (wins[i][j] + wins[j][i]) / (strength[i] + strength[j]) for j in range(n) if j != i
            )
            new = won / denominator if denominator > 0 else strength[i]
            changed = max(changed, abs(math.log(new / strength[i])))
            strength[i] = new
        mean_log = sum(math.log(s) for s in strength) / n
        strength = [s / math.exp(mean_log) for s in strength]
        if changed < 1e-10:
            break
    return {bot: 1500.0 + 400.0 * math.log10(strength[index[bot]]) for bot in bots}


def summarise(games: Sequence[GameResult]) -> list[BotSummary]:
    """The arena table, best win share first."""
    order: list[str] = []
    for game in sorted(games, key=lambda g: g.index):
        for spec in game.seats:
            if spec not in order:
                order.append(spec)
    ratings = bradley_terry(games, order) if games else {}
    rows: list[BotSummary] = []
    for bot in order:
        played = 0
        wins = 0.0
        score = 0
        rank = 0
        seconds = 0.0
        decisions = 0
        for game in games:
            winners = game.winners
            for seat, spec in enumerate(game.seats):
                if spec != bot:
                    continue
                played += 1
                if seat in winners:
                    wins += 1.0 / len(winners)
                score += game.scores[seat]
                rank += game.ranks[seat]
                seconds += game.seconds[seat]
                decisions += game.decisions[seat]
        low, high = wilson(wins, played)
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
                seconds_per_decision=seconds / decisions if decisions else 0.0,
            )
        )
    rows.sort(key=lambda r: -r.win_share)
    return rows


def seat_shares(games: Sequence[GameResult], players: int) -> list[float]:
    """Each seat's share of the wins (first-seat advantage check)."""
    shares = [0.0] * players
    for game in games:
        winners = game.winners
        for seat in winners:
            shares[seat] += 1.0 / len(winners)
    total = len(games) or 1
    return [s / total for s in shares]


def format_table(rows: Sequence[BotSummary]) -> str:
    """The arena table as aligned text."""
    header = (
        f"{'bot':<28} {'games':>6} {'win share':>9} {'95% CI':>15} "
        f"{'score':>6} {'rank':>5} {'rating':>7} {'s/dec':>7}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        ci = f"{r.ci_low:.1%}-{r.ci_high:.1%}"
        lines.append(
            f"{r.bot:<28} {r.games:>6} {r.win_share:>9.1%} {ci:>15} "
            f"{r.mean_score:>6.1f} {r.mean_rank:>5.2f} {r.rating:>7.0f} "
            f"{r.seconds_per_decision:>7.3f}"
        )
    return "\n".join(lines)
