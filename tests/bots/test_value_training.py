"""``scripts/value_data.py`` and ``scripts/train_value.py``: the learned value's data and fit,
on a small self-play sample (the packaged weights use 400,000-500,000 positions)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from marrakech.bots.value import FEATURES, ValueModel
from tests.bots.conftest import load_script

# One worker for the module, and its self-play data made once per session: a module's
# fixture is torn down whenever the worker runs another module's test in between.
pytestmark = pytest.mark.xdist_group("value_training")


@pytest.fixture(scope="session")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("value") / "value-2p.npz"
    generator = load_script("value_data")
    args = ["--players", "2", "--positions", "30000", "--iterations", "10", "--seed", "3"]
    assert generator.main([*args, "--test-every", "4", "--out", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def trainer() -> ModuleType:
    return load_script("train_value")


def test_the_data_holds_each_position_s_final_ranks_and_scores(data_file: Path) -> None:
    data = np.load(data_file)
    n = len(data["progress"])
    assert n == 30000 and data["features"].shape == (n, 4, FEATURES)
    assert data["scores"].shape == data["ranks"].shape == (n, 4)
    ranks, scores = data["ranks"][:, :2], data["scores"][:, :2]
    assert (ranks.min(axis=1) == 1).all() and (data["scores"][:, 2:] == 0).all()
    # R21: the loser scores less or as much (dirhams break ties), unless eliminated (R13)
    winner = ranks.argmin(axis=1)
    loser_score = scores[np.arange(n), 1 - winner]
    ahead = loser_score > scores[np.arange(n), winner]
    assert (ranks[ahead].max(axis=1) == 2).all()
    assert len(data["test_rows"]) == int(data["test"].sum()) > 0


def test_all_rows_keeps_every_position_whole(tmp_path: Path) -> None:
    # --all-rows stores each recorded position as a kernel row (for fitting values on
    # features the packaged value does not compute); the features are those of the row.
    from marrakech.fast.search_kernels import seat_features

    path = tmp_path / "rows.npz"
    generator = load_script("value_data")
    args = ["--players", "3", "--positions", "1000", "--iterations", "5", "--seed", "2"]
    assert generator.main([*args, "--all-rows", "--out", str(path)]) == 0
    data = np.load(path)
    assert "test_rows" not in data.files
    rows, features = data["rows"], data["features"]
    assert len(rows) == len(features) == 1000
    out = np.zeros((4, FEATURES))
    for i in range(0, 1000, 97):
        seat_features(rows[i], out)
        np.testing.assert_allclose(out, features[i], rtol=1e-6)


def test_the_fit_is_deterministic_and_beats_the_static_evaluation(
    data_file: Path, trainer: ModuleType
) -> None:
    model, lines = trainer.train(2, data_file, 30)
    again, _ = trainer.train(2, data_file, 30)
    assert isinstance(model, ValueModel) and model == again
    assert len(model.margin_weights) == 2 * FEATURES
    rows = {line.split(" | ")[1]: line.split(" | ") for line in lines}
    learned = rows["learned value (fitted)"]
    static = next(row for name, row in rows.items() if name.startswith("static evaluation"))
    uniform = rows["uniform (every seat still in alike)"]
    # columns: players, model, positions, winner log-loss, favourite, ranking, margin error
    for other in (static, uniform):
        assert float(learned[3]) < float(other[3])
        assert float(learned[6].rstrip(" |")) < float(other[6].rstrip(" |"))


def test_the_margin_model_recovers_a_planted_linear_margin(trainer: ModuleType) -> None:
    # Final scores made exactly linear in the inputs: least squares must find them.
    rng = np.random.default_rng(1)
    features = rng.normal(size=(400, 4, FEATURES))
    progress = rng.uniform(size=400)
    x = trainer.design(features, progress)
    truth = rng.normal(size=2 * FEATURES)
    live = np.zeros((400, 4), dtype=bool)
    live[:, :3] = True
    scores = np.where(live, x @ truth, 0.0)
    found = trainer.fit_margin(x, scores, live)
    predicted = trainer.relative(x @ found, live)
    assert trainer.margin_rmse(predicted, scores, live) < 1e-2
