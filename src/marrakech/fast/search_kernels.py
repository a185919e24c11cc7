"""Compiled Monte Carlo tree search and the learned value, on kernel rows.

The whole search runs inside Numba: selection (UCT for the seat to move, max-n), chance
nodes sampled with their exact probabilities (R3: faces 1, 2, 2, 3, 3, 4; R7: a pile's
top in proportion to the colours left), expansion, leaf evaluation by the learned value
(:func:`win_chances`, optionally blended with one informed playout) and the backup of a
per-seat value vector. The rules are the kernels' (:mod:`marrakech.fast.kernels`), which
are differential-tested against the core, so the tree only ever holds legal actions.
Numba compiles those kernels into this module's cached builds and notices changes to
this file only: a change to the kernels' rules (such as R32's 2-player order, the
placer's reveal before his orientation) comes with an edit here, so that no stale build
survives it.

The tree is a set of flat arrays (:class:`Tree`) that :func:`grow` extends by a number of
iterations per call, so the caller can watch a clock between calls::

    >>> from marrakech import State
    >>> from marrakech.bots.value import load_value
    >>> from marrakech.fast.rows import to_arrays
    >>> state = State.new(players=3)
    >>> tree = Tree(capacity=4096)
    >>> root = to_arrays(state)
    >>> weights = load_value(3).array()
    >>> tree.reset()
    >>> done, _ = grow(root, *tree.arrays(), 200, 0.15, 2.0, 0.0, weights, INFORMED, 7)
    >>> done
    200
    >>> sorted(tree.root_actions()) == [a.id for a in state.legal_actions()]
    True

The per-seat features (:func:`seat_features`) mirror :func:`marrakech.bots.value.features`
(the home of their definition; ``tests/fast/test_search_kernels.py`` compares the two).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from marrakech.actions import DRAW_BASE, PLACE_BASE, ROLL_BASE
from marrakech.fast import kernels
from marrakech.fast.kernels import (
    DRAW,
    HAND,
    MONEY,
    ORIENT,
    OVER,
    PHASE,
    PILE,
    PLACE,
    PLAYERS,
    ROLL,
    START_CARPETS,
    TURN,
    WIDTH,
    _is_out,
    _popcount,
    apply_unchecked,
    below,
    cheapest_threat,
    colour_bits,
    grow_region,
    mix64,
    placements,
    reset_row,
    results,
    roll_threat,
)
from marrakech.fast.playouts import INFORMED_DEFAULT
from marrakech.fast.tables import DIE
from marrakech.value_features import (
    DIRHAMS_UNIT,
    F_DIRHAMS,
    F_HAND,
    F_MOVER,
    F_REGIONS,
    F_RUIN,
    F_TITHE,
    F_VISIBLE,
    FEATURES,
    REGIONS_UNIT,
    TITHE_UNIT,
    VISIBLE_UNIT,
)

#: The informed playout policy's parameters (the playouts' default).
INFORMED = np.array(INFORMED_DEFAULT, dtype=np.float64)
_NO_WEIGHTS = np.zeros(0, dtype=np.float64)
_SALT_SEARCH = np.uint64(0x5EA4C4)
_MAX_CHILDREN = 12  # R18: at most 12 placements; 4 rolls, 3 orientations, 2 draws


#: The default capacity of a tree: about 100 MB once full (a 1 s search at two
#: players fills it; later iterations refine the statistics without growing it).
MAX_NODES = 1 << 21

# Columns of the tree's integer array.
T_FIRST, T_COUNT, T_ACTION = 0, 1, 2


@njit(cache=True)
def _regions_squared(bits: np.int64) -> int:
    """Sum of ``size * size`` over the regions of one colour's bitboard (R11)."""
    total = 0
    while bits:
        region = grow_region(bits & -bits, bits)
        n = _popcount(region)
        total += n * n
        bits &= ~region
    return total


