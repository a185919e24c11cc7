"""How a game ended: ranks, winners, rank values and win shares (R20, R21).

This is the one home of these ideas. Every other place (the environments' rewards, the
bots' playout values, the arena's win shares, the benchmarks) calls it; the compiled
kernels mirror it inside Numba, with a comment naming it, and a test compares every
implementation with it on every tie pattern of 2, 3 and 4 players.

* **ranks** (R21): seats still in rank by score (R20), then by dirhams; seats that tie
  on both share a rank (competition ranking: ``1, 1, 3``). Eliminated seats rank below
  every seat still in, the last to go out highest.
* **winners**: the seats of rank 1 once the game is over (several on a shared win).
* **rank values** in ``[0, 1]``: a seat of rank ``r`` shared by ``k`` seats holds the
  places ``r .. r + k - 1``; its value is ``(players - mean place) / (players - 1)``.
  A sole winner gets 1, the last seat 0, and the values of a game always sum to
  ``players / 2``.
* **rank rewards** in ``[-1, 1]``: ``2 * value - 1``, which is also the mean over the
  other seats of +1 (ranked above it), 0 (same rank) or -1 (below it). Zero-sum.
* **win shares**: ``1 / k`` to each of the ``k`` winners, 0 to the others; all 0 while
  the game goes on.

    >>> outcome = Outcome(ranks=(1, 1, 3))
    >>> outcome.winners, outcome.win_shares
    ((0, 1), (0.5, 0.5, 0.0))
    >>> outcome.rank_values, outcome.rank_rewards
    ((0.75, 0.75, 0.0), (0.5, 0.5, -1.0))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def rank_seats(
    scores: Sequence[int], money: Sequence[int], eliminated: Sequence[int]
) -> tuple[int, ...]:
    """1-based ranks (R21) from the scores (R20), dirhams and elimination order (R13).

    >>> rank_seats(scores=(40, 40, 12), money=(20, 18, 0), eliminated=(2,))
    (1, 2, 3)
    """
    keys: list[tuple[int, int, int]] = []
    for seat, score in enumerate(scores):
        if seat in eliminated:
            keys.append((0, list(eliminated).index(seat), 0))
        else:
            keys.append((1, score, money[seat]))
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The standing of every seat: ``ranks`` (R21), and whether the game is ``over``.

    Build one with :meth:`marrakech.State.outcome`, or from ranks alone (learning code
    that holds rank arrays). Before the end, the ranks are the standings so far: only
    those of eliminated seats are final (R13, R21), and nobody has won yet.
    """

    ranks: tuple[int, ...]
    over: bool = True

    def __post_init__(self) -> None:
        players = len(self.ranks)
        if not 2 <= players <= 4:
            raise ValueError(f"expected ranks for 2 to 4 seats, found {self.ranks!r}")
        for seat, rank in enumerate(self.ranks):
            # Competition ranking: rank r means exactly r - 1 seats rank above.
            above = sum(1 for other in self.ranks if other < rank)
            if isinstance(rank, bool) or not isinstance(rank, int) or rank != above + 1:
                raise ValueError(
                    f"expected competition ranks (such as 1, 1, 3), found {self.ranks!r} "
                    f"(seat {seat})"
                )

    @property
    def players(self) -> int:
        return len(self.ranks)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats ranked first once the game is over (several on a shared win)."""
        if not self.over:
            return ()
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    @property
    def rank_values(self) -> tuple[float, ...]:
        """Per seat, ``(players - mean place) / (players - 1)`` in ``[0, 1]``."""
        players = len(self.ranks)
        values = []
        for rank in self.ranks:
            shared = sum(1 for other in self.ranks if other == rank)
            values.append((players - (rank + (shared - 1) / 2)) / (players - 1))
        return tuple(values)

    @property
    def rank_rewards(self) -> tuple[float, ...]:
        """Per seat, ``2 * rank value - 1`` in ``[-1, 1]`` (zero-sum), computed as the
        mean over the other seats of +1, 0 or -1, which rounds exactly."""
        players = len(self.ranks)
        return tuple(
            (sum(other > rank for other in self.ranks) - sum(other < rank for other in self.ranks))
            / (players - 1)
            for rank in self.ranks
        )

    @property
    def win_shares(self) -> tuple[float, ...]:
        """Per seat, ``1 / k`` for each of ``k`` winners, else 0 (all 0 before the end)."""
        winners = self.winners
        return tuple(1.0 / len(winners) if seat in winners else 0.0 for seat in range(self.players))

    def win_share(self, seat: int) -> float:
        """The share of the win of one seat."""
        return self.win_shares[seat]


__all__ = ["Outcome", "rank_seats"]
