"""Learning to beat ``greedy`` at 2 players: masked PPO in numpy, from greedy's own scores.

Against ``greedy`` a policy that starts from nothing loses every game, and the ``rank``
and ``win`` rewards then say -1 (or 0) whatever it does: there is nothing to learn from
(docs/environments.md, *Rewards*). This recipe gives the learner the three things that
fix that, all from the environment:

* **a start at greedy's level**: the policy's logits are ``beta * (s - max s) + r(o)``,
  where ``s`` are greedy's scores of the legal decisions (``VectorEnv.greedy_scores()``,
  compiled in the batch) and ``r`` a 474-64-64-87 network of the observation whose last
  layer starts at zero; so it starts as a softmax of greedy's scores (its best decision
  is greedy's) and learns where to differ, and how sure to be (``beta`` is learned too);
* **a dense reward**: ``reward="share"``, the change in its share of the scores at every
  step, so a better placement is credited at once, in won and lost games alike;
* **a mixture of opponents** drawn per game (``Mixture``): mostly ``greedy``, some
  ``search@iterations=8`` and some ``random``, all compiled in one batch.

PPO (clipped, GAE, Adam) in numpy, one process, a fixed seed. Every ``--eval-every``
updates the deterministic policy (its best decision) plays ``--eval-games`` fresh games
against ``greedy`` in the batch (the same games each time, seats rotating) and the win
rate is logged with the process's CPU time: that is the learning curve. At the end (or
with ``--final-only``) it plays ``--final-games`` other fresh games against ``greedy``,
every action and chance outcome recorded, and prints the win share with the arena's
luck-corrected 95% interval (``marrakech.arena.stats``, from each game's dice luck).

The run stops after ``--cpu-minutes`` of CPU time, counted over every resumed run; it
saves its state to ``--out`` (a folder) after every update, and ``--resume`` continues
from there::

    nice -n 19 python examples/beat_greedy.py --out runs/beat-greedy --cpu-minutes 60
    nice -n 19 python examples/beat_greedy.py --out runs/beat-greedy --cpu-minutes 90 --resume
    python examples/beat_greedy.py --out runs/beat-greedy --plot docs/beat-greedy.png
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from marrakech.actions import ACTIONS
from marrakech.arena.stats import luck_corrected
from marrakech.bots.greedy import GreedyBot, greedy_params
from marrakech.envs import VectorEnv
from marrakech.envs.mixture import Mixture
from marrakech.fast import Batch
from marrakech.luck import dice_luck
from marrakech.record import GameRecord

Array = npt.NDArray[np.float64]
#: Greedy's scores of the positions at hand for a bot's weights (None: greedy's own).
Scorer = Callable[[GreedyBot | None], Array]


class Player(Protocol):
    """What the evaluations play: the best decision in each position."""

    def best(
        self, obs: Array, masks: npt.NDArray[np.bool_], score: Scorer
    ) -> npt.NDArray[np.int64]: ...


HIDDEN = 64
ACTIONS_COUNT = 87
FLOOR = -30.0  # greedy's score gaps below this (dirhams) are as good as impossible


# -- the networks --------------------------------------------------------------------------


def init_mlp(rng: np.random.Generator, sizes: list[int], last_scale: float) -> dict[str, Array]:
    """Weights of a ReLU network (He initialisation, the last layer scaled)."""
    params = {}
    for k, (a, b) in enumerate(itertools.pairwise(sizes)):
        scale = math.sqrt(2.0 / a) * (last_scale if k == len(sizes) - 2 else 1.0)
        params[f"w{k}"] = rng.normal(0.0, scale, (a, b))
        params[f"b{k}"] = np.zeros(b)
    return params


def mlp_forward(params: dict[str, Array], x: Array) -> tuple[Array, list[Array]]:
    """The output and every layer's input (for the backward pass)."""
    layers = len(params) // 2
    inputs = []
    for k in range(layers):
        inputs.append(x)
        x = x @ params[f"w{k}"] + params[f"b{k}"]
        if k < layers - 1:
            x = np.maximum(x, 0.0)
    return x, inputs


