"""How fast the game screen animates: Assam's steps, a tithe's flash, the pause before
each bot decision, a replay playing by itself. Free of Textual, so ``marrakech play
--speed`` is checked without loading the interface::

    >>> list(SPEEDS), SPEEDS["fast"].step
    (['slow', 'normal', 'fast', 'instant'], 0.06)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    """Animation and pacing in seconds (all ~0 in tests).

    ``step``: each of Assam's steps; ``tithe``: how long a tithe region flashes before
    play goes on; ``bot``: a pause before each bot decision so humans can follow;
    ``replay``: between actions when a replay plays by itself.
    """

    step: float = 0.16
    tithe: float = 0.7
    bot: float = 0.45
    replay: float = 0.7

    @classmethod
    def instant(cls) -> Timing:
        return cls(0.0, 0.0, 0.0, 0.0)


#: The animation speeds a player chooses from (``--speed``, the setup screen, F2), slowest
#: first. A bot's turn (two pauses, a walk of up to 4 steps, a tithe) takes at most about
#: 4.2 s slow, 2.2 s normal, 0.8 s fast, plus the bot's thinking.
SPEEDS: dict[str, Timing] = {
    "slow": Timing(step=0.3, tithe=1.2, bot=0.9, replay=1.4),
    "normal": Timing(),
    "fast": Timing(step=0.06, tithe=0.25, bot=0.15, replay=0.3),
    "instant": Timing(step=0.0, tithe=0.0, bot=0.0, replay=0.05),
}


__all__ = ["SPEEDS", "Timing"]
