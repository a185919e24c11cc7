"""Train the shipped policies ``policy-2p`` / ``policy-4p``: numpy only, on the CPU batch.

Imitation of ``greedy`` with DAgger (Ross et al., 2011): the compiled batch
(:class:`marrakech.fast.Batch`) plays many games at once and ``greedy``, compiled in the
same batch (:mod:`marrakech.fast.greedy_kernels`), labels every decision position with
its move. Round 0 plays the labels themselves (with ``--explore`` of the decisions
uniform, so that positions vary); each later round plays the network trained so far
(its own mistakes lead to positions ``greedy`` never reaches, and ``greedy`` says what
to do there), and the network is trained again on every round's positions. The network
is the policy file's perceptron (:mod:`marrakech.bots.policy`): the 474-float
observation, ``--hidden`` ReLU layers, 87 logits, illegal ids masked out of the softmax,
cross-entropy with Adam.

    python scripts/train_policy.py --players 2 --seed 1          # writes bots/data/policy-2p.npz
    python scripts/train_policy.py --players 4 --seed 1 --work /tmp/policy-4p --resume

Everything is drawn from ``--seed`` (the batch's streams, numpy's generator); the work
folder keeps each round's positions and a checkpoint after every epoch, so a stopped run
continues with ``--resume``. At the end it plays the policy against ``random`` and
``greedy`` in the batch (seats rotated) and writes the policy file with those figures and
the command in its metadata.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from marrakech.actions import DECISION_IDS
from marrakech.bots.greedy import greedy_params
from marrakech.bots.policy import FORMAT, PolicyNetwork
from marrakech.envs import VectorEnv
from marrakech.fast import Batch
from marrakech.observation import OBSERVATION_SIZE

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "marrakech" / "bots" / "data"
Array = npt.NDArray[np.float32]


class Network:
    """The perceptron being trained, float32, with Adam's moments."""

    def __init__(self, sizes: list[int], rng: np.random.Generator) -> None:
        self.params: list[Array] = []
        for fan_in, fan_out in itertools.pairwise(sizes):
            scale = np.sqrt(2.0 / fan_in)
            self.params.append((rng.standard_normal((fan_in, fan_out)) * scale).astype(np.float32))
            self.params.append(np.zeros(fan_out, dtype=np.float32))
        self.params[-2] *= 0.1  # a near-uniform policy to start
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def forward(self, x: Array) -> tuple[Array, list[Array]]:
        activations = [x]
        layers = len(self.params) // 2
        for k in range(layers):
            x = x @ self.params[2 * k] + self.params[2 * k + 1]
            if k < layers - 1:
                x = np.maximum(x, 0.0)
                activations.append(x)
        return x, activations

    def step(
        self, x: Array, masks: npt.NDArray[np.bool_], labels: npt.NDArray[np.int64], rate: float
    ) -> tuple[float, float]:
        """One Adam step of masked cross-entropy; returns (loss, accuracy)."""
        logits, activations = self.forward(x)
        logits = np.where(masks, logits, -1e9)
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        rows = np.arange(len(labels))
        loss = float(-np.log(probs[rows, labels] + 1e-12).mean())
        accuracy = float((probs.argmax(axis=1) == labels).mean())
        grad = probs
        grad[rows, labels] -= 1.0
        grad /= len(labels)
        grads: list[Array] = [np.empty(0, np.float32)] * len(self.params)
        layers = len(self.params) // 2
        for k in range(layers - 1, -1, -1):
            grads[2 * k] = activations[k].T @ grad
            grads[2 * k + 1] = grad.sum(axis=0)
            if k:
                grad = (grad @ self.params[2 * k].T) * (activations[k] > 0)
        self.t += 1
        b1, b2 = 0.9, 0.999
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            m_hat = m / (1 - b1**self.t)
            v_hat = v / (1 - b2**self.t)
            p -= (rate * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        return loss, accuracy

    def best(self, x: Array, masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        logits, _ = self.forward(x.astype(np.float32))
        chosen: npt.NDArray[np.int64] = np.where(masks, logits, -np.inf).argmax(axis=1)
        return chosen

    def state(self) -> dict[str, npt.NDArray[np.generic]]:
        saved: dict[str, npt.NDArray[np.generic]] = {"t": np.array(self.t)}
        for i, (p, m, v) in enumerate(zip(self.params, self.m, self.v, strict=True)):
            saved[f"p{i}"], saved[f"m{i}"], saved[f"v{i}"] = p, m, v
        return saved

    def restore(self, saved: dict[str, npt.NDArray[np.generic]]) -> None:
        self.t = int(saved["t"])
        for i in range(len(self.params)):
            self.params[i] = saved[f"p{i}"].astype(np.float32)
            self.m[i] = saved[f"m{i}"].astype(np.float32)
            self.v[i] = saved[f"v{i}"].astype(np.float32)


def collect(
    players: int,
    positions: int,
    seed: int,
    games: int,
    explore: float,
    network: Network | None,
) -> tuple[Array, npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """``positions`` decision positions labelled with ``greedy``'s move, from games
    played by ``greedy`` (``network`` None) or by the network, ``explore`` of the
    decisions uniform."""
    batch = Batch(games, players, seed=seed)
    params = greedy_params(None, players)
    rng = np.random.default_rng(seed)
    xs = np.empty((positions, OBSERVATION_SIZE), dtype=np.float32)
    ms = np.empty((positions, DECISION_IDS), dtype=np.bool_)
    ys = np.empty(positions, dtype=np.int64)
    filled = 0
    everyone = np.arange(games)
    while filled < positions:
        over = batch.terminated()
        if over.any():
            batch.reset(over)
        observations = batch.observations()
        masks = batch.legal_masks()
        labels = batch.greedy_actions(everyone, params)
        take = min(games, positions - filled)
        xs[filled : filled + take] = observations[:take]
        ms[filled : filled + take] = masks[:take]
        ys[filled : filled + take] = labels[:take]
        filled += take
        played = labels if network is None else network.best(observations, masks)
        uniform = rng.random(games) < explore
        played = np.where(uniform, batch.sample_actions(), played)
        batch.step(played)
    return xs, ms, ys


def win_rates(network: Network, players: int, games: int, seed: int) -> dict[str, float]:
    """The policy's win share (a shared win counts 1/k) against ``random`` and
    ``greedy`` in the batch, the learning seat rotating."""
    rates: dict[str, float] = {}
    for opponent in ("random", "greedy"):
        env = VectorEnv(
            min(games, 500),
            players,
            opponents=(opponent,) * (players - 1),
            seat="rotate",
            seed=seed,
            reward="win",
        )
        observations, infos = env.reset(seed=seed)
        total, done = 0.0, 0
        while done < games:
            actions = network.best(observations, infos["action_mask"])
            observations, rewards, terminated, _, infos = env.step(actions)
            total += float(rewards[terminated].sum())
            done += int(terminated.sum())
        rates[opponent] = total / done
    return rates


def export(network: Network, path: Path, meta: dict[str, object]) -> None:
    arrays: dict[str, npt.NDArray[np.generic]] = {}
    for k in range(len(network.params) // 2):
        arrays[f"w{k}"] = np.ascontiguousarray(network.params[2 * k], dtype="<f4")
        arrays[f"b{k}"] = np.ascontiguousarray(network.params[2 * k + 1], dtype="<f4")
    arrays["meta"] = np.frombuffer(json.dumps(meta, indent=1).encode("utf-8"), dtype=np.uint8)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]
    PolicyNetwork.load(path)  # the package reads back what was written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="DAgger rounds (round 0: greedy)")
    parser.add_argument("--positions", type=int, default=150_000, help="per round")
    parser.add_argument("--epochs", type=int, default=3, help="epochs after each round")
    parser.add_argument("--hidden", default="256,256", help="hidden layer widths")
    parser.add_argument("--batch", type=int, default=512, help="minibatch")
    parser.add_argument("--rate", type=float, default=1e-3, help="Adam step size")
    parser.add_argument("--games", type=int, default=1024, help="games played at once")
    parser.add_argument("--explore", type=float, default=0.1, help="uniform decisions")
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--work", type=Path, default=None, help="checkpoints and data")
    parser.add_argument("--resume", action="store_true", help="continue from --work")
    parser.add_argument("--out", type=Path, default=None, help="default bots/data/policy-Np.npz")
    args = parser.parse_args()
    work = args.work or Path(f"/tmp/marrakech-policy-{args.players}p-seed{args.seed}")
    out = args.out or DATA / f"policy-{args.players}p.npz"
    work.mkdir(parents=True, exist_ok=True)
    checkpoint = work / "checkpoint.npz"
    if checkpoint.exists() and not args.resume:
        sys.exit(f"{checkpoint} exists: continue it with --resume, or give another --work")
    sizes = [OBSERVATION_SIZE, *(int(h) for h in args.hidden.split(",")), DECISION_IDS]
    rng = np.random.default_rng(args.seed)
    network = Network(sizes, rng)
    done_round, done_epoch = -1, -1
    if args.resume and checkpoint.exists():
        saved = dict(np.load(checkpoint))
        network.restore(saved)
        done_round, done_epoch = int(saved["round"]), int(saved["epoch"])
        rng.bit_generator.state = json.loads(bytes(saved["rng"]).decode())
        print(f"resumed: round {done_round}, epoch {done_epoch}", flush=True)
    started = time.monotonic()
    history: list[dict[str, float]] = []
    for round_ in range(args.rounds):
        data = work / f"round-{round_}.npz"
        if data.exists():
            pass
        else:
            t0 = time.monotonic()
            xs, ms, ys = collect(
                args.players,
                args.positions,
                args.seed * 1000 + round_,
                args.games,
                args.explore,
                None if round_ == 0 else network,
            )
            np.savez(data, x=xs, m=ms, y=ys)
            print(
                f"round {round_}: {len(ys)} positions in {time.monotonic() - t0:.0f}s",
                flush=True,
            )
        if round_ < done_round:
            continue
        parts = [np.load(work / f"round-{r}.npz") for r in range(round_ + 1)]
        xs = np.concatenate([p["x"] for p in parts])
        ms = np.concatenate([p["m"] for p in parts])
        ys = np.concatenate([p["y"] for p in parts])
        for epoch in range(args.epochs):
            if round_ == done_round and epoch <= done_epoch:
                continue
            t0 = time.monotonic()
            order = rng.permutation(len(ys))
            losses, accuracies = [], []
            for start in range(0, len(order), args.batch):
                pick = order[start : start + args.batch]
                loss, accuracy = network.step(xs[pick], ms[pick], ys[pick], args.rate)
                losses.append(loss)
                accuracies.append(accuracy)
            record = {
                "round": round_,
                "epoch": epoch,
                "loss": float(np.mean(losses)),
                "accuracy": float(np.mean(accuracies)),
            }
            history.append(record)
            print(
                f"round {round_} epoch {epoch}: {len(ys)} positions, loss {record['loss']:.4f}, "
                f"agreement with greedy {record['accuracy']:.3f} ({time.monotonic() - t0:.0f}s)",
                flush=True,
            )
            state = network.state()
            state["round"], state["epoch"] = np.array(round_), np.array(epoch)
            state["rng"] = np.frombuffer(json.dumps(rng.bit_generator.state).encode(), np.uint8)
            np.savez(work / "checkpoint.tmp.npz", **state)  # type: ignore[arg-type]
            os.replace(work / "checkpoint.tmp.npz", checkpoint)
    rates = win_rates(network, args.players, args.eval_games, args.seed + 7)
    print(
        f"win share against random {rates['random']:.3f}, against greedy {rates['greedy']:.3f} "
        f"({args.eval_games} games each, seats rotated)",
        flush=True,
    )
    final = history[-1] if history else {}
    meta = {
        "format": FORMAT,
        "players": args.players,
        "trained_by": "scripts/train_policy.py " + " ".join(sys.argv[1:]),
        "method": "imitation of greedy with DAgger on the compiled batch",
        "seed": args.seed,
        "rounds": args.rounds,
        "positions": args.rounds * args.positions,
        "hidden": args.hidden,
        "agreement_with_greedy": final.get("accuracy"),
        "batch_win_share": rates,
        "eval_games": args.eval_games,
        "date": time.strftime("%Y-%m-%d"),
        "train_seconds": round(time.monotonic() - started),
    }
    export(network, out, meta)
    print(f"wrote {out} ({out.stat().st_size} bytes)", flush=True)


if __name__ == "__main__":
    main()
