"""VectorEnv is a gymnasium.vector.VectorEnv: spaces, autoreset modes, infos, make_vec,
and Gymnasium's own vector tools (wrappers, the step benchmark) run on it."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.performance import benchmark_vector_step
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as vector_wrappers

import marrakech.envs
from marrakech.envs.planes import planes, planes_space
from marrakech.envs.spec import observation
from marrakech.envs.vector import BackendName, VectorEnv
from marrakech.observation import PHASE_OFFSET
from marrakech.position import Phase

from .test_vector import backends

MODES = list(AutoresetMode)
#: What VectorEnv.step returns: observations, rewards, terminations, truncations, infos.
Step = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]


def masked_sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal id per game (0 where a game has none)."""
    scores = np.where(masks, rng.random(masks.shape), -1.0)
    best: np.ndarray = scores.argmax(axis=1)
    return best


@pytest.mark.parametrize("backend", backends())
def test_spaces_reset_and_step_follow_gymnasium(backend: BackendName) -> None:
    env = VectorEnv(6, players=3, seed=1, opponents=("random", "random"), backend=backend)
    assert isinstance(env, gymnasium.vector.VectorEnv) and env.num_envs == 6
    assert env.single_observation_space.shape == (474,)
    assert env.observation_space.shape == (6, 474)
    assert env.single_action_space == gymnasium.spaces.Discrete(87)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([87] * 6)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    observations, infos = env.reset(seed=3)
    assert env.observation_space.contains(observations)
    assert np.array_equal(infos["action_mask"], env.action_masks())
    rng = np.random.default_rng(0)
    for _ in range(30):
        step = env.step(masked_sample(env.action_masks(), rng))
        observations, rewards, terminations, truncations, infos = step
        assert observations.dtype == np.float32 and env.observation_space.contains(observations)
        assert rewards.shape == (6,) and rewards.dtype == np.float32
        assert terminations.dtype == truncations.dtype == np.bool_ and not truncations.any()
        assert np.array_equal(infos["to_move"], env.seats)


