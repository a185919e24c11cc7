"""The self-play network: policy logits and a value per seat from one observation.

A two-hidden-layer perceptron over the 474-float ``marrakech_v0`` observation of the seat
to move (:mod:`marrakech.observation`) with two heads: 87 policy logits, one per decision
id (:mod:`marrakech.actions`; the legal mask is applied outside), and 4 value logits, one
per seat *relative to the observer* (0 is the observer, 1 the next seat in turn order...).
The value is a softmax over the seats still in the game (the observation's ``exists`` and
``in`` flags), so it is each seat's expected win share (R21: tied winners share) and sums
to 1 at 2, 3 and 4 players alike.

A network may have a *value prior*: the 14 weights of the search bots' linear value
(:mod:`marrakech.bots.value`, the features of :mod:`marrakech.value_features`), whose
score of each seat is added to the value head's logit before the softmax. The head then
learns what the prior misses rather than the whole value: with the prior, a fresh
network's value is about the linear value's chances (its head starts near zero). With
``prior_children`` in its metadata the search also gives every new child of a decision
node the prior's value of its position until the child is visited, as the ``search``
bots start their children at their learned value.

A network may also read *feature inputs*: the same features of every seat, relative to
the observer, and the same times the game's progress (56 floats,
:func:`marrakech.fast.gumbel_kernels.feature_inputs`), through a block of first-layer
weights ``wf`` of their own. The observation shows the board, the features what the
board means to the linear value (regions, the coming tithe's expectation...); with
them the hidden layers can weigh those non-linearly. A network without ``wf`` reads the
observation alone; :meth:`Network.with_features` adds the block with zero weights (the
same network, until trained).

A *network file* is a ``.npz`` of float32 arrays ``w0 b0 w1 b1`` (hidden layers, ReLU),
``wp bp`` (policy head), ``wv bv`` (value head), optionally ``wf`` (the feature inputs'
weights), ``prior`` (float64, the value prior's weights) and ``meta``: UTF-8 JSON with
``format`` (:data:`FORMAT`), ``players`` (the player count it was trained for, 0 for
any), ``generation`` and provenance.
Training is numpy (:meth:`Network.gradients` and :class:`Adam`); the search evaluates
leaves with :func:`marrakech.fast.gumbel_kernels.forward`, the same arithmetic compiled
(``tests/fast/test_gumbel_kernels.py`` compares the two).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from marrakech.actions import DECISION_IDS
from marrakech.observation import (
    OBSERVATION_SIZE,
    SEAT_EXISTS,
    SEAT_FEATURES,
    SEAT_IN,
    SEATS_OFFSET,
)
from marrakech.value_features import FEATURES, VALUE_WEIGHTS

#: The ``format`` a network file's metadata declares.
FORMAT = "marrakech-az-1"
#: The arrays of a network file, in the order the compiled forward pass takes them.
PARAMETERS = ("w0", "b0", "w1", "b1", "wp", "bp", "wv", "bv")
SEATS = 4
#: The feature inputs a network may read besides its observation: the search bots' value
#: features of each seat relative to the mover (:mod:`marrakech.value_features`), then
#: the same times the game's progress (:func:`~marrakech.fast.gumbel_kernels.feature_inputs`).
FEATURE_INPUTS = 2 * SEATS * FEATURES

Floats = npt.NDArray[np.float32]

_EXISTS = np.array([SEATS_OFFSET + r * SEAT_FEATURES + SEAT_EXISTS for r in range(SEATS)])
_IN = np.array([SEATS_OFFSET + r * SEAT_FEATURES + SEAT_IN for r in range(SEATS)])


class NetworkError(ValueError):
    """A network file that cannot be used, with what was expected."""


def value_mask(observations: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """``(n, 4)``: which relative seats of each observation are in the game (the seats
    the value's softmax runs over)."""
    return (observations[:, _EXISTS] > 0.5) & (observations[:, _IN] > 0.5)


def masked_softmax(logits: npt.NDArray[Any], mask: npt.NDArray[np.bool_]) -> npt.NDArray[Any]:
    """Row-wise softmax over the entries where ``mask`` holds (zeros elsewhere)."""
    shifted = np.where(mask, logits, -np.inf)
    top = shifted.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(mask, np.exp(shifted - top), 0.0)
    total = e.sum(axis=1, keepdims=True)
    result: npt.NDArray[Any] = e / np.where(total > 0, total, 1.0)
    return result


class Network:
    """The perceptron's float32 parameters and metadata (see the module docstring)."""

    def __init__(
        self,
        params: dict[str, Floats],
        meta: dict[str, Any],
        prior: npt.NDArray[Any] | None = None,
    ) -> None:
        missing = [name for name in PARAMETERS if name not in params]
        if missing:
            raise NetworkError(f"expected arrays {', '.join(PARAMETERS)}, missing {missing}")
        hidden0, hidden1 = params["w0"].shape[1], params["w1"].shape[1]
        shapes = {
            "w0": (OBSERVATION_SIZE, hidden0),
            "b0": (hidden0,),
            "w1": (hidden0, hidden1),
            "b1": (hidden1,),
            "wp": (hidden1, DECISION_IDS),
            "bp": (DECISION_IDS,),
            "wv": (hidden1, SEATS),
            "bv": (SEATS,),
        }
        for name, shape in shapes.items():
            if params[name].shape != shape:
                raise NetworkError(
                    f"array {name}: expected shape {shape}, found {params[name].shape}"
                )
        self.params = {
            name: np.ascontiguousarray(params[name], dtype=np.float32) for name in PARAMETERS
        }
        if "wf" in params:
            if params["wf"].shape != (FEATURE_INPUTS, hidden0):
                raise NetworkError(
                    f"array wf: expected shape {(FEATURE_INPUTS, hidden0)}, "
                    f"found {params['wf'].shape}"
                )
            self.params["wf"] = np.ascontiguousarray(params["wf"], dtype=np.float32)
        if prior is not None and np.shape(prior) != (VALUE_WEIGHTS,):
            raise NetworkError(
                f"array prior: expected shape ({VALUE_WEIGHTS},), found {np.shape(prior)}"
            )
        #: The value prior's weights (None: the value is the head's alone).
        self.prior = None if prior is None else np.array(prior, dtype=np.float64)
        self.meta = dict(meta)
        self.meta.setdefault("format", FORMAT)
        self.players = int(self.meta.get("players", 0))

    @classmethod
    def initial(
        cls, hidden: int, players: int, seed: int, prior: npt.NDArray[Any] | None = None
    ) -> Network:
        """A fresh network (He-initialised hidden layers, small heads), with the value
        ``prior``'s weights if given."""
        rng = np.random.default_rng([seed, 0x4E4E])

        def layer(rows: int, columns: int, scale: float) -> Floats:
            return (rng.standard_normal((rows, columns)) * scale).astype(np.float32)

        params = {
            "w0": layer(OBSERVATION_SIZE, hidden, np.sqrt(2.0 / 40.0)),  # ~40 inputs are on
            "b0": np.zeros(hidden, np.float32),
            "w1": layer(hidden, hidden, np.sqrt(2.0 / hidden)),
            "b1": np.zeros(hidden, np.float32),
            "wp": layer(hidden, DECISION_IDS, 0.01),
            "bp": np.zeros(DECISION_IDS, np.float32),
            "wv": layer(hidden, SEATS, 0.01),
            "bv": np.zeros(SEATS, np.float32),
        }
        return cls(params, {"format": FORMAT, "players": players, "generation": 0}, prior)

    def copy(self) -> Network:
        return Network({k: v.copy() for k, v in self.params.items()}, self.meta, self.prior)

    @property
    def reads_features(self) -> bool:
        """Whether the network reads the feature inputs (it has ``wf``)."""
        return "wf" in self.params

    def with_features(self) -> Network:
        """This network reading the feature inputs too: its own ``wf`` if it has one,
        else zero weights, so that it computes what it did until trained.

        >>> Network.initial(8, 2, seed=1).with_features().params["wf"].shape
        (56, 8)
        """
        network = self.copy()
        if not network.reads_features:
            hidden = network.params["w0"].shape[1]
            network.params["wf"] = np.zeros((FEATURE_INPUTS, hidden), np.float32)
        return network

    def compiled(self, children: bool | None = None) -> tuple[npt.NDArray[np.float64], ...]:
        """The parameters as float64 arrays in :data:`PARAMETERS` order, then the value
        prior's weights (zeros for none), the search's options (``[prior_children]``)
        and the feature inputs' weights (no rows for none): what the compiled search
        takes. ``children`` overrides :attr:`prior_children`
        (the search values a decision's new children by the prior only if it has one)."""
        prior = self.prior if self.prior is not None else np.zeros(VALUE_WEIGHTS)
        valued = self.prior_children if children is None else children and self.prior is not None
        options = np.array([1.0 if valued else 0.0])
        hidden = self.params["w0"].shape[1]
        features = self.params.get("wf", np.zeros((0, hidden)))
        return (
            *(np.ascontiguousarray(self.params[name], dtype=np.float64) for name in PARAMETERS),
            np.ascontiguousarray(prior, dtype=np.float64),
            options,
            np.ascontiguousarray(features, dtype=np.float64),
        )

    @property
    def prior_children(self) -> bool:
        """Whether the search also values each new child of a decision node by the prior
        (meta ``prior_children``; :func:`marrakech.fast.gumbel_kernels.child_values`)."""
        return self.prior is not None and bool(self.meta.get("prior_children", False))

    def bias(self, rows: npt.NDArray[np.int32]) -> Floats | None:
        """What the value prior adds to the value head's logits in each position of
        ``rows`` (kernel rows, none over), by seat relative to the mover: ``(n, 4)``; None
        without a prior."""
        if self.prior is None:
            return None
        from marrakech.fast.gumbel_kernels import value_bias

        out = np.zeros((len(rows), SEATS), dtype=np.float64)
        value_bias(np.ascontiguousarray(rows, dtype=np.int32), self.prior, out)
        return out.astype(np.float32)

    def features(self, rows: npt.NDArray[np.int32]) -> Floats | None:
        """The feature inputs of the positions of ``rows`` (kernel rows, none over), from
        each mover's seat: ``(n, 56)``; None for a network that does not read them."""
        if not self.reads_features:
            return None
        from marrakech.fast.gumbel_kernels import batch_feature_inputs

        out = np.zeros((len(rows), FEATURE_INPUTS), dtype=np.float64)
        batch_feature_inputs(np.ascontiguousarray(rows, dtype=np.int32), out)
        return out.astype(np.float32)

    def forward(
        self,
        observations: npt.NDArray[Any],
        bias: npt.NDArray[Any] | None = None,
        features: npt.NDArray[Any] | None = None,
    ) -> tuple[Floats, Floats]:
        """Policy logits ``(n, 87)`` and value (win shares by relative seat, ``(n, 4)``);
        ``bias``: the value prior's part (:meth:`bias` of the positions observed);
        ``features``: their feature inputs (:meth:`features`), for a network that
        reads them."""
        x = np.asarray(observations, dtype=np.float32)
        logits, values, _ = self._forward(x, bias, features)
        return logits, values

    def _forward(
        self,
        x: Floats,
        bias: npt.NDArray[Any] | None = None,
        features: npt.NDArray[Any] | None = None,
    ) -> tuple[Floats, Floats, tuple[Floats, ...]]:
        p = self.params
        z0 = x @ p["w0"] + p["b0"]
        if self.reads_features:
            if features is None or features.shape != (len(x), FEATURE_INPUTS):
                found = None if features is None else features.shape
                raise NetworkError(
                    f"this network reads feature inputs: expected ({len(x)}, "
                    f"{FEATURE_INPUTS}) of them (Network.features), found {found}"
                )
            z0 = z0 + features.astype(np.float32) @ p["wf"]
        h0 = np.maximum(z0, 0.0)
        z1 = h0 @ p["w1"] + p["b1"]
        h1 = np.maximum(z1, 0.0)
        logits = h1 @ p["wp"] + p["bp"]
        head = h1 @ p["wv"] + p["bv"]
        if bias is not None:
            head = head + bias
        values = masked_softmax(head, value_mask(x)).astype(np.float32)
        return logits, values, (x, z0, h0, z1, h1)

    def gradients(
        self,
        observations: Floats,
        legal: npt.NDArray[np.bool_],
        policy_targets: Floats,
        value_targets: Floats,
        value_weight: float = 1.0,
        l2: float = 1e-4,
        bias: npt.NDArray[Any] | None = None,
        features: npt.NDArray[Any] | None = None,
    ) -> tuple[float, float, dict[str, Floats]]:
        """The mean cross-entropy losses (policy over the legal ids against
        ``policy_targets``, value against ``value_targets``, both ``(n, k)`` distributions)
        and the gradients of ``policy + value_weight * value + l2 * |w|^2``; ``bias``: the
        value prior's part of the positions (:meth:`bias`; the prior itself is fixed);
        ``features``: their feature inputs (:meth:`features`) if the network reads them."""
        p = self.params
        n = observations.shape[0]
        logits, values, (x, z0, h0, z1, h1) = self._forward(observations, bias, features)
        probs = masked_softmax(logits, legal)
        tiny = np.float32(1e-12)
        policy_loss = float(-(policy_targets * np.log(probs + tiny)).sum() / n)
        value_loss = float(-(value_targets * np.log(values + tiny)).sum() / n)
        d_logits = ((probs - policy_targets) / n).astype(np.float32)
        d_values = ((values - value_targets) * value_weight / n).astype(np.float32)
        d_values[~value_mask(x)] = 0.0
        grads: dict[str, Floats] = {
            "wp": h1.T @ d_logits,
            "bp": d_logits.sum(axis=0),
            "wv": h1.T @ d_values,
            "bv": d_values.sum(axis=0),
        }
        d_h1 = d_logits @ p["wp"].T + d_values @ p["wv"].T
        d_z1 = d_h1 * (z1 > 0)
        grads["w1"] = h0.T @ d_z1
        grads["b1"] = d_z1.sum(axis=0)
        d_z0 = (d_z1 @ p["w1"].T) * (z0 > 0)
        grads["w0"] = x.T @ d_z0
        grads["b0"] = d_z0.sum(axis=0)
        if features is not None and self.reads_features:
            grads["wf"] = features.astype(np.float32).T @ d_z0
        for name in ("w0", "w1", "wp", "wv", "wf"):
            if name in grads:
                grads[name] = grads[name] + np.float32(2 * l2) * p[name]
        return policy_loss, value_loss, {k: v.astype(np.float32) for k, v in grads.items()}

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        meta = np.frombuffer(json.dumps(self.meta, sort_keys=True).encode("utf-8"), np.uint8)
        arrays: dict[str, Any] = dict(self.params)
        if self.prior is not None:
            arrays["prior"] = self.prior
        np.savez(buffer, meta=meta, **arrays)
        return buffer.getvalue()

    def save(self, path: str | Path) -> None:
        """Write the network file (atomically: a stopped run never leaves half a file)."""
        target = Path(path)
        temporary = target.with_name(target.name + ".tmp")
        temporary.write_bytes(self.to_bytes())
        temporary.replace(target)

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """Read a network file, refusing anything but :data:`FORMAT`."""
        where = Path(path)
        if not where.is_file():
            raise NetworkError(f"network file {str(path)!r} not found (expected a .npz file)")
        try:
            with np.load(where, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
        except (OSError, ValueError) as error:
            raise NetworkError(f"network {path}: not a .npz file ({error})") from None
        if "meta" not in arrays:
            raise NetworkError(f"network {path}: no 'meta' array (expected format {FORMAT})")
        try:
            meta = json.loads(arrays.pop("meta").tobytes().decode("utf-8"))
        except ValueError as error:
            raise NetworkError(f"network {path}: 'meta' is not UTF-8 JSON ({error})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else meta
            raise NetworkError(f"network {path}: expected format {FORMAT}, found {found!r}")
        prior = arrays.pop("prior", None)
        return cls(arrays, meta, prior)


class Adam:
    """Adam (Kingma and Ba) over a network's parameters, its moments kept in float32."""

    def __init__(self, network: Network, rate: float = 1e-3) -> None:
        self.rate = rate
        self.step = 0
        self.first = {k: np.zeros_like(v) for k, v in network.params.items()}
        self.second = {k: np.zeros_like(v) for k, v in network.params.items()}

    def update(self, network: Network, grads: dict[str, Floats]) -> None:
        self.step += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        correction = self.rate * np.sqrt(1 - b2**self.step) / (1 - b1**self.step)
        for name, grad in grads.items():
            m, v = self.first[name], self.second[name]
            m *= np.float32(b1)
            m += np.float32(1 - b1) * grad
            v *= np.float32(b2)
            v += np.float32(1 - b2) * grad * grad
            network.params[name] -= (
                np.float32(correction) * m / (np.sqrt(v) + np.float32(eps))
            ).astype(np.float32)

    def save(self, path: Path, generation: int) -> None:
        arrays = {f"m_{k}": v for k, v in self.first.items()}
        arrays.update({f"v_{k}": v for k, v in self.second.items()})
        temporary = path.with_name(path.name + ".tmp.npz")
        steps = np.array([self.step, generation])
        np.savez(temporary, step=steps, rate=np.array([self.rate]), **arrays)  # type: ignore[arg-type]
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path, network: Network) -> tuple[Adam, int]:
        """The optimiser saved at ``path`` and the generation it was saved after."""
        with np.load(path, allow_pickle=False) as data:
            adam = cls(network, float(data["rate"][0]))
            adam.step, generation = (int(x) for x in data["step"])
            for name in network.params:
                if f"m_{name}" not in data.files:
                    raise NetworkError(
                        f"optimizer {path}: no moments for array {name!r} (saved for a "
                        "network with other arrays)"
                    )
                adam.first[name] = data[f"m_{name}"].copy()
                adam.second[name] = data[f"v_{name}"].copy()
        return adam, generation
