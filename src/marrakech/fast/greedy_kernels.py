"""The ``greedy`` bot compiled, for batched opponents: the same scores, bit for bit.

:class:`marrakech.bots.greedy.GreedyBot` scores each legal decision with the static
evaluation (:mod:`marrakech.bots.evaluation`, the home of its definition): a placement
by the value of the position it leads to, an orientation by that value averaged over the
die with the best placement after each roll. These kernels compute the same
numbers on kernel rows, in the same order of floating-point operations, so every score
is the Python one exactly (``tests/fast/test_greedy_kernels.py`` compares them on
thousands of positions), while deriving each placement's child from the decision's
labelled board instead of building it (see ``_children_scores``); the decision is the
best-scoring one, and equal best ones (within the bot's tie margin) are chosen between
with the game's own generator instead of the bot's ``random.Random``.

The evaluation's weights and constants come in as parameters
(:func:`marrakech.bots.greedy.greedy_params`, in the order of the ``P_`` indices here),
not frozen in the compiled code: this layer sits below the bots, and the cache never
holds stale values::

    >>> import numpy as np
    >>> from marrakech import State
    >>> from marrakech.bots.greedy import greedy_params, orient_scores
    >>> from marrakech.fast.rows import to_arrays
    >>> state = State.new(players=3)
    >>> scores = np.zeros(12)
    >>> count = greedy_scores(to_arrays(state), np.array(greedy_params(None, 3)), scores)
    >>> scores[:count].tolist() == orient_scores(state, 0)[1]
    True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from marrakech.actions import PLACE_BASE, ROLL_BASE
from marrakech.fast.kernels import (
    ASSAM,
    BOARD,
    MONEY,
    NOUT,
    ORIENT,
    ORIENT_LAST_BIT,
    OUT,
    OVER,
    PHASE,
    PILE,
    PLACE,
    PLAYERS,
    POSITION_FIELDS,
    ROLL,
    ROLL_SIXTHS,
    TOPS,
    TURN,
    WIDTH,
    _is_out,
    _popcount,
    _unowned,
    apply_unchecked,
    below,
    cheapest_threat,
    colour_bits,
    grow_region,
    owed,
    owner_of,
    placements,
    roll_share,
    roll_threat,
    rule_option,
    spread,
)
from marrakech.fast.search_kernels import _regions_squared
from marrakech.fast.tables import PATH_END, SLOT_HIGH, SLOT_LOW
from marrakech.threat import RUIN_COST

__all__ = ["MEMO_WIDTH", "batch_greedy", "greedy_choose", "greedy_scores"]

#: The parameters' places in the array: the evaluation's weights (area, region, threat),
#: the elimination penalty and value, the tie margin.
P_AREA, P_REGION, P_THREAT, P_PENALTY, P_ELIMINATED, P_TIE = range(6)
#: How many slots a carpet can be laid on (R14): the slots' ids.
_SLOT_COUNT = len(SLOT_LOW)


@njit(cache=True)
def evaluate(s: np.ndarray, params: np.ndarray, values: np.ndarray, scratch: np.ndarray) -> None:
    """The value vector of row ``s`` into ``values[:players]``: mirrors
    :func:`marrakech.bots.evaluation.evaluate` (``scratch``: 8 floats)."""
    players = s[PLAYERS]
    eliminated_value = params[P_ELIMINATED]
    over = s[PHASE] == OVER
    for seat in range(players):
        if _is_out(s, seat):
            index = 0
            for k in range(s[NOUT]):
                if s[OUT + k] == seat:
                    index = k
            values[seat] = eliminated_value + 10.0 * index
            continue
        bits = colour_bits(s, seat)
        area = _popcount(bits)
        potential = float(_regions_squared(bits))
        if players == 2:
            other = colour_bits(s, seat + 2)
            area += _popcount(other)
            potential = potential + float(_regions_squared(other))
        money = s[MONEY + seat]
        if over:
            values[seat] = (money + area) + 0.001 * money
        else:
            values[seat] = money + params[P_AREA] * area + params[P_REGION] * potential
    if over:
        return
    phase = s[PHASE]
    if phase != PLACE:
        mover = s[TURN]
        received = scratch[:4]
        if phase == ROLL:
            paid, ruin = roll_threat(s, 1, received)
        else:
            _, paid, ruin = cheapest_threat(s, received, scratch[4:8])
        threat = params[P_THREAT]
        values[mover] -= threat * (paid + params[P_PENALTY] * ruin)
        for seat in range(players):
            values[seat] += threat * received[seat]


@njit(cache=True)
def utility(values: np.ndarray, players: int, seat: int, params: np.ndarray) -> float:
    """What ``seat`` maximises: mirrors :func:`marrakech.bots.evaluation.utility`."""
    mine: float = values[seat]
    half = params[P_ELIMINATED] / 2
    count = 0
    best = 0.0
    total = 0.0
    for other in range(players):
        v = values[other]
        if other != seat and v > half:
            if count == 0 or v > best:
                best = v
            total += v
            count += 1
    if count == 0:
        return mine + 100.0
    return mine - 0.5 * (best + total / count)


@njit(cache=True)
def _position_value(
    s: np.ndarray, seat: int, params: np.ndarray, values: np.ndarray, scratch: np.ndarray
) -> float:
    evaluate(s, params, values, scratch)
    return utility(values, s[PLAYERS], seat, params)


# -- the placements of one position, scored incrementally ---------------------------------
#
# Every placement of a position leads to a child that differs from it in two squares only
# (R14-R17), and the orientation's lookahead (3 facings x 4 rolls) scores up to a hundred
# such children on one board (orienting and rolling move Assam and dirhams, never a
# carpet). So the board's regions are labelled once per decision (:func:`_label`), and
# each child's regions, areas and threat are derived from the labels and the two squares
# (integer arithmetic, so the values are the same), instead of copying the row, applying
# the placement and flood-filling the whole board again. The threat's floats are summed
# in :func:`kernels.roll_threat`'s order, so every score is still the Python one exactly.

#: Fields of the integer scratch array ``tab`` (:func:`greedy_scores_into`).
T_SIZE = 0  # 49: the size of the region of each square (0 for an empty one)
T_MASK = 49  # 49: the region of each square as a bitboard
T_BITS = 98  # 4: each colour's squares
T_RSQ = 102  # 4: each colour's sum of size * size over its regions
T_LAND = 106  # 12: landing square of Assam for facing change t and steps k (t * 4 + k - 1)
T_LANDMASK = 118  # 3: the landing squares of each facing change as a bitboard
T_CBITS = 121  # 4: a child's colour bits
T_CRSQ = 125  # 4: a child's sums of size * size
T_SLOTS = 129  # 12: legal slots
T_NEXT_PHASE = 141  # the phase and seat to move after a placement (-1: not known yet)
T_NEXT_TURN = 142
T_LOWNER = 143  # 12: the payee at each landing square (-1: none), as T_LAND
T_LDUE = 155  # 12: the due there
T_KNOWN = 167  # 84 (a slot id): whether the slot's child regions below are known yet
T_SLOT_WORK = T_KNOWN + _SLOT_COUNT  # 84 x 6: each slot's child sums of size * size (4),
SLOT_WORK = 6  # its changed squares and the placed colour's merged region's size
T_PAYEE = T_SLOT_WORK + _SLOT_COUNT * SLOT_WORK  # 49: each square's payee (-1: none)
TAB_SIZE = T_PAYEE + 49
#: Fields of the float scratch array ``ftab``.
F_PAID = 0  # 3: the parent's threat for each facing change: tithe, ruin, incomes (4)
F_RUIN = 3
F_RECEIVED = 6  # 3 x 4
F_VALUES = 18  # 4: a value vector
F_SPARE = 22  # 8: scratch for evaluate()
F_SCORES = 30  # 12: inner placement scores
F_CHILD = 42  # 3 x 4: a child's incomes for each facing change
FTAB_SIZE = 54

# -- a game's memo: the placements' scores its orientation's lookahead found ----------------
#
# Orienting, ``greedy`` scores every placement after every roll (R9, R10), and the roll
# that comes leaves it to place in one of those positions: its placement's scores are
# already known. A batch keeps them per game (:func:`batch_greedy`): the parent row's
# position, the parameters, and per facing change and roll where Assam ends, the dirhams
# after the tithe and the scores. A placement whose position is the parent's with Assam
# and the dirhams of one of them (the phase PLACE, the same seat to move) takes its
# scores from there; they depend on the position and the parameters only.

#: Fields of a memo (floats; its parent's position fields in an integer row beside it).
M_VALID = 0  # 1.0 once a lookahead is recorded
M_PARAMS = 1  # 6: the parameters it scored with
M_ENTRIES = 7  # 12 x M_ENTRY: per facing change t and roll k (t * 4 + k - 1): Assam's
M_ENTRY = 18  # position after it (-1: no placement follows), the 4 seats' dirhams, how
MEMO_WIDTH = M_ENTRIES + 12 * M_ENTRY  # many placements, their scores (12)
#: The position fields a roll changes (not compared; Assam and the dirhams are per entry).
_ROLLED_FIELDS = np.zeros(POSITION_FIELDS, dtype=np.bool_)
_ROLLED_FIELDS[[ASSAM, PHASE, PILE, MONEY, MONEY + 1, MONEY + 2, MONEY + 3]] = True


@njit(cache=True, inline="always")
def _lowest(bits: np.int64) -> int:
    """The index of the lowest set bit of a non-zero board."""
    return _popcount((bits & -bits) - 1)


@njit(cache=True, inline="always")
def _regions_hit(tab: np.ndarray, hit: np.int64) -> tuple[np.int64, int]:
    """The labelled regions holding a square of ``hit`` (one colour's squares), and
    their sum of size * size."""
    regions = np.int64(0)
    old = 0
    while hit:
        square = _lowest(hit)
        region = tab[T_MASK + square]
        n = tab[T_SIZE + square]
        old += n * n
        regions |= region
        hit &= ~region
    return regions, old


@njit(cache=True)
def _label(s: np.ndarray, tab: np.ndarray) -> None:
    """Label the regions of row ``s``'s board into ``tab``: each square's region and its
    size, each colour's squares and sum of size * size."""
    for square in range(49):
        tab[T_SIZE + square] = 0
        tab[T_MASK + square] = 0
    for colour in range(4):
        bits = colour_bits(s, colour)
        tab[T_BITS + colour] = bits
        total = 0
        rest = bits
        while rest:
            region = grow_region(rest & -rest, bits)
            n = _popcount(region)
            total += n * n
            rest &= ~region
            walk = region
            while walk:
                square = _lowest(walk)
                tab[T_SIZE + square] = n
                tab[T_MASK + square] = region
                walk &= walk - 1
        tab[T_RSQ + colour] = total


@njit(cache=True, inline="always")
def _landing_threat(
    s: np.ndarray,
    tab: np.ndarray,
    turn_by: int,
    mover: int,
    changed: np.int64,
    placed: np.int64,
    colour: int,
    merged_size: int,
    ftab: np.ndarray,
    income: int,
    record: bool,
    players: int,
) -> tuple[float, float]:
    """:func:`kernels.roll_threat` for ``mover`` in a child of ``s`` (its labelled board
    with ``colour`` laid on the squares ``placed``; ``changed``: the squares whose region
    differs from the labels', of which those showing ``colour`` make one region of
    ``merged_size`` squares), summed in its order; ``received`` gets the incomes (4).
    A placement moves no dirham and eliminates no one, so ``s`` has the child's.

    With ``record`` (for ``s`` itself: nothing placed nor changed), each landing
    square's payee (-1 for none) and due go into ``tab``, where a child's call reads
    those of its unchanged squares instead of the board (``players``: the row's)."""
    have = s[MONEY + mover]
    paid = 0.0
    ruin = 0.0
    for seat in range(4):
        ftab[income + seat] = 0.0
    for steps in range(1, 5):
        j = turn_by * 4 + steps - 1
        square = tab[T_LAND + j]
        bit = np.int64(1) << square
        if record:
            # The payee at a square depends on the board and the mover only: found at
            # the first roll landing near it, read by the others (-2: not known yet).
            owner = tab[T_PAYEE + square]
            if owner == -2:
                owner = -1
                cell = s[BOARD + square]
                if cell != 0:
                    shown = owner_of((cell - 1) & 3, players)
                    if owed(s, shown, mover):  # R12
                        owner = shown
                tab[T_PAYEE + square] = owner
            tab[T_LOWNER + j] = owner
            if owner < 0:
                continue
            due = tab[T_SIZE + square]
            tab[T_LDUE + j] = due
        elif changed & bit:
            if placed & bit:
                shown = colour
            else:
                cell = s[BOARD + square]
                if cell == 0:
                    continue
                shown = (cell - 1) & 3
            owner = owner_of(shown, players)
            if not owed(s, owner, mover):  # R12
                continue
            if shown == colour:  # the carpet's region, merged with its neighbours
                due = merged_size
            else:  # a region the carpet cut into: grown again (R11)
                due = _popcount(grow_region(bit, tab[T_CBITS + shown]))
        else:
            owner = tab[T_LOWNER + j]
            if owner < 0:
                continue
            due = tab[T_LDUE + j]
        part, out = roll_share(steps, due, have)
        paid += part
        ruin += out
        ftab[income + owner] += part
    return paid, ruin


@njit(cache=True)
def _next_after_place(s: np.ndarray, tab: np.ndarray, template: np.ndarray) -> None:
    """The phase and seat to move after a placement in ``s`` into ``tab``: the same for
    every slot (R17-R19 look at hands and eliminations only), so once per decision."""
    template[:] = s
    apply_unchecked(template, PLACE_BASE + tab[T_SLOTS])
    tab[T_NEXT_PHASE] = template[PHASE]
    tab[T_NEXT_TURN] = template[TURN]


@njit(cache=True, inline="always")
def _children_scores(
    s: np.ndarray,
    seat: int,
    params: np.ndarray,
    scores: np.ndarray,
    tab: np.ndarray,
    ftab: np.ndarray,
    template: np.ndarray,
) -> int:
    """The value to ``seat`` of each legal placement of row ``s`` (at PLACE, its board
    labelled in ``tab`` by :func:`_label`) into ``scores`` (id order); how many. Each
    is :func:`_position_value` of the child, derived from the labels.

    Each player count gets a loop compiled with it as a constant (as the playout loops
    of :mod:`kernels` do), so that the seat loops and colour owners fold."""
    players = s[PLAYERS]
    if players == 2:
        return _children_scores_for(s, seat, params, scores, tab, ftab, template, 2)
    if players == 3:
        return _children_scores_for(s, seat, params, scores, tab, ftab, template, 3)
    return _children_scores_for(s, seat, params, scores, tab, ftab, template, 4)


@njit(cache=True, inline="always")
def _children_scores_for(
    s: np.ndarray,
    seat: int,
    params: np.ndarray,
    scores: np.ndarray,
    tab: np.ndarray,
    ftab: np.ndarray,
    template: np.ndarray,
    players: int,
) -> int:
    """:func:`_children_scores` for rows of ``players`` seats."""
    slots = tab[T_SLOTS : T_SLOTS + 12]
    count = placements(s, slots)
    if count == 0:
        return 0
    # Every child has the same phase, seat to move, dirhams and hands: only the squares
    # of the carpet differ.
    if tab[T_NEXT_PHASE] < 0:
        _next_after_place(s, tab, template)
    colour = s[TOPS + s[TURN]] if players == 2 else s[TURN]
    phase = tab[T_NEXT_PHASE]
    over = phase == OVER
    mover = tab[T_NEXT_TURN]
    threat = params[P_THREAT]
    values = ftab[F_VALUES : F_VALUES + 4]
    if not over:
        assam = s[ASSAM]
        for turn_by in range(3):
            position = (assam & ~3) | (((assam & 3) + turn_by - 1) & 3)
            landing = np.int64(0)
            for steps in range(1, 5):
                square = PATH_END[position * 5 + steps] >> 2
                tab[T_LAND + turn_by * 4 + steps - 1] = square
                landing |= np.int64(1) << square
            tab[T_LANDMASK + turn_by] = landing
        for colour_k in range(4):
            tab[T_CBITS + colour_k] = tab[T_BITS + colour_k]
        for turn_by in range(3):
            p, r = _landing_threat(
                s, tab, turn_by, mover, np.int64(0), np.int64(0), 0, 0,
                ftab, F_RECEIVED + 4 * turn_by, True, players,
            )  # fmt: skip
            ftab[F_PAID + turn_by] = p
            ftab[F_RUIN + turn_by] = r
    for k in range(count):
        slot = slots[k]
        placed = (np.int64(1) << SLOT_LOW[slot]) | (np.int64(1) << SLOT_HIGH[slot])
        for c in range(4):
            tab[T_CBITS + c] = tab[T_BITS + c] & ~placed
        tab[T_CBITS + colour] |= placed
        work = T_SLOT_WORK + SLOT_WORK * slot
        if tab[T_KNOWN + slot]:
            # Found for an earlier roll of this decision: same board, same colour.
            for c in range(4):
                tab[T_CRSQ + c] = tab[work + c]
            changed = tab[work + 4]
            merged_size = tab[work + 5]
        else:
            for c in range(4):
                tab[T_CRSQ + c] = tab[T_RSQ + c]
            # The placed colour: its regions touching the carpet merge with it.
            merged, old = _regions_hit(tab, spread(placed) & tab[T_BITS + colour])
            merged |= placed
            merged_size = _popcount(merged)
            tab[T_CRSQ + colour] += merged_size * merged_size - old
            changed = merged
            # A covered colour: the regions it loses squares of may split (R11).
            for c in range(4):
                lost = tab[T_BITS + c] & placed
                if c == colour or lost == 0:
                    continue
                broken, old = _regions_hit(tab, lost)
                tab[T_CRSQ + c] += _regions_squared(broken & ~placed) - old
                changed |= broken
            for c in range(4):
                tab[work + c] = tab[T_CRSQ + c]
            tab[work + 4] = changed
            tab[work + 5] = merged_size
            tab[T_KNOWN + slot] = 1
        # The value vector, as evaluate() builds it.
        for who in range(players):
            if _is_out(s, who):
                index = 0
                for j in range(s[NOUT]):
                    if s[OUT + j] == who:
                        index = j
                values[who] = params[P_ELIMINATED] + 10.0 * index
                continue
            area = _popcount(tab[T_CBITS + who])
            potential = float(tab[T_CRSQ + who])
            if players == 2:
                area += _popcount(tab[T_CBITS + who + 2])
                potential = potential + float(tab[T_CRSQ + who + 2])
            money = s[MONEY + who]
            if over:
                values[who] = (money + area) + 0.001 * money
            else:
                values[who] = money + params[P_AREA] * area + params[P_REGION] * potential
        if not over and phase != PLACE:
            # The coming roll's threat (cheapest_threat's choice, or straight on at ROLL),
            # from the parent's figures where no landing square's region changed; ``row``:
            # where the chosen facing's incomes are.
            if tab[T_LANDMASK + 1] & changed:
                row = F_CHILD + 4
                paid, ruin = _landing_threat(
                    s, tab, 1, mover, changed, placed, colour, merged_size,
                    ftab, row, False, players,
                )  # fmt: skip
            else:
                row = F_RECEIVED + 4
                paid, ruin = ftab[F_PAID + 1], ftab[F_RUIN + 1]
            if phase != ROLL:
                cost = paid + RUIN_COST * ruin
                for turn_by in (0, 2):
                    if cost == 0.0:
                        break  # nothing cheaper than a free roll
                    if tab[T_LANDMASK + turn_by] & changed:
                        here = F_CHILD + 4 * turn_by
                        p, r = _landing_threat(
                            s, tab, turn_by, mover, changed, placed, colour, merged_size,
                            ftab, here, False, players,
                        )  # fmt: skip
                    else:
                        here = F_RECEIVED + 4 * turn_by
                        p, r = ftab[F_PAID + turn_by], ftab[F_RUIN + turn_by]
                    loss = p + RUIN_COST * r
                    if loss < cost:
                        paid, ruin, cost, row = p, r, loss, here
            values[mover] -= threat * (paid + params[P_PENALTY] * ruin)
            for who in range(players):
                values[who] += threat * ftab[row + who]
        scores[k] = utility(values, players, seat, params)
    return count


@njit(cache=True)
def _after_roll_value(
    s: np.ndarray,
    seat: int,
    params: np.ndarray,
    tab: np.ndarray,
    ftab: np.ndarray,
    template: np.ndarray,
) -> tuple[float, int]:
    """Mirrors :func:`marrakech.bots.greedy.after_roll_value` (``s``'s board labelled);
    and how many placements ``seat`` has there, their scores left in ``ftab`` (-1 when
    it is not to place)."""
    if s[PHASE] == PLACE and s[TURN] == seat:
        inner = ftab[F_SCORES : F_SCORES + 12]
        count = _children_scores(s, seat, params, inner, tab, ftab, template)
        best: float = inner[0]
        for k in range(1, count):
            if inner[k] > best:
                best = inner[k]
        return best, count
    values = ftab[F_VALUES : F_VALUES + 4]
    return _position_value(s, seat, params, values, ftab[F_SPARE : F_SPARE + 8]), -1


@njit(cache=True)
def _memo_scores(
    s: np.ndarray,
    params: np.ndarray,
    scores: np.ndarray,
    tab: np.ndarray,
    memo_row: np.ndarray,
    memo: np.ndarray,
) -> int:
    """The placements' scores of row ``s`` (at PLACE) from the game's memo into
    ``scores``, their slots into ``tab``; how many, or -1 if the memo does not hold
    this position with these parameters."""
    if memo[M_VALID] != 1.0:
        return -1
    for k in range(6):
        if memo[M_PARAMS + k] != params[k]:
            return -1
    for field in range(POSITION_FIELDS):
        if not _ROLLED_FIELDS[field] and memo_row[field] != s[field]:
            return -1
    for j in range(12):
        entry = M_ENTRIES + M_ENTRY * j
        if memo[entry] != s[ASSAM]:
            continue
        same = True
        for who in range(4):
            same = same and memo[entry + 1 + who] == s[MONEY + who]
        if not same:
            continue
        count = placements(s, tab[T_SLOTS : T_SLOTS + 12])
        if count != memo[entry + 5]:
            return -1
        for k in range(count):
            scores[k] = memo[entry + 6 + k]
        return count
    return -1


@njit(cache=True)
def greedy_scores_into(
    s: np.ndarray,
    params: np.ndarray,
    scores: np.ndarray,
    tab: np.ndarray,
    ftab: np.ndarray,
    rolled: np.ndarray,
    template: np.ndarray,
    memo_row: np.ndarray,
    memo: np.ndarray,
) -> int:
    """:func:`greedy_scores` with its scratch arrays given: ``tab`` (``TAB_SIZE``
    integers), ``ftab`` (``FTAB_SIZE`` floats) and two rows; and the game's memo
    (``memo_row``: ``POSITION_FIELDS`` integers, ``memo``: ``MEMO_WIDTH`` floats; both
    empty for none), read at a placement and written at an orientation."""
    seat = s[TURN]
    if s[PHASE] != ORIENT and memo.shape[0] != 0:
        count = _memo_scores(s, params, scores, tab, memo_row, memo)
        if count >= 0:
            return count
    _label(s, tab)  # orienting and rolling never move a carpet: one board throughout
    # A roll that leaves ``seat`` to place eliminated no one: the phase after its
    # placements is the same for all (tab[T_NEXT_PHASE], found at the first).
    tab[T_NEXT_PHASE] = -1
    # Each slot's child regions depend on the board and the placer's colour only: found
    # at the first roll that allows the slot, reused by the others.
    tab[T_KNOWN : T_KNOWN + _SLOT_COUNT] = 0
    # The payee at each landing square, for the seat to move after a placement: the
    # same for all (that seat and the eliminations are), found as rolls need them.
    tab[T_PAYEE : T_PAYEE + 49] = -2
    if s[PHASE] != ORIENT:
        return _children_scores(s, seat, params, scores, tab, ftab, template)
    if rule_option(s, ORIENT_LAST_BIT):  # R32: the next seat rolls, after the turn passed
        for turn_by in range(3):
            total = 0.0
            # An orientation is always followed by the roll (under R32 at 2 players the
            # pile showed its next top before the placer oriented): rolls 1..4 with
            # their chances, as chance_outcomes lists them.
            for steps in range(1, 5):
                rolled[:] = s
                apply_unchecked(rolled, turn_by)
                apply_unchecked(rolled, ROLL_BASE + steps - 1)
                p = ROLL_SIXTHS[steps] / 6.0
                total += p * _after_roll_value(rolled, seat, params, tab, ftab, template)[0]
            scores[turn_by] = total
        return 3
    # Otherwise the seat itself rolls: a roll it can pay leaves the row as it was but
    # for Assam, the phase (PLACE, R10) and the tithe's dirhams (R11, R12; the due is
    # the labelled region's size), so one copy serves the 12 rolls, each writing those
    # fields and putting the dirhams back (the counters the steps would advance are
    # read by no score). A roll it cannot pay (R13) takes the generic steps.
    players = s[PLAYERS]
    have = s[MONEY + seat]
    assam = s[ASSAM]
    rolled[:] = s
    rolled[PHASE] = PLACE
    rolled[PILE] = 0
    remember = memo.shape[0] != 0
    if remember:
        memo_row[:] = s[:POSITION_FIELDS]
        memo[M_VALID] = 1.0
        memo[M_PARAMS : M_PARAMS + 6] = params[:6]
    for turn_by in range(3):
        total = 0.0
        oriented = (assam & ~3) | (((assam & 3) + turn_by - 1) & 3)
        for steps in range(1, 5):
            position = PATH_END[oriented * 5 + steps]
            square = position >> 2
            cell = s[BOARD + square]
            owner = -1
            due = 0
            if cell != 0:
                shown_by = owner_of((cell - 1) & 3, players)
                if owed(s, shown_by, seat):  # R12
                    owner = shown_by
                    due = tab[T_SIZE + square]  # R11: the labelled region
            p = ROLL_SIXTHS[steps] / 6.0
            entry = M_ENTRIES + M_ENTRY * (turn_by * 4 + steps - 1)
            if due > have:
                rolled[:] = s
                apply_unchecked(rolled, turn_by)
                apply_unchecked(rolled, ROLL_BASE + steps - 1)
                value = _after_roll_value(rolled, seat, params, tab, ftab, template)[0]
                rolled[:] = s
                rolled[PHASE] = PLACE
                rolled[PILE] = 0
                if remember:
                    memo[entry] = -1.0  # the seat is out (R13): it places nothing
            else:
                rolled[ASSAM] = position
                if owner >= 0:
                    rolled[MONEY + seat] = have - due
                    rolled[MONEY + owner] = s[MONEY + owner] + due
                value, count = _after_roll_value(rolled, seat, params, tab, ftab, template)
                if remember:
                    memo[entry] = position
                    for who in range(4):
                        memo[entry + 1 + who] = rolled[MONEY + who]
                    memo[entry + 5] = count
                    for k in range(count):
                        memo[entry + 6 + k] = ftab[F_SCORES + k]
                if owner >= 0:
                    rolled[MONEY + seat] = have
                    rolled[MONEY + owner] = s[MONEY + owner]
            total += p * value
        scores[turn_by] = total
    return 3


@njit(cache=True)
def greedy_scores(s: np.ndarray, params: np.ndarray, scores: np.ndarray) -> int:
    """The score of each legal decision of row ``s`` (at ORIENT or PLACE) for the seat to
    move, into ``scores`` in id order (12 entries); how many. Mirrors
    :func:`marrakech.bots.greedy.orient_scores` and ``place_scores``."""
    tab = np.zeros(TAB_SIZE, dtype=np.int64)
    ftab = np.zeros(FTAB_SIZE, dtype=np.float64)
    rolled = np.empty(WIDTH, dtype=s.dtype)
    template = np.empty(WIDTH, dtype=s.dtype)
    no_memo = np.empty(0, dtype=s.dtype)
    return greedy_scores_into(
        s, params, scores, tab, ftab, rolled, template, no_memo, np.empty(0, dtype=np.float64)
    )


@njit(cache=True)
def _choose(
    s: np.ndarray,
    params: np.ndarray,
    stream: np.uint64,
    scores: np.ndarray,
    tab: np.ndarray,
    ftab: np.ndarray,
    rolled: np.ndarray,
    template: np.ndarray,
    memo_row: np.ndarray,
    memo: np.ndarray,
) -> tuple[np.uint64, int]:
    count = greedy_scores_into(s, params, scores, tab, ftab, rolled, template, memo_row, memo)
    best = scores[0]
    for k in range(1, count):
        if scores[k] > best:
            best = scores[k]
    floor = best - params[P_TIE]
    tied = 0
    for k in range(count):
        if scores[k] >= floor:
            tied += 1
    pick = 0
    if tied > 1:
        stream, pick = below(stream, tied)
    for k in range(count):
        if scores[k] >= floor:
            if pick == 0:
                if s[PHASE] == ORIENT:
                    return stream, k
                return stream, PLACE_BASE + tab[T_SLOTS + k]  # greedy_scores' slots
            pick -= 1
    return stream, -1


@njit(cache=True)
def greedy_choose(s: np.ndarray, params: np.ndarray, stream: np.uint64) -> tuple[np.uint64, int]:
    """The decision id ``greedy`` plays in row ``s``, and the stream after it: the best
    score; equal best ones (within the tie margin) chosen between with one draw of
    ``stream`` (none when a single one is best)."""
    scores = np.empty(12, dtype=np.float64)
    tab = np.zeros(TAB_SIZE, dtype=np.int64)
    ftab = np.zeros(FTAB_SIZE, dtype=np.float64)
    rolled = np.empty(WIDTH, dtype=s.dtype)
    template = np.empty(WIDTH, dtype=s.dtype)
    no_memo = np.empty(0, dtype=s.dtype)
    return _choose(s, params, stream, scores, tab, ftab, rolled, template, no_memo, np.empty(0))


@njit(cache=True)
def batch_greedy(
    rows: np.ndarray,
    games: np.ndarray,
    streams: np.ndarray,
    params: np.ndarray,
    out: np.ndarray,
    memo_rows: np.ndarray,
    memos: np.ndarray,
) -> None:
    """``greedy``'s decision in each game of ``games`` (indices of ``rows`` waiting at a
    decision) into ``out`` (one per entry of ``games``), with each game's stream and
    memo (``memo_rows``: ``POSITION_FIELDS`` integers per row of ``rows``, ``memos``:
    ``MEMO_WIDTH`` floats, zeros at first; they only save work, never change a
    decision): one call for the whole batch, its scratch arrays allocated once."""
    scores = np.empty(12, dtype=np.float64)
    tab = np.zeros(TAB_SIZE, dtype=np.int64)
    ftab = np.zeros(FTAB_SIZE, dtype=np.float64)
    rolled = np.empty(WIDTH, dtype=rows.dtype)
    template = np.empty(WIDTH, dtype=rows.dtype)
    _batch_greedy(
        rows, games, streams, params, out, memo_rows, memos, scores, tab, ftab, rolled, template
    )


@njit(cache=True)
def _batch_greedy(
    rows: np.ndarray,
    games: np.ndarray,
    streams: np.ndarray,
    params: np.ndarray,
    out: np.ndarray,
    memo_rows: np.ndarray,
    memos: np.ndarray,
    scores: np.ndarray,
    tab: np.ndarray,
    ftab: np.ndarray,
    rolled: np.ndarray,
    template: np.ndarray,
) -> None:
    """:func:`batch_greedy` on views of its arrays that hold no reference to their
    memory (:func:`kernels._unowned`: Numba would otherwise count the references of
    every row and scratch array at every call of a step, atomically); the caller holds
    the arrays for the whole call."""
    all_rows = _unowned(rows)
    all_memo_rows = _unowned(memo_rows)
    all_memos = _unowned(memos)
    values = _unowned(params)
    scores = _unowned(scores)
    tab = _unowned(tab)
    ftab = _unowned(ftab)
    rolled = _unowned(rolled)
    template = _unowned(template)
    for k in range(games.shape[0]):
        i = games[k]
        streams[i], out[k] = _choose(
            all_rows[i], values, streams[i], scores, tab, ftab, rolled, template,
            all_memo_rows[i], all_memos[i],
        )  # fmt: skip


@njit(cache=True)
def batch_greedy_scores(
    rows: np.ndarray, games: np.ndarray, params: np.ndarray, out: np.ndarray
) -> None:
    """``greedy``'s score of every legal decision in each game of ``games`` (indices of
    ``rows`` waiting at a decision) into ``out`` (``(len(games), 87)`` floats, by
    decision id; the entries of illegal ids are left as they are): the numbers
    :func:`greedy_scores` gives, with no memo (they are read, not played)."""
    scores = np.empty(12, dtype=np.float64)
    tab = np.zeros(TAB_SIZE, dtype=np.int64)
    ftab = np.zeros(FTAB_SIZE, dtype=np.float64)
    rolled = np.empty(WIDTH, dtype=rows.dtype)
    template = np.empty(WIDTH, dtype=rows.dtype)
    no_memo_row = np.empty(0, dtype=rows.dtype)
    no_memo = np.empty(0, dtype=np.float64)
    for k in range(games.shape[0]):
        s = rows[games[k]]
        count = greedy_scores_into(
            s, params, scores, tab, ftab, rolled, template, no_memo_row, no_memo
        )
        for j in range(count):
            if s[PHASE] == ORIENT:
                out[k, j] = scores[j]
            else:
                out[k, PLACE_BASE + tab[T_SLOTS + j]] = scores[j]
