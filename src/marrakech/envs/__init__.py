"""Marrakech for the research tools: PettingZoo, Gymnasium, OpenSpiel and a batched env.

Install with the ``rl`` extra (``pip install marrakech[rl]``). Every adapter shares one
spec, ``marrakech_v0`` (:mod:`marrakech.envs.spec`, ``docs/environments.md``): the 87
decision ids of the core with a legal-action mask, the 474-float observation from the
acting seat, chance resolved inside with a seeded generator, rank-based rewards.

Importing this package registers the Gymnasium id ``Marrakech-v0``::

    >>> import gymnasium
    >>> import marrakech.envs
    >>> env = gymnasium.make("Marrakech-v0", opponents=("random", "random"))
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, int(info["action_mask"].sum())
    ((474,), 3)

``gymnasium.make_vec("Marrakech-v0", num_envs=n)`` is the compiled batch
(:class:`VectorEnv`, a ``gymnasium.vector.VectorEnv``). The other entry points:
``marrakech.envs.marrakech_v0.env()`` and ``parallel_env()`` (PettingZoo AEC and
parallel), ``import marrakech.envs.openspiel`` (registers ``python_marrakech`` with
OpenSpiel), :class:`VectorEnv` itself (self-play too) and ``marrakech.envs.sb3`` (the
batch as a Stable-Baselines3 ``VecEnv``).
"""

from __future__ import annotations

from typing import Any

import gymnasium

from marrakech.envs.spec import OBSERVATION_SIZE, REWARDS, SPEC_VERSION

GYMNASIUM_ID = "Marrakech-v0"

if GYMNASIUM_ID not in gymnasium.registry:
    gymnasium.register(
        id=GYMNASIUM_ID,
        entry_point="marrakech.envs.gymnasium_env:MarrakechEnv",
        # gymnasium.make_vec("Marrakech-v0", num_envs=n) is the compiled VectorEnv.
        vector_entry_point="marrakech.envs.vector:make_vector",
        disable_env_checker=False,
    )

__all__ = [
    "GYMNASIUM_ID",
    "OBSERVATION_SIZE",
    "REWARDS",
    "SPEC_VERSION",
    "MarrakechAEC",
    "MarrakechEnv",
    "MarrakechParallel",
    "VectorEnv",
]


def __getattr__(name: str) -> Any:
    # Import the adapters on first use: PettingZoo and the batch backends are not needed
    # by someone who only wants the Gymnasium id.
    if name == "MarrakechEnv":
        from marrakech.envs.gymnasium_env import MarrakechEnv

        return MarrakechEnv
    if name in ("MarrakechAEC", "MarrakechParallel"):
        from marrakech.envs import pettingzoo_env

        return getattr(pettingzoo_env, name)
    if name == "VectorEnv":
        from marrakech.envs.vector import VectorEnv

        return VectorEnv
    raise AttributeError(f"module 'marrakech.envs' has no attribute {name!r}")
