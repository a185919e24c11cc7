"""What the adapters share besides the spec: their options and how they render.

The Gymnasium adapter, the PettingZoo adapter and :class:`~marrakech.envs.VectorEnv` take
the same options (a chance function, an illegal-action policy, a start position, bots
for the other seats, a render mode). Each is checked here, once, so that no adapter
imports another one (``gymnasium.make("Marrakech-v0")`` does not load PettingZoo)::

    >>> check_illegal_policy("lose"), check_render_mode(None), check_render_mode("rgb_array")
    ('lose', None, 'rgb_array')
    >>> [bot.name for bot in make_opponents(("random", "greedy"))]
    ['random', 'greedy']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from marrakech.actions import Action
from marrakech.bots import Bot, make_bot
from marrakech.render import render
from marrakech.state import State

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "RENDER_MODES",
    "ChanceFunction",
    "IllegalPolicy",
    "Opponent",
    "check_illegal_policy",
    "check_render_mode",
    "coerce_state",
    "make_opponents",
    "render_frame",
]

#: Chooses a chance outcome (a roll or a draw) for a chance node; the default samples
#: the true probabilities with the environment's generator. Replace it to replay
#: recorded rolls or to fix the die while debugging.
ChanceFunction = Callable[[State, random.Random], Action]
#: What an adapter does with an illegal decision id: raise, or end the game with the
#: offender ranked last.
IllegalPolicy = Literal["raise", "lose"]
#: A bot for another seat: a name for :func:`~marrakech.bots.make_bot` or a :class:`Bot`.
Opponent = str | Bot
#: The render modes of every adapter: the core's text board, returned (``ansi``) or
#: printed (``human``), and a picture of the board (``rgb_array``, :mod:`.image`).
RENDER_MODES = ("ansi", "human", "rgb_array")


def check_illegal_policy(value: Any) -> IllegalPolicy:
    """``value`` if it is ``"raise"`` or ``"lose"``, else a clear ``ValueError``."""
    if value not in ("raise", "lose"):
        raise ValueError(f"illegal_action must be 'raise' or 'lose', found {value!r}")
    return value  # type: ignore[no-any-return]


def check_render_mode(value: Any) -> str | None:
    """``value`` if it is None or one of :data:`RENDER_MODES`, else a ``TypeError``: what
    Gymnasium's ``make`` and the libraries built on it (Stable-Baselines3's
    ``make_vec_env`` asks for ``rgb_array``, then retries without) expect of a mode an
    environment does not offer."""
    if value is not None and value not in RENDER_MODES:
        modes = ", ".join(repr(mode) for mode in RENDER_MODES)
        raise TypeError(f"render_mode must be None or one of {modes}, found {value!r}")
    return value  # type: ignore[no-any-return]


def coerce_state(value: object, players: int) -> State:
    """A start position from ``options["state"]``: a State or a notation string."""
    state = State.from_notation(value) if isinstance(value, str) else value
    if not isinstance(state, State):
        raise TypeError(f"options['state'] must be a State or a position string, found {value!r}")
    if state.players != players:
        raise ValueError(
            f"options['state'] is a {state.players}-player position, expected {players} players"
        )
    return state


def make_opponents(opponents: Sequence[Opponent]) -> list[Bot]:
    """One :class:`Bot` per entry: built from its name, or taken as it is."""
    bots: list[Bot] = []
    for opponent in opponents:
        if isinstance(opponent, str):
            bots.append(make_bot(opponent))
        elif isinstance(opponent, Bot):
            bots.append(opponent)
        else:
            raise TypeError(f"an opponent is a bot name or a Bot, found {opponent!r}")
    return bots


def render_frame(state: State, render_mode: str) -> str | npt.NDArray[np.uint8] | None:
    """The board and status as text (``ansi``), printed (``human``, returns None), or as
    an ``(H, W, 3)`` uint8 picture (``rgb_array``)."""
    if render_mode == "rgb_array":
        from marrakech.envs.image import board_image

        return board_image(state)
    text = render(state, unicode=True, color=False)
    if render_mode == "human":
        print(text)
        return None
    return text
