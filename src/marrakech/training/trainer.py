"""Training by generations: self-play, learning, the ladder, all resumable.

Generation ``g`` (1, 2, ...) plays ``games`` self-play games with the network of
generation ``g - 1`` (:mod:`marrakech.training.selfplay`; generation 0 is the initial
random network), trains on the decisions of the last ``window`` generations (policy
target: the improved policy at each root; value target: each seat's final win share),
saves ``gen-XXXX.npz``, plays it against the ladder's reference bots
(:data:`marrakech.arena.evaluate.OPPONENTS`, the arena's matches) and appends one JSON
line to ``log.jsonl``. A run's folder holds everything it needs to continue:

=====================  ==========================================================
``config.json``         the run's settings (a resumed run must give the same)
``log.jsonl``           one line per finished generation
``gen-XXXX.npz``        each generation's network (:mod:`~marrakech.fast.az_network`)
``optimizer-XXXX.npz``  Adam's state after the last generation (the only one kept)
``selfplay-XXXX.npz``   each generation's decisions (the window's only)
``games-XXXX.jsonl``    each generation's self-play games as game records
``eval/``               the ladder matches (arena results files)
=====================  ==========================================================

Every random choice is seeded by (seed, generation): a run stopped anywhere and resumed
produces the same files as one that never stopped (``tests/training/test_trainer.py``).
The self-play files are the big ones (megabytes a generation): a folder carried to
another machine without them resumes from ``config.json``, the last optimiser and the
networks of the window's generations, playing the window's games again (the same ones).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from marrakech.arena.evaluate import OPPONENTS, ladder, reference_games
from marrakech.arena.match import MatchConfig
from marrakech.arena.runner import run_match
from marrakech.arena.stats import summarise
from marrakech.bots.value import load_value
from marrakech.errors import MarrakechError
from marrakech.fast.az_network import Adam, Network, NetworkError
from marrakech.fast.kernels import TURN, batch_masks, batch_observe
from marrakech.training.selfplay import SelfPlayData, play

#: The value priors a run's random network may start with (``TrainConfig.value_prior``):
#: none, the packaged linear value at the search's leaves, or also at every new child
#: of a decision node (``Network.prior_children``).
VALUE_PRIORS = ("none", "packaged", "packaged-children")


@dataclass(frozen=True)
class TrainConfig:
    """A run's settings (``config.json``)."""

    players: int = 2
    games: int = 256
    simulations: int = 32
    considered: int = 12
    hidden: int = 128
    steps: int = 400
    batch: int = 256
    rate: float = 1e-3
    window: int = 4
    value_mix: float = 0.0
    #: The value loss's weight against the policy's (1: AlphaZero's sum); 0 trains the
    #: policy alone and leaves the value head as it starts: with a value prior and a
    #: head at zero, the search then values positions by the prior exactly.
    value_weight: float = 1.0
    seed: int = 1
    eval_games: int = 20
    eval_opponents: str = "greedy,hard"
    eval_simulations: int = 32
    #: A network file to start from (generation 0), e.g. ``marrakech pretrain``'s;
    #: empty: a random network.
    init: str = ""
    #: The value prior of a random network (:mod:`marrakech.fast.az_network`): "none",
    #: "packaged", the search bots' linear value for the player count
    #: (:func:`marrakech.bots.value.load_value`), or "packaged-children", which also
    #: values each new child of a decision node. A network file (``init``) keeps its own.
    value_prior: str = "none"
    #: Whether generation 0 also reads the feature inputs (the search bots' value features
    #: of every seat, :meth:`Network.with_features`): a random network gets them with
    #: random weights, a network file (``init``) without them gets zero weights.
    features: bool = False
    #: Whether generation 0's value head starts at zero (an ``init`` network's too): with
    #: a value prior its value is then the prior's exactly, which ``value_weight`` 0
    #: keeps while the policy trains.
    zero_value_head: bool = False

    def check(self) -> None:
        if self.players not in OPPONENTS:
            raise MarrakechError(f"expected 2, 3 or 4 players, found {self.players}")
        for name in ("games", "simulations", "hidden", "steps", "batch", "window"):
            if getattr(self, name) < 1:
                raise MarrakechError(f"--{name}: expected at least 1, found {getattr(self, name)}")
        if not 0.0 <= self.value_mix <= 1.0:
            raise MarrakechError(f"--value-mix: expected 0..1, found {self.value_mix}")
        if not 0.0 <= self.value_weight <= 10.0:
            raise MarrakechError(f"--value-weight: expected 0..10, found {self.value_weight}")
        if self.value_prior not in VALUE_PRIORS:
            raise MarrakechError(
                f"--value-prior: expected one of {', '.join(VALUE_PRIORS)}, "
                f"found {self.value_prior!r}"
            )
        if self.value_prior != "none" and self.init:
            raise MarrakechError(
                "--value-prior: a network from --init keeps its own value prior; "
                f"expected --value-prior none with --init, found {self.value_prior!r}"
            )
        if not 1 <= self.considered <= 12:
            raise MarrakechError(f"--considered: expected 1..12, found {self.considered}")
        unknown = set(self.opponents()) - set(OPPONENTS[self.players])
        if unknown:
            raise MarrakechError(
                f"--eval-opponents: expected among {', '.join(OPPONENTS[self.players])}, "
                f"found {', '.join(sorted(unknown))}"
            )

    def opponents(self) -> list[str]:
        return [o.strip() for o in self.eval_opponents.split(",") if o.strip()]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def _name(kind: str, generation: int, suffix: str) -> str:
    return f"{kind}-{generation:04d}.{suffix}"


