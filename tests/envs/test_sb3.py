"""The Stable-Baselines3 adapter: the batch as an SB3 VecEnv (needs the sb3 extra)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from marrakech.envs import VectorEnv

if TYPE_CHECKING:
    from marrakech.envs.sb3 import SB3VecEnv


def test_the_module_loads_without_stable_baselines3() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["stable_baselines3"] = None  # makes `import stable_baselines3` fail
        from marrakech.envs import VectorEnv
        from marrakech.envs.sb3 import SB3VecEnv
        try:
            SB3VecEnv(VectorEnv(2, players=2, opponents=("random",)))
        except ImportError as error:
            print(error)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert "pip install 'marrakech[sb3]'" in done.stdout, done.stderr


def vec_env(n: int = 6, **kwargs: Any) -> SB3VecEnv:
    pytest.importorskip("stable_baselines3")
    from marrakech.envs.sb3 import SB3VecEnv

    kwargs.setdefault("opponents", ("random",))
    return SB3VecEnv(VectorEnv(n, players=2, seed=3, seat="rotate", **kwargs))


def test_it_follows_the_vec_env_contract() -> None:
    env = vec_env()
    env.seed(5)
    first = env.reset()
    assert first.shape == (6, 474) and env.num_envs == 6
    env.seed(5)
    assert np.array_equal(env.reset(), first)  # a seed replays the same games
    assert env.get_attr("render_mode") == [None] * 6 and env.has_attr("action_masks")
    assert env.env_is_wrapped(object) == [False] * 6
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        masks = np.stack(env.env_method("action_masks"))
        assert np.array_equal(masks, env.env.action_masks())
        actions = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
        observations, rewards, dones, infos = env.step(actions)
        assert isinstance(observations, np.ndarray)
        assert observations.shape == (6, 474) and len(infos) == 6
        for i in np.flatnonzero(dones):
            ended += 1
            final = infos[i]["terminal_observation"]
            assert final.shape == (474,) and rewards[i] in (-1.0, 0.0, 1.0)
            assert sorted(infos[i]["ranks"].tolist()) in ([1, 1], [1, 2])
        assert not rewards[~dones].any()
    assert ended > 0


def test_it_needs_one_learning_seat_and_same_step_resets() -> None:
    with pytest.raises(ValueError, match="one learning seat"):
        vec_env(opponents=None)
    with pytest.raises(ValueError, match="SAME_STEP"):
        vec_env(autoreset_mode="next_step")


def test_maskable_ppo_learns_on_it() -> None:
    """sb3-contrib's MaskablePPO runs a few updates on the batch: it asks the masks
    through env_method, and never sends an illegal action (the batch would raise)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    env = VecMonitor(vec_env(8))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and model.ep_info_buffer is not None
    assert len(model.ep_info_buffer) > 0


def test_cnn_policy_trains_on_the_planes_with_planes_cnn() -> None:
    """SB3's default NatureCNN refuses the (42, 7, 7) float planes; PlanesCNN keeps the
    7 x 7 board and gives CnnPolicy its features, and MaskablePPO trains with it."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from marrakech.envs.sb3 import PlanesCNN

    env = vec_env(8, observation="planes")
    with pytest.raises(AssertionError, match="NatureCNN only with images"):
        MaskablePPO("CnnPolicy", env)
    extractor = PlanesCNN(env.observation_space, features_dim=32, channels=8)
    observations = torch.as_tensor(env.reset())
    assert tuple(observations.shape) == (8, 42, 7, 7)
    assert tuple(extractor(observations).shape) == (8, 32)
    kwargs = {"features_extractor_class": PlanesCNN, "features_extractor_kwargs": {"channels": 8}}
    model = MaskablePPO(
        "CnnPolicy", env, policy_kwargs=kwargs, n_steps=16, batch_size=64, n_epochs=1, seed=0
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    assert isinstance(model.policy.features_extractor, PlanesCNN)
    with pytest.raises(ValueError, match=r"observation='planes', found .* shape \(474,\)"):
        PlanesCNN(vec_env(2).observation_space)
