"""Stable-Baselines3: the batched :class:`~marrakech.envs.VectorEnv` as an SB3 ``VecEnv``.

This module imports Stable-Baselines3 (``pip install 'marrakech[sb3]'``); nothing else in
:mod:`marrakech.envs` does. Without it the module still loads, and :class:`SB3VecEnv`
says what to install. :class:`SB3VecEnv` hands SB3 the compiled batch directly: one
learning seat against bots in each of ``n`` games, no Python environment per game, and
``env_method("action_masks")`` for sb3-contrib's maskable algorithms::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from marrakech.envs import VectorEnv
    from marrakech.envs.sb3 import SB3VecEnv

    batch = VectorEnv(64, players=2, opponents=("random",), seat="rotate", seed=0)
    env = VecMonitor(SB3VecEnv(batch))
    model = MaskablePPO("MlpPolicy", env).learn(100_000)

As SB3's own vector environments do, a game that ends starts again in the same step:
``dones[i]`` marks the end, ``rewards[i]`` is the learning seat's final reward, and
``infos[i]["terminal_observation"]`` holds the last observation of the ended game
(``infos[i]["ranks"]``, its final ranks). ``examples/sb3_maskable_ppo.py`` trains and
evaluates a policy this way.

For the planes observation (``observation="planes"``, ``(42, 7, 7)`` floats in [0, 1])
SB3's ``CnnPolicy`` needs another features extractor: its default, ``NatureCNN``, takes
only ``uint8`` images larger than 36 x 36 (8 x 8 filters, stride 4). :class:`PlanesCNN`
is a small one for 7 x 7 boards::

    model = MaskablePPO(
        "CnnPolicy",
        SB3VecEnv(VectorEnv(64, players=2, opponents=("random",), observation="planes")),
        policy_kwargs={"features_extractor_class": PlanesCNN},
    )

(``examples/sb3_planes_cnn.py``). Masks matter: PPO without them learns nothing here
(docs/environments.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode

from marrakech.envs.vector import VectorEnv

try:
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor as _Extractor
    from stable_baselines3.common.vec_env import VecEnv as _VecEnv
    from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

    _MISSING: ImportError | None = None
except ImportError as missing:  # the module loads (and its doctests run) without SB3
    _VecEnv = object  # type: ignore[assignment,misc,unused-ignore]
    _Extractor = object  # type: ignore[assignment,misc,unused-ignore]
    VecEnvIndices = VecEnvStepReturn = Any  # type: ignore[misc,unused-ignore]
    _MISSING = missing

__all__ = ["PlanesCNN", "SB3VecEnv"]


class SB3VecEnv(_VecEnv):  # type: ignore[misc,unused-ignore]
    """A :class:`VectorEnv` against bots, seen by Stable-Baselines3 as a ``VecEnv`` of
    ``env.num_envs`` environments (its autoreset must be ``SAME_STEP``, the default).

    Attributes read through ``get_attr`` and methods called through ``env_method`` are
    the batch's, given once per game: ``env_method("action_masks")`` returns one mask
    per game.
    """

    def __init__(self, env: VectorEnv) -> None:
        if _MISSING is not None:
            raise ImportError(
                "SB3VecEnv needs Stable-Baselines3: pip install 'marrakech[sb3]'"
            ) from _MISSING
        if not env.single_agent:
            raise ValueError(
                "SB3VecEnv needs one learning seat: build the VectorEnv with opponents "
                "(one bot per other seat), e.g. opponents=('random',) * (players - 1)"
            )
        if env.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError(
                f"SB3VecEnv needs autoreset_mode=SAME_STEP (SB3 restarts episodes in the "
                f"step that ends them), found {env.autoreset_mode.name}"
            )
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: npt.NDArray[np.int64] = np.zeros(env.num_envs, dtype=np.int64)

    def reset(self) -> npt.NDArray[np.float32]:
        seed = self._seeds[0]
        observations, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, terminations, _, infos = self.env.step(self._actions)
        per_game: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_obs" in infos:
            ranks = infos["final_info"]["ranks"]
            for i in np.flatnonzero(infos["_final_obs"]):
                per_game[i] = {"terminal_observation": infos["final_obs"][i], "ranks": ranks[i]}
        return observations, rewards, terminations, per_game

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """``(n, 87)`` legal decisions of the learning seats."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if len(self._indices(indices)) != self.num_envs:
            raise ValueError("the games of a batch share their attributes: set them all")
        setattr(self.env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        games = self._indices(indices)
        if method_name == "action_masks":  # per game, from one call for the batch
            masks = self.env.action_masks()
            return [masks[i] for i in games]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(games)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The batch has one seed: the next reset reseeds every game's generators."""
        self._seeds = [seed] * self.num_envs
        return self._seeds

    def get_images(self) -> Sequence[npt.NDArray[Any] | None]:
        return [None] * self.num_envs


class PlanesCNN(_Extractor):  # type: ignore[misc,unused-ignore]
    """A features extractor for SB3's ``CnnPolicy`` on the ``(42, 7, 7)`` planes.

    Two 3 x 3 convolutions of ``channels`` filters, padded so the board stays 7 x 7 (a
    square sees its neighbours, then theirs: the reach of a carpet and of Assam's next
    moves), then one linear layer to ``features_dim`` features; ReLU after each. The
    planes are floats in [0, 1] already, so nothing is rescaled. Pass it as
    ``policy_kwargs={"features_extractor_class": PlanesCNN}`` (and
    ``"features_extractor_kwargs": {"features_dim": 128}`` to resize it).
    """

    def __init__(self, observation_space: Any, features_dim: int = 256, channels: int = 64) -> None:
        if _MISSING is not None:
            raise ImportError(
                "PlanesCNN needs Stable-Baselines3 and torch: pip install 'marrakech[sb3]'"
            ) from _MISSING
        shape = tuple(getattr(observation_space, "shape", None) or ())
        if len(shape) != 3:
            raise ValueError(
                f"PlanesCNN reads planes (planes, ranks, files) such as (42, 7, 7): "
                f"build the VectorEnv with observation='planes', found an observation of "
                f"shape {shape}"
            )
        super().__init__(observation_space, features_dim)
        planes, ranks, files = shape
        nn = torch.nn
        self.convolutions = nn.Sequential(
            nn.Conv2d(planes, channels, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        self.linear = nn.Sequential(nn.Linear(channels * ranks * files, features_dim), nn.ReLU())

    def forward(self, observations: Any) -> Any:
        """``(batch, features_dim)`` features of ``(batch, 42, 7, 7)`` planes."""
        return self.linear(self.convolutions(observations))
