"""sb3-contrib's MaskablePPO on the compiled batch, against ``random``.

Stable-Baselines3 sees the batched :class:`~marrakech.envs.VectorEnv` through
:class:`marrakech.envs.sb3.SB3VecEnv` (no Python environment per game): ``--games``
games at once, the learning seat rotating, ``random`` bots in the other seats, illegal
actions masked. Then the trained policy (deterministic: its most likely legal decision)
plays fresh games against ``random`` and the script prints its win rate (evaluation.py).
Needs the ``sb3`` extra (``pip install 'marrakech[sb3]'``)::

    .venv/bin/python examples/sb3_maskable_ppo.py                      # 2 players
    .venv/bin/python examples/sb3_maskable_ppo.py --players 4 --timesteps 500000
    .venv/bin/python examples/sb3_maskable_ppo.py --save ppo.zip
    .venv/bin/python examples/sb3_maskable_ppo.py --no-masks     # plain PPO: learns nothing

``--no-masks`` trains Stable-Baselines3's plain ``PPO`` instead, which never sees the
masks: its illegal decisions lose their games (``illegal_action="lose"``), in training
and in the evaluation.

The measured result is in ``docs/environments.md``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt
import torch
from evaluation import against_random, win_rate
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecMonitor

from marrakech.envs.sb3 import SB3VecEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=64, help="games played at once")
    parser.add_argument("--timesteps", type=int, default=1_000_000, help="learning-seat decisions")
    parser.add_argument("--n-steps", type=int, default=128, help="rollout length per game")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--save", default=None, help="write the model to this .zip file")
    parser.add_argument("--no-masks", action="store_true", help="plain PPO, no action masks")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    illegal = "lose" if args.no_masks else "raise"
    batch = against_random(args.games, args.players, args.seed, illegal_action=illegal)
    env = VecMonitor(SB3VecEnv(batch))
    model = (PPO if args.no_masks else MaskablePPO)(
        "MlpPolicy",
        env,
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
        if args.no_masks:
            actions, _ = model.predict(observations, deterministic=True)
        else:
            actions, _ = model.predict(observations, action_masks=masks, deterministic=True)
        return actions

    name = "PPO without masks" if args.no_masks else "policy"
    chance = 1 / args.players
    before = win_rate(policy, args.players, args.eval_games, args.seed + 1, illegal)
    print(f"untrained {name} vs random: {before}; chance level {chance:.3f}")
    start = time.monotonic()
    cpu = time.process_time()
    model.learn(total_timesteps=args.timesteps)
    seconds, cpu_seconds = time.monotonic() - start, time.process_time() - cpu
    after = win_rate(policy, args.players, args.eval_games, args.seed + 1, illegal)
    print(
        f"trained {model.num_timesteps:,} steps in {seconds:.0f}s ({cpu_seconds:.0f} CPU-s); "
        f"{name} vs random ({args.players} players, seats rotating): {after}; "
        f"chance level {chance:.3f}"
    )
    if args.save:
        model.save(args.save)
        print(f"model saved to {args.save}")


if __name__ == "__main__":
    main()
