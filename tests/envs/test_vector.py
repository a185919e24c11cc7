"""VectorEnv: trajectories equal the AEC environment's for the same actions and chance
outcomes, on both backends; autoreset; bots stepped inside; numpy in and out."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import warnings
from typing import Any

import numpy as np
import pytest

from marrakech import Action, RuleSet, State, action_from_id, parse_rules
from marrakech.envs import VectorEnv, marrakech_v0, vector
from marrakech.envs.pettingzoo_env import MarrakechAEC
from marrakech.envs.python_batch import PythonBatch
from marrakech.envs.spec import observation
from marrakech.envs.vector import BackendName

LOW_MONEY = parse_rules("custom:12/10/12:4:no-own")

#: A row of a trajectory: observation, action mask, seat to move, final rewards (at the end).
Row = tuple[np.ndarray, np.ndarray, int, np.ndarray | None]


def backends() -> list[BackendName]:
    names: list[BackendName] = ["python"]
    try:
        import marrakech.fast  # noqa: F401
    except ImportError:
        pass
    else:
        names.append("numba")
    return names


def record_vector_games(
    backend: BackendName, players: int, rules: RuleSet | str, n: int, seed: int
) -> tuple[VectorEnv, list[list[int]], list[list[int]], list[list[Row]]]:
    """Play n whole games in a VectorEnv (no autoreset) with random legal actions; keep
    per game its decisions, its chance outcomes and every transition row."""
    env = VectorEnv(n, players, rules, seed, autoreset=False, backend=backend)
    out = env.reset_transition()
    chance = [[int(c) for c in row if c >= 0] for row in env.last_chance()]
    rows: list[list[Row]] = [
        [(out.observations[i], out.action_masks[i], int(out.to_move[i]), None)] for i in range(n)
    ]
    actions: list[list[int]] = [[] for _ in range(n)]
    rng = np.random.default_rng(seed)
    while not out.terminated.all():
        live = ~out.terminated
        chosen = np.array(
            [
                int(rng.choice(np.flatnonzero(m))) if live[i] else 0
                for i, m in enumerate(out.action_masks)
            ]
        )
        out = env.step_transition(chosen)
        last = env.last_chance()
        for i in np.flatnonzero(live):
            actions[i].append(int(chosen[i]))
            chance[i].extend(int(c) for c in last[i] if c >= 0)
            final = out.rewards[i].copy() if out.terminated[i] else None
            rows[i].append((out.observations[i], out.action_masks[i], int(out.to_move[i]), final))
    return env, actions, chance, rows


def replay_in_aec(
    players: int, rules: RuleSet | str, actions: list[int], chance: list[int]
) -> tuple[MarrakechAEC, list[tuple[np.ndarray, np.ndarray, int]], dict[str, float]]:
    """The same game in the AEC env, its chance function fed the recorded outcomes."""
    outcomes = iter(chance)
    env = marrakech_v0.raw_env(
        players, rules, chance=lambda state, rng: action_from_id(next(outcomes))
    )
    env.reset(seed=0)
    seen: list[tuple[np.ndarray, np.ndarray, int]] = []
    totals = {agent: 0.0 for agent in env.possible_agents}
    decisions = iter(actions)
    while env.agents:
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        seen.append((obs["observation"], obs["action_mask"], int(agent.split("_")[1])))
        env.step(next(decisions))
    return env, seen, totals


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize(
    ("players", "rules"),
    [(2, "standard"), (2, "bga+orient-last"), (3, "bga"), (4, "standard"), (4, LOW_MONEY)],
)
def test_trajectories_match_the_aec_environment(
    backend: BackendName, players: int, rules: RuleSet | str
) -> None:
    vector, actions, chance, rows = record_vector_games(backend, players, rules, n=3, seed=11)
    for i in range(vector.n):
        aec, seen, totals = replay_in_aec(players, rules, actions[i], chance[i])
        assert aec.game_state == vector.state(i)  # the same final position
        decisions = rows[i][:-1]  # the last row is the end: nothing to decide there
        assert len(seen) == len(decisions) == len(actions[i])
        for (obs, mask, seat), (v_obs, v_mask, v_seat, _) in zip(seen, decisions, strict=True):
            assert seat == v_seat
            assert np.array_equal(obs, v_obs)
            assert np.array_equal(mask.astype(bool), v_mask)
        final = rows[i][-1][3]
        assert final is not None
        assert np.allclose([totals[f"seat_{s}"] for s in range(players)], final)


@pytest.mark.parametrize("backend", backends())
def test_autoreset_starts_a_new_game_in_the_same_step(backend: BackendName) -> None:
    env = VectorEnv(4, players=2, seed=3, backend=backend)
    out = env.reset_transition()
    ended = 0
    for _ in range(400):
        out = env.step_transition(sample(out.action_masks, np.random.default_rng(ended)))
        for i in np.flatnonzero(out.terminated):
            ended += 1
            state = env.state(int(i))
            assert state.phase.name == "ORIENT" and not any(state.board)  # a fresh game
            assert out.to_move[i] == 0 and out.action_masks[i].sum() == 3
            assert np.array_equal(out.observations[i], observation(state, 0))
            assert out.rewards[i].sum() == pytest.approx(0.0)
            assert set(out.rewards[i].tolist()) <= {-1.0, 0.0, 1.0}
        assert not out.rewards[~out.terminated].any()
    assert ended >= 4


@pytest.mark.parametrize("backend", backends())
def test_bots_move_inside_and_the_learner_always_decides(backend: BackendName) -> None:
    env = VectorEnv(
        6, players=3, seed=5, opponents=("random", "greedy"), seat="rotate", backend=backend
    )
    out = env.reset_transition()
    assert out.rewards.shape == (6,)
    assert out.to_move.tolist() == [0, 1, 2, 0, 1, 2]
    finished = []
    rng = np.random.default_rng(0)
    for _ in range(45):  # 3 players, 10 carpets each: a game lasts 20 decisions of a seat
        out = env.step_transition(sample(out.action_masks, rng))
        assert np.array_equal(out.to_move, env.seats)
        for i in range(6):
            assert np.array_equal(out.observations[i], observation(env.state(i), int(env.seats[i])))
        finished.extend(out.rewards[out.terminated].tolist())
    assert finished and all(-1.0 <= r <= 1.0 for r in finished)


def test_python_batch_steps_only_the_chosen_games() -> None:
    batch = PythonBatch(3, players=4, seed=0)
    batch.step(np.array([1, -1, 0]))
    assert batch.phase().tolist() == [2, 0, 2]
    found = r"game 0: illegal action id 1 \(S\) in the PLACE phase .*: expected one of \d+ \("
    with pytest.raises(ValueError, match=found):
        batch.step(np.array([1, 1, 1]))  # game 0 is placing, not orienting
    assert batch.phase().tolist() == [2, 0, 2]  # nothing moved


def test_set_state_and_win_rewards() -> None:
    env = VectorEnv(2, players=2, seed=0, reward="win", backend="python")
    env.reset()
    start = State.new(2)
    env.set_state(1, start)
    assert env.state(1).phase.name == "ORIENT"  # the opening draws were resolved


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="3 players need 2 opponents"):
        VectorEnv(2, players=3, opponents=("random",), backend="python")
    with pytest.raises(ValueError, match="backend must be"):
        unknown: Any = "cuda"  # no backend of the type: the check at run time
        VectorEnv(2, backend=unknown)
    with pytest.raises(ValueError, match="seat must be"):
        VectorEnv(2, players=2, opponents=("random",), seat=2, backend="python")
    env = VectorEnv(2, backend="python")
    env.reset()
    with pytest.raises(ValueError, match="expected 2 integer decision ids"):
        env.step(np.array([0.5, 1.0]))


def sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])


def test_without_numba_auto_falls_back_to_the_python_backend() -> None:
    script = textwrap.dedent(
        """
        import sys, warnings
        warnings.simplefilter("always")  # the env's own once, not the filter's, is tested
        sys.modules["numba"] = None  # makes `import numba` raise ImportError
        import gymnasium
        from marrakech.envs import VectorEnv
        env = VectorEnv(2, players=3, seed=1)
        observations, *_ = env.step(env.sample_actions())
        print(env.backend, observations.shape)
        print(gymnasium.make_vec("Marrakech-v0", num_envs=2).backend)
        try:
            VectorEnv(2, backend="numba")
        except ImportError as error:
            print(type(error).__name__)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.splitlines() == ["python (2, 474)", "python", "FastUnavailableError"]
    # Two batches fell back: one warning, naming its category and the fix.
    assert done.stderr.count("SlowBackendWarning") == 1, done.stderr
    assert "pip install numba" in done.stderr and "15x slower" in done.stderr


