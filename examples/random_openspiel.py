"""A random agent in OpenSpiel, and OpenSpiel's own MCTS against a marrakech bot.

.venv/bin/python examples/random_openspiel.py --players 2 --simulations 50
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import marrakech.envs.openspiel  # noqa: F401  (registers python_marrakech)
from marrakech.bots import make_bot


def play(state: pyspiel.State, choose: dict[int, object], rng: np.random.RandomState) -> None:
    """Play to the end: chance by its probabilities, each seat by its chooser."""
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(choose[state.current_player()](state)))  # type: ignore[operator]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--opponent", default="greedy", help="marrakech bot for seat 1")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = pyspiel.load_game("python_marrakech", {"players": args.players, "rules": args.rules})
    rng = np.random.RandomState(args.seed)

    # 1. Random agents in every seat.
    state = game.new_initial_state()
    play(state, {p: (lambda s: rng.choice(s.legal_actions())) for p in range(args.players)}, rng)
    print(f"random game: {len(state.history())} actions, returns {state.returns()}")

    # 2. OpenSpiel's MCTS (seat 0) against a marrakech bot (the other seats).
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    searcher = mcts.MCTSBot(game, 2.0, args.simulations, evaluator, solve=False, random_state=rng)
    bot, bot_rng = make_bot(args.opponent), random.Random(args.seed)
    choosers = {p: (lambda s: bot.choose(s.core, bot_rng).id) for p in range(1, args.players)}
    choosers[0] = searcher.step
    state = game.new_initial_state()
    play(state, choosers, rng)
    print(state)
    print(f"OpenSpiel MCTS ({args.simulations} simulations) vs {args.opponent}: {state.returns()}")


if __name__ == "__main__":
    main()
