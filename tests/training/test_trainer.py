"""marrakech train: self-play data, resumable generations, the az bot spec."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from marrakech import State
from marrakech.actions import DECISION_IDS
from marrakech.bots import check_players, make_bot
from marrakech.bots.az import AzBot
from marrakech.bots.value import load_value
from marrakech.cli import main
from marrakech.errors import MarrakechError
from marrakech.fast.az_network import Network
from marrakech.fast.kernels import POSITION_FIELDS, batch_masks
from marrakech.fast.rows import to_arrays
from marrakech.training.selfplay import play
from marrakech.training.trainer import Run, TrainConfig

TINY = TrainConfig(
    players=2,
    games=2,
    simulations=4,
    hidden=8,
    steps=3,
    batch=16,
    window=2,
    value_mix=0.5,
    eval_games=0,
)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_value_targets_sum_to_one_and_match_the_recorded_outcome(players: int) -> None:
    data = play(Network.initial(8, players, seed=1), players, 2, 4, 12, seed=players)
    assert len(data.records) == 2
    np.testing.assert_allclose(data.values.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(data.policies.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(data.searched.sum(axis=1), 1.0, rtol=1e-5)  # --value-mix's
    assert not data.searched[:, players:].any()
    masks = np.zeros((len(data.rows), DECISION_IDS), dtype=np.bool_)
    batch_masks(data.rows, masks)
    assert not data.policies[~masks].any()  # the improved policy covers legal ids only
    position = 0
    for record in data.records:  # the records replay, and the rows are their decisions
        decisions = []
        for state in record.states():
            if not state.is_chance and not state.is_terminal:
                decisions.append(state)
        shares = record.final_state().outcome().win_shares
        for state in decisions:
            row = data.rows[position]
            assert (row[:POSITION_FIELDS] == to_arrays(state)[:POSITION_FIELDS]).all()
            mover = state.to_move
            expected = [shares[(mover + r) % players] if r < players else 0.0 for r in range(4)]
            assert data.values[position].tolist() == pytest.approx(expected)
            position += 1
    assert position == len(data.rows)


def _files(folder: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".npz":
            with np.load(path) as data:
                found[path.name] = {k: data[k].tolist() for k in data.files}
        elif path.name == "log.jsonl":
            lines = [json.loads(line) for line in path.read_text().splitlines()]
            for line in lines:  # CPU times differ between runs; nothing else may
                for key in [k for k in line if "cpu" in k]:
                    del line[key]
            found[path.name] = lines
        elif path.is_file():
            found[path.name] = path.read_text()
    return found


def test_a_resumed_run_continues_bit_identically(tmp_path: Path) -> None:
    whole = Run.open(tmp_path / "whole", TINY, resume=False)
    whole.run(3)
    parts = Run.open(tmp_path / "parts", TINY, resume=False)
    parts.run(1)
    # A stop in the middle of generation 2: its self-play saved, nothing logged.
    (tmp_path / "parts" / "selfplay-0002.npz").write_bytes(b"half a file")
    Run.open(tmp_path / "parts", TINY, resume=True).run(3)
    assert [line["generation"] for line in whole.log()] == [1, 2, 3]
    assert _files(tmp_path / "whole") == _files(tmp_path / "parts")
    with pytest.raises(MarrakechError, match="add --resume"):
        Run.open(tmp_path / "parts", TINY, resume=False)
    other = TrainConfig(**{**TINY.__dict__, "hidden": 9})
    with pytest.raises(MarrakechError, match="hidden 8 \\(given 9\\)"):
        Run.open(tmp_path / "parts", other, resume=True)
    busy = Run.open(tmp_path / "parts", TINY, resume=True)
    config = (tmp_path / "parts" / "config.json").read_text()
    other_eval = TrainConfig(**{**TINY.__dict__, "eval_games": 7})
    with busy.lock(), pytest.raises(MarrakechError, match="being trained by another process"):
        Run.open(tmp_path / "parts", other_eval, resume=True).run(4)
    assert (tmp_path / "parts" / "config.json").read_text() == config  # left alone
    assert [line["generation"] for line in busy.log()] == [1, 2, 3]
    rated = TrainConfig(**{**TINY.__dict__, "eval_games": 2, "eval_opponents": "random"})
    assert Run.open(tmp_path / "parts", rated, resume=True).config == rated  # trains the same


def test_a_run_carried_without_its_self_play_files_plays_them_again(tmp_path: Path) -> None:
    """Another machine gets the networks, the optimiser and the log, not the self-play
    data: the resumed run plays the window's games again and trains exactly the same."""
    whole = Run.open(tmp_path / "whole", TINY, resume=False)
    whole.run(4)
    carried = tmp_path / "carried"
    Run.open(carried, TINY, resume=False).run(3)
    for path in [*carried.glob("selfplay-*.npz"), *carried.glob("games-*.jsonl")]:
        path.unlink()
    Run.open(carried, TINY, resume=True).run(4)
    expected = _files(tmp_path / "whole")
    found = _files(carried)
    # The same networks, optimiser, log and window; the game records of the games played
    # again are not written again (the carried folder's own copies are the ones to keep).
    dropped = {"games-0001.jsonl", "games-0002.jsonl", "games-0003.jsonl"}
    assert found == {k: v for k, v in expected.items() if k not in dropped}
    (carried / "gen-0003.npz").unlink()
    (carried / "selfplay-0004.npz").unlink()
    with pytest.raises(MarrakechError, match=r"without selfplay-0004\.npz or, to play its games"):
        Run.open(carried, TINY, resume=True).run(5)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_az_spec_plays_only_legal_moves_in_a_whole_game(tmp_path: Path, players: int) -> None:
    path = tmp_path / "net.npz"
    Network.initial(8, 0, seed=players).save(path)
    bots = [make_bot(f"az@weights={path}@simulations={n}") for n in (8, 0)]
    state, rng = State.new(players=players), random.Random(players)
    decisions = 0
    while not state.is_terminal:
        legal = state.legal_actions()
        if state.is_chance:
            state = state.apply(rng.choice(legal))
            continue
        action = bots[state.to_move % 2].choose(state, rng)
        assert action in legal
        state = state.apply(action)
        decisions += 1
    assert decisions > 20


