"""How the examples train and measure a policy: against ``random`` bots.

:func:`against_random` is the batch the learning examples train in. A policy is a
function from a batch of observations and legal-action masks to one decision id per
game. :func:`win_rate` has it play ``games`` fresh games (seats rotating, so it plays
every seat equally often) in a :class:`~marrakech.envs.VectorEnv` against ``random`` in
the other seats; a game it wins alone counts 1, a win shared by ``k`` seats ``1/k``
(R21), and the 95% confidence interval is the normal approximation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from marrakech.envs import VectorEnv

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], npt.ArrayLike]


class WinRate(NamedTuple):
    rate: float
    low: float
    high: float
    games: int

    def __str__(self) -> str:
        return (
            f"win rate {self.rate:.3f} (95% CI {self.low:.3f}-{self.high:.3f}, {self.games} games)"
        )


def against_random(games: int, players: int, seed: int, **options: Any) -> VectorEnv:
    """``games`` games at once, ``random`` bots in every seat but the learning one, which
    rotates (game ``i`` plays seat ``i % players``)."""
    return VectorEnv(
        games,
        players,
        seed=seed,
        opponents=("random",) * (players - 1),
        seat="rotate",
        **options,
    )


def win_rate(
    policy: Policy, players: int, games: int, seed: int, illegal_action: str = "raise"
) -> WinRate:
    """``policy`` against ``random`` in ``games`` fresh games (``illegal_action="lose"``
    for a policy that does not mask: an illegal decision loses its game)."""
    env = against_random(
        games, players, seed, reward="win", autoreset=False, illegal_action=illegal_action
    )
    out = env.reset_transition()
    wins = np.zeros(env.n)
    while not out.terminated.all():
        actions = np.asarray(policy(out.observations, out.action_masks), dtype=np.int64)
        out = env.step_transition(np.where(out.terminated, 0, actions))
        wins += out.rewards  # "win": 1 for a win, 1/k for a k-way shared win
    rate = float(wins.mean())
    half = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / env.n)
    return WinRate(rate, rate - half, rate + half, env.n)