def mlp_backward(params: dict[str, Array], inputs: list[Array], grad: Array) -> dict[str, Array]:
    """Gradients of the weights for ``grad``, the gradient of the output."""
    layers = len(params) // 2
    grads = {}
    for k in reversed(range(layers)):
        grads[f"w{k}"] = inputs[k].T @ grad
        grads[f"b{k}"] = grad.sum(axis=0)
        if k:
            grad = (grad @ params[f"w{k}"].T) * (inputs[k] > 0)
    return grads


class Adam:
    def __init__(self, params: dict[str, Array], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, Array], grads: dict[str, Array]) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            m = self.m[k] / (1 - 0.9**self.t)
            v = self.v[k] / (1 - 0.999**self.t)
            params[k] -= self.lr * m / (np.sqrt(v) + 1e-8)


class Agent:
    """The policy (greedy's scores times ``beta`` plus a residual network) and the value."""

    def __init__(self, rng: np.random.Generator, beta: float) -> None:
        self.policy = init_mlp(rng, [474, HIDDEN, HIDDEN, ACTIONS_COUNT], last_scale=0.0)
        self.policy["log_beta"] = np.array([math.log(beta)])
        self.value = init_mlp(rng, [474, HIDDEN, HIDDEN, 1], last_scale=0.1)

    def logits(self, obs: Array, gaps: Array, masks: npt.NDArray[np.bool_]) -> tuple[Array, Any]:
        net = {k: v for k, v in self.policy.items() if k != "log_beta"}
        residual, inputs = mlp_forward(net, obs)
        beta = math.exp(float(self.policy["log_beta"][0]))
        logits = np.where(masks, beta * gaps + residual, -1e9)
        return logits, (net, inputs, beta)

    def act(
        self,
        obs: Array,
        scores: Array,
        masks: npt.NDArray[np.bool_],
        rng: np.random.Generator | None,
    ) -> tuple[npt.NDArray[np.int64], Array]:
        """Sampled decisions (``rng``) or the best ones (None), and their log-probabilities."""
        logits, _ = self.logits(obs, score_gaps(scores, masks), masks)
        logp = log_softmax(logits)
        if rng is None:
            actions = logits.argmax(axis=1)
        else:
            u = rng.random((len(obs), 1))
            actions = (np.exp(logp).cumsum(axis=1) < u).sum(axis=1)
            actions = np.where(
                masks[np.arange(len(obs)), np.minimum(actions, 86)], actions, logits.argmax(axis=1)
            )
        return actions.astype(np.int64), logp[np.arange(len(obs)), actions]

    def best(
        self, obs: Array, masks: npt.NDArray[np.bool_], score: Scorer
    ) -> npt.NDArray[np.int64]:
        """The best decisions, ``score`` giving greedy's scores of the same positions
        (for a :class:`GreedyBot`'s weights, or greedy's own for None)."""
        return self.act(obs, score(None), masks, None)[0]

    def state(self) -> dict[str, Array]:
        return {
            **{f"p_{k}": v for k, v in self.policy.items()},
            **{f"v_{k}": v for k, v in self.value.items()},
        }

    def load(self, data: Any) -> None:
        for k in list(self.policy):
            self.policy[k] = np.array(data[f"p_{k}"])
        for k in list(self.value):
            self.value[k] = np.array(data[f"v_{k}"])


def score_gaps(scores: Array, masks: npt.NDArray[np.bool_]) -> Array:
    """Each legal decision's score minus the best one (0 for the best, negative else)."""
    legal = np.where(masks, scores, -np.inf)
    best = legal.max(axis=1, keepdims=True)
    best = np.where(np.isfinite(best), best, 0.0)  # a game over has no legal decision
    return np.where(masks, np.maximum(np.where(masks, scores, 0.0) - best, FLOOR), 0.0)


