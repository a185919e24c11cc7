"""Learned policies as bots: a small network over the ``marrakech_v0`` observation.

A *policy file* is a ``.npz`` (numpy's zip of arrays) holding a multilayer perceptron
that maps the 474-float observation of the seat to decide
(:mod:`marrakech.observation`) to 87 logits, one per decision id
(:mod:`marrakech.actions`); the bot plays the legal id with the highest logit (R9, R14-R16
come in through the legal mask only: the network never decides what is legal). Arrays:

=========  ==============================================================
``w0``      ``(474, h0)`` float32, then ``b0`` ``(h0,)``
``w1`` ...  one more pair per layer, ReLU between layers; the last is ``(h, 87)``
``meta``    uint8: UTF-8 JSON with ``format`` (``marrakech-policy-1``), ``players``
            (the player count it was trained for, or 0 for any) and provenance
=========  ==============================================================

Two policies ship inside the package (``bots/data/policy-2p.npz``, ``policy-4p.npz``,
trained by ``scripts/train_policy.py``), and ``make_bot("policy-2p")`` plays one. The
inference needs no network and no torch: numpy when it is installed, else plain Python
(the file is read with :mod:`zipfile`; the first layer only sums the rows of the
observation's non-zero entries, the last only computes the legal ids' logits). Both give
the same decisions (``tests/bots/test_policy.py``).

Three ways to name a policy, as bot specs (the arena, ``marrakech evaluate``, the
terminal):

- ``policy-2p`` / ``policy-4p``: the shipped policies (``policy``: the one of the
  game's player count);
- ``policy@weights=PATH.npz``: any file in the format above;
- ``policy@function=MODULE:CALLABLE``: any Python callable taking the observation
  (``(474,)`` float32 numpy array) and the legal mask (``(87,)`` bool) and returning a
  legal decision id.

A policy trained for one player count refuses a game of another (a ``ValueError`` that
says which policy to use): the observation has the same size at every count, so it would
play legal moves, but not moves it learned.
"""

from __future__ import annotations

import ast
import importlib
import json
import random
import struct
import zipfile
from array import array
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from marrakech.actions import DECISION_IDS, Action, action_from_id
from marrakech.bots.base import check_budget, check_decision_node
from marrakech.observation import OBSERVATION_SIZE, encode_observation_f32
from marrakech.state import State

#: The ``format`` a policy file's metadata declares.
FORMAT = "marrakech-policy-1"
#: Policies shipped in the package: name -> file in ``marrakech/bots/data``.
SHIPPED = {"policy-2p": "policy-2p.npz", "policy-4p": "policy-4p.npz"}
#: The player counts a shipped policy plays, each by the policy named for it: what the
#: bare ``policy`` (the ``learned`` level) plays.
SHIPPED_PLAYERS = (2, 4)


class PolicyError(ValueError):
    """A policy file or callable that cannot be used, with what was expected."""


# -- reading a policy file ------------------------------------------------------------------


def _read_npy(name: str, data: bytes) -> tuple[tuple[int, ...], array[Any]]:
    """One ``.npy`` member of a policy file: its shape and its values (float32 or
    uint8 only), without numpy."""
    if not data.startswith(b"\x93NUMPY") or len(data) < 10:
        raise PolicyError(f"array {name}: not a .npy array")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start : start + length].decode("latin1"))
    descr, shape = header["descr"], tuple(header["shape"])
    if header["fortran_order"]:
        raise PolicyError(f"array {name}: expected C order, found Fortran order")
    kinds = {"<f4": "f", "|u1": "B"}
    if descr not in kinds:
        raise PolicyError(f"array {name}: expected float32 (<f4) or uint8, found {descr}")
    values = array(kinds[descr])
    values.frombytes(data[start + length :])
    count = 1
    for size in shape:
        count *= size
    if len(values) != count:
        raise PolicyError(f"array {name}: expected {count} values, found {len(values)}")
    return shape, values