def test_an_az_network_refuses_another_player_count(tmp_path: Path) -> None:
    path = tmp_path / "net.npz"
    Network.initial(8, 2, seed=1).save(path)
    bot = make_bot(f"az@weights={path}")
    with pytest.raises(ValueError, match="trained for 2-player games, found a 4-player game"):
        check_players(bot, 4)
    with pytest.raises(ValueError, match="az needs a network file"):
        make_bot("az")
    with pytest.raises(ValueError, match="not found"):
        make_bot(f"az@weights={tmp_path / 'none.npz'}")


def test_the_az_spec_values_the_children_by_the_prior_as_asked(tmp_path: Path) -> None:
    """``children``: by default as the network was trained; ``children=true`` values a
    decision's new children by the prior for a network trained with it at its leaves
    only, and is refused for a network with no prior (the compiled search reads the
    option from the parameters' last array)."""
    leaves = Network.initial(8, 2, seed=1, prior=load_value(2).array())
    leaves.save(tmp_path / "leaves.npz")
    both = leaves.copy()
    both.meta["prior_children"] = True
    both.save(tmp_path / "both.npz")
    Network.initial(8, 2, seed=1).save(tmp_path / "plain.npz")

    def valued(spec: str) -> bool:
        bot = make_bot(spec)
        assert isinstance(bot, AzBot)
        assert bot.children == bool(bot._params[9][0])  # the options (Network.compiled)
        return bool(bot.children)

    assert not valued(f"az@weights={tmp_path / 'leaves.npz'}")
    assert valued(f"az@weights={tmp_path / 'leaves.npz'}@children=true")
    assert valued(f"az@weights={tmp_path / 'both.npz'}")
    assert not valued(f"az@weights={tmp_path / 'both.npz'}@children=false")
    assert not valued(f"az@weights={tmp_path / 'plain.npz'}@children=false")
    with pytest.raises(ValueError, match=r"plain\.npz has none \(expected a network of"):
        make_bot(f"az@weights={tmp_path / 'plain.npz'}@children=true")


def test_marrakech_train_plays_rates_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    tiny = ["--games", "1", "--simulations", "2", "--hidden", "8", "--steps", "2",
            "--batch", "8", "--eval-games", "1", "--eval-opponents", "random"]  # fmt: skip
    assert main(["train", "--out", str(out), "--generations", "1", *tiny]) == 0
    assert "generation 1:" in capsys.readouterr().out
    assert main(["train", "--out", str(out), "--generations", "1"]) == 2
    assert "add --resume" in capsys.readouterr().err
    assert main(["train", "--out", str(out), "--resume", "--generations", "2"]) == 0
    lines = Run(out, TINY).log()
    assert [line["generation"] for line in lines] == [1, 2]
    assert lines[1]["eval"]["random"]["games"] == 1
    assert Network.load(out / "gen-0002.npz").meta["generation"] == 2
    assert (out / "games-0002.jsonl").read_text().count("marrakech-record") == 1


def test_self_play_in_chunks_plays_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    network = Network.initial(8, 3, seed=1)
    whole = play(network, 3, 3, 4, 12, seed=5)
    monkeypatch.setattr("marrakech.training.selfplay.CHUNK", 1)  # a stop is noticed sooner
    parts = play(network, 3, 3, 4, 12, seed=5)
    assert [r.to_json() for r in whole.records] == [r.to_json() for r in parts.records]
    assert (whole.rows == parts.rows).all() and (whole.policies == parts.policies).all()
    assert len({r.to_json() for r in whole.records}) == 3  # three different games