class Run:
    """A run's folder (see the module docstring)."""

    def __init__(self, folder: Path, config: TrainConfig, ladder_folder: Path | None = None):
        self.folder = folder
        self.config = config
        self.ladder_folder = ladder_folder

    @classmethod
    def open(
        cls, folder: Path, config: TrainConfig, resume: bool, ladder_folder: Path | None = None
    ) -> Run:
        """A new run in ``folder``, or (``resume``) the run already there, which must
        have been started with the same ``config`` (except the ``eval_`` settings: the
        generations to come are rated as given, the log keeps what each one played)."""
        config.check()
        saved = folder / "config.json"
        if saved.exists():
            if not resume:
                raise MarrakechError(
                    f"{folder} holds a run already: add --resume to continue it, or give "
                    "another --out"
                )
            stored = TrainConfig.from_dict(json.loads(saved.read_text()))
            differ = [
                f"{k} {v!r} (given {getattr(config, k)!r})"
                for k, v in asdict(stored).items()
                if getattr(config, k) != v and not k.startswith("eval_")
            ]
            if differ:
                raise MarrakechError(
                    f"{folder} was started with other settings: {', '.join(differ)}; resume "
                    "with the same settings (or leave them out: they are read from "
                    "config.json)"
                )
        else:
            folder.mkdir(parents=True, exist_ok=True)
            saved.write_text(json.dumps(asdict(config), indent=1) + "\n")
        return cls(folder, config, ladder_folder)

    def log(self) -> list[dict[str, Any]]:
        path = self.folder / "log.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def generation(self) -> int:
        """The last finished generation (0: none yet)."""
        lines = self.log()
        return int(lines[-1]["generation"]) if lines else 0

    def network(self, generation: int) -> Network:
        path = self.folder / _name("gen", generation, "npz")
        if generation == 0 and not path.exists():
            network = self._initial()
            network.save(path)
        return Network.load(path)

    def _initial(self) -> Network:
        """Generation 0: the ``init`` network file, or a random network."""
        config = self.config
        if not config.init:
            packaged = config.value_prior.startswith("packaged")
            prior = load_value(config.players).array() if packaged else None
            network = Network.initial(config.hidden, config.players, config.seed, prior)
            network.meta.update(
                provenance="initial random network, marrakech train",
                value_prior=config.value_prior,
                prior_children=config.value_prior == "packaged-children",
            )
            network = self._start(network)
            if config.features:
                rng = np.random.default_rng([config.seed, 0x4E46])
                wf = network.params["wf"]
                # The features are near [0, 1] and about half of them are on: He's scale.
                wf[:] = rng.standard_normal(wf.shape) * np.sqrt(2.0 / 28.0)
            return network
        try:
            network = Network.load(config.init)
        except NetworkError as error:
            raise MarrakechError(f"--init: {error}") from None
        hidden = network.params["w0"].shape[1]
        if hidden != config.hidden or network.params["w1"].shape[1] != config.hidden:
            raise MarrakechError(
                f"--init {config.init}: expected hidden layers {config.hidden} wide "
                f"(--hidden), found {hidden}"
            )
        if network.players not in (0, config.players):
            raise MarrakechError(
                f"--init {config.init}: expected a network for {config.players} players, "
                f"found one for {network.players}"
            )
        network.meta.update(generation=0, init=config.init)
        return self._start(network)

    def _start(self, network: Network) -> Network:
        """Generation 0 as the run's settings want it: with the feature inputs
        (``features``), with its value head at zero (``zero_value_head``)."""
        config = self.config
        if config.features:
            network = network.with_features()
        if config.zero_value_head:
            network.params["wv"][:] = 0.0
            network.params["bv"][:] = 0.0
        return network

    def optimizer(self, generation: int, network: Network) -> Adam:
        if generation == 0:
            return Adam(network, self.config.rate)
        path = self.folder / _name("optimizer", generation, "npz")
        if not path.exists():
            raise MarrakechError(
                f"{path} is missing: the run cannot continue generation {generation} exactly "
                "(it was deleted, or the folder was copied without it)"
            )
        adam, saved = Adam.load(path, network)
        if saved != generation:  # pragma: no cover - names and contents agree
            raise MarrakechError(f"{path} holds generation {saved}, expected {generation}")
        return adam

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder's lock (``train.lock``) while training: a second process on
        the same run (another session's resume) is refused, not interleaved. The lock
        goes with the process, however it ends."""
        import fcntl

        with (self.folder / "train.lock").open("a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise MarrakechError(
                    f"{self.folder} is being trained by another process (it holds "
                    f"{self.folder / 'train.lock'}): stop that one first"
                ) from None
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def run(self, generations: int, report: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Continue the run up to ``generations`` finished generations."""
        with self.lock():
            # Written here, under the lock: a second process refused on a busy folder
            # leaves the running one's settings alone. (The evaluation may change on a
            # resume: it trains nothing.)
            saved = self.folder / "config.json"
            text = json.dumps(asdict(self.config), indent=1) + "\n"
            if saved.read_text() != text:
                saved.write_text(text)
            done = self.generation()
            network = self.network(done)
            adam = self.optimizer(done, network)
            for generation in range(done + 1, generations + 1):
                line = self.step(generation, network, adam)
                if report is not None:
                    report(line)

    def step(self, generation: int, network: Network, adam: Adam) -> dict[str, Any]:
        """One generation (see the module docstring); updates ``network`` and ``adam``."""
        config = self.config
        started = time.process_time()
        data = self._self_play(generation, network)
        played = time.process_time() - started
        data.save(self.folder / _name("selfplay", generation, "npz"))
        games_path = self.folder / _name("games", generation, "jsonl")
        temporary = games_path.with_name(games_path.name + ".tmp")
        temporary.write_text("".join(record.to_json() + "\n" for record in data.records))
        temporary.replace(games_path)

        started = time.process_time()
        fresh = losses(network, data)
        window = self._window(generation)
        policy_loss, value_loss = train(network, adam, window, config, generation)
        trained = time.process_time() - started
        network.meta.update(
            generation=generation,
            players=config.players,
            provenance=(
                f"marrakech train: {config.games} self-play games a generation, "
                f"{config.simulations} simulations, seed {config.seed}"
            ),
        )
        network.save(self.folder / _name("gen", generation, "npz"))
        adam.save(self.folder / _name("optimizer", generation, "npz"), generation)

        started = time.process_time()
        evaluation = self.evaluate(generation)
        evaluated = time.process_time() - started
        line: dict[str, Any] = {
            "generation": generation,
            "games": generation * config.games,
            "positions": len(data.rows),
            "window_positions": len(window.rows),
            "policy_loss": round(policy_loss, 4),
            "value_loss": round(value_loss, 4),
            "fresh_policy_loss": round(fresh[0], 4),
            "fresh_value_loss": round(fresh[1], 4),
            "selfplay_cpu_s": round(played, 2),
            "positions_per_cpu_s": round(len(data.rows) / max(played, 1e-9), 1),
            "train_cpu_s": round(trained, 2),
            "eval_cpu_s": round(evaluated, 2),
            "network": _name("gen", generation, "npz"),
            "eval": evaluation,
        }
        with (self.folder / "log.jsonl").open("a") as log:
            log.write(json.dumps(line) + "\n")
        self._tidy(generation)
        return line

    def _self_play(self, generation: int, network: Network) -> SelfPlayData:
        """Generation ``generation``'s self-play games, played by ``network`` (that of
        the generation before): the same games whenever they are played."""
        config = self.config
        return play(
            network, config.players, config.games, config.simulations, config.considered,
            seed=config.seed * 1_000_003 + generation,
            label=f"az-gen{generation - 1:04d}",
        )  # fmt: skip

    def _window(self, generation: int) -> SelfPlayData:
        parts = []
        for g in range(max(1, generation - self.config.window + 1), generation + 1):
            path = self.folder / _name("selfplay", g, "npz")
            if not path.exists():
                # A run carried to another machine keeps its networks, not its self-play
                # data (megabytes a generation): play those games again, the same ones.
                previous = self.folder / _name("gen", g - 1, "npz")
                if not previous.exists():
                    raise MarrakechError(
                        f"{self.folder}: cannot train generation {generation} without "
                        f"{path.name} or, to play its games again, {previous.name}"
                    )
                self._self_play(g, Network.load(previous)).save(path)
            parts.append(SelfPlayData.load(path))
        return SelfPlayData(
            np.concatenate([p.rows for p in parts]),
            np.concatenate([p.policies for p in parts]),
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.searched for p in parts]),
            [],
        )

    def _tidy(self, generation: int) -> None:
        """Drop what a resumed run no longer needs (older optimisers, old windows)."""
        for path in self.folder.glob("optimizer-*.npz"):
            if path.name != _name("optimizer", generation, "npz"):
                path.unlink()
        oldest = generation - self.config.window + 1
        for path in self.folder.glob("selfplay-*.npz"):
            if int(path.stem.split("-")[1]) < oldest:
                path.unlink()

    def spec(self, generation: int) -> str:
        """The bot spec that plays generation ``generation`` in the ladder's matches."""
        path = (self.folder / _name("gen", generation, "npz")).resolve()
        if "@" in str(path):
            raise MarrakechError(f"{path}: a path with '@' cannot be a bot spec")
        return f"az@weights={path}@simulations={self.config.eval_simulations}"

    def evaluate(self, generation: int) -> dict[str, Any]:
        """Generation ``generation`` against each reference opponent (seats rotated, the
        arena's seeds), the win shares with their 95% intervals, raw and luck-corrected;
        with a ladder folder also its Bradley-Terry rating, as a gap to greedy."""
        config = self.config
        if config.eval_games < 1 or not config.opponents():
            return {}
        spec = self.spec(generation)
        folder = self.folder / "eval"
        folder.mkdir(exist_ok=True)
        found: dict[str, Any] = {}
        everything = []
        for label in config.opponents():
            opponent = OPPONENTS[config.players][label]
            match = MatchConfig(
                config.players,
                (spec,) + (opponent,) * (config.players - 1),
                config.eval_games,
                config.seed,
            )
            path = folder / f"gen-{generation:04d}-{label}-{config.players}p.jsonl"
            if path.exists():  # a stopped run: the match continues where it stopped
                path.unlink()  # (the az path is absolute: replay rather than compare)
            outcome = run_match(match, out=path)
            if outcome.interrupted:
                raise KeyboardInterrupt
            rows = {row.bot: row for row in summarise(outcome.games)}
            mine = rows[spec]
            found[label] = {
                "opponent": opponent,
                "games": len(outcome.games),
                "win_share": round(mine.win_share, 4),
                "ci": [round(mine.ci_low, 4), round(mine.ci_high, 4)],
                "corrected": round(mine.corrected_share, 4),
                "corrected_ci": [round(mine.corrected_low, 4), round(mine.corrected_high, 4)],
            }
            everything.extend(outcome.games)
        if self.ladder_folder is not None:
            rows_ = ladder(everything + reference_games(self.ladder_folder, config.players, set()))
            rating = {bot: (r, lo, hi) for bot, _, r, lo, hi in rows_}
            if "greedy" in rating:
                base = rating["greedy"][0]
                r, lo, hi = rating[spec]
                found["rating_vs_greedy"] = [round(r - base), round(lo - base), round(hi - base)]
        return found