class PolicyNetwork:
    """A policy file's perceptron: ``layers`` of (weights, biases) and its metadata.

    ``decide(observation, legal_ids)`` gives the legal id with the highest logit (the
    lowest id on a tie). With numpy installed the weights are numpy arrays and
    ``logits`` takes a batch; ``__call__(observations, masks)`` makes it a batched policy
    (:data:`marrakech.envs.vector.BatchPolicy`).
    """

    def __init__(self, source: str, members: dict[str, tuple[tuple[int, ...], array[Any]]]):
        self.source = source
        if "meta" not in members:
            raise PolicyError(f"policy {source}: no 'meta' array (expected format {FORMAT})")
        try:
            self.meta: dict[str, Any] = json.loads(members["meta"][1].tobytes().decode("utf-8"))
        except ValueError as error:
            raise PolicyError(f"policy {source}: 'meta' is not UTF-8 JSON ({error})") from None
        if self.meta.get("format") != FORMAT:
            raise PolicyError(
                f"policy {source}: expected format {FORMAT}, found {self.meta.get('format')!r}"
            )
        self.players = int(self.meta.get("players", 0))
        shapes: list[tuple[int, int]] = []
        self._rows: list[list[array[Any]]] = []  # pure Python: each layer's input rows
        self._biases: list[array[Any]] = []
        width = OBSERVATION_SIZE
        k = 0
        while f"w{k}" in members:
            (w_shape, w_values), bias = members[f"w{k}"], members.get(f"b{k}")
            if len(w_shape) != 2 or w_shape[0] != width:
                raise PolicyError(f"policy {source}: w{k} must be ({width}, n), found {w_shape}")
            if bias is None or bias[0] != (w_shape[1],):
                found = None if bias is None else bias[0]
                raise PolicyError(f"policy {source}: b{k} must be ({w_shape[1]},), found {found}")
            columns = w_shape[1]
            self._rows.append([w_values[i * columns : (i + 1) * columns] for i in range(width)])
            self._biases.append(bias[1])
            shapes.append((width, columns))
            width = columns
            k += 1
        if not shapes or width != DECISION_IDS:
            raise PolicyError(
                f"policy {source}: expected layers w0, b0, w1, b1 ... from {OBSERVATION_SIZE} "
                f"inputs to {DECISION_IDS} logits, found {shapes or 'none'}"
            )
        self.shapes = tuple(shapes)
        self._numpy = _numpy_layers(self._rows, self._biases)

    @classmethod
    def load(cls, path: str | Path) -> PolicyNetwork:
        """Read a policy file (see the module's docstring for the format)."""
        where = Path(path)
        if not where.is_file():
            raise PolicyError(f"policy file {str(path)!r} not found (expected a .npz file)")
        return cls.from_bytes(where.read_bytes(), str(path))

    @classmethod
    def from_bytes(cls, data: bytes, source: str) -> PolicyNetwork:
        import io

        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = {
                    name.removesuffix(".npy"): _read_npy(name, archive.read(name))
                    for name in archive.namelist()
                }
        except zipfile.BadZipFile:
            raise PolicyError(
                f"policy {source}: not a .npz file (a zip of .npy arrays, format {FORMAT})"
            ) from None
        return cls(source, members)

    def logits(self, observations: Any) -> Any:
        """``(n, 87)`` logits of a ``(n, 474)`` batch (numpy needed)."""
        import numpy as np

        if self._numpy is None:  # pragma: no cover - numpy imported above
            raise PolicyError("batched logits need numpy")
        hidden = np.asarray(observations, dtype=np.float64)
        last = len(self._numpy) - 1
        for k, (weights, bias) in enumerate(self._numpy):
            hidden = hidden @ weights + bias
            if k < last:
                np.maximum(hidden, 0.0, out=hidden)
        return hidden

    def __call__(self, observations: Any, masks: Any) -> Any:
        """The best legal id of each game of a batch (a ``BatchPolicy``)."""
        import numpy as np

        logits = self.logits(observations)
        best: Any = np.where(masks, logits, -np.inf).argmax(axis=1).astype(np.int64)
        return best

    def decide(self, observation: Sequence[float], legal_ids: Sequence[int]) -> int:
        """The legal id with the highest logit (the lowest such id on a tie)."""
        if self._numpy is not None:
            import numpy as np

            logits = self.logits(np.asarray(observation, dtype=np.float32)[None, :])[0]
            ids = np.asarray(sorted(legal_ids))
            return int(ids[int(np.argmax(logits[ids]))])
        return self._decide_python(observation, legal_ids)

    def _decide_python(self, observation: Sequence[float], legal_ids: Sequence[int]) -> int:
        hidden: list[float] = list(observation)
        last = len(self._rows) - 1
        for k, (rows, bias) in enumerate(zip(self._rows, self._biases, strict=True)):
            if k == last:
                # Only the legal ids' logits: a column each, read from the input rows.
                best_id, best = -1, float("-inf")
                active = [(x, row) for x, row in zip(hidden, rows, strict=True) if x]
                for action_id in sorted(legal_ids):
                    value = bias[action_id] + sum(x * row[action_id] for x, row in active)
                    if value > best:
                        best_id, best = action_id, value
                return best_id
            total = list(bias)
            for x, row in zip(hidden, rows, strict=True):
                if x:  # the board's one-hot planes are mostly zeros
                    total = [t + x * w for t, w in zip(total, row, strict=True)]
            hidden = [t if t > 0.0 else 0.0 for t in total]
        raise AssertionError("unreachable: the last layer returns")  # pragma: no cover


def _numpy_layers(rows: list[list[array[Any]]], biases: list[array[Any]]) -> list[Any] | None:
    try:
        import numpy as np
    except ImportError:
        return None
    layers = []
    for layer_rows, bias in zip(rows, biases, strict=True):
        # float64, as the pure-Python path sums: both paths pick the same id.
        weights = np.stack([np.frombuffer(row, dtype=np.float32) for row in layer_rows])
        layers.append((weights.astype(np.float64), np.frombuffer(bias, np.float32).astype(float)))
    return layers


_SHIPPED_CACHE: dict[str, PolicyNetwork] = {}


