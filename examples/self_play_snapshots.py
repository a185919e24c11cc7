"""Self-play against past snapshots: batched opponents through the policy hook.

The learner is the masked linear softmax policy of ``learn_policy_gradient.py``, trained
with the same REINFORCE, but the other seats are played by a league of its own past
snapshots instead of ``random``. The league is a batched policy
(:data:`marrakech.envs.vector.BatchPolicy`): :class:`~marrakech.envs.VectorEnv` calls it
once per bot round with the observations and masks of all the games where it is to
move, and it answers for all of them with one matrix product, so the opponents run at
batch speed. Every ``--snapshot-every`` updates the learner's weights join the league
(the oldest leave past ``--league``), and each call plays a snapshot drawn at random.
The script prints the learner's win rate against ``random`` before and after::

    .venv/bin/python examples/self_play_snapshots.py                  # 2 players, 2 min
    .venv/bin/python examples/self_play_snapshots.py --players 4 --minutes 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt
from evaluation import win_rate
from learn_policy_gradient import LinearPolicy, train

from marrakech.envs import VectorEnv


class League:
    """Past snapshots of a :class:`LinearPolicy`; called as a batched policy, it plays
    the best legal decision of one snapshot drawn at random, for every game at once."""

    __name__ = "league"

    def __init__(self, policy: LinearPolicy, size: int, rng: np.random.Generator) -> None:
        self.size = size
        self.rng = rng
        self.snapshots: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
        self.add(policy)

    def add(self, policy: LinearPolicy) -> None:
        """Freeze ``policy`` as it is now (a copy: it keeps learning)."""
        self.snapshots.append((policy.weights.copy(), policy.bias.copy()))
        del self.snapshots[: -self.size]

    def __call__(
        self, observations: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int64]:
        weights, bias = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
        logits = observations.astype(np.float64) @ weights + bias
        best: npt.NDArray[np.int64] = np.where(masks, logits, -np.inf).argmax(axis=1)
        return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=2.0, help="training time")
    parser.add_argument("--games", type=int, default=256, help="games played at once")
    parser.add_argument("--episodes-per-update", type=int, default=256)
    parser.add_argument("--rate", type=float, default=0.01, help="Adam step size")
    parser.add_argument("--snapshot-every", type=int, default=10, help="updates")
    parser.add_argument("--league", type=int, default=8, help="snapshots kept")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--report-every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    policy = LinearPolicy(rng)
    league = League(policy, args.league, np.random.default_rng(args.seed + 1))
    env = VectorEnv(
        args.games,
        args.players,
        seed=args.seed,
        opponents=(league,) * (args.players - 1),
        seat="rotate",
    )

    def after_update(update: int) -> None:
        if update % args.snapshot_every == 0:
            league.add(policy)

    def best(
        observations: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int64]:
        return policy.best(observations.astype(np.float64), masks)

    chance = 1 / args.players
    before = win_rate(best, args.players, args.eval_games, args.seed + 1)
    print(f"untrained policy vs random: {before}; chance level {chance:.3f}")
    start = time.monotonic()
    train(args, policy, rng, env=env, after_update=after_update)
    after = win_rate(best, args.players, args.eval_games, args.seed + 1)
    print(
        f"trained {time.monotonic() - start:.0f}s against a league of "
        f"{len(league.snapshots)} snapshots; greedy policy vs random "
        f"({args.players} players, seats rotating): {after}; chance level {chance:.3f}"
    )


if __name__ == "__main__":
    main()