def log_softmax(logits: Array) -> Array:
    shifted = logits - logits.max(axis=1, keepdims=True)
    result: Array = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return result


# -- training -----------------------------------------------------------------------------


def league() -> Mixture:
    return Mixture([("greedy", 8.0), ("search@iterations=8", 1.0), ("random", 1.0)])


def rollout(
    env: VectorEnv, agent: Agent, obs: Array, steps: int, rng: np.random.Generator
) -> tuple[dict[str, Any], Array, Array, dict[str, float]]:
    """``steps`` decisions in every game: the batch of transitions, the next observations,
    their values, and the games that ended (against ``greedy``: how many, how many won)."""
    keys = ("obs", "gaps", "masks", "actions", "logp", "values", "rewards", "dones")
    buf: dict[str, list[Any]] = {k: [] for k in keys}
    ended = {"games": 0.0, "wins_vs_greedy": 0.0, "games_vs_greedy": 0.0}
    for _ in range(steps):
        masks = env.action_masks()
        scores = env.greedy_scores()
        actions, logp = agent.act(obs, scores, masks, rng)
        values = mlp_forward(agent.value, obs)[0][:, 0]
        buf["obs"].append(obs)
        buf["gaps"].append(score_gaps(scores, masks))
        buf["masks"].append(masks)
        buf["actions"].append(actions)
        buf["logp"].append(logp)
        buf["values"].append(values)
        obs, rewards, terminations, _, infos = env.step(actions)
        obs = obs.astype(np.float64)
        buf["rewards"].append(rewards.astype(np.float64))
        buf["dones"].append(terminations.astype(np.float64))
        if terminations.any():
            final = infos["final_info"]
            for i in np.flatnonzero(terminations):
                ranks = final["ranks"][i]
                seat = env.seats[i]
                won = float(ranks[seat] == 1) / float((ranks == 1).sum())
                ended["games"] += 1
                if final["opponents"][i, 0] == 0:  # greedy
                    ended["games_vs_greedy"] += 1
                    ended["wins_vs_greedy"] += won
    batch = {k: np.stack(v) for k, v in buf.items()}
    last_values = mlp_forward(agent.value, obs)[0][:, 0]
    return batch, obs, last_values, ended


def advantages(
    batch: dict[str, Array], last: Array, scale: float, lam: float
) -> tuple[Array, Array]:
    """GAE (gamma 1: a game is an episode) of the scaled rewards; returns and advantages."""
    rewards, values, dones = batch["rewards"] * scale, batch["values"], batch["dones"]
    adv = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1])
    for t in reversed(range(len(rewards))):
        following = last if t == len(rewards) - 1 else values[t + 1]
        live = 1.0 - dones[t]
        delta = rewards[t] + live * following - values[t]
        running = delta + lam * live * running
        adv[t] = running
    return adv + values, adv