def play_until_an_end(env: VectorEnv, seed: int) -> tuple[int, Step, list[np.ndarray]]:
    """Step with random legal actions (from a generator of the env's own) until a game
    ends; the step number, what it returned, and the actions sent."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    sent: list[np.ndarray] = []
    for step in range(400):
        actions = masked_sample(env.action_masks(), rng)
        sent.append(actions)
        out = env.step(actions)
        if out[2].any():
            return step, out, sent
    pytest.fail("no game ended in 400 steps")


@pytest.mark.parametrize("opponents", [None, ("random",)])
def test_the_three_autoreset_modes_agree(opponents: tuple[str, ...] | None) -> None:
    """The same seed and actions: DISABLED and NEXT_STEP return the final observation,
    SAME_STEP puts it in infos["final_obs"] and returns the new game's first, which
    NEXT_STEP returns one step later (reward 0, not terminated)."""
    envs = {
        mode: VectorEnv(4, players=2, seed=5, opponents=opponents, autoreset_mode=mode)
        for mode in MODES
    }
    ends = {mode: play_until_an_end(env, seed=9) for mode, env in envs.items()}
    step, same, _ = ends[AutoresetMode.SAME_STEP]
    step2, nxt, sent = ends[AutoresetMode.NEXT_STEP]
    step3, off, _ = ends[AutoresetMode.DISABLED]
    assert step == step2 == step3
    done = same[2]
    assert np.array_equal(done, nxt[2]) and np.array_equal(done, off[2])
    # rewards, terminations
    for ours, next_step, stopped in zip(same[1:3], nxt[1:3], off[1:3], strict=True):
        assert np.array_equal(ours, next_step) and np.array_equal(ours, stopped)
    games = np.flatnonzero(done)
    assert same[4]["_final_obs"].tolist() == done.tolist()
    for i in games:
        assert np.array_equal(same[4]["final_obs"][i], nxt[0][i])
        assert np.array_equal(nxt[0][i], off[0][i])
    assert np.array_equal(same[4]["final_info"]["ranks"][done], nxt[4]["ranks"][done])
    # NEXT_STEP starts the ended games at the next step, whatever their action.
    after = envs[AutoresetMode.NEXT_STEP].step(np.where(done, 86, sent[-1] * 0 + 1))
    for i in games:
        assert np.array_equal(after[0][i], same[0][i])
        assert after[1][i] == 0.0 and not after[2][i]
    # DISABLED keeps them over until reset(options={"reset_mask": ...}).
    disabled = envs[AutoresetMode.DISABLED]
    assert disabled.step(np.ones(4, dtype=np.int64))[2][done].all()
    observations, _ = disabled.reset(options={"reset_mask": done})
    for i in games:
        assert np.array_equal(observations[i], same[0][i])


def test_self_play_rewards_are_the_deciders() -> None:
    env = VectorEnv(8, players=3, seed=2)
    env.reset(seed=2)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(200):
        deciders = env.action_masks().any(axis=1)
        _, rewards, terminations, _, infos = env.step(masked_sample(env.action_masks(), rng))
        assert deciders.all() and infos["rewards"].shape == (8, 3)
        seat = infos["seat"]
        assert np.array_equal(rewards, infos["rewards"][np.arange(8), seat])
        for i in np.flatnonzero(terminations):
            ended += 1
            assert infos["rewards"][i].sum() == pytest.approx(0.0)
            assert env.state(int(i)).phase.name == "ORIENT"  # a new game (SAME_STEP)
            assert infos["final_obs"][i][PHASE_OFFSET + Phase.OVER] == 1.0  # the last one's
        assert not rewards[~terminations].any()
    assert ended > 0


def test_make_vec_gives_the_batch_with_the_single_envs_parameters() -> None:
    env = gymnasium.make_vec("Marrakech-v0", num_envs=5, opponents=("random", "greedy"))
    assert isinstance(env.unwrapped, VectorEnv)
    assert env.unwrapped.players == 3 and env.unwrapped.illegal_action == "lose"
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    observations, _ = env.reset(seed=0)
    assert observations.shape == (5, 474)
    synced = gymnasium.make_vec("Marrakech-v0", num_envs=2, vectorization_mode="sync")
    assert synced.single_observation_space == env.single_observation_space
    assert marrakech.envs.GYMNASIUM_ID == "Marrakech-v0"


def test_gymnasium_benchmark_and_episode_statistics_run() -> None:
    """benchmark_vector_step samples unmasked actions: illegal ones are forfeits."""
    env = gymnasium.make_vec("Marrakech-v0", num_envs=16, players=2)
    # Gymnasium types the duration in seconds as an int; it takes any number.
    assert benchmark_vector_step(env, target_duration=0.3, seed=0) > 0  # type: ignore[arg-type]
    for mode in MODES:
        stats = vector_wrappers.RecordEpisodeStatistics(
            VectorEnv(8, players=2, seed=1, opponents=("random",), autoreset_mode=mode)
        )
        stats.reset(seed=1)
        batch = stats.unwrapped
        assert isinstance(batch, VectorEnv)
        rng = np.random.default_rng(0)
        episodes = 0
        for _ in range(120):
            _, rewards, terminations, _, infos = stats.step(
                masked_sample(batch.action_masks(), rng)
            )
            if "episode" in infos:
                done = infos["_episode"]
                assert np.array_equal(infos["episode"]["r"][done], rewards[done])
                episodes += int(done.sum())
            if mode is AutoresetMode.DISABLED and terminations.any():
                stats.reset(options={"reset_mask": terminations})
        assert episodes > 0, mode


def test_observation_wrappers_need_next_step_and_planes_are_an_option() -> None:
    env = VectorEnv(3, players=4, seed=0, autoreset_mode="next_step")
    wrapped = vector_wrappers.TransformObservation(
        env, planes, gymnasium.vector.utils.batch_space(planes_space(), 3), planes_space()
    )
    observations, _ = wrapped.reset(seed=0)
    assert observations.shape == (3, 42, 7, 7)
    with pytest.raises(ValueError, match="NEXT_STEP or DISABLED"):
        vector_wrappers.TransformObservation(VectorEnv(3), planes)
    direct = VectorEnv(3, players=4, seed=0, observation="planes")
    assert direct.single_observation_space == planes_space()
    assert np.array_equal(direct.reset(seed=0)[0], observations)
    state = direct.state(1)
    assert np.array_equal(observations[1], planes(observation(state, state.to_move)))


@pytest.mark.parametrize("mode", MODES)
def test_illegal_actions_are_forfeits_when_asked(mode: AutoresetMode) -> None:
    env = VectorEnv(4, players=3, seed=0, illegal_action="lose", autoreset_mode=mode)
    env.reset(seed=0)
    actions = np.array([1, 50, 1, 99])  # games 1 and 3 send ids not legal at ORIENT
    _, rewards, terminations, _, infos = env.step(actions)
    assert terminations.tolist() == [False, True, False, True]
    # As Gymnasium's SyncVectorEnv of Marrakech-v0 has it: the illegal id, with its mask,
    # in final_info under SAME_STEP (the top-level infos are the new games').
    ended = infos["final_info"] if mode is AutoresetMode.SAME_STEP else infos
    assert ended["illegal_action"][[1, 3]].tolist() == [50, 99]
    assert ended["_illegal_action"].tolist() == [False, True, False, True]
    assert infos["rewards"][1].tolist() == [-1.0, 0.5, 0.5]  # seat 0 forfeits (rank)
    assert rewards.tolist() == [0.0, -1.0, 0.0, -1.0]
    with pytest.raises(ValueError, match="illegal action id 50"):
        VectorEnv(4, players=3).step(actions)  # the default: raise


def test_code_written_for_the_transitions_is_told_how_to_migrate() -> None:
    env = VectorEnv(2, players=2, seed=0)
    out = env.step(env.sample_actions())
    assert isinstance(out, tuple) and len(out) == 5 and out[0].shape == (2, 474)
    old_code: Any = out  # reads it as the transitions were read
    with pytest.raises(AttributeError, match=r"no \.terminated: .*step_transition\(\)"):
        old_code.terminated  # noqa: B018
    assert env.step_transition(env.sample_actions()).terminated.shape == (2,)


def play_states(env: VectorEnv, steps: int, seed: int = 0) -> list[list[str]]:
    """Each game's positions over ``steps`` steps of random legal actions, drawn by one
    generator per game (all seeded alike: equal games get equal actions)."""
    rngs = [np.random.default_rng(seed) for _ in range(env.num_envs)]
    seen = [[env.state(i).notation()] for i in range(env.num_envs)]
    for _ in range(steps):
        masks = env.action_masks()
        env.step(np.array([masked_sample(masks[i : i + 1], rngs[i])[0] for i in range(len(rngs))]))
        for i in range(env.num_envs):
            seen[i].append(env.state(i).notation())
    return seen


@pytest.mark.parametrize("backend", backends())
def test_reset_takes_one_seed_per_game(backend: BackendName) -> None:
    """As Gymnasium allows: ``seed=[...]``, game ``i`` seeded as a lone game seeded
    ``seed[i]``; ``None`` keeps a game's generators going."""
    alone = VectorEnv(1, players=2, seed=0, opponents=("random",), backend=backend)
    alone.reset(seed=7)
    lone_game = play_states(alone, 40)[0]
    env = VectorEnv(3, players=2, seed=0, opponents=("random",), backend=backend)
    env.reset(seed=[7, None, 7])
    games = play_states(env, 40)
    assert games[0] == games[2] == lone_game  # the same seed, the same game, anywhere
    alone.reset(seed=[7])
    assert play_states(alone, 40)[0] == lone_game
    # None: game 1 goes on with its generators, as when the batch is reset unseeded.
    twin = VectorEnv(3, players=2, seed=0, opponents=("random",), backend=backend)
    twin.reset(seed=[None, None, None])
    plain = VectorEnv(3, players=2, seed=0, opponents=("random",), backend=backend)
    plain.reset()
    assert play_states(twin, 10)[1] == play_states(plain, 10)[1]


