"""RLlib PPO with action masking on ``Marrakech-v0``, against ``random``.

RLlib's new API stack masks actions with an RLModule that reads a Dict observation
(``"observations"``, ``"action_mask"``): :class:`MaskedObservation` gives
``Marrakech-v0`` that form, and RLlib's own ``ActionMaskingTorchRLModule`` (from its
examples) sets the logits of illegal ids to the lowest float. Then the trained policy
(its most likely legal decision) plays fresh games against ``random`` and the script
prints its win rate (evaluation.py). Needs the ``rllib`` extra; RLlib pins its own
Gymnasium version, so install it in an environment of its own::

    python -m venv .venv-rllib && .venv-rllib/bin/pip install -e '.[rllib]'
    .venv-rllib/bin/python examples/rllib_action_masking.py --iterations 75

The measured result is in ``docs/environments.md``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import ray
import torch
from evaluation import win_rate
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from marrakech.envs.gymnasium_env import MarrakechEnv
from marrakech.envs.spec import DECISION_IDS

ENV_NAME = "marrakech_masked"


class MaskedObservation(gymnasium.ObservationWrapper):  # type: ignore[type-arg]
    """``Marrakech-v0`` with RLlib's masking layout: ``{"observations": the 474 floats,
    "action_mask": 87 floats, 1.0 where legal}``."""

    def __init__(self, env: MarrakechEnv) -> None:
        super().__init__(env)
        self.observation_space = gymnasium.spaces.Dict(
            {
                "action_mask": gymnasium.spaces.Box(0.0, 1.0, (DECISION_IDS,), np.float32),
                "observations": env.observation_space,
            }
        )

    def observation(self, observation: npt.NDArray[np.float32]) -> dict[str, Any]:
        mask = self.env.unwrapped.action_masks().astype(np.float32)  # type: ignore[attr-defined]
        return {"action_mask": mask, "observations": observation}


def make_env(config: dict[str, Any]) -> MaskedObservation:
    players = int(config.get("players", 2))
    return MaskedObservation(MarrakechEnv(opponents=("random",) * (players - 1), seat="random"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20, help="PPO training iterations")
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    parser.add_argument("--envs", type=int, default=8, help="environments per env runner")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    register_env(ENV_NAME, make_env)
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config={"players": args.players})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=args.envs)
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                model_config={"head_fcnet_hiddens": [64, 64], "head_fcnet_activation": "relu"},
            )
        )
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(256, args.batch),
            num_epochs=4,
            lr=3e-4,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    module = algo.get_module()

    def policy(
        observations: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> npt.ArrayLike:
        batch = {
            Columns.OBS: {
                "observations": torch.from_numpy(np.ascontiguousarray(observations)),
                "action_mask": torch.from_numpy(masks.astype(np.float32)),
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(dim=1).numpy()

    chance = 1 / args.players
    print(f"untrained policy vs random: {win_rate(policy, args.players, args.eval_games, 1)}")
    start, cpu = time.monotonic(), time.process_time()
    steps = 0
    for iteration in range(args.iterations):
        result = algo.train()
        steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        episode = result["env_runners"].get("episode_return_mean", float("nan"))
        print(f"iteration {iteration + 1}: {steps:,} steps, mean episode return {episode:+.3f}")
    seconds, cpu_seconds = time.monotonic() - start, time.process_time() - cpu
    after = win_rate(policy, args.players, args.eval_games, 1)
    print(
        f"trained {steps:,} steps in {seconds:.0f}s ({cpu_seconds:.0f} CPU-s of the driver); "
        f"policy vs random ({args.players} players, seats rotating): {after}; "
        f"chance level {chance:.3f}"
    )
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
