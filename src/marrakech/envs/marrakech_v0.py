"""``marrakech_v0`` the PettingZoo way: ``env()`` (AEC, wrapped), ``raw_env()`` and
``parallel_env()``.

>>> from marrakech.envs import marrakech_v0
>>> env = marrakech_v0.env(players=2, rules="bga")
>>> env.reset(seed=1)
>>> env.agent_selection, env.possible_agents
('seat_0', ['seat_0', 'seat_1'])
>>> observations, infos = marrakech_v0.parallel_env(players=3).reset(seed=1)
>>> [int(obs["action_mask"].sum()) for obs in observations.values()]
[3, 0, 0]
"""

from __future__ import annotations

from marrakech.envs.pettingzoo_env import (
    MarrakechAEC,
    MarrakechParallel,
    env,
    parallel_env,
    raw_env,
)

__all__ = ["MarrakechAEC", "MarrakechParallel", "env", "parallel_env", "raw_env"]