NetworkInputs = tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float32] | None,
    npt.NDArray[np.float32] | None,
]


def network_inputs(network: Network, rows: npt.NDArray[np.int32]) -> NetworkInputs:
    """The observations (from the mover's seat), legal masks, value prior's part
    (:meth:`Network.bias`) and feature inputs (:meth:`Network.features`) of kernel rows."""
    rows = np.ascontiguousarray(rows)
    observations = np.zeros((len(rows), network.params["w0"].shape[0]), dtype=np.float32)
    masks = np.zeros((len(rows), network.params["wp"].shape[1]), dtype=np.bool_)
    batch_observe(rows, rows[:, TURN].astype(np.int64), observations)
    batch_masks(rows, masks)
    return observations, masks, network.bias(rows), network.features(rows)


def losses(network: Network, data: SelfPlayData, most: int = 8192) -> tuple[float, float]:
    """The policy and value losses of ``network`` on (at most ``most`` evenly spread)
    decisions of ``data``: on a generation's new games, before training on them, how
    well the previous network predicted them (an overfitted value shows here)."""
    index = np.unique(np.linspace(0, len(data.rows) - 1, min(most, len(data.rows))).astype(int))
    observations, masks, bias, features = network_inputs(network, data.rows[index])
    policy_loss, value_loss, _ = network.gradients(
        observations, masks, data.policies[index], data.values[index], bias=bias, features=features
    )
    return policy_loss, value_loss


