"""Compiled Gumbel search and self-play with the network, on kernel rows.

The search is Gumbel MuZero's (Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022; read from google-deepmind/mctx and written again here for kernel
rows, per-seat values and chance nodes):

- at the root, Gumbel noise ``g(a)`` is added to the prior logits and the simulations
  are spent by *sequential halving* over the ``considered`` best ``g + logits``: every
  considered action gets its share of visits, then the better half by
  ``g + logits + sigma(q)`` goes on, and so on (:func:`considered_visits`); the decision
  is the best remaining action by the same score;
- ``sigma(q) = (50 + max visits) * 0.1 * q`` of the *completed* Q-values: a visited
  child's mean value for the seat to move, an unvisited one's the node's mixed value
  (the network's value blended with the visited children's, weighted by the prior),
  rescaled to [0, 1] over the children;
- below the root a decision node picks the child whose visit share lags most behind the
  improved policy ``softmax(logits + sigma(q))`` (deterministic, no constant to tune);
- a chance node (R3's die: faces 1, 2, 2, 3, 3, 4; R7's draw in proportion to the colours
  left) picks the child whose visit share lags most behind its exact probability, so that
  after ``6k`` visits of a roll the faces 1..4 have exactly ``k, 2k, 2k, k``;
- a leaf is valued by the network from its mover's observation, one value per seat (a
  softmax over the seats still in, of the value head plus, for a network with a value
  prior, the prior's scores of the position: :func:`prior_bias`), and the whole vector
  is backed up: every node's mover reads its own seat (max-n). A finished game is valued
  by its exact win shares (R21).

The self-play target of a decision is the improved policy at the root,
``softmax(logits + sigma(completed q))``, and the outcome (each seat's win share).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from marrakech.actions import DECISION_IDS, DRAW_BASE, PLACE_BASE, ROLL_BASE
from marrakech.fast import kernels, search_kernels
from marrakech.fast.az_network import FEATURE_INPUTS
from marrakech.fast.kernels import (
    _GOLDEN,
    DRAW,
    HAND,
    ORIENT,
    OVER,
    PHASE,
    PILE,
    PLACE,
    PLAYERS,
    ROLL,
    ROLL_SIXTHS,
    TURN,
    WIDTH,
    apply_unchecked,
    batch_observe,
    below,
    mix64,
    placements,
    reset_row,
    unit,
)
from marrakech.fast.search_kernels import (
    game_progress,
    seat_features,
    value_scores,
    win_chances,
    win_shares,
)
from marrakech.fast.tables import DIE
from marrakech.observation import (
    OBSERVATION_SIZE,
    SEAT_EXISTS,
    SEAT_FEATURES,
    SEAT_IN,
    SEATS_OFFSET,
)
from marrakech.value_features import FEATURES

_SALT_GUMBEL = np.uint64(0x6A3BE1)
_MAX_CHILDREN = 12  # R18: at most 12 placements; 4 rolls, 3 orientations, 2 draws
_MAX_DEPTH = 1024
#: mctx's defaults for sigma: (C_VISIT + max visits) * C_SCALE * q.
C_VISIT = 50.0
C_SCALE = 0.1

#: The network's parameters as the compiled code takes them (az_network.PARAMETERS, then
#: the value prior's weights, zeros for none, then the options: ``[prior_children]``,
#: then the feature inputs' weights ``wf``, no rows for none; ``Network.compiled``).
Params = tuple[np.ndarray, ...]

# Columns of the tree's integer array.
T_FIRST, T_COUNT, T_ACTION = 0, 1, 2


@njit(cache=True)
def forward(
    obs: np.ndarray,
    params: Params,
    logits: np.ndarray,
    value: np.ndarray,
    bias: np.ndarray,
    inputs: np.ndarray,
) -> None:
    """The network on one observation: ``logits[:87]`` and the value by relative seat
    (``value[:4]``, a softmax over the seats still in of the value head plus ``bias``,
    the value prior's scores), as :meth:`marrakech.fast.az_network.Network.forward`
    computes them; ``inputs``: the position's :func:`feature_inputs` if the network
    reads them. The first layer sums the rows of the non-zero entries (most of the board
    planes are zeros)."""
    w0, b0, w1, b1, wp, bp, wv, bv, _, _, wf = params
    h0 = b0.copy()
    for i in range(obs.shape[0]):
        x = obs[i]
        if x != 0.0:
            for j in range(h0.shape[0]):
                h0[j] += x * w0[i, j]
    for i in range(wf.shape[0]):
        x = inputs[i]
        if x != 0.0:
            for j in range(h0.shape[0]):
                h0[j] += x * wf[i, j]
    h1 = b1.copy()
    for i in range(h0.shape[0]):
        x = h0[i]
        if x > 0.0:
            for j in range(h1.shape[0]):
                h1[j] += x * w1[i, j]
    for j in range(bp.shape[0]):
        logits[j] = bp[j]
    for j in range(4):
        value[j] = bv[j] + bias[j]
    for i in range(h1.shape[0]):
        x = h1[i]
        if x > 0.0:
            for j in range(bp.shape[0]):
                logits[j] += x * wp[i, j]
            for j in range(4):
                value[j] += x * wv[i, j]
    top = -1e300
    for r in range(4):
        base = SEATS_OFFSET + r * SEAT_FEATURES
        if obs[base + SEAT_EXISTS] > 0.5 and obs[base + SEAT_IN] > 0.5:
            top = max(top, value[r])
        else:
            value[r] = -np.inf
    total = 0.0
    for r in range(4):
        if value[r] == -np.inf:
            value[r] = 0.0
        else:
            value[r] = np.exp(value[r] - top)
            total += value[r]
    if total > 0.0:
        for r in range(4):
            value[r] /= total


@njit(cache=True)
def considered_visits(considered: int, simulations: int, out: np.ndarray) -> None:
    """Sequential halving as visit counts (mctx's ``get_sequence_of_considered_visits``):
    simulation ``i`` visits a root action whose visits equal ``out[i]``."""
    if considered <= 1:
        for i in range(simulations):
            out[i] = i
        return
    log2max = int(np.ceil(np.log2(considered)))
    visits = np.zeros(considered, dtype=np.int64)
    n = considered
    length = 0
    while length < simulations:
        extra = max(1, int(simulations / (log2max * n)))
        for _ in range(extra):
            for i in range(n):
                if length < simulations:
                    out[length] = visits[i]
                    length += 1
            for i in range(n):
                visits[i] += 1
        n = max(2, n // 2)


@njit(cache=True)
def completed_q(
    node: int,
    mover: int,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    prior: np.ndarray,
    raw: np.ndarray,
    out: np.ndarray,
) -> None:
    """``sigma`` of the completed Q-values of ``node``'s children for seat ``mover``
    into ``out[:count]`` (mctx's ``qtransform_completed_by_mix_value``; an unvisited
    child valued by the prior, :func:`child_values`, has that value rather than the
    mixed one)."""
    first = nodes[node, T_FIRST]
    count = nodes[node, T_COUNT]
    top = -1e300
    for k in range(count):
        top = max(top, prior[first + k])
    norm = 0.0
    for k in range(count):
        norm += np.exp(prior[first + k] - top)
    summed = 0.0
    most = 0.0
    weighted = 0.0
    weight = 0.0
    for k in range(count):
        c = first + k
        n = visits[c]
        summed += n
        most = max(most, n)
        if n > 0.0:
            p = max(np.exp(prior[c] - top) / norm, 1e-300)
            weighted += p * totals[c, mover] / n
            weight += p
    mixed = raw[node, mover]
    if summed > 0.0:
        mixed = (mixed + summed * weighted / weight) / (summed + 1.0)
    low, high = 1e300, -1e300
    for k in range(count):
        c = first + k
        if visits[c] > 0.0:
            q = totals[c, mover] / visits[c]
        elif raw[c, 0] + raw[c, 1] + raw[c, 2] + raw[c, 3] > 0.5:
            q = raw[c, mover]  # valued by the prior (child_values): chances sum to 1
        else:
            q = mixed
        out[k] = q
        low = min(low, q)
        high = max(high, q)
    scale = (C_VISIT + most) * C_SCALE / max(high - low, 1e-8)
    for k in range(count):
        out[k] = (out[k] - low) * scale


@njit(cache=True)
def _improved(
    node: int,
    mover: int,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    prior: np.ndarray,
    raw: np.ndarray,
    out: np.ndarray,
) -> None:
    """The improved policy ``softmax(logits + sigma(completed q))`` over ``node``'s
    children into ``out[:count]``."""
    completed_q(node, mover, nodes, visits, totals, prior, raw, out)
    first = nodes[node, T_FIRST]
    count = nodes[node, T_COUNT]
    top = -1e300
    for k in range(count):
        out[k] += prior[first + k]
        top = max(top, out[k])
    total = 0.0
    for k in range(count):
        out[k] = np.exp(out[k] - top)
        total += out[k]
    for k in range(count):
        out[k] /= total


@njit(cache=True)
def _lagging(node: int, nodes: np.ndarray, visits: np.ndarray, share: np.ndarray) -> int:
    """The child whose visit share lags most behind ``share`` (the first on a tie;
    children of share 0 never)."""
    first = nodes[node, T_FIRST]
    count = nodes[node, T_COUNT]
    summed = 0.0
    for k in range(count):
        summed += visits[first + k]
    best = -1e300
    child = first
    for k in range(count):
        if share[k] <= 0.0:
            continue
        score = share[k] - visits[first + k] / (1.0 + summed)
        if score > best:
            best = score
            child = first + k
    return int(child)


@njit(cache=True)
def root_child(
    nodes: np.ndarray,
    visits: np.ndarray,
    prior: np.ndarray,
    gumbel: np.ndarray,
    sigma: np.ndarray,
    considered_visit: float,
) -> int:
    """The root child with ``considered_visit`` visits and the best
    ``g + logit + sigma(q)`` (mctx's ``score_considered``)."""
    first = nodes[0, T_FIRST]
    count = nodes[0, T_COUNT]
    top = -1e300
    for k in range(count):
        top = max(top, prior[first + k])
    best = -np.inf
    child = -1
    for k in range(count):
        c = first + k
        if visits[c] != considered_visit:
            continue
        score = max(-1e9, gumbel[k] + prior[c] - top + sigma[k])
        if score > best:
            best = score
            child = c
    if child < 0:  # no child at that count (not reached with the halving's counts)
        child = first
        for k in range(count):
            if visits[first + k] < visits[child]:
                child = first + k
    return child


@njit(cache=True)
def has_prior(params: Params) -> bool:
    """Whether the network reads a value prior (its weights are not all zero)."""
    prior = params[8]
    for k in range(prior.shape[0]):  # noqa: SIM110 (compiled: no generators)
        if prior[k] != 0.0:
            return True
    return False


@njit(cache=True)
def values_children(params: Params) -> bool:
    """Whether the network's value prior also values the children a decision node's
    expansion creates (``Network.prior_children``)."""
    return bool(params[9][0] > 0.5)


@njit(cache=True)
def child_values(
    node: int, s: np.ndarray, prior: np.ndarray, nodes: np.ndarray, raw: np.ndarray,
    feats: np.ndarray, child: np.ndarray,
) -> None:  # fmt: skip
    """The value prior's chances of each child ``c`` of decision node ``node`` (row
    ``s``; ``child`` is scratch for the child's row) into ``raw[c]``, read as the
    child's value until it is visited (:func:`completed_q`): as the ``search`` bots start
    a new child at its learned value, a one-move lookahead at every decision the search
    expands."""
    first = nodes[node, T_FIRST]
    for k in range(nodes[node, T_COUNT]):
        c = first + k
        for i in range(WIDTH):
            child[i] = s[i]
        apply_unchecked(child, nodes[c, T_ACTION])
        win_chances(child, prior, feats, raw[c])


@njit(cache=True)
def prior_bias(
    s: np.ndarray, prior: np.ndarray, feats: np.ndarray, scores: np.ndarray, bias: np.ndarray
) -> None:
    """The value prior's scores of row ``s`` (not over) by seat relative to its mover
    (``bias[:4]``; 0 for a seat out or absent, which the value's softmax leaves out)."""
    value_scores(s, prior, feats, scores)
    players = s[PLAYERS]
    turn = s[TURN]
    for r in range(4):
        bias[r] = 0.0
        if r < players:
            score = scores[(turn + r) % players]
            if score > -1e299:
                bias[r] = score


@njit(cache=True)
def reads_features(params: Params) -> bool:
    """Whether the network reads the :func:`feature_inputs` (its ``wf`` has rows)."""
    return bool(params[10].shape[0] > 0)


@njit(cache=True)
def feature_inputs(s: np.ndarray, feats: np.ndarray, out: np.ndarray) -> None:
    """The feature inputs of row ``s`` (not over) into ``out[:FEATURE_INPUTS]``: the
    value features of each seat relative to the mover (``feats``, the row's
    :func:`~marrakech.fast.search_kernels.seat_features`; zeros for an absent seat),
    then the same times the game's progress, so the first layer can weigh a feature
    differently as the game goes on, as the linear value does."""
    players = s[PLAYERS]
    turn = s[TURN]
    progress = game_progress(s)
    for i in range(FEATURE_INPUTS):
        out[i] = 0.0
    for r in range(players):
        seat = (turn + r) % players
        for k in range(FEATURES):
            out[r * FEATURES + k] = feats[seat, k]
            out[(4 + r) * FEATURES + k] = feats[seat, k] * progress


@njit(cache=True)
def batch_feature_inputs(rows: np.ndarray, out: np.ndarray) -> None:
    """:func:`feature_inputs` of every row of ``rows`` (none over) into ``out``
    ``(n, FEATURE_INPUTS)``: what a network with feature inputs reads besides the
    observation."""
    feats = np.zeros((4, FEATURES), dtype=np.float64)
    for i in range(rows.shape[0]):
        seat_features(rows[i], feats)
        feature_inputs(rows[i], feats, out[i])


@njit(cache=True)
def value_bias(rows: np.ndarray, prior: np.ndarray, out: np.ndarray) -> None:
    """:func:`prior_bias` of every row of ``rows`` (none over) into ``out`` ``(n, 4)``:
    what the network's value adds to its head for those positions."""
    feats = np.zeros((4, FEATURES), dtype=np.float64)
    scores = np.zeros(4, dtype=np.float64)
    for i in range(rows.shape[0]):
        prior_bias(rows[i], prior, feats, scores, out[i])


@njit(cache=True)
def _leaf_scratch() -> tuple[np.ndarray, ...]:
    """:func:`_evaluate`'s arrays: the row it values (``[0][0]``, which the search walks
    down), its observation, the mover's seat, the logits (``[3]``), the value by relative
    seat, the seats' features (``[5]``), the prior's scores and the feature inputs."""
    return (
        np.empty((1, WIDTH), dtype=np.int32),
        np.empty((1, OBSERVATION_SIZE), dtype=np.float32),
        np.empty(1, dtype=np.int64),
        np.zeros(DECISION_IDS, dtype=np.float64),
        np.zeros(4, dtype=np.float64),
        np.zeros((4, FEATURES), dtype=np.float64),
        np.zeros(4, dtype=np.float64),
        np.zeros(FEATURE_INPUTS, dtype=np.float64),
    )


@njit(cache=True)
def _evaluate(
    scratch: tuple[np.ndarray, ...],
    params: Params,
    out: np.ndarray,
    with_prior: bool,
    with_features: bool,
) -> None:
    """The network on row ``scratch[0][0]`` (:func:`_leaf_scratch`) from its mover's
    seat: logits (``scratch[3]``), and each (absolute) seat's value in ``out[:4]``
    (``with_prior``: its value prior's scores added, :func:`prior_bias`;
    ``with_features``: it reads the :func:`feature_inputs`); a finished game's exact
    win shares."""
    s2, obs2, seats, logits, relative, feats, bias, inputs = scratch
    s = s2[0]
    if s[PHASE] == OVER:
        win_shares(s, out)
        return
    turn = s[TURN]
    seats[0] = turn
    batch_observe(s2, seats, obs2)
    if with_prior:
        prior_bias(s, params[8], feats, out, bias)  # out: scratch until the value below
    else:
        for r in range(4):
            bias[r] = 0.0
    if with_features:
        if not with_prior:  # the prior's scores computed the seats' features already
            seat_features(s, feats)
        feature_inputs(s, feats, inputs)
    forward(obs2[0], params, logits, relative, bias, inputs)
    players = s[PLAYERS]
    for seat in range(4):
        out[seat] = 0.0
    for r in range(players):
        out[(turn + r) % players] = relative[r]


@njit(cache=True)
def _expand(
    node: int,
    s: np.ndarray,
    logits: np.ndarray,
    value: np.ndarray,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    prior: np.ndarray,
    raw: np.ndarray,
    meta: np.ndarray,
    slots: np.ndarray,
) -> None:
    """Create ``node``'s children: a decision's with their prior logits, a chance
    node's with their exact probabilities (R3, R7)."""
    phase = s[PHASE]
    first = meta[0]
    count = 0
    if phase == ORIENT:
        for k in range(3):
            nodes[first + k, T_ACTION] = k
            prior[first + k] = logits[k]
        count = 3
    elif phase == PLACE:
        count = placements(s, slots)
        for k in range(count):
            action = PLACE_BASE + slots[k]
            nodes[first + k, T_ACTION] = action
            prior[first + k] = logits[action]
    elif phase == ROLL:
        for k in range(4):
            nodes[first + k, T_ACTION] = ROLL_BASE + k
            prior[first + k] = ROLL_SIXTHS[k + 1] / 6.0
        count = 4
    elif phase == DRAW:
        pile = s[PILE]
        one, other = s[HAND + pile], s[HAND + pile + 2]
        nodes[first, T_ACTION] = DRAW_BASE + pile
        nodes[first + 1, T_ACTION] = DRAW_BASE + pile + 2
        prior[first] = one / (one + other)
        prior[first + 1] = other / (one + other)
        count = 2
    for k in range(count):
        c = first + k
        nodes[c, T_FIRST] = -1
        nodes[c, T_COUNT] = 0
        visits[c] = 0.0
        for seat in range(4):
            totals[c, seat] = 0.0
            raw[c, seat] = 0.0
    for seat in range(4):
        raw[node, seat] = value[seat]
    nodes[node, T_FIRST] = first
    nodes[node, T_COUNT] = count
    meta[0] = first + count


@njit(cache=True)
def search(
    root: np.ndarray,
    params: Params,
    simulations: int,
    considered: int,
    gumbel_scale: float,
    rng: np.uint64,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    prior: np.ndarray,
    raw: np.ndarray,
    meta: np.ndarray,
    policy: np.ndarray,
) -> tuple[int, np.uint64]:
    """Search row ``root`` (a decision or chance node) with ``simulations`` simulations
    and return the chosen child's action and the generator state. At a decision root
    ``policy[:87]`` receives the improved policy over the decision ids (the training
    target); at a chance root the chosen action is the most visited outcome. The tree
    needs ``1 + 12 * (simulations + 1)`` nodes."""
    scratch = _leaf_scratch()
    s, logits, feats = scratch[0][0], scratch[3], scratch[5]
    leaf = np.zeros(4, dtype=np.float64)
    slots = np.empty(_MAX_CHILDREN, dtype=np.int32)
    share = np.empty(_MAX_CHILDREN, dtype=np.float64)
    sigma = np.empty(_MAX_CHILDREN, dtype=np.float64)
    gumbel = np.zeros(_MAX_CHILDREN, dtype=np.float64)
    sequence = np.zeros(max(simulations, 1), dtype=np.int64)
    path = np.empty(_MAX_DEPTH, dtype=np.int64)
    capacity = nodes.shape[0]

    after = np.empty(WIDTH, dtype=np.int32)  # a child's row, for child_values
    with_prior = has_prior(params)  # once a search, not at every leaf
    children_valued = values_children(params)
    with_features = reads_features(params)

    reset_row(s, root)
    nodes[0, T_ACTION] = -1
    meta[0] = 1
    _evaluate(scratch, params, leaf, with_prior, with_features)
    _expand(0, s, logits, leaf, nodes, visits, totals, prior, raw, meta, slots)
    if children_valued and (s[PHASE] == ORIENT or s[PHASE] == PLACE):
        child_values(0, s, params[8], nodes, raw, feats, after)
    visits[0] = 1.0
    for seat in range(4):
        totals[0, seat] = leaf[seat]
    count = nodes[0, T_COUNT]
    first = nodes[0, T_FIRST]
    decision = root[PHASE] == ORIENT or root[PHASE] == PLACE
    mover = root[TURN]
    for k in range(count):
        if gumbel_scale > 0.0:
            rng, u = unit(rng)
            gumbel[k] = -gumbel_scale * np.log(-np.log(max(u, 1e-300)))
    considered_visits(min(considered, count), simulations, sequence)

    for simulation in range(simulations):
        reset_row(s, root)
        node = 0
        depth = 0
        path[0] = 0
        while True:
            phase = s[PHASE]
            if phase == OVER:
                win_shares(s, leaf)
                break
            if nodes[node, T_COUNT] == 0:
                _evaluate(scratch, params, leaf, with_prior, with_features)
                if meta[0] + _MAX_CHILDREN <= capacity:
                    _expand(node, s, logits, leaf, nodes, visits, totals, prior, raw, meta, slots)
                    if children_valued and (phase == ORIENT or phase == PLACE):
                        child_values(node, s, params[8], nodes, raw, feats, after)
                break
            if phase == ROLL or phase == DRAW:
                c0 = nodes[node, T_FIRST]
                for k in range(nodes[node, T_COUNT]):
                    share[k] = prior[c0 + k]
                child = _lagging(node, nodes, visits, share)
            elif node == 0:
                completed_q(0, mover, nodes, visits, totals, prior, raw, sigma)
                child = root_child(nodes, visits, prior, gumbel, sigma, sequence[simulation])
            else:
                _improved(node, s[TURN], nodes, visits, totals, prior, raw, share)
                child = _lagging(node, nodes, visits, share)
            apply_unchecked(s, nodes[child, T_ACTION])
            node = child
            depth += 1
            path[depth] = node
        for i in range(depth + 1):
            n = path[i]
            visits[n] += 1.0
            for seat in range(4):
                totals[n, seat] += leaf[seat]

    if not decision:
        best = first
        for k in range(count):
            if visits[first + k] > visits[best]:
                best = first + k
        return nodes[best, T_ACTION], rng
    most = 0.0
    for k in range(count):
        most = max(most, visits[first + k])
    completed_q(0, mover, nodes, visits, totals, prior, raw, sigma)
    chosen = root_child(nodes, visits, prior, gumbel, sigma, most)
    _improved(0, mover, nodes, visits, totals, prior, raw, share)
    for a in range(DECISION_IDS):
        policy[a] = 0.0
    for k in range(count):
        policy[nodes[first + k, T_ACTION]] = share[k]
    return nodes[chosen, T_ACTION], rng


@njit(cache=True)
def _sample_chance(s: np.ndarray, rng: np.uint64) -> tuple[np.uint64, int]:
    """A chance node's outcome drawn with its exact probability (R3, R7)."""
    if s[PHASE] == ROLL:
        rng, face = below(rng, 6)
        return rng, ROLL_BASE + DIE[face] - 1
    pile = s[PILE]
    one = s[HAND + pile]
    rng, k = below(rng, one + s[HAND + pile + 2])
    return rng, DRAW_BASE + pile + (0 if k < one else 2)


@njit(cache=True)
def self_play(
    start: np.ndarray,
    first_game: int,
    games: int,
    params: Params,
    simulations: int,
    considered: int,
    gumbel_scale: float,
    seed: np.uint64,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    prior: np.ndarray,
    raw: np.ndarray,
    meta: np.ndarray,
    rows: np.ndarray,
    movers: np.ndarray,
    policies: np.ndarray,
    values: np.ndarray,
    searched: np.ndarray,
    actions: np.ndarray,
    offsets: np.ndarray,
) -> int:
    """Play games ``first_game`` .. ``first_game + games - 1`` from row ``start``, every
    decision by :func:`search`, every chance outcome drawn with its exact probability;
    game ``g`` has its own generator (from ``seed`` and ``g``: a batch of games may be
    played in several calls). Each decision's position goes to ``rows``, its mover to
    ``movers``, its improved policy to ``policies``, the game's final win shares *by
    seat relative to the mover* to ``values`` and the root's searched value (the mean
    over its simulations, each seat's) in the same order to ``searched``; every action
    (chance ones too) to ``actions``. ``offsets[3 * i: 3 * i + 3]`` ends the call's game
    ``i``: positions, actions, and its first position. Returns the games finished (fewer
    when the arrays fill)."""
    s = np.empty(WIDTH, dtype=np.int32)
    shares = np.zeros(4, dtype=np.float64)
    positions = 0
    played = 0
    base = mix64(seed ^ _SALT_GUMBEL)
    for game in range(games):
        rng = mix64(base + np.uint64(first_game + game) * _GOLDEN)
        reset_row(s, start)
        first = positions
        while s[PHASE] != OVER:
            if positions >= rows.shape[0] or played >= actions.shape[0]:
                return game
            phase = s[PHASE]
            if phase == ROLL or phase == DRAW:
                rng, action = _sample_chance(s, rng)
            else:
                for k in range(WIDTH):
                    rows[positions, k] = s[k]
                movers[positions] = s[TURN]
                action, rng = search(
                    s, params, simulations, considered, gumbel_scale, rng,
                    nodes, visits, totals, prior, raw, meta, policies[positions],
                )  # fmt: skip
                players = s[PLAYERS]
                for r in range(4):  # the root's searched value, by seat from the mover
                    seat = (s[TURN] + r) % players
                    searched[positions, r] = totals[0, seat] / visits[0] if r < players else 0.0
                positions += 1
            actions[played] = action
            played += 1
            apply_unchecked(s, action)
        win_shares(s, shares)
        players = s[PLAYERS]
        for i in range(first, positions):
            for r in range(4):
                values[i, r] = shares[(movers[i] + r) % players] if r < players else 0.0
        offsets[3 * game] = positions
        offsets[3 * game + 1] = played
        offsets[3 * game + 2] = first
    return games


#: The compiled files this module's builds inline (Numba's cache notices changes to this
#: file only): a change to the rules' kernels drops this module's cached builds.
_SOURCES_KEY = zlib.crc32(
    b"".join(Path(m.__file__).read_bytes() for m in (kernels, search_kernels) if m.__file__)
)


@njit(cache=True)
def _frozen_sources() -> int:
    return _SOURCES_KEY


def _guard_cache() -> None:
    if _frozen_sources() == _SOURCES_KEY:
        return
    kernels.flush_caches(globals())
    _frozen_sources.recompile()


_guard_cache()


#: Upper bounds per self-play game (a 2- or 4-player game has about 100 decisions and
#: 100 chance outcomes; R18 bounds a game's length).
POSITIONS_PER_GAME = 200
ACTIONS_PER_GAME = 500


def self_play_arrays(games: int) -> tuple[npt.NDArray[Any], ...]:
    """What :func:`self_play` fills for ``games`` games: rows, movers, policies, values,
    searched values, actions and offsets (in that order, its last arguments)."""
    positions = games * POSITIONS_PER_GAME
    return (
        np.zeros((positions, WIDTH), dtype=np.int32),
        np.zeros(positions, dtype=np.int32),
        np.zeros((positions, DECISION_IDS), dtype=np.float64),
        np.zeros((positions, 4), dtype=np.float64),
        np.zeros((positions, 4), dtype=np.float64),
        np.zeros(games * ACTIONS_PER_GAME, dtype=np.int32),
        np.zeros(3 * games, dtype=np.int64),
    )


def tree_arrays(
    simulations: int,
) -> tuple[
    npt.NDArray[np.int32],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
]:
    """A tree for ``simulations`` (each adds at most 12 nodes): nodes, visits, totals,
    prior, raw values, meta."""
    capacity = 1 + _MAX_CHILDREN * (simulations + 2)
    return (
        np.zeros((capacity, 3), dtype=np.int32),
        np.zeros(capacity, dtype=np.float64),
        np.zeros((capacity, 4), dtype=np.float64),
        np.zeros(capacity, dtype=np.float64),
        np.zeros((capacity, 4), dtype=np.float64),
        np.zeros(1, dtype=np.int64),
    )


__all__ = [
    "ACTIONS_PER_GAME",
    "C_SCALE",
    "C_VISIT",
    "POSITIONS_PER_GAME",
    "completed_q",
    "considered_visits",
    "forward",
    "root_child",
    "search",
    "self_play",
    "self_play_arrays",
    "tree_arrays",
]
