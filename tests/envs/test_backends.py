"""The two batch engines play the same games: for the same seed and the same actions,
PythonBatch (the core) and the compiled Batch hold the same positions, masks,
observations, outcomes and chance after every step, across resets and autoresets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from marrakech import BGA, STANDARD, State, parse_action, parse_rules
from marrakech.envs import VectorEnv
from marrakech.envs.engine import BatchEngine
from marrakech.envs.python_batch import PythonBatch
from marrakech.rules import RuleSet

pytest.importorskip("numba")

from marrakech.fast import Batch

LOW_MONEY = parse_rules("custom:12/10/12:4:no-own")  # eliminations (R13) are common
CONFIGS = [(p, r) for r in (STANDARD, BGA) for p in (2, 3, 4)] + [(4, LOW_MONEY)]
IDS = [f"{p}p-{r.token()}" for p, r in CONFIGS]


def assert_same(python: BatchEngine, numba: BatchEngine, players: int) -> None:
    """Every reading of the two engines is equal, array for array."""
    for read in ("phase", "to_move", "terminated", "scores", "ranks", "last_chance"):
        assert np.array_equal(getattr(python, read)(), getattr(numba, read)()), read
    assert np.array_equal(python.legal_masks(), numba.legal_masks())
    assert python.observations().tobytes() == numba.observations().tobytes()
    seats = np.arange(python.n) % players
    assert python.observations(seats).tobytes() == numba.observations(seats).tobytes()
    for ours, theirs in zip(python.outcome_values(), numba.outcome_values(), strict=True):
        assert ours.tobytes() == theirs.tobytes()
    assert all(python.state(i) == numba.state(i) for i in range(python.n))


@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_both_engines_play_the_same_games(players: int, rules: RuleSet) -> None:
    play_side_by_side(players, rules, n=6, steps=260, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize(("players", "rules"), CONFIGS, ids=IDS)
def test_both_engines_play_the_same_games_many_games(players: int, rules: RuleSet) -> None:
    play_side_by_side(players, rules, n=24, steps=800, seed=2024 + players)


def play_side_by_side(players: int, rules: RuleSet, n: int, steps: int, seed: int) -> None:
    """Step both engines with the same sampled actions (some steps masked), resetting the
    games that end, then everything once, then reseeding; compare after every call."""
    python, numba = PythonBatch(n, players, rules, seed), Batch(n, players, rules, seed)
    assert_same(python, numba, players)
    rng = np.random.default_rng(players)
    ended = 0
    for step in range(steps):
        actions = python.sample_actions()
        assert np.array_equal(actions, numba.sample_actions())
        if step % 5 == 4:  # step only some games now and then
            mask = rng.random(n) < 0.5
            python.step(actions, mask=mask)
            numba.step(actions, mask=mask)
        else:
            python.step(actions)
            numba.step(actions)
        assert_same(python, numba, players)
        over = python.terminated()
        if over.any():  # autoreset, as VectorEnv does: the generators carry on
            ended += int(over.sum())
            python.reset(over)
            numba.reset(over)
            assert_same(python, numba, players)
        if step == steps // 2:  # a full reset, then a reseed
            python.reset()
            numba.reset()
            assert_same(python, numba, players)
            python.seed(11)
            numba.seed(11)
    assert ended >= n


def test_set_state_resolves_chance_alike_and_seeds_take_any_integer() -> None:
    for seed in (0, -3, 2**64 + 5):
        python, numba = PythonBatch(3, 2, seed=seed), Batch(3, 2, seed=seed)
        assert_same(python, numba, 2)
        rolled = State.new(2).apply(parse_action("+R")).apply(parse_action("+B"))
        for engine in (python, numba):
            engine.set_state(1, rolled.apply(parse_action("L")))  # a ROLL, resolved inside
            engine.set_state(2, State.new(2))  # two DRAWs
        assert_same(python, numba, 2)


@pytest.mark.parametrize(
    "opponents", [None, ("random", "random", "random"), ("random", "greedy", "random")]
)
def test_vector_env_transitions_are_the_same_on_both_backends(
    opponents: tuple[str, ...] | None,
) -> None:
    kwargs: dict[str, Any] = {"opponents": opponents, "seat": "rotate"} if opponents else {}
    envs = [VectorEnv(8, 4, seed=3, backend=backend, **kwargs) for backend in ("python", "numba")]
    outs = [env.reset_transition() for env in envs]
    ended = 0
    for _ in range(120):
        for field, ours, theirs in zip(outs[0]._fields, *outs, strict=True):
            assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes(), field
        ended += int(outs[0].terminated.sum())
        actions = envs[0].sample_actions()
        assert np.array_equal(actions, envs[1].sample_actions())
        outs = [env.step_transition(actions) for env in envs]
    assert ended > 0


@pytest.mark.parametrize("engine", [PythonBatch, Batch])
def test_both_engines_refuse_bad_arguments_alike(engine: Callable[..., BatchEngine]) -> None:
    with pytest.raises(ValueError, match=r"a batch holds 1\.\.16777216 games, found n=0"):
        engine(0, 4)
    with pytest.raises(ValueError, match=r"found n=2\.0"):
        engine(2.0, 4)
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        engine(2, 5)
    with pytest.raises(TypeError, match=r"expected a RuleSet \(see parse_rules\), found str"):
        engine(2, 4, "bga")
    batch = engine(3, 4)
    with pytest.raises(ValueError, match="reset mask: expected 3 booleans, found shape"):
        batch.reset(np.ones(2, dtype=bool))
    with pytest.raises(ValueError, match="step mask: expected 3 booleans, found shape"):
        batch.step(np.ones(3, dtype=np.int64), mask=[1, 0, 1])
    with pytest.raises(ValueError, match="step: expected 3 integer decision ids"):
        batch.step(np.ones(3))
    with pytest.raises(ValueError, match=r"observations: seats must be 0\.\.3, found 0\.\.4"):
        batch.observations([0, 4, 1])
    with pytest.raises(ValueError, match="observations: expected 3 seats"):
        batch.observations([0, 1])
    with pytest.raises(IndexError, match=r"game index must be 0\.\.2, found 3"):
        batch.state(3)
    assert batch.state(-1) == batch.state(2)
    with pytest.raises(TypeError, match="expected a marrakech State"):
        notation: Any = "d4N"  # not a State: refused at run time
        batch.set_state(0, notation)
    with pytest.raises(ValueError, match="set_state: this batch plays 4 players"):
        batch.set_state(0, State.new(3))


def test_observing_some_games_is_the_same_on_both_engines() -> None:
    from marrakech.envs.vector import observe_games

    python, numba = PythonBatch(9, 3, seed=4), Batch(9, 3, seed=4)
    for _ in range(25):
        actions = python.sample_actions()
        python.step(actions)
        numba.step(actions)
    games = np.array([0, 4, 8], dtype=np.intp)
    seats = np.array([2, 0, 1], dtype=np.int8)
    ours, theirs = observe_games(python, games, seats), observe_games(numba, games, seats)
    assert ours.tobytes() == theirs.tobytes()
    everyone = python.observations(np.array([2, 0, 0, 0, 0, 0, 0, 0, 1]))
    assert ours.tobytes() == everyone[games].tobytes()