def test_the_fallback_to_python_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Numba missing (``marrakech.fast`` cannot be imported): ``auto`` warns once per
    process; ``backend="python"``, a choice, never warns."""
    monkeypatch.setitem(sys.modules, "marrakech.fast", None)  # its import raises ImportError
    monkeypatch.setattr(vector, "_warned_slow", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        VectorEnv(2, players=2, backend="python")
        assert caught == []
        env = VectorEnv(2, players=2, seed=0)
        again = VectorEnv(3, players=2, seed=0)
    assert env.backend == again.backend == "python"
    assert [w.category for w in caught] == [vector.SlowBackendWarning]
    assert issubclass(vector.SlowBackendWarning, RuntimeWarning)
    message = str(caught[0].message)
    assert "pip install numba" in message and "marrakech[fast]" in message
    assert caught[0].filename == __file__  # points at the caller's line
    with pytest.raises(ImportError):
        VectorEnv(2, backend="numba")


class FirstLegal:
    """A bot that plays the lowest legal decision id (for comparing with a policy)."""

    name = "first-legal"

    def choose(self, state: State, rng: random.Random) -> Action:
        return state.legal_actions()[0]


def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The same rule as a batched policy: the lowest legal id of each game."""
    picked: np.ndarray = masks.argmax(axis=1)
    return picked


