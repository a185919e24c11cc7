"""OpenSpiel's ``rl_environment`` on ``python_marrakech``, and its bots compared.

1. The RL loop OpenSpiel's Python agents (DQN, policy gradients...) are written for:
   ``rl_environment.Environment`` gives each player its observation tensor (the shared
   474 floats, as ``info_state``) and legal actions at every step, samples the chance
   nodes itself, and the rewards at the end; here with OpenSpiel's random agents.
2. ``evaluate_bots``: OpenSpiel's Python MCTS (which samples chance nodes) against a
   uniform random bot, both seats.

Needs the ``rl`` extra (open_spiel)::

    .venv/bin/python examples/openspiel_rl_environment.py --episodes 20 --games 4
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots, mcts, random_agent
from open_spiel.python.bots import uniform_random

import marrakech.envs.openspiel  # noqa: F401  (registers python_marrakech)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=20, help="rl_environment episodes")
    parser.add_argument("--games", type=int, default=4, help="MCTS games (seats alternate)")
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    # 1. rl_environment with random agents.
    env = rl_environment.Environment("python_marrakech", players=args.players)
    env.seed(args.seed)  # the chance sampler
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [random_agent.RandomAgent(p, actions) for p in range(args.players)]
    totals, steps, start = np.zeros(args.players), 0, time.process_time()
    for _ in range(args.episodes):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([agents[player].step(step).action])
            steps += 1
        totals += step.rewards
    rate = steps / (time.process_time() - start)
    print(
        f"rl_environment: {args.episodes} episodes, info_state of {size} floats, {actions} "
        f"actions; {steps} steps ({rate:,.0f} per CPU-second); returns {totals.tolist()}"
    )

    # 2. OpenSpiel's MCTS against a uniform random bot, with evaluate_bots.
    game = env.game
    rng = np.random.RandomState(args.seed)
    searcher = mcts.MCTSBot(
        game,
        2.0,
        args.simulations,
        mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        random_state=rng,
        solve=False,
    )
    returns = []
    for index in range(args.games):
        seat = index % args.players
        bots = [uniform_random.UniformRandomBot(p, rng) for p in range(args.players)]
        bots[seat] = searcher
        returns.append(evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[seat])
    print(
        f"MCTS ({args.simulations} simulations) vs uniform random over {args.games} games: "
        f"mean return {np.mean(returns):+.2f}"
    )


if __name__ == "__main__":
    main()
