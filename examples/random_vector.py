"""Random agents in the batched VectorEnv: thousands of games at once, numpy in and out.

Self-play through Gymnasium's vector API: each step every game's seat to move decides,
``rewards`` are the deciding seats' and ``infos["rewards"]`` every seat's.

.venv/bin/python examples/random_vector.py --games 4096 --steps 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from marrakech.envs import VectorEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = VectorEnv(args.games, args.players, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    _, infos = env.reset(seed=args.seed)
    ended, totals = 0, np.zeros(args.players)
    start = time.perf_counter()
    for _ in range(args.steps):
        # Uniform over the legal decisions of each game: random scores, illegal ones -1.
        masks = infos["action_mask"]
        actions = np.where(masks, rng.random(masks.shape), -1.0).argmax(1)
        _, _, terminations, _, infos = env.step(actions)
        ended += int(terminations.sum())
        totals += infos["rewards"].sum(axis=0)
    seconds = time.perf_counter() - start
    print(env)
    print(
        f"{args.steps * args.games:,} decisions in {seconds:.2f}s "
        f"({args.steps * args.games / seconds:,.0f}/s, policy included); {ended} games ended"
    )
    print(f"summed rewards per seat: {np.round(totals, 2).tolist()} (seat 0 moves first)")


if __name__ == "__main__":
    main()