def test_a_seed_list_of_the_wrong_length_or_type_is_refused() -> None:
    env = VectorEnv(3, players=2, opponents=("random",), backend="python")
    expected = "expected one seed \\(an int or None\\) per game, 3 in all, found 2"
    with pytest.raises(ValueError, match=expected):
        env.reset(seed=[1, 2])
    with pytest.raises(TypeError, match=r"seed\[1\]: expected an int or None, found 'x'"):
        env.reset(seed=[1, "x", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="expected an int, None or a list of 3 seeds"):
        env.reset(seed="12")  # type: ignore[arg-type]
    observations, _ = env.reset(seed=list(np.array([1, 2, 3])))  # numpy ints too
    assert observations.shape == (3, 474)


def info_key_sets(env: gymnasium.vector.VectorEnv, steps: int) -> set[frozenset[str]]:
    """The key sets of one game's infos over ``steps`` steps of random legal actions,
    with an illegal action at steps 5 and 120; ``final_info``'s keys are listed as
    ``final_info.key``."""
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)
    seen = set()
    for step in range(steps + 1):
        keys = set(infos) | {f"final_info.{key}" for key in infos.get("final_info", {})}
        seen.add(frozenset(keys))
        mask = np.asarray(infos["action_mask"], dtype=bool)
        if step in (5, 120):
            action = int(np.flatnonzero(~mask[0])[0])
        else:
            action = int(masked_sample(mask, rng)[0]) if mask.any() else 0
        _, _, _, _, infos = env.step(np.array([action]))
    return seen


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_the_compiled_make_vec_infos_have_the_sync_keys(mode: AutoresetMode) -> None:
    """Reset, plain steps, ends and forfeits: the compiled batch's infos carry the keys of
    Gymnasium's SyncVectorEnv of Marrakech-v0 (``action_mask``, ``seat``, ``ranks``,
    ``scores``, ``illegal_action``, each with its ``_key`` mask), and ``to_move``."""
    sync = gymnasium.make_vec(
        "Marrakech-v0",
        num_envs=1,
        vectorization_mode="sync",
        players=2,
        vector_kwargs={"autoreset_mode": mode},
    )
    ours = gymnasium.make_vec("Marrakech-v0", num_envs=1, players=2, autoreset_mode=mode)
    theirs = info_key_sets(sync, 300)
    extra = {"to_move", "_to_move"}
    assert {keys - extra for keys in info_key_sets(ours, 300)} == theirs
    ended = {"ranks", "scores", "illegal_action"}
    assert any(ended <= {key.removeprefix("final_info.") for key in keys} for keys in theirs)


def test_infos_say_the_seat_and_the_scores_of_ended_games() -> None:
    env = VectorEnv(4, players=3, seed=0, opponents=("random",) * 2, seat="rotate")
    _, infos = env.reset(seed=0)
    assert infos["seat"].tolist() == [0, 1, 2, 0] and infos["_seat"].all()
    assert infos["_action_mask"].all() and infos["_to_move"].all()
    rng = np.random.default_rng(0)
    while "final_info" not in infos:
        *_, infos = env.step(masked_sample(env.action_masks(), rng))
    final, done = infos["final_info"], infos["_final_info"]
    assert np.array_equal(final["_scores"], done) and np.array_equal(final["_seat"], done)
    for i in np.flatnonzero(done):
        assert final["seat"][i] == env.seats[i] and not final["action_mask"][i].any()
        assert final["scores"][i].sum() > 0 and sorted(final["ranks"][i])[0] == 1