@njit(cache=True)
def seat_features(s: np.ndarray, out: np.ndarray) -> None:
    """The :data:`FEATURES` features of every seat of row ``s`` into ``out[seat]``
    (shape ``(4, FEATURES)``; seats out of the game and unused seats get zeros)."""
    players = s[PLAYERS]
    out[:, :] = 0.0
    start = s[START_CARPETS]
    for seat in range(players):
        if _is_out(s, seat):
            continue
        bits = colour_bits(s, seat)
        squared = _regions_squared(bits)
        hand = s[HAND + seat]
        if players == 2:
            other = colour_bits(s, seat + 2)
            squared += _regions_squared(other)
            bits |= other
            hand += s[HAND + seat + 2]
        visible = 0
        while bits:
            bits &= bits - 1
            visible += 1
        out[seat, F_DIRHAMS] = s[MONEY + seat] / DIRHAMS_UNIT
        out[seat, F_VISIBLE] = visible / VISIBLE_UNIT
        out[seat, F_REGIONS] = squared / REGIONS_UNIT
        out[seat, F_HAND] = hand / start if start > 0 else 0.0
    phase = s[PHASE]
    if phase == OVER:
        return
    mover = s[TURN]
    out[mover, F_MOVER] = 1.0
    if phase != ORIENT and phase != ROLL:
        return
    received = np.zeros(4, dtype=np.float64)
    if phase == ROLL:  # the facing is chosen: straight on
        paid, ruin = roll_threat(s, 1, received)
    else:  # the mover turns Assam to the cheapest facing
        _, paid, ruin = cheapest_threat(s, received, np.zeros(4, dtype=np.float64))
    out[mover, F_TITHE] -= paid / TITHE_UNIT
    out[mover, F_RUIN] = ruin
    for seat in range(players):
        out[seat, F_TITHE] += received[seat] / TITHE_UNIT


@njit(cache=True)
def win_shares(s: np.ndarray, out: np.ndarray) -> None:
    """Each seat's share of the win of a finished game (R21: tied winners share)."""
    players = s[PLAYERS]
    buf = np.empty(12, dtype=np.int32)
    results(s, buf)
    winners = 0
    for seat in range(players):
        if buf[2 * players + seat] == 1:
            winners += 1
    for seat in range(4):
        out[seat] = 0.0
    for seat in range(players):
        if buf[2 * players + seat] == 1:
            out[seat] = 1.0 / winners


@njit(cache=True)
def game_progress(s: np.ndarray) -> float:
    """The share of the game's carpets placed in row ``s`` (0 at the start, 1 at the
    end): the learned value's weights move with it."""
    held = s[HAND] + s[HAND + 1] + s[HAND + 2] + s[HAND + 3]
    total = s[START_CARPETS] * s[PLAYERS]
    return 1.0 - held / total if total > 0 else 1.0


@njit(cache=True)
def value_scores(s: np.ndarray, weights: np.ndarray, feats: np.ndarray, out: np.ndarray) -> None:
    """Each seat's learned score ``features . (w + w' * progress)`` in row ``s`` (not
    over) into ``out[:4]``, ``-1e300`` for a seat out or absent: the chances of
    :func:`win_chances` are their softmax."""
    players = s[PLAYERS]
    seat_features(s, feats)
    progress = game_progress(s)
    for seat in range(4):
        out[seat] = -1e300
    for seat in range(players):
        if _is_out(s, seat):
            continue
        u = 0.0
        for k in range(FEATURES):
            u += feats[seat, k] * (weights[k] + weights[FEATURES + k] * progress)
        out[seat] = u


@njit(cache=True)
def win_chances(s: np.ndarray, weights: np.ndarray, feats: np.ndarray, out: np.ndarray) -> None:
    """Each seat's chance of winning row ``s`` into ``out[:4]``: a softmax over the seats
    still in of the learned score ``features . (w + w' * progress)`` (the first place of a
    Plackett-Luce model, :func:`value_scores`); the exact win shares once the game is over."""
    if s[PHASE] == OVER:
        win_shares(s, out)
        return
    value_scores(s, weights, feats, out)
    top = -1e300
    for seat in range(4):
        top = max(top, out[seat])
    norm = 0.0
    for seat in range(4):
        if out[seat] > -1e299:
            out[seat] = np.exp(out[seat] - top)
            norm += out[seat]
        else:
            out[seat] = 0.0
    for seat in range(4):
        out[seat] /= norm


@njit(cache=True)
def _leaf(
    s: np.ndarray,
    weights: np.ndarray,
    mix: float,
    informed: np.ndarray,
    rng: np.uint64,
    feats: np.ndarray,
    out: np.ndarray,
    played: np.ndarray,
) -> np.uint64:
    """The value vector of a new node: the learned chances, blended with the win shares
    of one informed playout (weight ``mix``)."""
    win_chances(s, weights, feats, out)
    if mix > 0.0 and s[PHASE] != OVER:
        rng = mix64(rng)
        players = s[PLAYERS]
        kernels.playouts(s, rng, _NO_WEIGHTS, informed, played)
        winners = 0
        for seat in range(players):
            if played[0, 2 * players + seat] == 1:
                winners += 1
        for seat in range(players):
            share = 1.0 / winners if played[0, 2 * players + seat] == 1 else 0.0
            out[seat] = (1.0 - mix) * out[seat] + mix * share
    return rng


