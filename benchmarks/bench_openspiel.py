"""OpenSpiel: ``python_marrakech`` against C++ backgammon, steps per CPU-second.

Both games are played the same ways in the same run, with random legal actions:

* ``state API``: a loop over ``new_initial_state()``, ``chance_outcomes()``,
  ``legal_actions()``, ``apply_action()``, reading ``observation_tensor()`` of the player
  to move before each decision (a step is an action applied, chance included);
* ``rl_environment``: OpenSpiel's ``rl_environment.Environment``, which computes every
  player's observation tensor and legal actions after each step (a step is an agent's
  decision; chance is sampled inside).

It also times one ``observation_tensor(player)`` call, through Python and through
OpenSpiel's C++ side (the observer), and OpenSpiel's Python MCTS. CPU time of the
process, so the figures hold on a loaded machine; the ratio to backgammon is what to
compare. Not a test::

    .venv/bin/python benchmarks/bench_openspiel.py
    .venv/bin/python benchmarks/bench_openspiel.py --seconds 5 --json
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from timing import per_cpu_second

import marrakech.envs.openspiel  # noqa: F401  (registers python_marrakech)

GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "backgammon (C++)": ("backgammon", {}),
    "python_marrakech, 2 players": ("python_marrakech", {"players": 2}),
    "python_marrakech, 4 players": ("python_marrakech", {"players": 4}),
}


def state_api(name: str, params: dict[str, Any], seconds: float) -> float:
    game = pyspiel.load_game(name, params)
    rng = random.Random(0)

    def one_game() -> int:
        state, steps = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(outcomes, probs)[0]
            else:
                state.observation_tensor(state.current_player())
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            steps += 1
        return steps

    return per_cpu_second(one_game, seconds)


def environment(name: str, params: dict[str, Any], seconds: float) -> float:
    env = rl_environment.Environment(name, **params)
    rng = np.random.RandomState(0)

    def one_game() -> int:
        step, steps = env.reset(), 0
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([rng.choice(step.observations["legal_actions"][player])])
            steps += 1
        return steps

    return per_cpu_second(one_game, seconds)


def tensor_call(params: dict[str, Any], seconds: float) -> dict[str, float]:
    """Microseconds per ``observation_tensor(player)``: from Python, and via C++."""
    game = pyspiel.load_game("python_marrakech", params)
    rng, states = random.Random(1), []
    state = game.new_initial_state()
    while not state.is_terminal():
        if not state.is_chance_node():
            states.append(state.clone())
            action = rng.choice(state.legal_actions())
        else:
            action = rng.choice([a for a, _ in state.chance_outcomes()])
        state.apply_action(action)
    calls = [(s, s.current_player()) for s in states]
    through = {
        "python": lambda s, p: s.observation_tensor(p),
        "c++ observer": lambda s, p: pyspiel.State.observation_tensor(s, p),
    }
    out = {}
    for label, call in through.items():

        def run(call: Callable[[Any, int], Any] = call) -> int:
            for s, p in calls:
                call(s, p)
            return len(calls)

        out[label] = 1e6 / per_cpu_second(run, seconds / 4)
    return out


def mcts_simulations(seconds: float) -> float:
    """Simulations per CPU-second of OpenSpiel's Python MCTSBot (one random rollout per
    leaf) from the opening of a 2-player game."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_marrakech", {"players": 2})
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, 2.0, 100, evaluator, random_state=rng, solve=False)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])

    def search() -> int:
        bot.mcts_search(state)
        return bot.max_simulations

    return per_cpu_second(search, seconds)


def measure(seconds: float) -> dict[str, Any]:
    rows = {}
    for label, (name, params) in GAMES.items():
        rows[label] = {
            "state API": state_api(name, params, seconds),
            "rl_environment": environment(name, params, seconds),
        }
    return {
        "steps_per_cpu_s": rows,
        "tensor_us": tensor_call({"players": 4}, seconds),
        "mcts_simulations_per_cpu_s": mcts_simulations(seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per figure")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = measure(args.seconds)
    if args.json:
        print(json.dumps(results))
        return
    rows = results["steps_per_cpu_s"]
    reference = rows["backgammon (C++)"]
    print(f"{'steps per CPU-second':<30}{'state API':>22}{'rl_environment':>22}")
    for label, row in rows.items():
        cells = "".join(
            f"{row[k]:>14,.0f} ({row[k] / reference[k]:.2f}x)"
            for k in ("state API", "rl_environment")
        )
        print(f"{label:<30}{cells}")
    tensor = results["tensor_us"]
    print(
        "observation_tensor(player), 4 players: "
        + ", ".join(f"{k} {v:.1f} us" for k, v in tensor.items())
    )
    simulations = results["mcts_simulations_per_cpu_s"]
    print(f"OpenSpiel's Python MCTSBot, 2-player opening: {simulations:,.0f} simulations/CPU-s")


if __name__ == "__main__":
    main()