@pytest.mark.parametrize("value_prior", ["packaged", "packaged-children"])
def test_a_run_with_the_packaged_value_prior_keeps_it_through_its_generations(
    tmp_path: Path, value_prior: str
) -> None:
    """``--value-prior packaged``: generation 0 reads the search bots' linear value, and
    every generation after keeps it (only the head learns), with its use for the new
    children (``packaged-children``); the az bot plays with it."""
    config = TrainConfig(**{**TINY.__dict__, "value_prior": value_prior})
    run = Run.open(tmp_path / "run", config, resume=False)
    run.run(2)
    prior = load_value(2).array().tolist()
    for generation in (0, 1, 2):
        network = Network.load(tmp_path / "run" / f"gen-{generation:04d}.npz")
        assert network.prior is not None and network.prior.tolist() == prior
        assert network.prior_children == (value_prior == "packaged-children")
    assert Network.load(tmp_path / "run" / "gen-0000.npz").meta["value_prior"] == value_prior
    bot = make_bot(f"az@weights={tmp_path / 'run' / 'gen-0002.npz'}@simulations=8")
    state = State.new(players=2, first_seat=0)
    while state.is_chance:  # R7: the 2-player game draws its first carpet
        state = state.apply(state.legal_actions()[0])
    assert bot.choose(state, random.Random(1)) in state.legal_actions()
    with pytest.raises(MarrakechError, match="--value-prior: expected one of none, packaged, "):
        TrainConfig(value_prior="x").check()
    with pytest.raises(MarrakechError, match="a network from --init keeps its own value prior"):
        TrainConfig(value_prior="packaged", init="start.npz").check()


def test_a_run_with_feature_inputs_learns_their_weights_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--features``: an ``--init`` network without the feature inputs starts with them
    at zero (the same network) and self-play trains them; a random network starts with
    them random. A stopped run resumes reading them; the az bot plays with them."""
    start = Network.initial(8, 2, seed=4, prior=load_value(2).array())
    start.save(tmp_path / "start.npz")
    out = tmp_path / "run"
    tiny = ["--games", "2", "--simulations", "4", "--hidden", "8", "--steps", "3",
            "--batch", "16", "--eval-games", "0",
            "--init", str(tmp_path / "start.npz")]  # fmt: skip
    assert main(["train", "--out", str(out), "--generations", "1", "--features", *tiny]) == 0
    assert main(["train", "--out", str(out), "--resume", "--generations", "2"]) == 0
    capsys.readouterr()
    assert json.loads((out / "config.json").read_text())["features"] is True
    first, last = (Network.load(out / f"gen-{g:04d}.npz") for g in (0, 2))
    assert first.reads_features and not first.params["wf"].any()
    assert last.reads_features and last.params["wf"].any()
    assert last.prior is not None  # the init network's own prior is kept
    fresh = TrainConfig(**{**TINY.__dict__, "features": True})
    whole = Run.open(tmp_path / "whole", fresh, resume=False)
    whole.run(2)
    assert Network.load(tmp_path / "whole" / "gen-0000.npz").params["wf"].any()
    parts = Run.open(tmp_path / "parts", fresh, resume=False)
    parts.run(1)
    Run.open(tmp_path / "parts", fresh, resume=True).run(2)
    assert _files(tmp_path / "whole") == _files(tmp_path / "parts")
    bot = make_bot(f"az@weights={out / 'gen-0002.npz'}@simulations=8")
    state = State.new(players=2, first_seat=0)
    while state.is_chance:  # R7: the 2-player game draws its first carpet
        state = state.apply(state.legal_actions()[0])
    assert bot.choose(state, random.Random(1)) in state.legal_actions()


def test_a_run_may_train_the_policy_alone_over_the_value_prior(tmp_path: Path) -> None:
    """``--zero-value-head --value-weight 0``: the value head starts at zero and stays
    there, so the search values every position by the prior exactly, while the policy
    trains (the learned heads valued fresh positions worse than the prior alone:
    docs/environments.md)."""
    start = Network.initial(8, 2, seed=4, prior=load_value(2).array())
    start.save(tmp_path / "start.npz")
    settings = {"init": str(tmp_path / "start.npz"), "zero_value_head": True, "value_weight": 0.0}
    config = TrainConfig(**{**TINY.__dict__, **settings})
    Run.open(tmp_path / "run", config, resume=False).run(2)
    first, last = (Network.load(tmp_path / "run" / f"gen-{g:04d}.npz") for g in (0, 2))
    for network in (first, last):
        assert not network.params["wv"].any() and not network.params["bv"].any()
    assert start.params["wv"].any()  # it was not zero before
    assert not np.array_equal(first.params["wp"], last.params["wp"])  # the policy trained
    with pytest.raises(MarrakechError, match=r"--value-weight: expected 0\.\.10, found -1"):
        TrainConfig(value_weight=-1).check()