@njit(cache=True)
def _expand(
    node: int,
    s: np.ndarray,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    meta: np.ndarray,
    prior: float,
    weights: np.ndarray,
    scratch: np.ndarray,
    slots: np.ndarray,
    feats: np.ndarray,
    value: np.ndarray,
) -> None:
    """Create every child of ``node`` (state ``s``); a decision's children start with
    ``prior`` virtual visits at their learned value (progressive bias)."""
    phase = s[PHASE]
    first = meta[0]
    count = 0
    if phase == ORIENT:
        for k in range(3):
            nodes[first + k, T_ACTION] = k
        count = 3
    elif phase == PLACE:
        count = placements(s, slots)
        for k in range(count):
            nodes[first + k, T_ACTION] = PLACE_BASE + slots[k]
    elif phase == ROLL:
        for k in range(4):
            nodes[first + k, T_ACTION] = ROLL_BASE + k
        count = 4
    elif phase == DRAW:
        pile = s[PILE]
        nodes[first, T_ACTION] = DRAW_BASE + pile
        nodes[first + 1, T_ACTION] = DRAW_BASE + pile + 2
        count = 2
    for k in range(count):
        child = first + k
        nodes[child, T_FIRST] = -1
        nodes[child, T_COUNT] = 0
        visits[child] = 0.0
        for seat in range(4):
            totals[child, seat] = 0.0
        if prior > 0.0 and (phase == ORIENT or phase == PLACE):
            reset_row(scratch, s)
            apply_unchecked(scratch, nodes[child, T_ACTION])
            win_chances(scratch, weights, feats, value)
            visits[child] = prior
            for seat in range(4):
                totals[child, seat] = prior * value[seat]
    nodes[node, T_FIRST] = first
    nodes[node, T_COUNT] = count
    meta[0] = first + count


@njit(cache=True)
def _sample_child(s: np.ndarray, rng: np.uint64) -> tuple[np.uint64, int]:
    """The index of a chance node's child, drawn with its exact probability (R3, R7)."""
    if s[PHASE] == ROLL:
        rng, face = below(rng, 6)
        return rng, DIE[face] - 1
    pile = s[PILE]
    first = s[HAND + pile]
    rng, k = below(rng, first + s[HAND + pile + 2])
    return rng, 0 if k < first else 1


@njit(cache=True)
def grow(
    root: np.ndarray,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    meta: np.ndarray,
    iterations: int,
    exploration: float,
    prior: float,
    mix: float,
    weights: np.ndarray,
    informed: np.ndarray,
    seed: int | np.uint64,
    paranoid: int = -1,
) -> tuple[int, np.uint64]:
    """Run ``iterations`` iterations on the tree of position ``root``; return how many
    ran and the generator state. Once the arrays are nearly full the tree stops
    growing: later iterations value the leaves they reach without expanding them.

    ``nodes[i]`` holds the first child, the child count and the action leading to node
    ``i``; ``visits`` and ``totals`` (per seat) its statistics; ``meta[0]`` the nodes in
    use (1 after a reset: the root). ``exploration`` is the UCT constant (values in
    [0, 1]), ``prior`` the virtual visits of a new decision child, ``mix`` the weight of
    one informed playout in a leaf's value. ``paranoid`` -1 is max-n (every seat
    maximises its own value); a seat number makes every other seat minimise that seat's
    value instead (the paranoid model, for comparison).
    """
    rng = mix64(np.uint64(seed) ^ _SALT_SEARCH)
    capacity = nodes.shape[0]
    players = root[PLAYERS]
    s = np.empty(WIDTH, dtype=np.int32)
    scratch = np.empty(WIDTH, dtype=np.int32)
    slots = np.empty(_MAX_CHILDREN, dtype=np.int32)
    feats = np.zeros((4, FEATURES), dtype=np.float64)
    value = np.zeros(4, dtype=np.float64)
    leaf = np.zeros(4, dtype=np.float64)
    played = np.zeros((1, 3 * players + kernels.STATS), dtype=np.int32)
    path = np.empty(512, dtype=np.int64)
    done = 0
    while done < iterations:
        full = meta[0] + _MAX_CHILDREN > capacity
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
                if not full:  # a full tree stops growing; its leaves are still valued
                    _expand(
                        node, s, nodes, visits, totals, meta, prior, weights, scratch, slots,
                        feats, value,
                    )  # fmt: skip
                rng = _leaf(s, weights, mix, informed, rng, feats, leaf, played)
                break
            first = nodes[node, T_FIRST]
            count = nodes[node, T_COUNT]
            if phase == ROLL or phase == DRAW:
                rng, k = _sample_child(s, rng)
                child = first + k
            else:
                mover = s[TURN]
                parent = 0.0
                for k in range(count):
                    parent += visits[first + k]
                log_n = np.log(parent + 1.0)
                child = -1
                best = -1.0
                for k in range(count):
                    c = first + k
                    n = visits[c]
                    if n <= 0.0:
                        child = c  # untried, without a prior: try it now
                        break
                    if paranoid < 0 or mover == paranoid:
                        mean = totals[c, mover] / n
                    else:  # paranoid: everyone else plays against that seat
                        mean = 1.0 - totals[c, paranoid] / n
                    score = mean + exploration * np.sqrt(log_n / n)
                    if score > best:
                        best = score
                        child = c
            apply_unchecked(s, nodes[child, T_ACTION])
            node = child
            depth += 1
            path[depth] = node
        for i in range(depth + 1):
            n = path[i]
            visits[n] += 1.0
            for seat in range(4):
                totals[n, seat] += leaf[seat]
        done += 1
    return done, rng


