"""Every example runs, on a small budget (a subprocess each, as a user runs them). The
Stable-Baselines3 and RLlib ones need their extras (``sb3``, ``rllib``) and skip without."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def has(*modules: str) -> bool:
    try:
        return all(importlib.util.find_spec(name) is not None for name in modules)
    except ImportError:  # a parent package that fails to import
        return False


def run(script: str, *args: str, timeout: float = 300) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=EXAMPLES.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_random_agents_in_every_api() -> None:
    assert "decisions; rewards" in run("random_pettingzoo.py", "--players", "3")
    assert "episodes vs random" in run("random_gymnasium.py", "--episodes", "2")
    assert "games ended" in run("random_vector.py", "--games", "64", "--steps", "150")
    output = run("random_openspiel.py", "--simulations", "5", "--rules", "custom:4/4/4:30:no-own")
    assert "OpenSpiel MCTS (5 simulations)" in output


def test_openspiel_rl_environment_and_evaluate_bots() -> None:
    output = run(
        "openspiel_rl_environment.py", "--episodes", "2", "--games", "2", "--simulations", "5"
    )
    assert "info_state of 474 floats" in output and "MCTS (5 simulations)" in output


def test_policy_gradient_learns_on_a_small_budget() -> None:
    output = run(
        "learn_policy_gradient.py",
        "--minutes",
        "0.05",
        "--eval-games",
        "100",
        "--games",
        "32",
        "--episodes-per-update",
        "32",
    )
    assert "greedy policy vs random (2 players, seats rotating): win rate" in output


def test_self_play_against_snapshots_through_the_policy_hook() -> None:
    output = run(
        "self_play_snapshots.py",
        "--minutes",
        "0.05",
        "--eval-games",
        "100",
        "--games",
        "32",
        "--episodes-per-update",
        "32",
        "--snapshot-every",
        "1",
    )
    assert "snapshots; greedy policy vs random (2 players, seats rotating): win rate" in output


def test_render_frames_writes_png_files(tmp_path: Path) -> None:
    output = run("render_frames.py", "--out", str(tmp_path), "--players", "2")
    frames = sorted(tmp_path.glob("*.png"))
    assert frames and frames[0].read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert f"{len(frames)} frames of 384x432" in output


@pytest.mark.skipif(not has("sb3_contrib", "stable_baselines3"), reason="needs the sb3 extra")
def test_sb3_maskable_ppo_on_the_batch() -> None:
    output = run(
        "sb3_maskable_ppo.py",
        "--timesteps",
        "1024",
        "--games",
        "8",
        "--n-steps",
        "64",
        "--eval-games",
        "50",
    )
    assert "policy vs random (2 players, seats rotating): win rate" in output
    unmasked = run(
        "sb3_maskable_ppo.py",
        "--no-masks",
        "--timesteps",
        "512",
        "--games",
        "8",
        "--n-steps",
        "64",
        "--eval-games",
        "20",
    )
    assert "PPO without masks vs random (2 players, seats rotating): win rate" in unmasked


@pytest.mark.skipif(not has("sb3_contrib", "stable_baselines3"), reason="needs the sb3 extra")
def test_sb3_cnn_policy_on_the_planes() -> None:
    output = run(
        "sb3_planes_cnn.py",
        "--timesteps",
        "512",
        "--games",
        "8",
        "--n-steps",
        "32",
        "--features",
        "32",
        "--channels",
        "8",
        "--eval-games",
        "20",
    )
    assert "CNN policy vs random (2 players, seats rotating): win rate" in output


def importable(module: str) -> bool:
    """Whether ``module`` imports (in a subprocess: RLlib is heavy, and Ray may be there
    without RLlib's own dependencies)."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    return done.returncode == 0


def test_rllib_ppo_with_action_masking() -> None:
    if not (has("torch") and importable("ray.rllib.algorithms.ppo")):
        pytest.skip("needs the rllib extra")
    output = run(
        "rllib_action_masking.py",
        "--iterations",
        "1",
        "--batch",
        "256",
        "--envs",
        "2",
        "--eval-games",
        "20",
        timeout=600,
    )
    assert "policy vs random (2 players, seats rotating): win rate" in output


def check_recipe(
    script: str, run_dir: Path, small: list[str], minutes: tuple[str, str]
) -> tuple[str, str]:
    """A learning recipe run as a user runs it: a first run on ``minutes[0]`` CPU
    minutes ending with the final evaluation; the same command refused on a folder that
    holds a run; ``--resume`` on ``minutes[1]`` adding to the curve; ``--plot`` drawing
    it. The first and the resumed runs' outputs."""
    output = run(script, "--cpu-minutes", minutes[0], *small, "--out", str(run_dir))
    assert "eval: win share" in output
    assert "final: 2 fresh games against greedy (seed 1): win share" in output
    assert "luck-corrected" in output
    refused = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *small, "--out", str(run_dir)],
        capture_output=True,
        text=True,
        cwd=EXAMPLES.parent,
    )
    assert refused.returncode != 0 and "pass --resume to continue it" in refused.stderr
    before = (run_dir / "curve.jsonl").read_text().count("\n")
    resumed = run(script, "--cpu-minutes", minutes[1], "--resume", *small, "--out", str(run_dir))
    assert (run_dir / "curve.jsonl").read_text().count("\n") > before
    picture = run_dir.parent / "curve.png"
    run(script, "--out", str(run_dir), "--plot", str(picture))
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    return output, resumed


