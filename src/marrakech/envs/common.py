"""What the adapters share besides the spec: their options and how they render.

The Gymnasium adapter, the PettingZoo adapter and :class:`~marrakech.envs.VectorEnv` take
the same options (a chance function, an illegal-action policy, a start position, bots
for the other seats, a render mode). Each is checked here, once, so that no adapter
imports another one (``gymnasium.make("Marrakech-v0")`` does not load PettingZoo)::

    >>> check_illegal_policy("lose"), check_render_mode(None)
    ('lose', None)
    >>> [bot.name for bot in make_opponents(("random", "greedy"))]
    ['random', 'greedy']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Literal

from marrakech.actions import Action
from marrakech.bots import Bot, make_bot
from marrakech.render import render
from marrakech.state import State

__all__ = [
    "RENDER_MODES",
    "ChanceFunction",
    "IllegalPolicy",
    "Opponent",
    "check_illegal_policy",
    "check_render_mode",
    "coerce_state",
    "make_opponents",
    "render_board",
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
#: The render modes of every adapter: the core's text board, returned or printed.
RENDER_MODES = ("ansi", "human")


def check_illegal_policy(value: Any) -> IllegalPolicy:
    """``value`` if it is ``"raise"`` or ``"lose"``, else a clear ``ValueError``."""
    if value not in ("raise", "lose"):
        raise ValueError(f"illegal_action must be 'raise' or 'lose', found {value!r}")
    return value  # type: ignore[no-any-return]


def check_render_mode(value: Any) -> str | None:
    """``value`` if it is None or one of :data:`RENDER_MODES`, else a clear ``ValueError``."""
    if value is not None and value not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, 'ansi' or 'human', found {value!r}")
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


def render_board(state: State, render_mode: str) -> str | None:
    """The board and status as text (``ansi``), or printed (``human``, returns None)."""
    text = render(state, unicode=True, color=False)
    if render_mode == "human":
        print(text)
        return None
    return text
