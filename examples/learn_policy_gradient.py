"""Learn to beat the random bot: a masked linear softmax policy, numpy policy gradient.

Self-contained (numpy and ``marrakech.envs`` only). The policy scores each of the 87
decision ids with a linear function of the 474-float ``marrakech_v0`` observation,
masks the illegal ones and samples from the softmax. Training is REINFORCE with a mean
baseline and Adam, on a batched :class:`~marrakech.envs.VectorEnv` where the learning
seat rotates and ``random`` bots play the other seats. Then the policy (greedy: the
highest-scoring legal decision) plays fresh games against ``random`` and the script
prints its win rate with a 95% confidence interval::

    .venv/bin/python examples/learn_policy_gradient.py                 # 2 players, ~3 min
    .venv/bin/python examples/learn_policy_gradient.py --players 4 --minutes 5
    .venv/bin/python examples/learn_policy_gradient.py --save policy.npz

The measured result is in ``docs/environments.md``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from evaluation import WinRate, against_random, win_rate

from marrakech.envs import VectorEnv
from marrakech.envs.spec import DECISION_IDS, OBSERVATION_SIZE

Array = npt.NDArray[np.float64]


class LinearPolicy:
    """logits = W · observation + b, illegal decisions masked out."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.weights = rng.normal(0.0, 0.01, (OBSERVATION_SIZE, DECISION_IDS))
        self.bias = np.zeros(DECISION_IDS)

    def probabilities(self, observations: Array, masks: npt.NDArray[np.bool_]) -> Array:
        logits = observations @ self.weights + self.bias
        logits = np.where(masks, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def sample(
        self, observations: Array, masks: npt.NDArray[np.bool_], rng: np.random.Generator
    ) -> npt.NDArray[np.int64]:
        probs = self.probabilities(observations, masks)
        # Inverse-CDF sampling, one uniform per row.
        u = rng.random((len(probs), 1))
        return np.minimum((probs.cumsum(axis=1) < u).sum(axis=1), DECISION_IDS - 1)

    def best(self, observations: Array, masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        logits = observations @ self.weights + self.bias
        return np.where(masks, logits, -np.inf).argmax(axis=1)


class Adam:
    def __init__(self, shapes: list[tuple[int, ...]], rate: float) -> None:
        self.rate = rate
        self.m = [np.zeros(s) for s in shapes]
        self.v = [np.zeros(s) for s in shapes]
        self.t = 0

    def ascend(self, params: list[Array], grads: list[Array]) -> None:
        self.t += 1
        for p, g, m, v in zip(params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            m_hat = m / (1 - 0.9**self.t)
            v_hat = v / (1 - 0.999**self.t)
            p += self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)


def train(
    args: argparse.Namespace,
    policy: LinearPolicy,
    rng: np.random.Generator,
    env: VectorEnv | None = None,
    after_update: Callable[[int], None] | None = None,
) -> None:
    """REINFORCE for ``args.minutes`` in ``env`` (default: against ``random``);
    ``after_update(n)`` is called after the ``n``-th update."""
    if env is None:
        env = against_random(args.games, args.players, args.seed)
    optimiser = Adam([policy.weights.shape, policy.bias.shape], args.rate)
    out = env.reset_transition()
    # Per game: the (observation, mask, action) steps of the episode in progress.
    running: list[list[tuple[Array, npt.NDArray[np.bool_], int]]] = [[] for _ in range(env.n)]
    finished: list[tuple[list[tuple[Array, npt.NDArray[np.bool_], int]], float]] = []
    deadline = time.monotonic() + 60 * args.minutes
    update, recent = 0, []
    while time.monotonic() < deadline:
        observations = out.observations.astype(np.float64)
        masks = out.action_masks.copy()
        actions = policy.sample(observations, masks, rng)
        out = env.step_transition(actions)
        for i in range(env.n):
            running[i].append((observations[i], masks[i], int(actions[i])))
            if out.terminated[i]:
                finished.append((running[i], float(out.rewards[i])))
                running[i] = []
        if len(finished) < args.episodes_per_update:
            continue
        # REINFORCE: grad log pi(a|s) * (G - mean G), summed over the batch of episodes.
        returns = np.array([g for _, g in finished])
        recent.extend(returns.tolist())
        steps = [(s, g - returns.mean()) for episode, g in finished for s in episode]
        x = np.stack([s[0] for s, _ in steps])
        m = np.stack([s[1] for s, _ in steps])
        a = np.array([s[2] for s, _ in steps])
        advantage = np.array([adv for _, adv in steps])
        probs = policy.probabilities(x, m)
        grad_logits = -probs
        grad_logits[np.arange(len(a)), a] += 1.0
        grad_logits *= advantage[:, None]
        scale = 1.0 / len(finished)
        optimiser.ascend(
            [policy.weights, policy.bias],
            [x.T @ grad_logits * scale, grad_logits.sum(axis=0) * scale],
        )
        finished.clear()
        update += 1
        if after_update is not None:
            after_update(update)
        if update % args.report_every == 0:
            mean = float(np.mean(recent))
            left = deadline - time.monotonic()
            print(
                f"update {update:4d}: mean reward {mean:+.3f} over {len(recent)} games "
                f"({left:.0f}s left)"
            )
            recent = []


def evaluate(args: argparse.Namespace, policy: LinearPolicy) -> WinRate:
    """The greedy policy (its best legal decision) against random: see evaluation.py."""
    return win_rate(
        lambda observations, masks: policy.best(observations.astype(np.float64), masks),
        args.players,
        args.eval_games,
        args.seed + 1,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--games", type=int, default=256, help="games played at once")
    parser.add_argument("--episodes-per-update", type=int, default=256)
    parser.add_argument("--rate", type=float, default=0.01, help="Adam step size")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--report-every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="write the weights to this .npz file")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    policy = LinearPolicy(rng)
    chance = 1 / args.players
    before = evaluate(args, policy)
    print(f"untrained policy vs random: win rate {before.rate:.3f} (chance level {chance:.3f})")
    start = time.monotonic()
    train(args, policy, rng)
    result = evaluate(args, policy)
    print(
        f"trained {time.monotonic() - start:.0f}s; greedy policy vs random "
        f"({args.players} players, seats rotating): {result}; chance level {chance:.3f}"
    )
    if args.save:
        np.savez(args.save, weights=policy.weights, bias=policy.bias)
        print(f"weights saved to {args.save}")


if __name__ == "__main__":
    main()
