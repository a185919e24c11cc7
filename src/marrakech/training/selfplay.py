"""A generation's self-play: games of the compiled Gumbel search, their training data and
their records.

:func:`play` runs :func:`marrakech.fast.gumbel_kernels.self_play` for a number of games and
returns every decision's position (a kernel row), the improved policy at its root and the
game's outcome by seat relative to the mover, and each game as a
:class:`~marrakech.record.GameRecord` (the chance outcomes are actions of the record, so
the games replay exactly; a file of them is a source of :mod:`marrakech.envs.dataset`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from marrakech.actions import action_from_id
from marrakech.fast.az_network import Network
from marrakech.fast.gumbel_kernels import self_play, self_play_arrays, tree_arrays
from marrakech.fast.rows import to_arrays
from marrakech.record import GameRecord
from marrakech.state import State

#: Games a compiled call plays: a stop (Ctrl-C, SIGTERM) is noticed between calls.
CHUNK = 16


@dataclass
class SelfPlayData:
    """The decisions of some games: ``rows`` (kernel rows), ``policies`` (improved
    policy over the 87 decision ids), ``values`` (each seat's final win share, seat 0 the
    mover, then in turn order), ``searched`` (the root's searched value, same order),
    and the games' records."""

    rows: npt.NDArray[np.int32]
    policies: npt.NDArray[np.float32]
    values: npt.NDArray[np.float32]
    searched: npt.NDArray[np.float32]
    records: list[GameRecord]

    def save(self, path: Path) -> None:
        temporary = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(
            temporary,
            rows=self.rows,
            policies=self.policies,
            values=self.values,
            searched=self.searched,
        )
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path) -> SelfPlayData:
        with np.load(path, allow_pickle=False) as data:
            return cls(data["rows"], data["policies"], data["values"], data["searched"], [])


def play(
    network: Network,
    players: int,
    games: int,
    simulations: int,
    considered: int,
    seed: int,
    gumbel_scale: float = 1.0,
    label: str = "az",
) -> SelfPlayData:
    """Play ``games`` self-play games of ``network`` at ``players`` players (standard
    rules, seat 0 first), ``simulations`` per decision; reproducible from ``seed``."""
    start = to_arrays(State.new(players=players))
    params = network.compiled()
    tree = tree_arrays(simulations)
    initial = State.new(players=players)
    parts: list[tuple[npt.NDArray[Any], ...]] = []
    records = []
    for first_game in range(0, games, CHUNK):
        count = min(CHUNK, games - first_game)
        rows, movers, policies, values, searched, actions, offsets = self_play_arrays(count)
        done = self_play(
            start, first_game, count, params, simulations, considered, gumbel_scale,
            np.uint64(seed & (2**64 - 1)), *tree,
            rows, movers, policies, values, searched, actions, offsets,
        )  # fmt: skip
        if done != count:  # pragma: no cover - the bounds hold every game of the rules
            raise RuntimeError(f"self-play arrays filled after {done} of {count} games")
        positions = int(offsets[3 * count - 3])
        parts.append(
            (rows[:positions], policies[:positions], values[:positions], searched[:positions])
        )
        first_action = 0
        for game in range(count):
            last = int(offsets[3 * game + 1])
            moves = [action_from_id(int(a)) for a in actions[first_action:last]]
            meta = {"game": first_game + game}
            records.append(
                GameRecord.from_actions(
                    initial, moves, seats=(f"bot:{label}",) * players, meta=meta
                )
            )
            first_action = last
    return SelfPlayData(
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]).astype(np.float32),
        np.concatenate([p[2] for p in parts]).astype(np.float32),
        np.concatenate([p[3] for p in parts]).astype(np.float32),
        records,
    )