@njit(cache=True)
def best_child(nodes: np.ndarray, visits: np.ndarray, totals: np.ndarray, mover: int) -> int:
    """The root's most visited child (the better mean value on equal visits, the first
    in action order after that): the decision the search makes."""
    first = nodes[0, T_FIRST]
    best = first
    for c in range(first + 1, first + nodes[0, T_COUNT]):
        if visits[c] > visits[best] or (
            visits[c] == visits[best]
            and visits[c] > 0
            and totals[c, mover] / visits[c] > totals[best, mover] / visits[best]
        ):
            best = c
    return int(best)


@njit(cache=True)
def self_play(
    starts: np.ndarray,
    games: int,
    iterations: int,
    epsilon: float,
    weights: np.ndarray,
    seed: int,
    nodes: np.ndarray,
    visits: np.ndarray,
    totals: np.ndarray,
    meta: np.ndarray,
    features: np.ndarray,
    done: np.ndarray,
    ranks: np.ndarray,
    scores: np.ndarray,
    game_of: np.ndarray,
    rows: np.ndarray,
) -> int:
    """Play ``games`` games of search against itself (``iterations`` a decision, a
    uniform decision with probability ``epsilon``), game ``g`` from ``starts[g % len]``;
    at every decision node record the seats' features (``features[i]``, ``(4, FEATURES)``),
    the game's progress (``done[i]``), its final ranks (``ranks[i]``, R21) and scores
    (``scores[i]``, R20) and its game number; with ``rows`` of ``len(features)`` rows
    also the position. Returns the positions recorded (stops early when the arrays are
    full)."""
    rng = mix64(np.uint64(seed) ^ _SALT_SEARCH)
    s = np.empty(WIDTH, dtype=np.int32)
    feats = np.zeros((4, FEATURES), dtype=np.float64)
    slots = np.empty(_MAX_CHILDREN, dtype=np.int32)
    buf = np.empty(12, dtype=np.int32)
    keep = rows.shape[0] > 0
    count = 0
    capacity = features.shape[0]
    for game in range(games):
        reset_row(s, starts[game % starts.shape[0]])
        first = count
        while True:
            phase = s[PHASE]
            if phase == OVER:
                break
            if phase == ROLL or phase == DRAW:
                rng, k = _sample_child(s, rng)
                if phase == ROLL:
                    apply_unchecked(s, ROLL_BASE + k)
                else:
                    apply_unchecked(s, DRAW_BASE + s[PILE] + 2 * k)
                continue
            if count >= capacity:
                return first  # drop the unfinished game
            seat_features(s, feats)
            done[count] = game_progress(s)
            for seat in range(4):
                for k in range(FEATURES):
                    features[count, seat, k] = feats[seat, k]
            game_of[count] = game
            if keep:
                for k in range(WIDTH):
                    rows[count, k] = s[k]
            count += 1
            rng, x = kernels.unit(rng)
            if x < epsilon:
                if phase == ORIENT:
                    rng, k = below(rng, 3)
                    action = k
                else:
                    n = placements(s, slots)
                    rng, k = below(rng, n)
                    action = PLACE_BASE + slots[k]
            else:
                nodes[0, T_FIRST] = -1
                nodes[0, T_COUNT] = 0
                visits[0] = 0.0
                for seat in range(4):
                    totals[0, seat] = 0.0
                meta[0] = 1
                rng = mix64(rng)
                grow(
                    s,
                    nodes,
                    visits,
                    totals,
                    meta,
                    iterations,
                    0.15,
                    2.0,
                    0.0,
                    weights,
                    INFORMED,
                    rng,
                )
                action = nodes[best_child(nodes, visits, totals, s[TURN]), T_ACTION]
            apply_unchecked(s, action)
        results(s, buf)
        players = s[PLAYERS]
        for i in range(first, count):
            for seat in range(4):
                ranks[i, seat] = buf[2 * players + seat] if seat < players else 0
                scores[i, seat] = buf[seat] if seat < players else 0
    return count


