"""A random agent in PettingZoo's AEC API: every seat samples a legal decision.

.venv/bin/python examples/random_pettingzoo.py --players 3 --seed 1
"""

from __future__ import annotations

import argparse

from marrakech.envs import marrakech_v0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = marrakech_v0.env(players=args.players, rules=args.rules, render_mode="ansi")
    env.reset(seed=args.seed)
    for seat, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(args.seed + seat)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    decisions = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
            decisions += 1
        env.step(action)
    print(env.unwrapped.render())
    shown = {agent: round(total, 4) for agent, total in returns.items()}
    print(f"{decisions} decisions; rewards: {shown}")
    env.close()


if __name__ == "__main__":
    main()