def load_policy(weights: str) -> PolicyNetwork:
    """A shipped policy by name (``policy-2p``) or a policy file by path."""
    if weights in SHIPPED:
        network = _SHIPPED_CACHE.get(weights)
        if network is None:
            resource = resources.files("marrakech.bots").joinpath("data", SHIPPED[weights])
            if not resource.is_file():
                raise PolicyError(
                    f"the shipped policy {weights} is missing from the package (expected "
                    f"marrakech/bots/data/{SHIPPED[weights]}; scripts/train_policy.py makes it)"
                )
            network = PolicyNetwork.from_bytes(resource.read_bytes(), weights)
            _SHIPPED_CACHE[weights] = network
        return network
    return PolicyNetwork.load(weights)


def load_function(target: str) -> Callable[[Any, Any], Any]:
    """``MODULE:CALLABLE`` imported: a function of (observation, mask) -> decision id."""
    module_name, colon, attribute = target.partition(":")
    if not colon or not module_name or not attribute:
        raise PolicyError(f"expected a policy function as MODULE:CALLABLE, found {target!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise PolicyError(
            f"policy function {target}: cannot import {module_name} ({error})"
        ) from None
    found: Any = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise PolicyError(f"policy function {target}: {module_name} has no {attribute}")
        found = getattr(found, part)
    if not callable(found):
        raise PolicyError(f"policy function {target}: {attribute} is not callable")
    function: Callable[[Any, Any], Any] = found
    return function


class PolicyBot:
    """Plays a learned policy: the legal decision it rates best (see the module docstring).

    ``weights`` is a shipped policy's name or a ``.npz`` path; ``function`` a
    ``MODULE:CALLABLE``; at most one of them. With neither, the shipped policy of the
    game's player count plays (``policy-2p`` or ``policy-4p``). ``seconds`` and
    ``iterations`` are accepted for a uniform interface and ignored: a decision is one
    pass through the network.
    """

    name = "policy"

    def __init__(
        self,
        weights: str | None = None,
        function: str | None = None,
        seconds: float | None = None,
        iterations: int | None = None,
    ) -> None:
        check_budget(self.name, seconds, "iterations", iterations, required=False)
        if weights is not None and function is not None:
            raise PolicyError(
                "a policy bot takes weights (policy-2p, policy-4p or a .npz path: "
                "policy@weights=FILE.npz) or function (policy@function=MODULE:CALLABLE), "
                "found both"
            )
        self.seconds = seconds
        self.iterations = iterations
        self.weights = weights
        self.function = function
        self.network = load_policy(weights) if weights is not None else None
        self._function = load_function(function) if function is not None else None

    @property
    def players(self) -> int:
        """The player count the policy was trained for (0: any, or not known yet)."""
        return self.network.players if self.network is not None else 0

    def check_players(self, players: int) -> None:
        """Refuse, before the game, a player count this bot would refuse at its first
        decision (a ``ValueError`` saying which counts it plays)."""
        self._network_for(players)

    def _network_for(self, players: int) -> PolicyNetwork | None:
        """The network that plays a ``players``-player game (None: the function plays)."""
        network = self.network
        if network is None and self._function is None:
            shipped = f"policy-{players}p"
            if shipped not in SHIPPED:
                counts = "- or ".join(map(str, SHIPPED_PLAYERS))
                raise ValueError(
                    f"policy (the learned level) plays {counts}-player games only, those of "
                    f"the shipped policies ({', '.join(SHIPPED)}), found a {players}-player "
                    "game; policy@weights=FILE.npz plays any policy file"
                )
            network = load_policy(shipped)
        if network is not None and network.players and players != network.players:
            raise ValueError(
                f"policy {network.source} was trained for {network.players}-player games, "
                f"found a {players}-player game"
                + (f": use policy-{players}p" if f"policy-{players}p" in SHIPPED else "")
            )
        return network

    def __repr__(self) -> str:
        if self.function is not None:
            return f"PolicyBot(function={self.function!r})"
        return f"PolicyBot(weights={self.weights!r})"

    def choose(self, state: State, rng: random.Random) -> Action:
        check_decision_node(state)
        network = self._network_for(state.players)
        legal = [action.id for action in state.legal_actions()]
        observation = encode_observation_f32(state, state.turn)
        if network is not None:
            return action_from_id(network.decide(observation, legal))
        return action_from_id(self._call_function(observation, legal))

    def _call_function(self, observation: array[float], legal: list[int]) -> int:
        import numpy as np

        assert self._function is not None
        mask = np.zeros(DECISION_IDS, dtype=np.bool_)
        mask[legal] = True
        chosen = self._function(np.frombuffer(observation, dtype=np.float32).copy(), mask)
        try:
            action_id = int(chosen)
        except (TypeError, ValueError):
            raise PolicyError(
                f"policy function {self.function} returned {chosen!r}: expected a decision id"
            ) from None
        if action_id not in legal:
            raise PolicyError(
                f"policy function {self.function} returned {action_id}, not legal here: "
                f"expected one of {', '.join(map(str, legal))}"
            )
        return action_id