class Tree:
    """The arrays of one search tree, grown in place by :func:`grow`.

    The arrays are allocated zeroed (``numpy.zeros``: the memory is only taken as the
    tree uses it), so a large ``capacity`` costs nothing until a long search fills it.
    """

    def __init__(self, capacity: int = MAX_NODES) -> None:
        if capacity < 2 * _MAX_CHILDREN:
            raise ValueError(f"capacity must be at least {2 * _MAX_CHILDREN}, found {capacity}")
        self.nodes = np.zeros((capacity, 3), dtype=np.int32)
        self.visits = np.zeros(capacity, dtype=np.float64)
        self.totals = np.zeros((capacity, 4), dtype=np.float64)
        self.meta = np.zeros(1, dtype=np.int64)

    def reset(self) -> None:
        """An empty tree: only the root, unexpanded."""
        self.nodes[0] = (-1, 0, -1)
        self.visits[0] = 0.0
        self.totals[0] = 0.0
        self.meta[0] = 1

    @property
    def size(self) -> int:
        """Nodes in use."""
        return int(self.meta[0])

    def room(self, needed: int) -> bool:
        """True when ``needed`` more iterations surely fit (each adds at most 12 nodes)."""
        return self.size + (needed + 1) * _MAX_CHILDREN <= self.nodes.shape[0]

    def enlarge(self) -> None:
        """Double the capacity, keeping the tree."""
        capacity = 2 * self.nodes.shape[0]
        used = self.size
        nodes = np.zeros((capacity, 3), dtype=np.int32)
        nodes[:used] = self.nodes[:used]
        visits = np.zeros(capacity, dtype=np.float64)
        visits[:used] = self.visits[:used]
        totals = np.zeros((capacity, 4), dtype=np.float64)
        totals[:used] = self.totals[:used]
        self.nodes, self.visits, self.totals = nodes, visits, totals

    def arrays(
        self,
    ) -> tuple[
        npt.NDArray[np.int32],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
    ]:
        """The arrays :func:`grow` takes after the root: nodes, visits, totals, meta."""
        return self.nodes, self.visits, self.totals, self.meta

    def root_children(self) -> range:
        first, count = int(self.nodes[0, T_FIRST]), int(self.nodes[0, T_COUNT])
        return range(first, first + count) if count else range(0)

    def root_actions(self) -> list[int]:
        """The action ids of the root's children (its legal decisions once expanded)."""
        return [int(self.nodes[c, T_ACTION]) for c in self.root_children()]


@njit(cache=True)
def _frozen_values() -> np.ndarray:
    # The learned value's layout and scales (marrakech.value_features, their home) as
    # the (possibly cached) compiled code saw them.
    return np.array(
        [
            FEATURES,
            F_DIRHAMS,
            F_VISIBLE,
            F_REGIONS,
            F_HAND,
            F_TITHE,
            F_RUIN,
            F_MOVER,
            DIRHAMS_UNIT,
            VISIBLE_UNIT,
            REGIONS_UNIT,
            TITHE_UNIT,
        ],
        dtype=np.float64,
    )


def _values() -> list[float]:
    return [
        *(FEATURES, F_DIRHAMS, F_VISIBLE, F_REGIONS, F_HAND, F_TITHE, F_RUIN, F_MOVER),
        *(DIRHAMS_UNIT, VISIBLE_UNIT, REGIONS_UNIT, TITHE_UNIT),
    ]


def _guard_cache() -> None:
    """Numba's cache notices changes to this file only: if the cached code holds other
    values of the core's feature constants, drop it (as ``kernels._guard_cache`` does)."""
    if _frozen_values().tolist() == _values():
        return
    kernels.flush_caches(globals())
    _frozen_values.recompile()
    assert _frozen_values().tolist() == _values()


_guard_cache()

__all__ = [
    "INFORMED",
    "Tree",
    "best_child",
    "grow",
    "seat_features",
    "self_play",
    "value_scores",
    "win_chances",
    "win_shares",
]
