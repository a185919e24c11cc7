"""Opponents drawn per game from a mixture: a league in one batch.

A :class:`Mixture` stands for one seat's opponent in :class:`~marrakech.envs.VectorEnv`
or ``Marrakech-v0`` (``opponents=(mixture, ...)``, one entry per other seat as always):
at the start of every game the environment draws, with its own seeded generator, one
of the mixture's kinds for that seat, with the kinds' weights. The kinds are anything
the environment takes as an opponent: bot names (``random``, ``greedy``,
``search@iterations=32``...), :class:`~marrakech.bots.Bot` objects, and in
:class:`~marrakech.envs.VectorEnv` batched policies (a frozen snapshot of the learner,
:data:`~marrakech.envs.vector.BatchPolicy`), each playing all of its games in one call::

    >>> mixture = Mixture({"random": 1, "greedy": 3})
    >>> mixture.names, mixture.probabilities.tolist()
    (('random', 'greedy'), [0.25, 0.75])
    >>> import numpy as np
    >>> np.bincount(mixture.draw(np.random.default_rng(0), 4000), minlength=2).tolist()
    [1014, 2986]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from marrakech.bots import Bot

__all__ = ["Mixture", "kind_name"]


def kind_name(kind: object) -> str:
    """A kind's name: a bot name as given, a bot's name, a policy's function or class."""
    if isinstance(kind, str):
        return kind
    if isinstance(kind, Bot):
        return kind.name
    return str(getattr(kind, "__name__", type(kind).__name__))


class Mixture:
    """Opponent kinds and their weights (positive numbers, any scale), drawn per game.

    ``entries``: a mapping from kind to weight (``{"greedy": 3, "random": 1}``), or
    ``(kind, weight)`` pairs, which also take kinds that cannot be keys. A kind is a bot
    name, a :class:`Bot` or a callable (a batched policy, :class:`VectorEnv` only).
    """

    def __init__(self, entries: Mapping[Any, float] | Iterable[tuple[Any, float]]) -> None:
        pairs = list(entries.items() if isinstance(entries, Mapping) else entries)
        if not pairs:
            raise ValueError("a mixture needs at least one (opponent, weight), found none")
        kinds: list[str | Bot | Callable[..., Any]] = []
        weights: list[float] = []
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise TypeError(f"expected (opponent, weight) pairs, found {pair!r}")
            kind, weight = pair
            if not (isinstance(kind, str | Bot) or callable(kind)):
                raise TypeError(
                    f"a mixture's opponent is a bot name, a Bot or a batched policy, found {kind!r}"
                )
            if isinstance(weight, bool) or not isinstance(weight, int | float | np.number):
                raise TypeError(
                    f"the weight of {kind_name(kind)} must be a number, found {weight!r}"
                )
            if not (math.isfinite(weight) and weight > 0):
                raise ValueError(
                    f"the weight of {kind_name(kind)} must be positive and finite, found {weight}"
                )
            kinds.append(kind)
            weights.append(float(weight))
        self.kinds: tuple[str | Bot | Callable[..., Any], ...] = tuple(kinds)
        total = sum(weights)
        #: The kinds' probabilities (the weights over their sum).
        self.probabilities: npt.NDArray[np.float64] = np.array(weights) / total

    @property
    def names(self) -> tuple[str, ...]:
        """The kinds' names, in order (:func:`kind_name`)."""
        return tuple(kind_name(kind) for kind in self.kinds)

    def draw(self, rng: np.random.Generator, size: int) -> npt.NDArray[np.int64]:
        """``size`` kind indices, each drawn with the kinds' probabilities."""
        if len(self.kinds) == 1:
            return np.zeros(size, dtype=np.int64)
        drawn: npt.NDArray[np.int64] = rng.choice(
            len(self.kinds), size=size, p=self.probabilities
        ).astype(np.int64)
        return drawn

    def __len__(self) -> int:
        return len(self.kinds)

    def __repr__(self) -> str:
        parts = ", ".join(
            f"{name}: {p:.3g}" for name, p in zip(self.names, self.probabilities, strict=True)
        )
        return f"Mixture({{{parts}}})"
