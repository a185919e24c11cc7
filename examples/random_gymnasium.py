"""A random agent in Gymnasium: one learning seat against bots chosen by name.

.venv/bin/python examples/random_gymnasium.py --opponents greedy greedy greedy
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np

import marrakech.envs  # noqa: F401  (registers Marrakech-v0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opponents", nargs="+", default=["random"] * 3)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = gymnasium.make("Marrakech-v0", opponents=tuple(args.opponents), render_mode="ansi")
    rng = np.random.default_rng(args.seed)
    rewards = []
    for episode in range(args.episodes):
        _, info = env.reset(seed=args.seed + episode)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            _, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        rewards.append(reward)
    print(env.render())
    print(
        f"{args.episodes} episodes vs {', '.join(args.opponents)}: "
        f"mean reward {np.mean(rewards):+.3f}, wins {sum(r == 1.0 for r in rewards)}"
    )
    env.close()


if __name__ == "__main__":
    main()