@pytest.mark.slow  # four runs of the script as a command (make test-slow, CI too)
def test_beat_greedy_trains_resumes_and_draws_its_curve(tmp_path: Path) -> None:
    small = ["--games", "16", "--steps", "8", "--minibatch", "64", "--eval-every", "1"]
    small += ["--eval-games", "8", "--final-games", "2"]
    output, resumed = check_recipe("beat_greedy.py", tmp_path / "run", small, ("0.02", "0.04"))
    assert "update 1:" in output and "resumed at update" in resumed


def load_example(name: str) -> ModuleType:
    """An example script as a module (its own folder importable, as when it runs)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # four runs of the script as a command (make test-slow, CI too)
def test_beat_greedy_distill_trains_resumes_and_draws_its_curve(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    run_dir = tmp_path / "run"
    small = ["--games", "4", "--teacher", "30", "--minibatch", "64", "--eval-every", "1"]
    small += ["--eval-games", "8", "--final-games", "2"]
    output, resumed = check_recipe("beat_greedy_distill.py", run_dir, small, ("0.01", "0.03"))
    assert "round 1:" in output and "labelled positions" in output
    assert "labelled by search@iterations=30" in output
    # The final evaluation plays the policy that did best on the curve's games.
    assert "played by the policy of round" in output and (run_dir / "best.npz").exists()
    rounds = output.count("labelled positions, ")
    assert f"resumed at round {rounds}," in resumed and f"round {rounds + 1}:" in resumed


def test_beat_greedy_distill_labels_are_the_search_teachers_decisions() -> None:
    """The label of a position is the decision ``SearchBot`` itself takes there (the
    Python bot, its generator on the game's bot stream), not greedy's nor the learner's."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("numba")
    from marrakech.bots.search import SearchBot
    from marrakech.bots.value import load_value
    from marrakech.envs.python_batch import PythonBatch
    from marrakech.fast import Batch

    distill = load_example("beat_greedy_distill")
    teacher = SearchBot(seconds=None, iterations=60)
    compiled, python = Batch(12, players=2, seed=5), PythonBatch(12, players=2, seed=5)
    compiled.reset()
    python.reset()
    rng = np.random.default_rng(0)
    for _ in range(2 * 25):  # the same legal decisions in both: the same games
        masks = compiled.legal_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        compiled.step(actions)
        python.step(actions)
    games = np.flatnonzero(~compiled.terminated())
    assert games.size == 12
    labels = distill.teacher_labels(compiled, games, teacher)
    assert labels.tolist() == python.search_actions(games, teacher, load_value(2).array()).tolist()

    # A round of play: every label is legal, and the learner (greedy at the start) is
    # not its own teacher: some labels are decisions greedy scores below its best.
    agent = distill.DistillAgent(np.random.default_rng(0), 4.0)
    data, played = distill.play_round(agent, teacher, games=4, seed=1, first_seat=0)
    rows = np.arange(len(data["targets"]))
    assert data["masks"][rows, data["targets"]].all()
    assert (data["masks"].sum(axis=1) > 1).all()  # only decisions with a choice
    assert (data["gaps"][rows, data["targets"]] < 0).any()
    assert 0 <= played["wins"] <= 4 and played["labelling_seconds"] > 0


def test_beat_greedy_distill_terms_add_up_to_greedys_score() -> None:
    """Greedy's terms, weighted as greedy weighs them, give back its score gaps at every
    placement (where the score is linear in the weights), so the untrained policy is
    greedy."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("numba")
    from marrakech.fast import Batch

    distill = load_example("beat_greedy_distill")
    batch = Batch(16, players=2, seed=2)
    batch.reset()
    rng = np.random.default_rng(1)
    agent = distill.DistillAgent(np.random.default_rng(0), 4.0)
    checked = 0
    for _ in range(60):
        games = np.flatnonzero(~batch.terminated())
        masks = batch.legal_masks()[games]
        gaps, feats = distill.term_features(masks, distill.batch_scorer(batch, games))
        place = batch.phase()[games] == 2
        within = (np.abs(feats) < 30).all(axis=2) & masks & place[:, None]
        assert np.allclose(feats.sum(axis=2)[within], gaps[within])
        checked += int(within.sum())
        obs = batch.observations()[games].astype(np.float64)
        logits = agent.full_logits(obs, gaps, feats, masks)[0]
        assert (gaps[np.arange(len(games)), logits.argmax(axis=1)] == 0).all()
        actions = np.zeros(batch.n, dtype=np.int64)
        actions[games] = [rng.choice(np.flatnonzero(m)) for m in masks]
        batch.step(actions, mask=~batch.terminated())
    assert checked > 500


@pytest.mark.slow  # four runs of the script as a command (make test-slow, CI too)
def test_beat_greedy_es_trains_resumes_and_draws_its_curve(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    small = ["--games", "8", "--pairs", "2", "--stages", "2", "--eval-every", "1"]
    small += ["--eval-games", "8", "--final-games", "2"]
    output, resumed = check_recipe("beat_greedy_es.py", tmp_path / "run", small, ("0.01", "0.03"))
    assert "generation 1:" in output and "played by the weights of generation" in output
    generations = output.count("CPU min, perturbed win shares")
    assert f"resumed at generation {generations}," in resumed
    assert f"generation {generations + 1}:" in resumed


def test_beat_greedy_es_policy_starts_as_greedy_and_weighs_by_stage() -> None:
    """At theta 0 the staged policy takes greedy's best decision everywhere; weights
    changed for one decision and stage change only the decisions of that stage."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("numba")
    from marrakech.fast import Batch

    es, recipe = load_example("beat_greedy_es"), load_example("beat_greedy")
    greedy_like = es.StagedGreedy(np.zeros((2, 3, 3)))
    changed = np.zeros((2, 3, 3))
    changed[0, 2] = [1.5, 1.5, -1.5]  # placements in the last third: other weights
    other = es.StagedGreedy(changed)
    batch = Batch(24, players=2, seed=3)
    batch.reset()
    rng = np.random.default_rng(2)
    differed = checked = 0
    while not batch.terminated().all():
        games = np.flatnonzero(~batch.terminated())
        obs = batch.observations()[games].astype(np.float64)
        masks = batch.legal_masks()[games]
        score = recipe.batch_scorer(batch, games)
        scores = np.where(masks, score(None), -np.inf)
        best = greedy_like.best(obs, masks, score)
        rows = np.arange(len(games))
        assert (scores[rows, best] == scores.max(axis=1)).all()  # greedy's best (or a tie)
        placed = 1.0 - (obs[:, 453] + obs[:, 459]) / 2.0
        late_place = (obs[:, 441] < 0.5) & (placed >= 2 / 3)
        moved = other.best(obs, masks, score) != best
        assert not moved[~late_place].any()
        differed += int(moved.sum())
        checked += len(games)
        actions = np.zeros(batch.n, dtype=np.int64)
        actions[games] = [rng.choice(np.flatnonzero(m)) for m in masks]
        batch.step(actions, mask=~batch.terminated())
    assert checked > 500 and differed > 0


def test_beat_greedy_es_gradient_climbs() -> None:
    """The ES estimate points uphill: on a smooth fitness its direction agrees with the
    true gradient, and steps along it raise the fitness."""
    np = pytest.importorskip("numpy")
    es = load_example("beat_greedy_es")
    target = np.linspace(-1.0, 1.0, 12).reshape(2, 2, 3)

    def fitness(theta: object) -> float:
        return -float(((np.asarray(theta) - target) ** 2).sum())

    rng = np.random.default_rng(0)
    theta = np.zeros((2, 2, 3))
    gradient, values = es.es_gradient(theta, fitness, 0.2, 16, rng)
    assert values.shape == (32,)
    cosine = (gradient * target).sum() / np.linalg.norm(gradient) / np.linalg.norm(target)
    assert cosine > 0.6
    for _ in range(50):
        gradient, _ = es.es_gradient(theta, fitness, 0.2, 8, rng)
        theta = theta + 0.05 * gradient / (np.linalg.norm(gradient) + 1e-12)
    assert fitness(theta) > 0.5 * fitness(np.zeros((2, 2, 3)))
    assert es.centred_ranks(np.array([3.0, 1.0, 2.0, 2.0])).tolist() == [0.5, -0.5, 0.0, 0.0]


@pytest.mark.slow  # four runs of the script as a command (make test-slow, CI too)
def test_beat_greedy_value_trains_resumes_and_draws_its_curve(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    run_dir = tmp_path / "run"
    small = ["--games", "6", "--selfplay-iterations", "10", "--steps", "20", "--iterations", "20"]
    small += ["--generations", "100", "--eval-games", "8", "--final-games", "2"]
    output, resumed = check_recipe("beat_greedy_value.py", run_dir, small, ("0.01", "0.05"))
    assert "generation 1:" in output and "positions, fitted on" in output
    # The final evaluation plays the search with the value that did best on the curve.
    assert "search@iterations=20 after" in output and (run_dir / "best.npy").exists()
    assert "played with the value of generation" in output
    generations = output.count("positions, fitted on")
    assert f"resumed at generation {generations}," in resumed
    assert f"generation {generations + 1}:" in resumed
    # The same final games, the search with another value: the run's, or a fixed one.
    for value in ("learned", "static"):
        compared = run("beat_greedy_value.py", "--out", str(run_dir), "--compare", value,
                       "--iterations", "12", "--final-games", "2")  # fmt: skip
        assert f"search@iterations=12 with the {value} value" in compared
        assert (run_dir / f"final-{value}@12.txt").read_text() in compared


def test_beat_greedy_value_search_learns_to_win_from_its_self_play() -> None:
    """The search with a value of zeros (every position even) loses every game to
    ``greedy``; fitted to 40 of its own self-play games, the same search wins some."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("numba")
    value = load_example("beat_greedy_value")
    zeros = np.zeros(14)
    played = value.self_play_positions(2, 40, 16, 0.1, zeros, seed=1)
    window = [{key: getattr(played, key) for key in value.KEPT}]
    fitted, loss = value.fit_value(window, steps=200)
    assert loss < np.log(2)
    assert value.win_share(zeros, 30, 16, seed=4) == 0.0
    assert value.win_share(fitted, 30, 16, seed=4) >= 0.25


def test_beat_greedy_value_searches_only_the_batchs_positions(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    value = load_example("beat_greedy_value")
    player = value.LearnedSearch(np.zeros(14), 10)
    refused = subprocess.run(
        [sys.executable, str(EXAMPLES / "beat_greedy_value.py"), "--compare", "learned",
         "--out", str(tmp_path / "none")],
        capture_output=True, text=True, cwd=EXAMPLES.parent,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "--compare learned: " in refused.stderr and "holds no learned value" in refused.stderr
    with pytest.raises(TypeError, match="expected a BatchScorer, found function"):
        player.best(np.zeros((1, 474)), np.ones((1, 87), dtype=bool), lambda bot: np.zeros(87))
