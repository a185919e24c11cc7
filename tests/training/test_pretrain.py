"""marrakech pretrain: a network from recorded games, and marrakech train --init."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from marrakech.actions import DECISION_IDS
from marrakech.cli import main
from marrakech.envs.dataset import iter_games
from marrakech.errors import MarrakechError
from marrakech.fast.az_network import Network
from marrakech.training.pretrain import evaluate, load_examples, pretrain, split
from marrakech.training.trainer import Run, TrainConfig


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six arena games of ``greedy`` against ``random`` at 2 players (a results file)."""
    out = tmp_path_factory.mktemp("games") / "greedy-random.jsonl"
    args = ["arena", "--players", "2", "--bots", "greedy,random", "--games", "6"]
    assert main([*args, "--seed", "3", "--out", str(out)]) == 0
    return out


def test_examples_are_the_chosen_bots_decisions_and_each_seats_outcome(games: Path) -> None:
    examples = load_examples(2, ["greedy"], [games])
    expected_obs, expected_values = [], []
    for game in iter_games([games], players=2):
        for k, seat in enumerate(game.seats):
            if game.seat_names[seat] == "greedy":
                expected_obs.append(game.observations[k])
                mine, other = game.win_shares[seat], game.win_shares[1 - seat]
                expected_values.append([mine, other, 0.0, 0.0])
    assert len(examples) == len(expected_obs) > 100  # greedy's decisions, not random's
    np.testing.assert_array_equal(examples.observations, np.array(expected_obs))
    np.testing.assert_allclose(examples.values, np.array(expected_values))
    assert examples.masks[np.arange(len(examples)), examples.actions].all()  # played: legal
    assert sorted(set(examples.games.tolist())) == list(range(6))
    with pytest.raises(MarrakechError, match="no finished 2-player game has a seat among"):
        load_examples(2, ["expert"], [games])


def test_pretraining_learns_the_decisions(games: Path) -> None:
    examples = load_examples(2, ["greedy"], [games])
    training, held = split(examples, 0.34, seed=1)
    assert len(training) and len(held)
    assert not set(training.games.tolist()) & set(held.games.tolist())  # whole games apart
    network = Network.initial(32, 2, seed=1)
    before = evaluate(network, training)
    losses: list[float] = []
    pretrain(network, training, epochs=30, batch=64, rate=3e-3, seed=1,
             report=lambda epoch, found: losses.append(found["policy_loss"]))  # fmt: skip
    after = evaluate(network, training)
    assert len(losses) == 30 and losses[-1] < losses[0]
    assert after["policy_loss"] < before["policy_loss"] - 0.5
    assert after["agreement"] > before["agreement"] + 0.3


def test_marrakech_pretrain_writes_a_network_that_train_starts_from(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = tmp_path / "start.npz"
    args = ["pretrain", "--players", "2", "--source", str(games), "--bots", "greedy"]
    args += ["--hidden", "8", "--epochs", "2", "--out", str(start)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "decisions of 6 games" in printed and "epoch 2: training losses" in printed
    network = Network.load(start)
    assert network.players == 2 and "marrakech pretrain" in network.meta["provenance"]

    config = TrainConfig(players=2, games=1, simulations=2, hidden=8, steps=1, batch=8,
                         eval_games=0, init=str(start))  # fmt: skip
    run = Run.open(tmp_path / "run", config, resume=False)
    run.run(1)
    first = Network.load(tmp_path / "run" / "gen-0000.npz")
    for name, array in network.params.items():
        np.testing.assert_array_equal(first.params[name], array)  # generation 0 is the file
    assert json.loads((tmp_path / "run" / "config.json").read_text())["init"] == str(start)
    assert first.params["wp"].shape == (8, DECISION_IDS)

    wide = TrainConfig(**{**config.__dict__, "hidden": 16})
    with pytest.raises(MarrakechError, match="expected hidden layers 16 wide"):
        Run.open(tmp_path / "wide", wide, resume=False).run(1)
    missing = TrainConfig(**{**config.__dict__, "init": str(tmp_path / "none.npz")})
    with pytest.raises(MarrakechError, match=r"--init: network file .* not found"):
        Run.open(tmp_path / "missing", missing, resume=False).run(1)
    four = TrainConfig(**{**config.__dict__, "players": 4})
    with pytest.raises(MarrakechError, match="expected a network for 4 players, found one for 2"):
        Run.open(tmp_path / "four", four, resume=False).run(1)
