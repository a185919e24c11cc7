"""A network's start from recorded games: the strong bots' decisions and the outcomes.

``marrakech train`` starts from a random network and, on two cores, self-play from
nothing reaches about a third of ``greedy``'s strength (docs/environments.md). The
project's recorded games (:mod:`marrakech.envs.dataset`: the arena's games behind
docs/bots.md, hundreds of thousands of decisions of ``search`` up to 70,000 iterations)
give it a start, as AlphaGo's supervised network did for its self-play: the policy head
learns the decisions of the chosen bots (cross-entropy on the decision they played), the
value head each seat's final win share (R21) at those decisions. At 2 players that
start saves self-play its first fifteen generations or so, no more
(docs/environments.md, *Measured: a start from the recorded games*).

>>> import numpy as np
>>> values_by_seat(np.array([0.0, 1.0, 0.0]), mover=1, players=3).tolist()
[1.0, 0.0, 0.0, 0.0]

``marrakech pretrain --players 2 --out start.npz`` writes the network file
(:mod:`marrakech.fast.az_network`); ``marrakech train --init start.npz`` starts
self-play from it, and ``az@weights=start.npz`` plays it as a bot.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from marrakech.actions import DECISION_IDS
from marrakech.envs.dataset import iter_games
from marrakech.errors import MarrakechError
from marrakech.fast.az_network import SEATS, Adam, Network, masked_softmax

#: The bots whose decisions the policy learns by default, by player count: the
#: ``search`` of 2,000 iterations and more (docs/bots.md: all beat ``greedy``).
STRONG_BOTS: dict[int, tuple[str, ...]] = {
    2: (
        "search@iterations=70000",
        "search-quick@iterations=17500",
        "search@iterations=10000",
        "search@iterations=8000",
        "search@iterations=2000",
    ),
    4: (
        "search@iterations=44000",
        "search-quick@iterations=11000",
        "search@iterations=5000",
    ),
}

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Examples:
    """Decisions to learn from: observations (from the mover's seat), legal masks, the
    decision played and the win share of each seat relative to the mover."""

    observations: Floats  #: ``(n, 474)``
    masks: npt.NDArray[np.bool_]  #: ``(n, 87)``
    actions: npt.NDArray[np.int64]  #: ``(n,)``
    values: Floats  #: ``(n, 4)``
    games: npt.NDArray[np.int32]  #: ``(n,)`` the game each decision belongs to

    def __len__(self) -> int:
        return len(self.actions)

    def subset(self, index: npt.NDArray[np.intp]) -> Examples:
        return Examples(
            self.observations[index],
            self.masks[index],
            self.actions[index],
            self.values[index],
            self.games[index],
        )


def values_by_seat(shares: npt.NDArray[Any], mover: int, players: int) -> Floats:
    """The value head's target: each seat's win share, seat ``r`` of the result being
    ``r`` places after ``mover`` in turn order (0 is the mover; absent seats 0)."""
    out = np.zeros(SEATS, dtype=np.float32)
    for r in range(players):
        out[r] = shares[(mover + r) % players]
    return out


def load_examples(
    players: int,
    bots: Iterable[str],
    sources: Iterable[str | Path] | None = None,
    max_games: int | None = None,
) -> Examples:
    """The decisions of ``bots`` (names as the arena writes them) in the finished games
    of ``players`` seats of ``sources`` (the dataset's default games if None)."""
    wanted = set(bots)
    parts: dict[str, list[Any]] = {"obs": [], "masks": [], "actions": [], "values": [], "games": []}
    count = 0
    for game in iter_games(sources, players=players, bots=wanted):
        if max_games is not None and count >= max_games:
            break
        chosen = np.array([game.seat_names[seat] in wanted for seat in game.seats], dtype=bool)
        if not chosen.any():
            continue
        parts["obs"].append(game.observations[chosen])
        parts["masks"].append(game.masks[chosen])
        parts["actions"].append(game.actions[chosen])
        parts["values"].append(
            np.stack([values_by_seat(game.win_shares, int(s), players) for s in game.seats[chosen]])
        )
        parts["games"].append(np.full(int(chosen.sum()), count, dtype=np.int32))
        count += 1
    if not count:
        raise MarrakechError(
            f"no finished {players}-player game has a seat among {', '.join(sorted(wanted))}"
        )
    return Examples(
        np.concatenate(parts["obs"]).astype(np.float32),
        np.concatenate(parts["masks"]),
        np.concatenate(parts["actions"]).astype(np.int64),
        np.concatenate(parts["values"]),
        np.concatenate(parts["games"]),
    )


def split(examples: Examples, held_out: float, seed: int) -> tuple[Examples, Examples]:
    """The examples of a random ``held_out`` share of the games apart from the rest
    (whole games: a game's decisions share its outcome)."""
    games = np.unique(examples.games)
    rng = np.random.default_rng([seed, 0x5E7])
    apart = rng.random(len(games)) < held_out
    test = np.isin(examples.games, games[apart])
    return examples.subset(np.flatnonzero(~test)), examples.subset(np.flatnonzero(test))


def one_hot(actions: npt.NDArray[np.int64]) -> Floats:
    """The policy's target: each decision played as a distribution over the 87 ids."""
    targets = np.zeros((len(actions), DECISION_IDS), dtype=np.float32)
    targets[np.arange(len(actions)), actions] = 1.0
    return targets


def evaluate(network: Network, examples: Examples, most: int = 20_000) -> dict[str, float]:
    """On (at most ``most`` evenly spread) examples: the policy's and the value's
    cross-entropy and how often the policy's best legal id is the decision played."""
    if not len(examples):
        return {"policy_loss": float("nan"), "value_loss": float("nan"), "agreement": float("nan")}
    index = np.unique(np.linspace(0, len(examples) - 1, min(most, len(examples))).astype(int))
    part = examples.subset(index)
    policy_loss, value_loss, _ = network.gradients(
        part.observations, part.masks, one_hot(part.actions), part.values
    )
    logits, _ = network.forward(part.observations)
    best = masked_softmax(logits, part.masks).argmax(axis=1)
    return {
        "policy_loss": policy_loss,
        "value_loss": value_loss,
        "agreement": float((best == part.actions).mean()),
    }


def pretrain(
    network: Network,
    examples: Examples,
    epochs: int,
    batch: int = 256,
    rate: float = 1e-3,
    seed: int = 1,
    report: Callable[[int, dict[str, float]], None] | None = None,
    value_weight: float = 1.0,
) -> Network:
    """``epochs`` passes of Adam over ``examples`` in shuffled minibatches of ``batch``
    (``network`` trained in place and returned); ``report(epoch, losses)`` after each,
    with the mean training losses of the epoch. ``value_weight`` scales the value's
    loss against the policy's: the decisions of one game share its outcome, so the
    value learns the games by heart long before the policy has learned the decisions."""
    adam = Adam(network, rate)
    rng = np.random.default_rng([seed, 0x9E7])
    n = len(examples)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(n)
        totals = np.zeros(2)
        steps = 0
        for start in range(0, n, batch):
            index = np.sort(order[start : start + batch])
            p_loss, v_loss, grads = network.gradients(
                examples.observations[index],
                examples.masks[index],
                one_hot(examples.actions[index]),
                examples.values[index],
                value_weight=value_weight,
            )
            adam.update(network, grads)
            totals += (p_loss, v_loss)
            steps += 1
        if report is not None:
            report(epoch, {"policy_loss": totals[0] / steps, "value_loss": totals[1] / steps})
    return network


# -- the command -----------------------------------------------------------------------


def add_parser(subparsers: Any) -> None:
    """Add the ``pretrain`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "pretrain",
        help="a network for `marrakech train --init` from the recorded games",
        description=(
            "Fit a self-play network (the policy to the chosen bots' decisions, the value "
            "to each seat's final win share) on the recorded games of the dataset "
            "(marrakech.envs.dataset) and write its network file; a share of the games is "
            "held out and the losses and agreement on them are printed each epoch."
        ),
    )
    parser.add_argument("--out", required=True, help="the network file to write (.npz)")
    parser.add_argument("--players", type=int, default=2, choices=sorted(STRONG_BOTS))
    parser.add_argument(
        "--bots",
        default=None,
        help="comma-separated bot names whose decisions to learn (default: the search "
        "bots of 2,000 iterations and more)",
    )
    parser.add_argument(
        "--source",
        action="append",
        default=None,
        help="a results file or folder of games (repeatable; default: the dataset's)",
    )
    parser.add_argument("--max-games", type=int, default=None)
    parser.add_argument("--hidden", type=int, default=128, help="hidden width (128)")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--rate", type=float, default=1e-3)
    parser.add_argument(
        "--value-weight", type=float, default=0.1, help="the value loss's weight (0.1)"
    )
    parser.add_argument("--held-out", type=float, default=0.05, help="share of games (0.05)")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    bots = (
        tuple(b.strip() for b in args.bots.split(",") if b.strip())
        if args.bots
        else STRONG_BOTS[args.players]
    )
    began = time.process_time()
    examples = load_examples(args.players, bots, args.source, args.max_games)
    training, held = split(examples, args.held_out, args.seed)
    print(
        f"{len(examples)} decisions of {len(np.unique(examples.games))} games "
        f"({len(held)} held out), read in {time.process_time() - began:.0f} CPU-s",
        flush=True,
    )
    network = Network.initial(args.hidden, args.players, args.seed)

    def report(epoch: int, losses: dict[str, float]) -> None:
        held_out = evaluate(network, held)
        print(
            f"epoch {epoch}: training losses {losses['policy_loss']:.3f} "
            f"{losses['value_loss']:.3f}; held out {held_out['policy_loss']:.3f} "
            f"{held_out['value_loss']:.3f}, agrees {held_out['agreement']:.3f}; "
            f"{time.process_time() - began:.0f} CPU-s",
            flush=True,
        )

    pretrain(
        network, training, args.epochs, args.batch, args.rate, args.seed, report, args.value_weight
    )
    network.meta.update(
        provenance=(
            f"marrakech pretrain: {args.epochs} epochs (value weight {args.value_weight}) on "
            f"{len(training)} decisions of "
            f"{', '.join(bots)}"
        ),
        generation=0,
    )
    network.save(args.out)
    print(f"wrote {args.out}")
    return 0