def update(
    agent: Agent,
    opt_p: Adam,
    opt_v: Adam,
    batch: dict[str, Array],
    returns: Array,
    adv: Array,
    args: argparse.Namespace,
    rng: np.random.Generator,
) -> dict[str, float]:
    flat = {k: v.reshape(-1, *v.shape[2:]) for k, v in batch.items()}
    ret, adv = returns.reshape(-1), adv.reshape(-1)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    size = len(ret)
    stats = {"clipped": 0.0, "entropy": 0.0, "value_loss": 0.0}
    for _ in range(args.epochs):
        order = rng.permutation(size)
        for start in range(0, size, args.minibatch):
            idx = order[start : start + args.minibatch]
            obs, gaps = flat["obs"][idx], flat["gaps"][idx]
            masks = flat["masks"][idx].astype(np.bool_)
            actions, old = flat["actions"][idx].astype(np.int64), flat["logp"][idx]
            a = adv[idx]
            m = len(idx)
            logits, (net, inputs, beta) = agent.logits(obs, gaps, masks)
            logp_all = log_softmax(logits)
            probs = np.exp(logp_all)
            logp = logp_all[np.arange(m), actions]
            ratio = np.exp(logp - old)
            clipped = (ratio < 1 - args.clip) | (ratio > 1 + args.clip)
            # d(-min(ratio*a, clip(ratio)*a))/d logp: -ratio*a where the unclipped term counts
            unclipped = np.where(a >= 0, ratio <= 1 + args.clip, ratio >= 1 - args.clip)
            g_logp = np.where(unclipped, -ratio * a, 0.0) / m
            onehot = np.zeros_like(logits)
            onehot[np.arange(m), actions] = 1.0
            grad = g_logp[:, None] * (onehot - probs)
            # entropy bonus: d(-c * H)/d logits = c * p * (logp + H)
            plogp = np.where(masks, probs * logp_all, 0.0)
            entropy = -plogp.sum(axis=1)
            grad += args.entropy * np.where(masks, probs * (logp_all + entropy[:, None]), 0.0) / m
            grad = np.where(masks, grad, 0.0)
            grads = mlp_backward(net, inputs, grad)
            grads["log_beta"] = np.array([float((grad * gaps).sum() * beta)])
            norm = math.sqrt(sum(float((g * g).sum()) for g in grads.values()))
            if norm > args.max_grad:
                grads = {k: g * (args.max_grad / norm) for k, g in grads.items()}
            opt_p.step(agent.policy, grads)
            value, v_inputs = mlp_forward(agent.value, obs)
            err = value[:, 0] - ret[idx]
            v_grads = mlp_backward(agent.value, v_inputs, (err / m)[:, None])
            opt_v.step(agent.value, v_grads)
            stats["clipped"] += float(clipped.mean())
            stats["entropy"] += float(entropy.mean())
            stats["value_loss"] += float((err * err).mean())
    batches = args.epochs * math.ceil(size / args.minibatch)
    return {k: v / batches for k, v in stats.items()}


def evaluate_batch(agent: Player, games: int, seed: int) -> float:
    """The best-decision policy's win share against ``greedy`` in ``games`` fresh games of
    the batch (seats rotating; the same games for the same seed)."""
    env = VectorEnv(
        games,
        players=2,
        opponents=("greedy",),
        seat="rotate",
        reward="win",
        autoreset=False,
        seed=seed,
    )
    out = env.reset_transition(seed=seed)
    wins = np.zeros(games)
    while not out.terminated.all():
        obs = out.observations.astype(np.float64)
        actions = agent.best(obs, out.action_masks, env.greedy_scores)
        out = env.step_transition(np.where(out.terminated, 0, actions))
        wins += out.rewards
    return float(wins.mean())


class BatchScorer:
    """Greedy's scores in ``games`` of ``batch``, compiled, for a bot's weights (a
    :data:`Scorer`); a policy that searches the positions reads ``batch`` and ``games``."""

    def __init__(self, batch: Batch, games: npt.NDArray[np.intp]) -> None:
        self.batch, self.games = batch, games

    def __call__(self, bot: GreedyBot | None) -> Array:
        return self.batch.greedy_scores(self.games, greedy_params(bot.weights if bot else None, 2))


def batch_scorer(batch: Batch, games: npt.NDArray[np.intp]) -> Scorer:
    """Greedy's scores in ``games`` of ``batch``, compiled, for a bot's weights."""
    return BatchScorer(batch, games)


