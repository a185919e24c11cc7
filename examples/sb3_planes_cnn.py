"""sb3-contrib's MaskablePPO with a convolutional policy on the planes, against ``random``.

The batch gives its observations as ``(42, 7, 7)`` planes (``observation="planes"``) and
the policy is SB3's ``CnnPolicy`` with :class:`marrakech.envs.sb3.PlanesCNN` as its
features extractor: SB3's default one, ``NatureCNN``, refuses these planes (it takes
``uint8`` images of at least 36 x 36). Illegal actions are masked, as they must be
(PPO without masks learns nothing here: docs/environments.md). Then the trained policy
(deterministic: its most likely legal decision) plays fresh games against ``random``
and the script prints its win rate (evaluation.py). Needs the ``sb3`` extra::

    .venv/bin/python examples/sb3_planes_cnn.py
    .venv/bin/python examples/sb3_planes_cnn.py --players 4 --timesteps 500000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt
import torch
from evaluation import against_random, win_rate
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

from marrakech.envs.planes import planes
from marrakech.envs.sb3 import PlanesCNN, SB3VecEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=64, help="games played at once")
    parser.add_argument("--timesteps", type=int, default=300_000, help="learning-seat decisions")
    parser.add_argument("--n-steps", type=int, default=128, help="rollout length per game")
    parser.add_argument("--features", type=int, default=128, help="PlanesCNN features")
    parser.add_argument("--channels", type=int, default=32, help="PlanesCNN filters")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    batch = against_random(args.games, args.players, args.seed, observation="planes")
    model = MaskablePPO(
        "CnnPolicy",
        VecMonitor(SB3VecEnv(batch)),
        policy_kwargs={
            "features_extractor_class": PlanesCNN,
            "features_extractor_kwargs": {
                "features_dim": args.features,
                "channels": args.channels,
            },
        },
        n_steps=args.n_steps,
        batch_size=min(1024, args.n_steps * args.games),
        learning_rate=3e-4,
        ent_coef=0.01,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )

    def policy(
        observations: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> npt.ArrayLike:
        # win_rate's batch gives the flat vectors: the same values as planes.
        actions, _ = model.predict(planes(observations), action_masks=masks, deterministic=True)
        return actions

    chance = 1 / args.players
    before = win_rate(policy, args.players, args.eval_games, args.seed + 1)
    print(f"untrained CNN policy vs random: {before}; chance level {chance:.3f}")
    start, cpu = time.monotonic(), time.process_time()
    model.learn(total_timesteps=args.timesteps)
    seconds, cpu_seconds = time.monotonic() - start, time.process_time() - cpu
    after = win_rate(policy, args.players, args.eval_games, args.seed + 1)
    print(
        f"trained {model.num_timesteps:,} steps in {seconds:.0f}s ({cpu_seconds:.0f} CPU-s); "
        f"CNN policy vs random ({args.players} players, seats rotating): {after}; "
        f"chance level {chance:.3f}"
    )


if __name__ == "__main__":
    main()
