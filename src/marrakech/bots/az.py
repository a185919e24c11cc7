"""The self-play network as a bot: ``az@weights=FILE.npz[@simulations=N][@children=B]``.

Plays a network of ``marrakech train`` (:mod:`marrakech.fast.az_network`, format
``marrakech-az-1``): with ``simulations`` N > 0 (32 by default) the compiled Gumbel search
of :mod:`marrakech.fast.gumbel_kernels` with N simulations and no Gumbel noise (the decision
is the best considered action by prior logit plus its completed Q-value); with 0 the
legal decision of highest prior logit, no search. Reproducible: no clock, no randomness.
Needs numpy and numba (the ``fast`` extra).

``children`` chooses whether the search values each new child of a decision by the
network's value prior (:func:`marrakech.fast.gumbel_kernels.child_values`): by default
as the network was trained (``--value-prior packaged-children``); ``children=true``
turns it on for a network trained with the prior at its leaves only, ``false`` off
(what each gives: docs/environments.md, "Measured: more simulations, and the children
valued at play time").
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from marrakech.actions import Action, action_from_id
from marrakech.bots.base import check_decision_node, check_range
from marrakech.state import State

#: The most simulations a decision may take.
MAX_SIMULATIONS = 4096


@lru_cache(maxsize=8)
def _load(path: str, stamp: float) -> Any:
    from marrakech.fast.az_network import Network

    return Network.load(path)


class AzBot:
    """A ``marrakech train`` network, with or without search at play time."""

    name = "az"

    def __init__(
        self,
        weights: str | None = None,
        simulations: int = 32,
        considered: int = 12,
        seconds: float | None = None,
        children: bool | None = None,
    ) -> None:
        if weights is None:
            raise ValueError(
                "az needs a network file: az@weights=FILE.npz (a generation of marrakech train)"
            )
        check_range("simulations", simulations, 0, MAX_SIMULATIONS)
        check_range("considered", considered, 1, 12)
        where = Path(weights)
        if not where.is_file():
            raise ValueError(f"az: network file {weights!r} not found (expected a .npz file)")
        self.weights = weights
        self.simulations = simulations
        self.considered = considered
        self.seconds = seconds  # accepted for a uniform interface; a decision is a count
        self.network = _load(str(where.resolve()), where.stat().st_mtime)
        if children and self.network.prior is None:
            raise ValueError(
                "az: children=true values a decision's children by the network's value "
                f"prior, and {weights} has none (expected a network of marrakech train "
                "--value-prior packaged or packaged-children)"
            )
        self.children = self.network.prior_children if children is None else children
        self._params = self.network.compiled(children=self.children)
        self._tree: Any = None

    def __repr__(self) -> str:
        return (
            f"AzBot(weights={self.weights!r}, simulations={self.simulations}, "
            f"children={self.children})"
        )

    def check_players(self, players: int) -> None:
        """Refuse a player count the network was not trained for (0: any)."""
        trained = self.network.players
        if trained and trained != players:
            raise ValueError(
                f"az network {self.weights} was trained for {trained}-player games, "
                f"found a {players}-player game"
            )

    def choose(self, state: State, rng: random.Random) -> Action:
        import numpy as np

        from marrakech.actions import DECISION_IDS
        from marrakech.fast.gumbel_kernels import search, tree_arrays
        from marrakech.fast.rows import to_arrays

        check_decision_node(state)
        self.check_players(state.players)
        if self._tree is None:
            self._tree = tree_arrays(self.simulations)
        policy = np.zeros(DECISION_IDS, dtype=np.float64)
        action, _ = search(  # type: ignore[call-arg]
            to_arrays(state), self._params, self.simulations, self.considered, 0.0,
            np.uint64(0), *self._tree, policy,
        )  # fmt: skip
        return action_from_id(int(action))