def play_greedy(
    agent: Player, games: int, seed: int, record: bool = False
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int8], list[GameRecord]]:
    """``games`` fresh games of the batch against the compiled ``greedy`` (the Python
    bot's scores; ties drawn from each game's bot stream), seats rotating: the agent's
    win share in each (R21: a shared win counts 1/k), its seat in each, and with
    ``record`` every game's record (its actions and chance outcomes)."""
    batch = Batch(games, players=2, seed=seed)
    params = greedy_params(None, 2)
    mine = (np.arange(games) % 2).astype(np.int8)
    batch.reset()
    history: list[list[int]] = (
        [[int(c) for c in row if c >= 0] for row in batch.last_chance()] if record else []
    )
    while not batch.terminated().all():
        to_move = batch.to_move()
        actions = np.full(games, -1, dtype=np.int64)
        ours = np.flatnonzero((to_move >= 0) & (to_move == mine))
        theirs = np.flatnonzero((to_move >= 0) & (to_move != mine))
        if ours.size:
            obs = batch.observations()[ours].astype(np.float64)
            masks = batch.legal_masks()[ours]
            actions[ours] = agent.best(obs, masks, BatchScorer(batch, ours))
        if theirs.size:
            actions[theirs] = batch.greedy_actions(theirs, params)
        moved = actions >= 0
        batch.step(actions, mask=moved)
        if record:
            chance = batch.last_chance()
            for i in np.flatnonzero(moved):
                history[i].append(int(actions[i]))
                history[i].extend(int(c) for c in chance[i] if c >= 0)
    ranks = batch.ranks()
    first = ranks == 1
    wins = first[np.arange(games), mine] / first.sum(axis=1)
    records = []
    for game, moves in enumerate(history):
        final = GameRecord(players=2, actions=tuple(ACTIONS[a] for a in moves))
        assert final.final_state().ranks() == tuple(ranks[game])  # the record is the game
        records.append(final)
    return wins.astype(np.float64), mine, records


def evaluate_final(agent: Player, games: int, seed: int) -> tuple[float, float, float, float]:
    """``games`` fresh games against ``greedy`` (:func:`play_greedy`), every action and
    chance outcome recorded: the win share, its luck-corrected 95% interval (the
    arena's, from each game's dice luck, ``marrakech.luck``) and the raw share."""
    wins, mine, records = play_greedy(agent, games, seed, record=True)
    lucks = [dice_luck(record)[mine[game]] for game, record in enumerate(records)]
    share, low, high = luck_corrected(wins.tolist(), lucks)
    return share, low, high, float(wins.mean())


def report_final(out: Path, agent: Player, games: int, after: str, name: str = "final.txt") -> None:
    """The final evaluation (:func:`evaluate_final`, seed 1) as one line, ending with
    ``after`` (what the run spent), printed and written to ``out``/``name``."""
    started = time.process_time()
    share, low, high, raw = evaluate_final(agent, games, seed=1)
    seconds = time.process_time() - started
    result = (
        f"final: {games} fresh games against greedy (seed 1): win share "
        f"{raw:.3f}, luck-corrected {share:.3f} (95% CI {low:.3f}-{high:.3f}), {after}; "
        f"this evaluation {seconds / 60:.1f} CPU minutes"
    )
    (out / name).write_text(result + "\n")
    print(result, flush=True)


# -- the run --------------------------------------------------------------------------------


def save(out: Path, agent: Agent, opt_p: Adam, opt_v: Adam, meta: dict[str, Any]) -> None:
    arrays: dict[str, Any] = agent.state()
    for name, opt in (("op", opt_p), ("ov", opt_v)):
        for k in opt.m:
            arrays[f"{name}_m_{k}"] = opt.m[k]
            arrays[f"{name}_v_{k}"] = opt.v[k]
    arrays["meta"] = np.frombuffer(
        json.dumps(meta | {"tp": opt_p.t, "tv": opt_v.t}).encode(), dtype=np.uint8
    )
    tmp = out / "state.tmp.npz"
    np.savez(tmp, **arrays)
    tmp.replace(out / "state.npz")


def load(out: Path, agent: Agent, opt_p: Adam, opt_v: Adam) -> dict[str, Any]:
    data = np.load(out / "state.npz")
    agent.load(data)
    for name, opt in (("op", opt_p), ("ov", opt_v)):
        for k in opt.m:
            opt.m[k] = np.array(data[f"{name}_m_{k}"])
            opt.v[k] = np.array(data[f"{name}_v_{k}"])
    meta: dict[str, Any] = json.loads(bytes(data["meta"]).decode())
    opt_p.t, opt_v.t = meta.pop("tp"), meta.pop("tv")
    return meta


