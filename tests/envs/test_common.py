"""The adapters' shared options (envs/common.py): no adapter imports another one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

from marrakech import State
from marrakech.bots import make_bot
from marrakech.envs import common


def test_gymnasium_make_reset_and_step_do_not_load_pettingzoo() -> None:
    script = textwrap.dedent(
        """
        import sys
        import gymnasium
        import marrakech.envs
        env = gymnasium.make("Marrakech-v0", opponents=("random",))
        observation, info = env.reset(seed=0)
        action = int(info["action_mask"].nonzero()[0][0])
        env.step(action)
        print(sorted(name for name in sys.modules if name.split(".")[0] == "pettingzoo"))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_options_are_checked_once_for_every_adapter() -> None:
    assert common.check_illegal_policy("raise") == "raise"
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'lose'"):
        common.check_illegal_policy("ignore")
    assert common.check_render_mode("rgb_array") == "rgb_array"
    # A TypeError, as Gymnasium's make and Stable-Baselines3's make_vec_env expect.
    with pytest.raises(TypeError, match="render_mode must be None or one of 'ansi', 'human'"):
        common.check_render_mode("rgb")
    start = State.new(3)
    assert common.coerce_state(start.notation(), 3) == start
    with pytest.raises(TypeError, match="a State or a position string"):
        common.coerce_state(3, 3)
    greedy = make_bot("greedy")
    assert common.make_opponents(("random", greedy))[1] is greedy
    number: Any = 3  # neither a name nor a Bot: refused at run time
    with pytest.raises(TypeError, match="a bot name or a Bot"):
        common.make_opponents((number,))
    assert "seat 0" in str(common.render_frame(start, "ansi"))
    frame = common.render_frame(start, "rgb_array")
    assert isinstance(frame, np.ndarray) and frame.shape == (432, 384, 3)
