"""``marrakech_v0`` the PettingZoo way: ``env()`` (wrapped) and ``raw_env()``.

>>> from marrakech.envs import marrakech_v0
>>> env = marrakech_v0.env(players=2, rules="bga")
>>> env.reset(seed=1)
>>> env.agent_selection, env.possible_agents
('seat_0', ['seat_0', 'seat_1'])
"""

from __future__ import annotations

from marrakech.envs.pettingzoo_env import MarrakechAEC, env, raw_env

__all__ = ["MarrakechAEC", "env", "raw_env"]