@pytest.mark.parametrize("backend", backends())
def test_a_batched_policy_plays_as_the_same_bot_would(backend: BackendName) -> None:
    """One call per bot round for all the games it moves in; its observations are from
    the seat it plays, in the env's form; the games are those the bot plays."""
    calls: list[tuple[np.ndarray, np.ndarray]] = []

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append((observations, masks))
        return first_legal(observations, masks)

    options: dict[str, Any] = {"players": 3, "seed": 2, "seat": "rotate", "backend": backend}
    with_policy = VectorEnv(6, opponents=(policy, "random"), observation="planes", **options)
    with_bot = VectorEnv(6, opponents=(FirstLegal(), "random"), observation="planes", **options)
    assert "vs policy,random" in repr(with_policy)
    first, _ = with_policy.reset(seed=2)
    assert np.array_equal(first, with_bot.reset(seed=2)[0])
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = sample(with_bot.action_masks(), rng)
        ours, theirs = with_policy.step(actions), with_bot.step(actions)
        assert np.array_equal(ours[0], theirs[0]) and np.array_equal(ours[1], theirs[1])
    observations, masks = calls[-1]
    assert observations.shape[1:] == (42, 7, 7) and masks.dtype == np.bool_
    assert len(observations) == len(masks) <= 6


def test_a_batched_policy_that_errs_is_told_what_was_expected() -> None:
    def illegal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.full(len(masks), 50)  # not legal at ORIENT

    def one_short(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return first_legal(observations, masks)[1:]

    expected = r"opponent policy illegal in game 0: illegal action id 50"
    with pytest.raises(ValueError, match=expected):
        VectorEnv(2, players=2, seat=1, opponents=(illegal,)).reset()
    with pytest.raises(ValueError, match=r"expected 2 integer decision ids .* found shape \(1,\)"):
        VectorEnv(2, players=2, seat=1, opponents=(one_short,)).reset()
    with pytest.raises(TypeError, match="a bot name, a Bot or a batched policy"):
        VectorEnv(2, players=2, opponents=(3,))


def test_greedy_opponents_play_alike_on_both_backends() -> None:
    """``greedy`` runs compiled in the numba batch, core scores in the python one; equal
    best decisions are chosen between with each game's bot stream: the same games."""
    if "numba" not in backends():
        pytest.skip("needs Numba")
    envs = [
        VectorEnv(6, players=3, seed=5, seat="rotate", opponents=("greedy", "random"), backend=b)
        for b in ("numba", "python")
    ]
    first = [env.reset(seed=5)[0] for env in envs]
    assert np.array_equal(first[0], first[1])
    rng = np.random.default_rng(0)
    for _ in range(50):
        actions = sample(envs[0].action_masks(), rng)
        ours, theirs = (env.step(actions) for env in envs)
        assert np.array_equal(ours[0], theirs[0]) and np.array_equal(ours[1], theirs[1])


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("players", [2, 3])
def test_greedy_scores_are_the_bots_own_and_change_no_game(
    backend: BackendName, players: int
) -> None:
    """VectorEnv.greedy_scores: decision_scores of the core bot at every decision (R9
    orientations, R14 placements), by id; asking draws nothing, so the games stay the
    same as those of a batch never asked."""
    from marrakech.bots.greedy import decision_scores

    opponents = ("greedy",) * (players - 1)
    asked = VectorEnv(8, players, opponents=opponents, seat="rotate", backend=backend)
    plain = VectorEnv(8, players, opponents=opponents, seat="rotate", backend=backend)
    asked.reset(seed=4)
    plain.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(40):
        scores = asked.greedy_scores()
        for i in range(asked.n):
            expected = np.full(87, -np.inf)
            state = asked.state(i)
            if state.to_move >= 0:
                for action, score in zip(*decision_scores(state), strict=True):
                    expected[action.id] = score
            assert np.array_equal(scores[i], expected)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in asked.action_masks()])
        first = asked.step(actions)
        second = plain.step(actions)
        assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