def train(
    network: Network, adam: Adam, data: SelfPlayData, config: TrainConfig, generation: int
) -> tuple[float, float]:
    """``config.steps`` Adam steps on minibatches drawn from ``data`` (seeded by the
    run's seed and ``generation``); the mean losses of the last tenth of the steps. The
    value's target is the outcome, blended with the root's searched value by
    ``config.value_mix``."""
    mix = np.float32(config.value_mix)
    targets = (1 - mix) * data.values + mix * data.searched
    rng = np.random.default_rng([config.seed, generation, 0x7A11])
    n = len(data.rows)
    size = min(config.batch, n)
    tail = max(1, config.steps // 10)
    recent = np.zeros((tail, 2))
    for step in range(config.steps):
        index = np.sort(rng.choice(n, size=size, replace=False))
        observations, masks, bias, features = network_inputs(network, data.rows[index])
        p_loss, v_loss, grads = network.gradients(
            observations,
            masks,
            data.policies[index],
            targets[index],
            value_weight=config.value_weight,
            bias=bias,
            features=features,
        )
        adam.update(network, grads)
        if step >= config.steps - tail:
            recent[step - (config.steps - tail)] = (p_loss, v_loss)
    policy_loss, value_loss = recent.mean(axis=0)
    return float(policy_loss), float(value_loss)