def has_run(out: Path, resume: bool, final_only: bool) -> bool:
    """Whether to load the run kept in ``out``: asked with ``--resume``, or for
    ``--final-only`` when one is kept there; a new run refuses a folder holding one."""
    kept = (out / "state.npz").exists()
    if resume or (final_only and kept):
        return True
    if kept and not final_only:
        raise SystemExit(f"{out} holds a run: pass --resume to continue it")
    return False


class Curve:
    """A run's learning curve: ``out``/curve.jsonl, a line per evaluation against
    ``greedy`` with the run's progress (``keys`` of ``meta``, the first its step: update,
    round or generation), on the run's CPU clock (``meta["cpu_seconds"]``, counted over
    its resumed runs; the evaluations' share in ``meta["evaluation_seconds"]``). The best
    rate so far is ``meta["best_rate"]``, reached at step ``meta["best_" + keys[0]]``."""

    def __init__(self, out: Path, meta: dict[str, Any], keys: tuple[str, ...], games: int) -> None:
        self.meta, self.keys, self.games = meta, keys, games
        self.file = (out / "curve.jsonl").open("a")
        self.began = time.process_time() - meta["cpu_seconds"]

    def clock(self) -> float:
        """The run's CPU seconds so far, kept in ``meta``."""
        seconds: float = time.process_time() - self.began
        self.meta["cpu_seconds"] = seconds
        return seconds

    def evaluate(self, rate_of: Callable[[], float]) -> bool:
        """Log the win share ``rate_of()`` measures; whether it is the best so far."""
        start = time.process_time()
        rate = rate_of()
        self.meta["evaluation_seconds"] += time.process_time() - start
        self.clock()
        row = {k: self.meta[k] for k in self.keys} | {"win_vs_greedy": rate}
        self.file.write(json.dumps(row) + "\n")
        self.file.flush()
        print(f"  eval: win share {rate:.4f} against greedy ({self.games} games)", flush=True)
        if rate <= self.meta["best_rate"]:
            return False
        self.meta[f"best_{self.keys[0]}"], self.meta["best_rate"] = self.meta[self.keys[0]], rate
        return True


def best_step(meta: dict[str, Any], step: str, what: str, games: int) -> str:
    """``what`` (the policy, the value...) of the curve's best ``step`` (:class:`Curve`),
    as the final line says what played."""
    return (
        f"{what} of {step} {meta[f'best_{step}']}, the best on the curve's "
        f"{games} evaluation games ({meta['best_rate']:.3f})"
    )


