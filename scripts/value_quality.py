"""How well each value predicts who wins: the search bots' learned linear value against
self-play networks, on the positions of recorded games (issue 38, item 2).

For every fifth decision of the first ``--games`` games of a 2-player arena results
file, the cross-entropy between the deciding seat's predicted win share and its real
one (R21; 0.693 is saying 50% everywhere, lower is better), for
:func:`marrakech.bots.value.load_value` (7 features a seat, the ``search`` bots' value)
and for each network file given (:mod:`marrakech.fast.az_network`'s value head)::

    python scripts/value_quality.py benchmarks/training/az-2p/gen-0064.npz \\
        benchmarks/training/az-2p-pre/start.npz

With ``--selfplay NETWORK.npz`` the positions are the decisions of ``--games`` fresh
self-play games of that network instead (64 simulations a decision, as the runs
self-play, seeded by ``--seed``: games no network was trained on), every seat's
predicted share against its real one (mean over the decisions of the cross-entropy
summed over the seats), and the search's own value of each root (what the simulations
found, the ``searched`` of :mod:`marrakech.training.selfplay`) is compared too: how much
of what the search knows the values have not learned::

    python scripts/value_quality.py --games 1024 \\
        --selfplay benchmarks/training/az-2p-children/more-simulations/gen-0029.npz \\
        benchmarks/training/az-2p-children/more-simulations/gen-0029.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from marrakech.bots.value import load_value
from marrakech.envs.spec import observation
from marrakech.fast.az_network import Network
from marrakech.fast.rows import to_arrays
from marrakech.record import GameRecord

DEFAULT_GAMES = Path(__file__).resolve().parents[1] / "benchmarks/strength/expert-greedy-2p.jsonl"


def cross_entropy(predicted: float, real: float) -> float:
    p = min(max(predicted, 1e-9), 1 - 1e-9)
    return float(-(real * np.log(p) + (1 - real) * np.log(1 - p)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("networks", nargs="*", type=Path, help="network files (.npz)")
    parser.add_argument("--results", type=Path, default=DEFAULT_GAMES)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--selfplay", type=Path, help="a network whose self-play to use")
    parser.add_argument("--seed", type=int, default=1, help="the self-play's seed (1)")
    args = parser.parse_args()
    if args.selfplay is not None:
        selfplay_quality(args.selfplay, args.games, args.seed, args.networks)
        return
    linear = load_value(2)
    networks = {str(path): Network.load(path) for path in args.networks}
    losses: dict[str, list[float]] = {"linear value (search bots)": []}
    losses.update({name: [] for name in networks})
    games = 0
    for line in args.results.read_text().splitlines():
        data = json.loads(line)
        if data.get("type") != "game" or games >= args.games:
            continue
        record = GameRecord.from_json(json.dumps(data["record"]))
        shares = record.final_state().outcome().win_shares
        state, decisions = record.initial_state(), 0
        for action in record.actions:
            if not state.is_chance and not state.is_terminal:
                if decisions % 5 == 0:
                    seat = state.to_move
                    real = shares[seat]
                    predicted = linear.chances(state)[seat]
                    losses["linear value (search bots)"].append(cross_entropy(predicted, real))
                    seen = observation(state, seat)[None]
                    row = to_arrays(state)[None]
                    for name, network in networks.items():
                        extra = network.bias(row), network.features(row)
                        value = float(network.forward(seen, *extra)[1][0, 0])
                        losses[name].append(cross_entropy(value, real))
                decisions += 1
            state = state.apply(action)
        games += 1
    positions = len(losses["linear value (search bots)"])
    print(f"{games} games of {args.results.name}, {positions} positions (every fifth decision)")
    for name, values in losses.items():
        print(f"  {np.mean(values):.3f}  {name}")


def selfplay_quality(path: Path, games: int, seed: int, network_files: list[Path]) -> None:
    """The cross-entropy to the outcome, on the decisions of ``games`` self-play games of
    the network at ``path``, of the linear value, of each network's value and of the
    search's root values."""
    from marrakech.training.selfplay import play
    from marrakech.training.trainer import network_inputs

    data = play(Network.load(path), 2, games, 64, 12, seed)
    outcome = data.values

    def loss(predicted: np.ndarray) -> float:
        return float(-(outcome * np.log(np.clip(predicted, 1e-9, 1.0))).sum(axis=1).mean())

    plain = Network.initial(8, 0, seed=1, prior=load_value(2).array())
    plain.params["wv"][:] = 0.0  # the value head at zero: the linear value alone
    observations, _, bias, _ = network_inputs(plain, data.rows)
    _, linear = plain.forward(observations, bias)
    print(f"{len(outcome)} decisions of {games} self-play games of {path} (seed {seed})")
    print(f"  {loss(linear):.4f}  linear value (search bots)")
    for file in network_files:
        network = Network.load(file)
        observations, _, bias, features = network_inputs(network, data.rows)
        print(f"  {loss(network.forward(observations, bias, features)[1]):.4f}  {file}")
    print(f"  {loss(data.searched):.4f}  the search's value of each root (searched)")


if __name__ == "__main__":
    main()
