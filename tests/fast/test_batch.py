"""The Batch API: shapes, resets, illegal actions, set_state, seeds, observations."""

from __future__ import annotations

import pytest

from marrakech import BGA, STANDARD, IllegalActionError, Phase, State, parse_action
from marrakech.observation import encode_observation

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import Batch  # noqa: E402


def play_out(batch: Batch, limit: int = 500) -> int:
    steps = 0
    while not batch.terminated().all():
        batch.step(batch.sample_actions())
        steps += 1
        assert steps < limit
    return steps


def test_fresh_batch_waits_at_decisions() -> None:
    for players in (2, 3, 4):
        batch = Batch(16, players, seed=3)
        assert batch.phase().tolist() == [0] * 16  # 2 players: both piles already drawn (R7)
        assert batch.to_move().dtype == np.int8 and batch.to_move().tolist() == [0] * 16
        masks = batch.legal_masks()
        assert masks.shape == (16, 87) and masks.dtype == np.bool_
        assert masks[:, :3].all() and not masks[:, 3:].any()
        assert batch.observations().shape == (16, 474)
        assert batch.observations().dtype == np.float32
        state = batch.state(5)
        assert state.phase == Phase.ORIENT and (players != 2 or state.pile_top(1) is not None)


def test_games_end_and_report_results() -> None:
    batch = Batch(64, 4, seed=1)
    play_out(batch)
    assert batch.terminated().all()
    assert (batch.to_move() == -2).all() and (batch.phase() == int(Phase.OVER)).all()
    assert not batch.legal_masks().any()
    scores, ranks = batch.scores(), batch.ranks()
    assert scores.shape == (64, 4) and scores.dtype == np.int32 and ranks.dtype == np.int8
    assert (ranks.min(axis=1) == 1).all()
    rewards = batch.rewards()
    assert np.allclose(rewards.sum(axis=1), 2.0)
    assert (batch.turns() <= 48).all() and (batch.plies() > 2 * batch.turns()).all()
    # finished games ignore their actions, whatever they are
    before = batch.rows.copy()
    batch.step(np.full(64, 12345))
    assert np.array_equal(before, batch.rows)


def test_reset_with_a_mask_restarts_only_those_games() -> None:
    batch = Batch(8, 3, seed=2)
    batch.step(batch.sample_actions())
    mask = np.array([True, False] * 4)
    kept = batch.state(1)
    batch.reset(mask)
    assert batch.phase().tolist() == [0, 2] * 4
    assert batch.state(0) == State.new(3) and batch.state(1) == kept
    with pytest.raises(ValueError, match="expected 8 booleans"):
        batch.reset(np.ones(3, dtype=bool))


def test_reset_games_continue_their_generator() -> None:
    batch = Batch(1, 4, seed=9)
    batch.step([1])
    first = batch.state(0)
    batch.reset()
    batch.step([1])
    assert batch.state(0).phase == Phase.PLACE  # a new roll, not necessarily the same
    again = Batch(1, 4, seed=9)
    again.step([1])
    assert again.state(0) == first


def test_same_seed_same_games_different_seed_different_games() -> None:
    def final_scores(seed: int) -> list[list[int]]:
        batch = Batch(32, 2, BGA, seed=seed)
        play_out(batch)
        scores: list[list[int]] = batch.scores().tolist()
        return scores

    assert final_scores(4) == final_scores(4)
    assert final_scores(4) != final_scores(5)


def test_an_illegal_action_names_the_game_and_moves_nothing() -> None:
    batch = Batch(4, 4, seed=0)
    before = batch.rows.copy()
    found = r"game 2: illegal action id 87 \(r1\) .*: expected one of 0 \(L\)"
    with pytest.raises(IllegalActionError, match=found):
        batch.step(np.array([0, 1, 87, 2]))
    assert np.array_equal(before, batch.rows)
    batch.step(np.array([0, 1, 2, 2]))
    with pytest.raises(IllegalActionError, match=r"game 0: illegal action id 0 \(L\) in the PLACE"):
        batch.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="expected 4 integer decision ids"):
        batch.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="expected 4 integer decision ids"):
        batch.step(np.zeros(4, dtype=np.float64))


def test_set_state_and_state_round_trip_and_resolve_chance() -> None:
    batch = Batch(3, 3, STANDARD, seed=0)
    state = State.new(3).apply(parse_action("R")).apply(parse_action("r2"))
    batch.set_state(1, state)
    assert batch.state(1) == state
    masks = batch.legal_masks()
    assert masks[1].tolist() == state.legal_mask()
    # a chance node is resolved at once with the game's generator
    batch.set_state(2, State.new(3).apply(parse_action("L")))
    assert batch.state(2).phase == Phase.PLACE
    assert 87 <= batch.last_chance()[2, 0] <= 90
    with pytest.raises(ValueError, match="plays 3 players"):
        batch.set_state(0, State.new(4))
    with pytest.raises(IndexError, match=r"0\.\.2"):
        batch.state(3)


def test_observations_from_given_seats() -> None:
    batch = Batch(10, 2, seed=8)
    for _ in range(30):
        batch.step(batch.sample_actions())
    seats = np.arange(10) % 2
    seen = batch.observations(seats)
    for i in range(10):
        expected = np.asarray(encode_observation(batch.state(i), int(seats[i])), np.float32)
        assert seen[i].tobytes() == expected.tobytes()
    with pytest.raises(ValueError, match=r"seats must be 0\.\.1"):
        batch.observations(np.full(10, 2))


def test_bad_construction_is_refused() -> None:
    with pytest.raises(ValueError, match=r"1\.\.16777216 games"):
        Batch(0, 4)
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        Batch(4, 5)


def test_a_large_batch_runs() -> None:
    batch = Batch(65_536, 4, seed=1)
    for _ in range(4):
        batch.step(batch.sample_actions())
    assert batch.phase().tolist().count(int(Phase.ORIENT)) == 65_536 - int(batch.terminated().sum())


def test_step_with_a_mask_moves_only_those_games() -> None:
    batch = Batch(6, 3, seed=4)
    twin = Batch(6, 3, seed=4)
    mask = np.array([True, False, True, False, False, True])
    actions = np.where(mask, 1, -1)  # the skipped games' actions are not looked at
    before = batch.rows[~mask].copy()
    batch.step(actions, mask=mask)
    assert np.array_equal(batch.rows[~mask], before)
    assert (batch.phase()[mask] == int(Phase.PLACE)).all()
    twin.step(np.ones(6, dtype=np.int64))
    assert all(batch.state(i) == twin.state(i) for i in np.flatnonzero(mask))
    with pytest.raises(IllegalActionError, match="game 2"):
        batch.step(np.full(6, 1), mask=np.array([False, False, True, False, False, False]))
    with pytest.raises(ValueError, match="expected 6 booleans"):
        batch.step(actions, mask=[1, 0, 1, 0, 0, 1])
