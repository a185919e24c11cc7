"""The search bots: expectimax's depth and table, MCTS's chance nodes, rewards, tree
reuse and the pure-Python fallback of the compiled playouts."""

from __future__ import annotations

import random

import pytest

from marrakech import State, random_action
from marrakech.bots import ExpectimaxBot, MctsBot
from marrakech.bots import rollout as rollout_module
from marrakech.bots.mcts import heuristic_rewards
from marrakech.bots.rollout import Rollouts, final_rewards, terminal_rewards

from .conftest import decision_positions


def last_placement() -> State:
    """A 3-player position where the last carpet of the game is to be placed (R19)."""
    rng = random.Random(4)
    while True:
        state = State.new(players=3)
        before = state
        while not state.is_terminal:
            before = state
            state = state.apply(random_action(state, rng))
        if before.phase.name == "PLACE" and not state.eliminated:
            return before


def test_expectimax_plays_the_best_last_placement() -> None:
    state = last_placement()
    seat = state.turn
    bot = ExpectimaxBot(seconds=None, depth=1)

    def final_margin(action: object) -> tuple[int, int]:
        end = state.apply(action)  # type: ignore[arg-type]
        return (-end.ranks()[seat], end.scores()[seat])

    best = max(final_margin(a) for a in state.legal_actions())
    chosen = bot.choose(state, random.Random(0))
    assert final_margin(chosen)[0] == best[0]  # the best rank reachable (R21)


def test_expectimax_fills_its_table_and_reports_depth() -> None:
    state = decision_positions(2, "standard", count=3, seed=8)[1]
    bot = ExpectimaxBot(seconds=None, depth=2)
    bot.choose(state, random.Random(0))
    assert bot.last_depth == 2
    assert bot.last_nodes > 0
    assert len(bot._table) > 0


def test_expectimax_with_a_clock_returns_a_completed_depth() -> None:
    state = decision_positions(4, "standard", count=2, seed=3)[1]
    bot = ExpectimaxBot(seconds=0.05)
    assert bot.choose(state, random.Random(0)) in state.legal_actions()
    assert bot.last_depth >= 0


def test_rewards_are_per_seat_and_favour_the_winner() -> None:
    rewards = final_rewards([50, 40, 30, 20], [1, 2, 3, 4])
    assert rewards == sorted(rewards, reverse=True)
    assert all(0 <= r <= 1 for r in rewards)
    tied = final_rewards([45, 45, 30], [1, 1, 3])
    assert tied[0] == pytest.approx(tied[1])
    state = last_placement()
    end = state.apply(state.legal_actions()[0])
    assert len(terminal_rewards(end)) == 3
    assert len(heuristic_rewards(state)) == 3


def test_the_win_objective_values_only_the_win() -> None:
    """R21: the richest seat wins; tied winners share the win, other places are worth
    nothing beyond their score margin."""
    second, third = final_rewards([50, 40, 30, 20], [1, 2, 3, 4], "win")[1:3]
    assert second == pytest.approx(third, abs=0.25) and second < 0.25
    tied = final_rewards([45, 45, 30], [1, 1, 3], "win")
    rank_tied = final_rewards([45, 45, 30], [1, 1, 3], "rank")
    assert tied[0] == pytest.approx(tied[1]) and tied[0] < rank_tied[0]
    assert Rollouts(objective="win").objective == "win"
    with pytest.raises(ValueError, match="expected an objective among rank, win, found 'gold'"):
        Rollouts(objective="gold")
    with pytest.raises(ValueError, match="objective"):
        MctsBot(iterations=10, objective="gold")


@pytest.mark.parametrize("use_fast", [None, False])
def test_the_win_objective_plays_legal_moves(use_fast: bool | None) -> None:
    bot = MctsBot(seconds=None, iterations=60, objective="win", use_fast=use_fast)
    for state in decision_positions(4, "standard", count=3, seed=5):
        assert bot.choose(state, random.Random(0)) in state.legal_actions()


def test_python_playouts_work_without_the_compiled_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rollout_module, "_kernel", None)
    monkeypatch.setattr(rollout_module, "_kernel_checked", True)
    assert rollout_module.fast_kernel() is None
    assert not Rollouts().compiled
    with pytest.raises(ImportError, match="not available"):
        Rollouts(use_fast=True)
    bot = MctsBot(seconds=None, iterations=20)
    assert not bot.compiled and bot.rollouts == 1
    state = State.new(players=2).apply(random_action(State.new(players=2), random.Random(0)))
    state = state.apply(random_action(state, random.Random(0)))
    assert bot.choose(state, random.Random(1)) in state.legal_actions()


def test_compiled_and_python_playouts_estimate_the_same_values() -> None:
    if rollout_module.fast_kernel() is None:
        pytest.skip("marrakech.fast is not available")
    state = State.new(players=4)
    fast = Rollouts(use_fast=True).run(state, 2000, random.Random(0))
    slow = Rollouts(use_fast=False).run(state, 300, random.Random(0))
    # Same policy (uniform decisions, true chance): the mean rewards agree.
    for objective in ("win", "rank"):
        fast_win = Rollouts(use_fast=True, objective=objective).run(state, 2000, random.Random(0))
        slow_win = Rollouts(use_fast=False, objective=objective).run(state, 300, random.Random(0))
        assert fast_win == pytest.approx(slow_win, abs=0.08)
    assert fast == pytest.approx(slow, abs=0.08)
    # Seat 0 moves first and wins most often in random play.
    assert fast[0] > fast[3]


def test_mcts_reuses_its_tree_between_decisions() -> None:
    state = decision_positions(4, "standard", count=1, seed=2)[0]
    assert state.phase.name == "ORIENT"
    bot = MctsBot(seconds=None, iterations=200, use_fast=False)
    rng = random.Random(0)
    orient = bot.choose(state, rng)
    rolled = state.apply(orient)
    placing = rolled.apply(rolled.legal_actions()[1])
    kept = bot._reuse(placing)
    assert kept is not None and kept.real > 0
    bot.choose(placing, rng)
    assert bot.last_visits > 200  # the old visits plus this decision's iterations
    fresh = MctsBot(seconds=None, iterations=200, use_fast=False, reuse=False)
    fresh.choose(placing, random.Random(0))
    assert fresh.last_visits == 200


def test_mcts_plays_out_with_the_informed_policy_by_default() -> None:
    from marrakech.bots import make_bot

    default = MctsBot(seconds=None, iterations=10)
    assert default._rollouts.informed is True
    assert default.rollouts == (8 if default.compiled else 1)
    uniform = make_bot("mcts@iterations=10@informed=false@objective=win")
    assert isinstance(uniform, MctsBot)
    assert uniform._rollouts.informed is False and uniform._rollouts.objective == "win"
    state = decision_positions(2, "standard", count=1, seed=4)[0]
    assert uniform.choose(state, random.Random(0)) in state.legal_actions()
