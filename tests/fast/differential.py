"""Drive the core and the kernels with the same decisions and chance outcomes; compare.

Two drivers:

* :func:`drive_rows`: the core chooses everything (decisions uniformly, chance with
  ``sample_outcome``) and each action is forced into a kernel row through
  ``kernels.apply_action`` (the "step with a given outcome" entry point). After every
  action the row must show the same position (compared through the core's notation),
  accept exactly the core's legal ids, and report the same tithe.
* :func:`drive_batch`: a :class:`Batch` chooses (``sample_actions``) and samples chance
  inside; the core follows, applying the same decision and the chance outcomes the batch
  reports (``last_chance``). Masks, positions, tithes, scores and ranks must agree.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from marrakech import ACTION_IDS, State
from marrakech.actions import ACTIONS
from marrakech.fast import Batch, from_arrays, kernels, rows, to_arrays
from marrakech.observation import encode_observation
from marrakech.playout import sample_outcome
from marrakech.rules import RuleSet


@dataclass
class Tally:
    """What a drive went through, so tests can assert the rules were exercised."""

    games: int = 0
    actions: int = 0
    tithes: int = 0
    eliminations: int = 0
    shared_wins: int = 0
    own_covers: int = 0
    observations: int = 0
    seen_phases: set[int] = field(default_factory=set)


def _tithe_of(state: State, action_id: int) -> tuple[int, int, int, int]:
    event = state.describe(ACTIONS[action_id])
    tithe = event.tithe
    if tithe is None:
        return (-1, -1, 0, 0)
    return (tithe.payer, tithe.payee, tithe.due, tithe.paid)


def drive_rows(players: int, rules: RuleSet, games: int, seed: int) -> Tally:
    """Core-driven games forced into a kernel row, compared after every action."""
    rng = random.Random(seed)
    tally = Tally()
    flags = np.zeros(ACTION_IDS, dtype=np.bool_)
    for _ in range(games):
        state = State.new(players, rules, first_seat=rng.randrange(players))
        row = to_arrays(state)
        assert from_arrays(row) == state
        tithes_paid = 0
        while True:
            kernels.legal_flags(row, flags)
            legal = set(state.legal_action_ids())
            assert set(np.flatnonzero(flags).tolist()) == legal, state.notation()
            if state.is_terminal:
                break
            if state.is_chance:
                action = sample_outcome(state, rng)
            else:
                options = state.legal_actions()
                action = options[rng.randrange(len(options))]
            event = state.describe(action)
            assert kernels.apply_action(row, np.int64(action.id)), (  # type: ignore[arg-type]
                state.notation(),  # a Numba dispatcher takes numpy integers as its int
                action,
            )
            state = event.after
            tally.actions += 1
            assert from_arrays(row).notation() == state.notation()
            if event.tithe is not None:
                tithe = event.tithe
                tithes_paid += tithe.paid
                tally.tithes += 1
                assert tuple(row[rows.LAST_PAYER : rows.LAST_PAID + 1].tolist()) == (
                    tithe.payer,
                    tithe.payee,
                    tithe.due,
                    tithe.paid,
                )
            else:
                assert row[rows.LAST_PAYER] == -1
            if event.eliminated is not None:
                tally.eliminations += 1
            if (
                rules.own_cover
                and any(c.colour % players == event.seat for c in event.covered)
                and len(event.covered) == 2
            ):
                tally.own_covers += 1
        assert int(row[rows.TITHE_DIRHAMS]) == tithes_paid
        _check_results(row, state)
        tally.games += 1
        if list(state.ranks()).count(1) > 1:
            tally.shared_wins += 1
    return tally


def _check_results(row: np.ndarray, state: State) -> None:
    players = state.players
    out = np.zeros(3 * players, dtype=np.int32)
    kernels.results(row, out)
    assert tuple(out[:players].tolist()) == state.scores()
    assert tuple(out[players : 2 * players].tolist()) == state.money
    assert tuple(out[2 * players :].tolist()) == state.ranks()


def drive_batch(
    players: int,
    rules: RuleSet,
    games: int,
    seed: int,
    observe_every: int = 0,
    notation: bool = True,
) -> Tally:
    """Batch-driven games followed by the core, compared after every step.

    ``observe_every`` > 0 also compares the batch's observations with the core encoder
    (from the acting seat and from every other seat) on every that-many-th step.
    ``notation`` compares notation strings; otherwise states are compared with ``==``
    (the same test: notation is a one-to-one image of the state, and it is faster).
    """
    first = seed % players
    batch = Batch(games, players, rules, seed=seed, first_seat=first)
    tally = Tally(games=games)
    start = State.new(players, rules, first_seat=first)
    states: list[State] = []
    chance = batch.last_chance()
    for i in range(games):
        state = start
        for action_id in chance[i].tolist():
            if action_id >= 0:
                state = state.apply(ACTIONS[action_id])
        states.append(state)
    paid = [0] * games

    def same(i: int) -> None:
        if notation:
            assert batch.state(i).notation() == states[i].notation(), i
        else:
            assert batch.state(i) == states[i], (i, states[i].notation())

    for i in range(games):
        same(i)
    live = list(range(games))
    step = 0
    while live:
        masks = batch.legal_masks()
        to_move = batch.to_move()
        phases = batch.phase()
        if observe_every and step % observe_every == 0:
            _check_observations(batch, states, live, tally)
        for i in live:
            assert masks[i].tolist() == states[i].legal_mask(), states[i].notation()
            assert to_move[i] == states[i].to_move
            assert phases[i] == int(states[i].phase)
            tally.seen_phases.add(int(phases[i]))
        actions = batch.sample_actions()
        batch.step(actions)
        step += 1
        chance = batch.last_chance()
        last = batch.last_tithes()
        for i in live:
            state = states[i].apply(ACTIONS[int(actions[i])])
            tally.actions += 1
            tithe = (-1, -1, 0, 0)  # the last tithe paid in the step (R32 may roll again)
            for action_id in chance[i].tolist():
                if action_id < 0:
                    break
                if action_id < 91:  # a roll: compare its tithe
                    paying = _tithe_of(state, action_id)
                    if paying[0] >= 0:
                        tithe = paying
                        paid[i] += paying[3]
                        tally.tithes += 1
                        if state.is_in(paying[0]) and not state.apply(ACTIONS[action_id]).is_in(
                            paying[0]
                        ):
                            tally.eliminations += 1
                state = state.apply(ACTIONS[action_id])
                tally.actions += 1
            assert tuple(last[i].tolist()) == tithe, (states[i].notation(), int(actions[i]))
            states[i] = state
            same(i)
        over = batch.terminated()
        live = [i for i in live if not over[i]]
        for i in range(games):
            assert bool(over[i]) == states[i].is_terminal
    scores, ranks = batch.scores(), batch.ranks()
    tithes = batch.tithes_paid()
    rewards = batch.rewards()
    for i in range(games):
        assert tuple(scores[i].tolist()) == states[i].scores()
        assert tuple(ranks[i].tolist()) == states[i].ranks()
        assert int(tithes[i]) == paid[i]
        assert abs(float(rewards[i].sum()) - players / 2) < 1e-5
        if list(states[i].ranks()).count(1) > 1:
            tally.shared_wins += 1
    if observe_every:
        _check_observations(batch, states, list(range(games)), tally)
    return tally


def _check_observations(batch: Batch, states: list[State], games: list[int], tally: Tally) -> None:
    acting = batch.observations()
    for i in games:
        state = states[i]
        seat = state.turn  # the acting seat, or 0 once the game is over
        expected = np.asarray(encode_observation(state, seat), dtype=np.float32)
        assert acting[i].tobytes() == expected.tobytes(), state.notation()
        tally.observations += 1
    for seat in range(batch.players):
        seen = batch.observations(np.full(batch.n, seat))
        for i in games[:: max(1, len(games) // 16)]:
            expected = np.asarray(encode_observation(states[i], seat), dtype=np.float32)
            assert seen[i].tobytes() == expected.tobytes(), (states[i].notation(), seat)
            tally.observations += 1