def plot(
    out: Path,
    picture: Path,
    script: str = "beat_greedy.py",
    spent_on: str = "CPU minutes of training (one process)",
    floor: float = 0.3,
    label: str = "best decision vs greedy (fixed eval games)",
) -> None:
    """Draw the run's learning curve (``out/curve.jsonl``) into ``picture``, the win
    share's axis from ``floor``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(line) for line in (out / "curve.jsonl").read_text().splitlines()]
    minutes = [r["cpu_seconds"] / 60 for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot(
        minutes,
        [r["win_vs_greedy"] for r in rows],
        marker="o",
        label=label,
    )
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1, label="greedy's level (0.5)")
    ax.set_xlabel(spent_on)
    ax.set_ylabel("win share against greedy")
    ax.set_title(f"examples/{script}, 2 players, seed 0")
    ax.set_ylim(floor, max(0.7, max(r["win_vs_greedy"] for r in rows) + 0.05))
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(picture)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/beat-greedy"))
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu-minutes", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=128, help="games played at once")
    parser.add_argument("--steps", type=int, default=64, help="decisions per game per update")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--minibatch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.001)
    parser.add_argument("--max-grad", type=float, default=1.0)
    parser.add_argument("--beta", type=float, default=4.0, help="initial inverse temperature")
    parser.add_argument("--reward-scale", type=float, default=10.0)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--eval-every", type=int, default=10, help="updates between evaluations")
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--final-games", type=int, default=400)
    parser.add_argument("--final-only", action="store_true", help="only the final evaluation")
    parser.add_argument("--plot", type=Path, help="draw the learning curve of --out here")
    args = parser.parse_args()
    if args.plot:
        plot(args.out, args.plot)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    agent = Agent(rng, args.beta)
    opt_p, opt_v = Adam(agent.policy, args.lr), Adam(agent.value, args.lr)
    meta: dict[str, Any] = {"update": 0, "cpu_seconds": 0.0, "steps": 0}
    if has_run(args.out, args.resume, args.final_only):
        meta = load(args.out, agent, opt_p, opt_v)
        print(f"resumed at update {meta['update']}, {meta['cpu_seconds'] / 60:.1f} CPU minutes")
    if not args.final_only:
        curve = (args.out / "curve.jsonl").open("a")
        if meta["update"] == 0:
            rate = evaluate_batch(agent, args.eval_games, seed=10_000 + args.seed)
            curve.write(
                json.dumps({"update": 0, "steps": 0, "cpu_seconds": 0.0, "win_vs_greedy": rate})
                + "\n"
            )
            curve.flush()
            print(
                f"update 0: win share {rate:.3f} against greedy ({args.eval_games} games)",
                flush=True,
            )
        # The games of each stretch are seeded by the update they start at, so a resumed
        # run plays on where the saved one stopped.
        env = VectorEnv(
            args.games,
            players=2,
            opponents=(league(),),
            seat="rotate",
            reward="share",
            seed=args.seed,
        )
        obs = env.reset(seed=args.seed * 1_000_003 + meta["update"])[0].astype(np.float64)
        update_rng = np.random.default_rng([args.seed, meta["update"]])
        began = time.process_time() - meta["cpu_seconds"]
        while meta["cpu_seconds"] < args.cpu_minutes * 60:
            batch, obs, last, ended = rollout(env, agent, obs, args.steps, update_rng)
            returns, adv = advantages(batch, last, args.reward_scale, args.lam)
            stats = update(agent, opt_p, opt_v, batch, returns, adv, args, update_rng)
            meta["update"] += 1
            meta["steps"] += args.games * args.steps
            meta["cpu_seconds"] = time.process_time() - began
            beta = math.exp(float(agent.policy["log_beta"][0]))
            line = (
                f"update {meta['update']}: {meta['steps']} steps, "
                f"{meta['cpu_seconds'] / 60:.1f} CPU min, training games won vs greedy "
                f"{ended['wins_vs_greedy']:.0f}/{ended['games_vs_greedy']:.0f}, "
                f"beta {beta:.2f}, entropy {stats['entropy']:.3f}, clipped {stats['clipped']:.3f}, "
                f"value loss {stats['value_loss']:.4f}"
            )
            print(line, flush=True)
            if meta["update"] % args.eval_every == 0:
                rate = evaluate_batch(agent, args.eval_games, seed=10_000 + args.seed)
                meta["cpu_seconds"] = time.process_time() - began
                row = {k: meta[k] for k in ("update", "steps", "cpu_seconds")} | {
                    "win_vs_greedy": rate
                }
                curve.write(json.dumps(row) + "\n")
                curve.flush()
                print(
                    f"  eval: win share {rate:.3f} against greedy ({args.eval_games} games)",
                    flush=True,
                )
            save(args.out, agent, opt_p, opt_v, meta)
    report_final(
        args.out,
        agent,
        args.final_games,
        f"after {meta['update']} updates, {meta['steps']} steps, "
        f"{meta['cpu_seconds'] / 60:.1f} CPU minutes",
    )


if __name__ == "__main__":
    main()
