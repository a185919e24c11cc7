"""Numba kernels: the rules of the core, on kernel rows (see :mod:`marrakech.fast.rows`).

Every function here mirrors one part of :class:`marrakech.state.State` line for line
(``_roll``, ``_place``, ``_draw``, ``_next_seat``, ``_game_over``, ``scores``, ``ranks``)
and is differential-tested against it. All compile with ``cache=True`` and each is called
with one set of argument types only (``int32`` rows, ``uint64`` generator states, ``int64``
actions and seats), so a second process loads them from the cache instead of compiling.

Everything the kernels share with the rest of the package is imported from its home,
never typed again: the phases (:mod:`marrakech.position`), the action-id bases
(:mod:`marrakech.actions`), the observation layout (:mod:`marrakech.observation`), the
board tables (:mod:`marrakech.fast.tables`, from :mod:`marrakech.geometry`) and the
generator's constants (:mod:`marrakech.splitmix`). Numba freezes them into the compiled
code; :func:`_guard_cache` drops a cached build made with other values.

Random numbers come from SplitMix64, mirroring :mod:`marrakech.splitmix` (one
``uint64`` of state per stream), so the pure-Python batch plays the same games.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import cast

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from marrakech import splitmix
from marrakech.actions import DECISION_IDS, DRAW_BASE, PLACE_BASE, ROLL_BASE
from marrakech.batch_checks import CHANCE_SLOTS
from marrakech.fast.tables import (
    CAND,
    CAND_LINK,
    CAND_LOW,
    CAND_N,
    CAND_OK,
    DELTA_T,
    DIE,
    NOT_FILE_A,
    NOT_FILE_G,
    PATH_END,
    SLOT_HIGH,
    SLOT_LINK,
    SLOT_LOW,
)
from marrakech.geometry import SQUARES
from marrakech.observation import (
    ASSAM_OFFSET,
    DIRHAMS_SCALE,
    FACING_OFFSET,
    LINKS_OFFSET,
    PHASE_OFFSET,
    PLANES_OFFSET,
    SEAT_CARPETS,
    SEAT_DIRHAMS,
    SEAT_EXISTS,
    SEAT_FEATURES,
    SEAT_IN,
    SEAT_TOP_FIRST,
    SEATS_OFFSET,
)
from marrakech.position import NO_LINK, Phase
from marrakech.rules import RULE_OPTIONS
from marrakech.threat import RUIN_COST

# The fields of a kernel row. They are defined here, in the file whose compiled code is
# cached, because Numba's cache only notices changes to the file that defines a kernel.
# -- the fields of a row ------------------------------------------------------------------
BOARD = 0  # 49 cells: 0 empty, else 1 + colour + 4 * link (as the core packs them)
ASSAM = 49  # square * 4 + facing
MONEY = 50  # 4 seats (unused seats 0)
HAND = 54  # 4 colours (colours not in play 0)
TOPS = 58  # 2 pile tops (-1 unknown or empty; 3-4 players: -1)
OUT = 60  # 4 eliminated seats in the order they went out (-1 padding)
NOUT = 64  # how many seats are out
OUTMASK = 65  # bit s set when seat s is out
PHASE = 66  # Phase value (ORIENT 0, ROLL 1, PLACE 2, DRAW 3, OVER 4)
TURN = 67
PILE = 68  # during DRAW: the pile revealing its top; else 0 as in the core
PLAYERS = 69
OWN_COVER = 70  # rule set: 1 when a seat may cover its own whole carpet (R31)
RULE_CARPETS = 71  # rule set: carpets per colour for 2, 3, 4 players (3 fields)
RULE_MONEY = 74  # rule set: starting dirhams
START_CARPETS = 75  # carpets a seat starts with (both colours at 2 players)
# Squares showing each colour as bitboards (derived from the board, kept up to date so a
# tithe region grows with a few shifts, R11): colour c's squares 0..27 in BITS + 2c,
# squares 28..48 (shifted down by 28) in BITS + 2c + 1.
BITS = 76
BITS_SPLIT = 28
RULE_FLAGS = 84  # rule set: its yes/no options, bit i for option i of RULE_OPTIONS
# -- counters (not part of the position) --------------------------------------------------
PLIES = 85  # actions applied since the start of the game (decisions and chance)
TURNS = 86  # ORIENT decisions
TITHES = 87  # tithes paid (R11), including a partial one that eliminates (R13)
TITHE_DIRHAMS = 88  # dirhams handed over in tithes
LAST_PAYER = 89  # the last step's tithe: payer seat (-1: none), payee, due, paid
LAST_PAYEE = 90
LAST_DUE = 91
LAST_PAID = 92
CHANCE_COUNT = 93  # chance outcomes resolved during the last reset/step
CHANCE_LOG = 94  # their action ids (CHANCE_SLOTS fields, -1 padding)
PLACES = 98  # PLACE decisions
PLACE_OPTIONS = 99  # legal placements summed over PLACE decisions
WIDTH = 104

#: Fields that make up the position (everything before the counters): the rule set's
#: fields, the flags word among them, must lie here, where a reset keeps them.
POSITION_FIELDS = PLIES

#: The bit of each rule option (:data:`marrakech.rules.RULE_OPTIONS`, by field name) in
#: a row's :data:`RULE_FLAGS` word: option i is bit i, so an option adds no field. The
#: kernels read one with :func:`rule_option`; :func:`marrakech.fast.rows.rule_flags`
#: packs a rule set's.
OPTION_BITS: dict[str, int] = {option.field: 1 << i for i, option in enumerate(RULE_OPTIONS)}
assert len(OPTION_BITS) < 31, "the rule options fill RULE_FLAGS (an int32 row field)"
ORIENT_LAST_BIT = OPTION_BITS["orient_last"]  # R32
#: The declared options' names in their order, as one number: the cache guard drops a
#: build whose option bits (frozen in the code) were taken from another declaration.
_OPTIONS_KEY = zlib.crc32(" ".join(OPTION_BITS).encode())

ORIENT, ROLL, PLACE, DRAW, OVER = (int(phase) for phase in Phase)
#: Columns of the statistics array filled by :func:`playouts`.
STAT_PLIES, STAT_TURNS, STAT_TITHES, STAT_TITHE_DIRHAMS = 0, 1, 2, 3
STAT_OUT, STAT_PLACES, STAT_PLACE_OPTIONS = 4, 5, 6
STATS = 7

_GOLDEN = np.uint64(splitmix.GOLDEN)
_MIX1 = np.uint64(splitmix.MIX1)
_MIX2 = np.uint64(splitmix.MIX2)
_SALT_PLAYOUTS = np.uint64(splitmix.SALT_PLAYOUTS)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U11 = np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53
_NOT_G = np.int64(NOT_FILE_G)
_NOT_A = np.int64(NOT_FILE_A)
_ONE = np.int64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
_U1, _U2, _U4, _U56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


# -- random numbers (mirroring marrakech.splitmix) ------------------------------------------


@njit(cache=True)
def mix64(z: np.uint64) -> np.uint64:
    """The SplitMix64 output function (also used to derive seeds)."""
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@njit(cache=True)
def below(state: np.uint64, k: int) -> tuple[np.uint64, int]:
    """Advance ``state``; return it and a uniform integer in ``[0, k)``."""
    state = state + _GOLDEN
    z = mix64(state)
    return state, int(np.int64(((z >> _U32) * np.uint64(k)) >> _U32))


@njit(cache=True)
def unit(state: np.uint64) -> tuple[np.uint64, float]:
    """Advance ``state``; return it and a uniform float in ``[0, 1)``."""
    state = state + _GOLDEN
    z = mix64(state)
    return state, np.float64(z >> _U11) * _TO_UNIT


@njit(cache=True)
def seed_streams(seed: np.uint64, salt: np.uint64, out: np.ndarray) -> None:
    """One independent generator state per entry of ``out``, derived from ``seed``."""
    base = mix64(mix64(seed ^ salt) + salt)
    for i in range(out.shape[0]):
        out[i] = mix64(base + np.uint64(i) * _GOLDEN)


# -- unowned views -------------------------------------------------------------------------


def _unowned_view(typingctx: object, array: types.Array) -> tuple[object, object]:
    """The typing and code of :func:`_unowned`: a view of ``array`` that holds no
    reference to its memory (a null meminfo).

    Numba counts the references of an array each time an inlined step takes it as an
    argument, with an atomic increment and decrement around every ply of a playout loop,
    which its pruning of reference counts cannot remove across the loop's branches
    (issue 27). A view without a meminfo makes every such count a test of a null
    pointer, which LLVM folds away. The caller must keep ``array`` alive while the view
    is used: the loops below take their buffers as arguments, which their caller holds
    for the whole call."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        view = make_array(array)(context, builder, value=args[0])  # type: ignore[no-untyped-call]
        view.meminfo = cgutils.get_null_value(view.meminfo.type)  # type: ignore[no-untyped-call]
        view.parent = cgutils.get_null_value(view.parent.type)  # type: ignore[no-untyped-call]
        return view._getvalue()

    return array(array), codegen


#: ``_unowned(array)`` in compiled code: see :func:`_unowned_view`.
_unowned = cast("Callable[[np.ndarray], np.ndarray]", intrinsic(_unowned_view))


# -- rules (mirroring marrakech.state) -----------------------------------------------------
#
# The steps of a turn (orient, roll, placements, place, draw and the turn passing) are
# inlined into their callers by Numba (``inline="always"``): LLVM alone leaves them as
# calls, and a call per ply (with the row's reference counting around it) cost the
# playout loop about 20% (issue 27).


@njit(cache=True)
def owner_of(colour: int, players: int) -> int:
    """``colour % players`` without a division (colour is 0..3, so below 2 * players)."""
    return colour - players if colour >= players else colour


@njit(cache=True)
def _held(s: np.ndarray, seat: int) -> int:
    if s[PLAYERS] == 2:
        return int(s[HAND + seat] + s[HAND + seat + 2])
    return int(s[HAND + seat])


@njit(cache=True, inline="always")
def rule_option(s: np.ndarray, bit: int) -> bool:
    """Whether the rule option of ``bit`` (its :data:`OPTION_BITS` entry) is on in row ``s``."""
    return bool((s[RULE_FLAGS] & bit) != 0)


@njit(cache=True)
def _is_out(s: np.ndarray, seat: int) -> bool:
    return bool((s[OUTMASK] >> seat) & 1 == 1)


@njit(cache=True)
def _game_over(s: np.ndarray) -> bool:
    """R19: at most one seat in, or no seat still in holds a carpet."""
    players = s[PLAYERS]
    if players - s[NOUT] <= 1:
        return True
    for seat in range(players):  # noqa: SIM110 - a generator does not compile in Numba
        if not _is_out(s, seat) and _held(s, seat) > 0:
            return False
    return True


@njit(cache=True)
def _next_seat(s: np.ndarray, seat: int) -> int:
    """The next seat clockwise still in the game (R19), preferring one with carpets."""
    players = int(s[PLAYERS])
    fallback = -1
    for offset in range(1, players + 1):
        candidate = (seat + offset) % players
        if _is_out(s, candidate):
            continue
        if _held(s, candidate) > 0:
            return candidate
        if fallback < 0:
            fallback = candidate
    return max(fallback, 0)


@njit(cache=True)
def colour_bits(s: np.ndarray, colour: int) -> np.int64:
    """The squares showing ``colour`` as a 49-bit board."""
    return np.int64(s[BITS + 2 * colour]) | (np.int64(s[BITS + 2 * colour + 1]) << BITS_SPLIT)


@njit(cache=True)
def _paint(s: np.ndarray, square: int, old_cell: int, colour: int) -> None:
    """Keep the colour bitboards in step with a square turning to ``colour``."""
    high = np.int64(square >= BITS_SPLIT)  # branch-free: which half is unpredictable
    field = BITS + high
    bit = np.int32(1) << (square - BITS_SPLIT * high)
    if old_cell != 0:
        s[field + 2 * ((old_cell - 1) & 3)] &= ~bit
    s[field + 2 * colour] |= bit


@njit(cache=True)
def fill_bits(s: np.ndarray) -> None:
    """Recompute the colour bitboards of row ``s`` from its board."""
    for field in range(8):
        s[BITS + field] = 0
    for square in range(SQUARES):
        cell = s[BOARD + square]
        if cell != 0:
            _paint(s, square, 0, (cell - 1) & 3)


@njit(cache=True, inline="always")
def reset_row(s: np.ndarray, start: np.ndarray) -> None:
    """Row ``s`` becomes the position of row ``start`` (its rule set, the option flags
    and all, are fields of the position) with every counter cleared: how each playout
    and each reset game of a batch begins."""
    for k in range(POSITION_FIELDS):
        s[k] = start[k]
    for k in range(POSITION_FIELDS, WIDTH):
        s[k] = 0


@njit(cache=True)
def _popcount(bits: np.int64) -> int:
    # Branch-free (SWAR): a loop's exit on a varying count is mispredicted each time.
    x = np.uint64(bits)
    x = x - ((x >> _U1) & _M1)
    x = (x & _M2) + ((x >> _U2) & _M2)
    x = (x + (x >> _U4)) & _M4
    return int((x * _H01) >> _U56)


@njit(cache=True)
def spread(bits: np.int64) -> np.int64:
    """``bits`` and every square sharing a side with one of them (may set bits above 48)."""
    return (bits | (bits << 7) | (bits >> 7) | ((bits & _NOT_G) << 1)) | ((bits & _NOT_A) >> 1)


# -- the tithe (R11-R13), the compiled home ------------------------------------------------
#
# Who is owed (:func:`owed`, R12), how much (:func:`region_size`, R11) and what a seat
# short of it pays (R13; :func:`roll_share` for the expected figure) are written here
# only: the step (:func:`roll`), the expected tithe of the coming roll
# (:func:`roll_threat`, mirroring :mod:`marrakech.threat`) and the ``greedy`` kernels'
# incremental scores (:mod:`marrakech.fast.greedy_kernels`) call them.

#: Chance of each roll 1..4 in sixths: how many faces of the die show it (R3).
ROLL_SIXTHS = np.bincount(DIE, minlength=5).astype(np.int64)


@njit(cache=True, inline="always")
def grow_region(seed: np.int64, within: np.int64) -> np.int64:
    """The squares of ``within`` (one colour's bitboard) connected to those of ``seed``:
    a tithe region (R11)."""
    region = seed
    while True:
        grown = spread(region) & within
        if grown == region:
            return region
        region = grown


@njit(cache=True)
def region_size(s: np.ndarray, square: int) -> int:
    """Squares of the region of ``square`` (R11), grown on a 49-bit board."""
    same = colour_bits(s, (s[BOARD + square] - 1) & 3)
    return _popcount(grow_region(_ONE << square, same))


@njit(cache=True)
def owed(s: np.ndarray, owner: int, mover: int) -> bool:
    """Whether ``mover``, Assam stopped on a square of ``owner``'s colour in row ``s``,
    pays ``owner`` a tithe (R12: not to itself, nor to a seat out of the game)."""
    # A plain function (LLVM inlines it) rather than ``inline="always"``: inlined by
    # Numba into the greedy kernels' loops, it cost them a fifth of their speed.
    return owner != mover and not _is_out(s, owner)


@njit(cache=True, inline="always")
def roll_share(steps: int, due: int, have: int) -> tuple[float, float]:
    """A roll of ``steps`` asking a tithe of ``due`` of a seat holding ``have`` dirhams:
    its part of the expected tithe (R13: at most what the seat has) and of the chance
    that the seat is out (R3's chance of the roll when it cannot pay)."""
    p = ROLL_SIXTHS[steps] / 6.0
    if due > have:  # R13: all it has, and it is out
        return p * have, p
    return p * due, 0.0


@njit(cache=True)
def roll_threat(s: np.ndarray, turn_by: int, received: np.ndarray) -> tuple[float, float]:
    """The expected tithe the seat whose turn it is pays and its chance of elimination
    if Assam is turned by ``turn_by`` (0 left, 1 straight, 2 right) and the die is cast
    (R9-R13); ``received[seat]`` gets each seat's expected income (4 entries).

    Mirrors :func:`marrakech.threat.roll_threat`, its home, summing in the same order so
    the floats are the same (``tests/fast/test_threat.py``)."""
    players = s[PLAYERS]
    mover = s[TURN]
    assam = s[ASSAM]
    position = (assam & ~3) | (((assam & 3) + turn_by - 1) & 3)
    have = s[MONEY + mover]
    paid = 0.0
    ruin = 0.0
    for seat in range(4):
        received[seat] = 0.0
    for steps in range(1, 5):
        square = PATH_END[position * 5 + steps] >> 2
        cell = s[BOARD + square]
        if cell != 0:
            owner = owner_of((cell - 1) & 3, players)
            if owed(s, owner, mover):  # R12
                part, out = roll_share(steps, region_size(s, square), have)
                paid += part
                ruin += out
                received[owner] += part
    return paid, ruin


@njit(cache=True)
def cheapest_threat(
    s: np.ndarray, received: np.ndarray, spare: np.ndarray
) -> tuple[int, float, float]:
    """The orientation with the least expected loss (tithe plus ``RUIN_COST`` times the
    elimination chance), straight first on ties, with its :func:`roll_threat`;
    ``received`` gets its expected incomes, ``spare`` (4 entries) is scratch space.

    Mirrors :func:`marrakech.threat.cheapest_orient`."""
    paid, ruin = roll_threat(s, 1, received)
    best = 1
    cost = paid + RUIN_COST * ruin
    for turn_by in (0, 2):
        if cost == 0.0:
            break  # nothing cheaper than a free roll
        p, r = roll_threat(s, turn_by, spare)
        c = p + RUIN_COST * r
        if c < cost:
            best, paid, ruin, cost = turn_by, p, r, c
            received[:] = spare
    return best, paid, ruin


@njit(cache=True, inline="always")
def _first_phase(orient_last: bool) -> int:
    """The phase a seat's turn begins with (mirrors ``marrakech.state._begin``)."""
    return ROLL if orient_last else ORIENT


@njit(cache=True)
def _begin(s: np.ndarray) -> int:
    """:func:`_first_phase` under the rule set of row ``s``."""
    return _first_phase(rule_option(s, ORIENT_LAST_BIT))


# The steps below take the rule set's values (``players``, ``orient_last``, ``own``) as
# arguments: the public steps read them from the row, and a playout loop reads them once
# per call and hands them down, as constants where it is specialised for a rule set, so
# that the rule options cost no loads nor branches per ply (issue 27).


@njit(cache=True, inline="always")
def _pass_turn(s: np.ndarray, turn: int, reveal: bool, players: int, orient_last: bool) -> None:
    """The turn passes to the next seat (mirrors ``marrakech.state._pass_turn``, R7, R19);
    at 2 players the placer's pile reveals its next top first when ``reveal``."""
    phase = _first_phase(orient_last)
    pile = 0
    if players == 2:
        if reveal and s[HAND + turn] + s[HAND + turn + 2] > 0:
            phase = DRAW  # reveal this pile's next top first (R7)
            pile = turn
        nxt = 1 - turn
        if s[HAND + nxt] + s[HAND + nxt + 2] > 0:
            turn = nxt
        else:
            turn = _next_seat(s, turn)
    else:
        nxt = turn + 1 if turn + 1 < players else 0
        if s[HAND + nxt] > 0 and s[NOUT] == 0:
            turn = nxt
        else:
            turn = _next_seat(s, turn)
    s[PHASE] = phase
    s[TURN] = turn
    s[PILE] = pile


@njit(cache=True, inline="always")
def orient(s: np.ndarray, turn_by: int) -> None:
    """R9: ``turn_by`` 0, 1, 2 = left, straight, right (the Orient action id); then the
    roll, or with R32 the next seat's turn."""
    _orient(s, turn_by, s[PLAYERS], rule_option(s, ORIENT_LAST_BIT))


@njit(cache=True, inline="always")
def _orient(s: np.ndarray, turn_by: int, players: int, orient_last: bool) -> None:
    assam = s[ASSAM]
    facing = ((assam & 3) + turn_by - 1) & 3
    s[ASSAM] = (assam & ~3) | facing
    s[TURNS] += 1
    s[PLIES] += 1
    if orient_last:  # R32: the placer's pile was revealed before he oriented
        _pass_turn(s, s[TURN], False, players, orient_last)
        return
    s[PHASE] = ROLL
    s[PILE] = 0


@njit(cache=True, inline="always")
def roll(s: np.ndarray, steps: int) -> None:
    """R10-R13: move Assam ``steps`` squares, pay the tithe, eliminate who cannot pay."""
    _roll(s, steps, s[PLAYERS])


@njit(cache=True, inline="always")
def _roll(s: np.ndarray, steps: int, players: int) -> None:
    position = PATH_END[s[ASSAM] * 5 + steps]
    square = position >> 2
    turn = s[TURN]
    phase = PLACE
    cell = s[BOARD + square]
    s[PLIES] += 1
    if cell != 0:
        owner = owner_of((cell - 1) & 3, players)
        if owed(s, owner, turn):  # R11, R12
            due = region_size(s, square)
            have = s[MONEY + turn]
            paid = due if have >= due else have
            s[MONEY + owner] += paid
            s[MONEY + turn] = have - paid
            s[TITHES] += 1
            s[TITHE_DIRHAMS] += paid
            s[LAST_PAYER] = turn
            s[LAST_PAYEE] = owner
            s[LAST_DUE] = due
            s[LAST_PAID] = paid
            if have < due:  # R13: pays all he has and is out
                s[OUT + s[NOUT]] = turn
                s[NOUT] += 1
                s[OUTMASK] |= 1 << turn
                s[HAND + turn] = 0
                if players == 2:
                    s[HAND + turn + 2] = 0
                    s[TOPS + turn] = -1
                if _game_over(s):
                    phase = OVER
                    turn = 0
                else:
                    phase = _begin(s)
                    turn = _next_seat(s, turn)
    s[ASSAM] = position
    s[PHASE] = phase
    s[TURN] = turn
    s[PILE] = 0


@njit(cache=True)
def placement_ok(s: np.ndarray, slot: int) -> bool:
    """R16 (and R31's own-cover option) for a slot already allowed by R14/R15."""
    cell = s[BOARD + SLOT_LOW[slot]]
    if cell != 0 and ((cell - 1) >> 2) == SLOT_LINK[slot]:
        if s[OWN_COVER] == 0 or owner_of((cell - 1) & 3, s[PLAYERS]) != s[TURN]:
            return False
    return True


@njit(cache=True, inline="always")
def placements(s: np.ndarray, out: np.ndarray) -> int:
    """Write the legal slot numbers (in id order) into ``out``; return how many."""
    return _placements(s, out, s[PLAYERS], s[OWN_COVER] != 0)


@njit(cache=True, inline="always")
def _placements(s: np.ndarray, out: np.ndarray, players: int, own: bool) -> int:
    square = s[ASSAM] >> 2
    # Branch-free compaction: the legality of a candidate is unpredictable, so write
    # every slot and advance the count by its legality.
    turn = s[TURN]
    count = 0
    for i in range(CAND_N[square]):
        cell = s[BOARD + CAND_LOW[square, i]] - 1
        whole = (cell >= 0) & ((cell >> 2) == CAND_LINK[square, i])
        colour = cell & 3
        allowed = own & ((colour - players * np.int64(colour >= players)) == turn)
        out[count] = CAND[square, i]
        count += int((not whole) | allowed)
    return count


@njit(cache=True, inline="always")
def place(s: np.ndarray, slot: int) -> None:
    """R14-R17 and R19: lay the seat's next carpet on ``slot`` and pass the turn."""
    _place(s, slot, s[PLAYERS], rule_option(s, ORIENT_LAST_BIT))


@njit(cache=True, inline="always")
def _place(s: np.ndarray, slot: int, players: int, orient_last: bool) -> None:
    turn = s[TURN]
    low = SLOT_LOW[slot]
    high = SLOT_HIGH[slot]
    link = SLOT_LINK[slot]
    low_cell = s[BOARD + low]
    high_cell = s[BOARD + high]
    colour = s[TOPS + turn] if players == 2 else turn
    # Half-cover: the other half of a covered carpet loses its partner (R17).
    if low_cell != 0 and low_cell <= 16:
        partner = low + DELTA_T[(low_cell - 1) >> 2]
        if partner != high:
            s[BOARD + partner] = 17 + ((s[BOARD + partner] - 1) & 3)
    if high_cell != 0 and high_cell <= 16:
        partner = high + DELTA_T[(high_cell - 1) >> 2]
        if partner != low:
            s[BOARD + partner] = 17 + ((s[BOARD + partner] - 1) & 3)
    _paint(s, low, low_cell, colour)
    _paint(s, high, high_cell, colour)
    s[BOARD + low] = 1 + colour + 4 * link
    s[BOARD + high] = 9 + colour + 4 * link
    s[HAND + colour] -= 1
    s[PLIES] += 1
    if players == 2:
        s[TOPS + turn] = -1
    if s[NOUT] > 0 or (s[HAND] + s[HAND + 1] + s[HAND + 2] + s[HAND + 3]) == 0:
        if _game_over(s):
            s[PHASE] = OVER
            s[TURN] = 0
            s[PILE] = 0
            return
    if orient_last:  # R32: the placer turns Assam before the turn passes,
        s[PHASE] = ORIENT  # once his pile has shown his next carpet (R7, as on BGA)
        s[PILE] = 0
        if players == 2 and s[HAND + turn] + s[HAND + turn + 2] > 0:
            s[PHASE] = DRAW
            s[PILE] = turn
        return
    _pass_turn(s, turn, True, players, orient_last)


@njit(cache=True, inline="always")
def draw(s: np.ndarray, colour: int) -> None:
    """R7: the top of a 2-player pile is revealed as ``colour``."""
    s[TOPS + s[PILE]] = colour
    s[PLIES] += 1
    # After a placement an orientation follows (the next seat's, or the placer's under
    # R32); the opening's reveals, with nothing placed yet, begin the first turn.
    placed = 0
    for k in range(8):
        placed |= s[BITS + k]
    phase = ORIENT if placed != 0 else _begin(s)
    pile = 0
    for seat in range(2):  # the opening reveals seat 0's top, then seat 1's (R7)
        if s[TOPS + seat] < 0 and not _is_out(s, seat):
            if s[HAND + seat] + s[HAND + seat + 2] > 0:
                phase = DRAW
                pile = seat
                break
    s[PHASE] = phase
    s[PILE] = pile


@njit(cache=True)
def is_legal(s: np.ndarray, action: int) -> bool:
    """Whether ``action`` (0..94, decisions and chance outcomes) is legal in row ``s``."""
    phase = s[PHASE]
    if phase == ORIENT:
        return 0 <= action <= 2
    if phase == PLACE:
        slot = action - PLACE_BASE
        if slot < 0 or slot >= 84 or not CAND_OK[s[ASSAM] >> 2, slot]:
            return False
        return placement_ok(s, slot)
    if phase == ROLL:
        return ROLL_BASE <= action < DRAW_BASE
    if phase == DRAW:
        colour = action - DRAW_BASE
        return 0 <= colour < 4 and colour % 2 == s[PILE] and s[HAND + colour] > 0
    return False


@njit(cache=True)
def apply_unchecked(s: np.ndarray, action: int) -> None:
    """Apply a legal ``action`` (any id 0..94) to row ``s``."""
    if action < PLACE_BASE:
        orient(s, action)
    elif action < ROLL_BASE:
        place(s, action - PLACE_BASE)
    elif action < DRAW_BASE:
        roll(s, action - ROLL_BASE + 1)
    else:
        draw(s, action - DRAW_BASE)


@njit(cache=True)
def apply_action(s: np.ndarray, action: int) -> bool:
    """Apply ``action`` if legal (decision or chance outcome); False and no change if not."""
    if not is_legal(s, action):
        return False
    s[LAST_PAYER] = -1
    s[LAST_PAYEE] = -1
    s[LAST_DUE] = 0
    s[LAST_PAID] = 0
    apply_unchecked(s, action)
    return True


@njit(cache=True)
def _log_chance(s: np.ndarray, action: int) -> None:
    count = s[CHANCE_COUNT]
    if count < CHANCE_SLOTS:
        s[CHANCE_LOG + count] = action
    s[CHANCE_COUNT] = count + 1


@njit(cache=True)
def resolve_chance(s: np.ndarray, state: np.uint64) -> np.uint64:
    """Sample ROLL and DRAW nodes with their true probabilities (R3, R7) until a decision
    node or the end; return the advanced generator state."""
    while True:
        phase = s[PHASE]
        if phase == ROLL:
            state, face = below(state, 6)
            steps = DIE[face]
            _log_chance(s, ROLL_BASE + steps - 1)
            roll(s, steps)
        elif phase == DRAW:
            pile = s[PILE]
            first = s[HAND + pile]
            state, k = below(state, first + s[HAND + pile + 2])
            colour = pile if k < first else pile + 2
            _log_chance(s, DRAW_BASE + colour)
            draw(s, colour)
        else:
            return state


@njit(cache=True)
def results(s: np.ndarray, out: np.ndarray) -> None:
    """R20 scores, dirhams and R21 ranks (1 = win, shared on ties) of row ``s``, written
    to ``out[0:p]``, ``out[p:2p]`` and ``out[2p:3p]`` for ``p`` players.

    The ranks mirror :func:`marrakech.outcome.rank_seats`."""
    players = s[PLAYERS]
    key0 = key1 = key2 = key3 = np.int64(0)  # (in, score, dirhams) packed in one integer
    for seat in range(players):
        bits = colour_bits(s, seat)
        if players == 2:
            bits |= colour_bits(s, seat + 2)
        score = _popcount(bits)  # visible squares of the seat's colours
        money = s[MONEY + seat]
        if _is_out(s, seat):
            key = np.int64(0)
            for i in range(s[NOUT]):
                if s[OUT + i] == seat:
                    key = np.int64(i)
        else:
            score += money
            key = (np.int64(1) << 50) + (np.int64(score) << 24) + money
        out[seat] = score
        out[players + seat] = money
        if seat == 0:
            key0 = key
        elif seat == 1:
            key1 = key
        elif seat == 2:
            key2 = key
        else:
            key3 = key
    for seat in range(players):
        key = key0 if seat == 0 else key1 if seat == 1 else key2 if seat == 2 else key3
        rank = 1 + (key0 > key) + (key1 > key)
        if players > 2:
            rank += key2 > key
        if players > 3:
            rank += key3 > key
        out[2 * players + seat] = rank


@njit(cache=True)
def outcome_values(ranks: np.ndarray, rank_values: np.ndarray, win_shares: np.ndarray) -> None:
    """Per game (row of ``ranks``, final ranks of every seat), each seat's rank value and
    win share, mirroring :attr:`marrakech.outcome.Outcome.rank_values` and
    :attr:`~marrakech.outcome.Outcome.win_shares` (ties share places and wins, R21)."""
    players = ranks.shape[1]
    for game in range(ranks.shape[0]):
        row = ranks[game]
        winners = 0
        for seat in range(players):
            if row[seat] == 1:
                winners += 1
        for seat in range(players):
            rank = row[seat]
            shared = 0
            for other in range(players):
                if row[other] == rank:
                    shared += 1
            mean_place = rank + (shared - 1) / 2.0
            rank_values[game, seat] = (players - mean_place) / (players - 1)
            win_shares[game, seat] = 1.0 / winners if rank == 1 else 0.0


# -- random playouts -----------------------------------------------------------------------


@njit(cache=True)
def _choose_weighted(state: np.uint64, weights: np.ndarray, count: int) -> tuple[np.uint64, int]:
    total = 0.0
    for i in range(count):
        total += weights[i]
    if total <= 0.0:
        return below(state, count)
    state, x = unit(state)
    x *= total
    for i in range(count - 1):
        x -= weights[i]
        if x < 0.0:
            return state, i
    return state, count - 1


#: The parameters of the informed policy (see :func:`playouts`), in this order.
INFORMED_PARAMS = 5
P_EPSILON, P_COVER, P_GROW, P_OWN, P_RUIN = range(INFORMED_PARAMS)


@njit(cache=True)
def place_value(s: np.ndarray, slot: int, params: np.ndarray) -> float:
    """How much the informed policy likes laying the seat's carpet on ``slot``: squares
    of opponents' regions it covers (R16-R17), own squares it touches (a region grows,
    R11), minus own squares it hides."""
    players = s[PLAYERS]
    turn = s[TURN]
    colour = s[TOPS + turn] if players == 2 else turn
    if colour < 0:
        colour = turn
    low = SLOT_LOW[slot]
    high = SLOT_HIGH[slot]
    halves = (_ONE << low) | (_ONE << high)
    touching = spread(halves) & ~halves & colour_bits(s, colour)  # colour_bits: 49 bits
    value: float = params[P_GROW] * _popcount(touching)
    for half in range(2):
        square = low if half == 0 else high
        cell = s[BOARD + square]
        if cell != 0:
            owner = owner_of((cell - 1) & 3, players)
            if owner == turn:
                value -= params[P_OWN]
            elif not _is_out(s, owner):
                value += params[P_COVER] * region_size(s, square)
    return value


@njit(cache=True)
def _best_of(scores: np.ndarray, count: int, state: np.uint64) -> tuple[np.uint64, int]:
    """The index of the highest of ``scores[:count]``, equal best ones drawn uniformly
    (reservoir sampling, so one pass)."""
    best = 0
    best_score = -1e18
    ties = 0
    for i in range(count):
        score = scores[i]
        if score > best_score + 1e-9:
            best, best_score, ties = i, score, 1
        elif score > best_score - 1e-9:
            ties += 1
            state, r = below(state, ties)
            if r == 0:
                best = i
    return state, best


@njit(cache=True)
def _informed_orient(
    s: np.ndarray, scores: np.ndarray, received: np.ndarray, state: np.uint64, params: np.ndarray
) -> tuple[np.uint64, int]:
    state, x = unit(state)
    if x < params[P_EPSILON]:
        return below(state, 3)
    for k in range(3):
        # A roll it cannot pay costs the policy its money plus ``ruin``.
        paid, ruin = roll_threat(s, k, received)
        scores[k] = -(paid + params[P_RUIN] * ruin)
    return _best_of(scores, 3, state)


@njit(cache=True)
def _informed_place(
    s: np.ndarray,
    slots: np.ndarray,
    count: int,
    scores: np.ndarray,
    state: np.uint64,
    params: np.ndarray,
) -> tuple[np.uint64, int]:
    state, x = unit(state)
    if x < params[P_EPSILON]:
        return below(state, count)
    for i in range(count):
        scores[i] = place_value(s, slots[i], params)
    return _best_of(scores, count, state)


@njit(cache=True, inline="always")
def _finish_game(
    s: np.ndarray, start: np.ndarray, o: np.ndarray, places: int, options: int
) -> None:
    """A finished playout's :func:`results` and :data:`STATS` counters, into ``o``."""
    results(s, o)
    base = 3 * s[PLAYERS]
    o[base + STAT_PLIES] = s[PLIES]
    o[base + STAT_TURNS] = s[TURNS]
    o[base + STAT_TITHES] = s[TITHES]
    o[base + STAT_TITHE_DIRHAMS] = s[TITHE_DIRHAMS]
    o[base + STAT_OUT] = s[NOUT] - start[NOUT]
    o[base + STAT_PLACES] = places
    o[base + STAT_PLACE_OPTIONS] = options


@njit(cache=True, inline="always")
def _uniform_loop(
    start: np.ndarray,
    state: np.uint64,
    out: np.ndarray,
    s: np.ndarray,
    slots: np.ndarray,
    players: int,
    orient_last: bool,
    own: bool,
) -> np.uint64:
    """The games of :func:`_uniform_playouts` under the rule set given by ``players``,
    ``orient_last`` and ``own`` (the start row's)."""
    for game in range(out.shape[0]):
        reset_row(s, start)
        places = 0
        options = 0
        while True:
            phase = s[PHASE]
            if phase == ORIENT:
                state, k = below(state, 3)
                _orient(s, k, players, orient_last)
            elif phase == ROLL:
                state, face = below(state, 6)
                _roll(s, DIE[face], players)
            elif phase == PLACE:
                count = _placements(s, slots, players, own)
                places += 1
                options += count
                state, k = below(state, count)
                _place(s, slots[k], players, orient_last)
            elif phase == DRAW:
                pile = s[PILE]
                first = s[HAND + pile]
                state, k = below(state, first + s[HAND + pile + 2])
                draw(s, pile if k < first else pile + 2)
            else:
                break
        _finish_game(s, start, out[game], places, options)
    return state


@njit(cache=True)
def _uniform_playouts(
    start: np.ndarray, state: np.uint64, out: np.ndarray, row: np.ndarray, slot_buffer: np.ndarray
) -> np.uint64:
    """:func:`playouts` with decisions uniform over the legal ones: the loop of the
    benchmark, on its own so that the compiler sees a small loop with no policy
    branches (the same draws from ``state`` as the general loop, so the same games).
    ``row`` (:data:`WIDTH`) and ``slot_buffer`` (12) are scratch space.

    The standard rules at 2, 3 and 4 players get a loop each, compiled with the rule set
    as constants; other rule sets share one loop that reads it once."""
    s = _unowned(row)
    slots = _unowned(slot_buffer)
    players = int(start[PLAYERS])
    orient_last = rule_option(start, ORIENT_LAST_BIT)
    own = start[OWN_COVER] != 0
    if start[RULE_FLAGS] == 0 and not own:  # no option on: an option's code reads the row
        if players == 4:
            return _uniform_loop(start, state, out, s, slots, 4, False, False)
        if players == 3:
            return _uniform_loop(start, state, out, s, slots, 3, False, False)
        if players == 2:
            return _uniform_loop(start, state, out, s, slots, 2, False, False)
    return _uniform_loop(start, state, out, s, slots, players, orient_last, own)


@njit(cache=True)
def playouts(
    start: np.ndarray,
    seed: np.uint64,
    weights: np.ndarray,
    informed: np.ndarray,
    out: np.ndarray,
) -> None:
    """Play ``out.shape[0]`` games from row ``start`` to the end; per game, ``out`` gets
    the :func:`results` (``3 * players`` columns) then the :data:`STATS` counters.

    The decision policy: with ``informed`` holding :data:`INFORMED_PARAMS` numbers, each
    seat orients towards the least expected tithe (:func:`roll_threat`) and places where
    :func:`place_value` is highest, ties at random, and with probability ``epsilon``
    decides uniformly instead. Otherwise, ``weights`` empty: decisions uniform over the
    legal ones; 6 weights: orient left, straight, right, then per half of a placement on
    an empty square, on an opponent's colour, on an own colour (a placement's weight is
    the sum over its two halves). Chance always follows the true probabilities.
    """
    n = out.shape[0]
    smart = informed.shape[0] > 0
    weighted = weights.shape[0] > 0
    s = np.empty(WIDTH, dtype=np.int32)
    slots = np.empty(12, dtype=np.int32)
    state = mix64(seed ^ _SALT_PLAYOUTS)
    if not smart and not weighted:
        _uniform_playouts(start, state, out, s, slots)
        return
    slot_weights = np.empty(12, dtype=np.float64)
    received = np.empty(4, dtype=np.float64)  # roll_threat's incomes, unused here
    players = start[PLAYERS]
    for game in range(n):
        reset_row(s, start)
        places = 0
        options = 0
        while True:
            phase = s[PHASE]
            if phase == ORIENT:
                if smart:
                    state, k = _informed_orient(s, slot_weights, received, state, informed)
                elif weighted:
                    state, k = _choose_weighted(state, weights, 3)
                else:
                    state, k = below(state, 3)
                orient(s, k)
            elif phase == ROLL:
                state, face = below(state, 6)
                roll(s, DIE[face])
            elif phase == PLACE:
                count = placements(s, slots)
                places += 1
                options += count
                if smart:
                    state, k = _informed_place(s, slots, count, slot_weights, state, informed)
                elif weighted:
                    turn = s[TURN]
                    for i in range(count):
                        w = 0.0
                        for half in range(2):
                            sq = SLOT_LOW[slots[i]] if half == 0 else SLOT_HIGH[slots[i]]
                            cell = s[BOARD + sq]
                            if cell == 0:
                                w += weights[3]
                            elif owner_of((cell - 1) & 3, players) == turn:
                                w += weights[5]
                            else:
                                w += weights[4]
                        slot_weights[i] = w
                    state, k = _choose_weighted(state, slot_weights, count)
                else:
                    state, k = below(state, count)
                place(s, slots[k])
            elif phase == DRAW:
                pile = s[PILE]
                first = s[HAND + pile]
                state, k = below(state, first + s[HAND + pile + 2])
                draw(s, pile if k < first else pile + 2)
            else:
                break
        _finish_game(s, start, out[game], places, options)


# -- batches -------------------------------------------------------------------------------


@njit(cache=True)
def _clear_step(s: np.ndarray) -> None:
    s[LAST_PAYER] = -1
    s[LAST_PAYEE] = -1
    s[LAST_DUE] = 0
    s[LAST_PAID] = 0
    s[CHANCE_COUNT] = 0
    for k in range(CHANCE_SLOTS):
        s[CHANCE_LOG + k] = -1


@njit(cache=True)
def batch_reset(rows: np.ndarray, streams: np.ndarray, start: np.ndarray, mask: np.ndarray) -> None:
    """Rows where ``mask`` is True become ``start`` (counters cleared), chance resolved."""
    for i in range(rows.shape[0]):
        if mask[i]:
            s = rows[i]
            reset_row(s, start)
            _clear_step(s)
            streams[i] = resolve_chance(s, streams[i])


@njit(cache=True)
def batch_resolve(rows: np.ndarray, streams: np.ndarray, index: int) -> None:
    """Resolve the chance nodes of one game (after a state was set from outside)."""
    s = rows[index]
    _clear_step(s)
    streams[index] = resolve_chance(s, streams[index])


@njit(cache=True)
def batch_check(rows: np.ndarray, actions: np.ndarray) -> int:
    """The first game whose action is illegal (terminal games excepted), or -1."""
    for i in range(rows.shape[0]):
        s = rows[i]
        if s[PHASE] != OVER and not is_legal(s, actions[i]):
            return i
    return -1


@njit(cache=True, inline="always")
def _step_row(s: np.ndarray, stream: np.uint64, action: int) -> np.uint64:
    """Apply one decision to a live game, then the chance that follows; the new stream."""
    _clear_step(s)
    apply_unchecked(s, action)
    if s[PHASE] == ROLL or s[PHASE] == DRAW:
        return resolve_chance(s, stream)
    return stream


@njit(cache=True)
def batch_step(rows: np.ndarray, streams: np.ndarray, actions: np.ndarray) -> int:
    """Apply one decision per live game and resolve the chance that follows.

    Checks every action first and returns the index of the first illegal one without
    changing anything; otherwise returns -1.
    """
    bad = batch_check(rows, actions)
    if bad >= 0:
        return bad
    for i in range(rows.shape[0]):
        s = rows[i]
        if s[PHASE] != OVER:
            streams[i] = _step_row(s, streams[i], actions[i])
    return -1


@njit(cache=True)
def batch_step_some(
    rows: np.ndarray, streams: np.ndarray, actions: np.ndarray, mask: np.ndarray
) -> int:
    """:func:`batch_step` for the games where ``mask`` is True only (others untouched)."""
    for i in range(rows.shape[0]):
        s = rows[i]
        if mask[i] and s[PHASE] != OVER and not is_legal(s, actions[i]):
            return i
    for i in range(rows.shape[0]):
        s = rows[i]
        if mask[i] and s[PHASE] != OVER:
            streams[i] = _step_row(s, streams[i], actions[i])
    return -1


@njit(cache=True)
def batch_masks(rows: np.ndarray, out: np.ndarray) -> None:
    """Legal decision flags (87 per game); all False for a finished game."""
    slots = np.empty(12, dtype=np.int32)
    for i in range(rows.shape[0]):
        s = rows[i]
        for a in range(DECISION_IDS):
            out[i, a] = False
        phase = s[PHASE]
        if phase == ORIENT:
            out[i, 0] = True
            out[i, 1] = True
            out[i, 2] = True
        elif phase == PLACE:
            count = placements(s, slots)
            for k in range(count):
                out[i, PLACE_BASE + slots[k]] = True


@njit(cache=True)
def batch_sample(rows: np.ndarray, streams: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal decision per game (-1 for a finished game)."""
    slots = np.empty(12, dtype=np.int32)
    for i in range(rows.shape[0]):
        s = rows[i]
        phase = s[PHASE]
        if phase == ORIENT:
            streams[i], k = below(streams[i], 3)
            out[i] = k
        elif phase == PLACE:
            count = placements(s, slots)
            streams[i], k = below(streams[i], count)
            out[i] = PLACE_BASE + slots[k]
        else:
            out[i] = -1


@njit(cache=True)
def batch_results(rows: np.ndarray, out: np.ndarray) -> None:
    """:func:`results` of every game: ``out`` is ``(n, 3 * players)``."""
    for i in range(rows.shape[0]):
        results(rows[i], out[i])


@njit(cache=True)
def batch_observe(rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """The ``marrakech_v0`` observation of each game from ``seats[i]``, mirroring
    :func:`marrakech.observation.encode_observation` on :data:`~marrakech.observation.LAYOUT`.

    Values are computed in float64 as the core does, then stored as float32.
    """
    rel_colour = np.zeros(4, dtype=np.int64)
    for i in range(rows.shape[0]):
        s = rows[i]
        o = out[i]
        o[:] = 0.0
        players = s[PLAYERS]
        seat = seats[i]
        # relative colour per colour, worked out once per game (divisions are slow)
        for colour in range(4):
            owner = owner_of(colour, players)
            rel_colour[colour] = (owner - seat + players) % players + (
                players if colour >= players else 0
            )
        for sq in range(SQUARES):
            cell = s[BOARD + sq]
            if cell == 0:
                continue
            colour = (cell - 1) & 3
            link = (cell - 1) >> 2
            o[PLANES_OFFSET + rel_colour[colour] * SQUARES + sq] = 1.0
            if link != NO_LINK:
                o[LINKS_OFFSET + link * SQUARES + sq] = 1.0
        o[ASSAM_OFFSET + (s[ASSAM] >> 2)] = 1.0
        o[PHASE_OFFSET + s[PHASE]] = 1.0
        o[FACING_OFFSET + (s[ASSAM] & 3)] = 1.0
        start = s[START_CARPETS]
        all_money = DIRHAMS_SCALE * players
        for relative in range(players):
            other = (seat + relative) % players
            base = SEATS_OFFSET + relative * SEAT_FEATURES
            o[base + SEAT_EXISTS] = 1.0
            o[base + SEAT_IN] = 0.0 if _is_out(s, other) else 1.0
            o[base + SEAT_DIRHAMS] = min(1.0, s[MONEY + other] / all_money)
            o[base + SEAT_CARPETS] = _held(s, other) / start
            if players == 2:
                top = s[TOPS + other]
                if top >= 0:
                    o[base + SEAT_TOP_FIRST + (0 if top == other else 1)] = 1.0


# -- single rows (conversion checks, differential tests) ------------------------------------


@njit(cache=True)
def legal_flags(s: np.ndarray, out: np.ndarray) -> None:
    """``out[a]`` = whether action id ``a`` (0..94) is legal in row ``s``."""
    for a in range(out.shape[0]):
        out[a] = is_legal(s, a)


# -- cache guard ---------------------------------------------------------------------------


@njit(cache=True)
def _frozen_checksum() -> int:
    # The tables as the (possibly cached) compiled code saw them.
    total = 0
    weight = 1
    for table in (PATH_END, CAND_N, SLOT_LOW, SLOT_HIGH, SLOT_LINK, DIE):
        for value in table:
            total += weight * (int(value) + 7)
            weight = weight % 1000003 + 1
    for table2 in (CAND, CAND_LOW, CAND_LINK):
        for row in table2:
            for value in row:
                total += weight * (int(value) + 7)
                weight = weight % 1000003 + 1
    return total


def _checksum() -> int:
    total = 0
    weight = 1
    for table in (PATH_END, CAND_N, SLOT_LOW, SLOT_HIGH, SLOT_LINK, DIE, CAND, CAND_LOW, CAND_LINK):
        for value in table.ravel().tolist():
            total += weight * (value + 7)
            weight = weight % 1000003 + 1
    return total


@njit(cache=True)
def _frozen_constants() -> np.ndarray:
    # The constants imported from the core, as the (possibly cached) compiled code saw
    # them: phases, id bases, the observation layout, the rule options, the generator.
    return np.array(
        [
            ORIENT,
            ROLL,
            PLACE,
            DRAW,
            OVER,
            PLACE_BASE,
            ROLL_BASE,
            DRAW_BASE,
            DECISION_IDS,
            SQUARES,
            NO_LINK,
            PLANES_OFFSET,
            LINKS_OFFSET,
            ASSAM_OFFSET,
            PHASE_OFFSET,
            FACING_OFFSET,
            SEATS_OFFSET,
            SEAT_FEATURES,
            SEAT_EXISTS,
            SEAT_IN,
            SEAT_DIRHAMS,
            SEAT_CARPETS,
            SEAT_TOP_FIRST,
            DIRHAMS_SCALE,
            CHANCE_SLOTS,
            _OPTIONS_KEY,
            int(_GOLDEN >> _U32),
            int(_GOLDEN & _LOW32),
            int(_MIX1 >> _U32),
            int(_MIX1 & _LOW32),
            int(_MIX2 >> _U32),
            int(_MIX2 & _LOW32),
            int(_SALT_PLAYOUTS >> _U32),
            int(_SALT_PLAYOUTS & _LOW32),
        ],
        dtype=np.int64,
    )


@njit(cache=True)
def _frozen_floats() -> np.ndarray:
    # The floating-point constants imported from the core, as the compiled code saw them.
    return np.array([RUIN_COST], dtype=np.float64)


def _floats() -> list[float]:
    return [RUIN_COST]


def _constants() -> list[int]:
    words = (splitmix.GOLDEN, splitmix.MIX1, splitmix.MIX2, splitmix.SALT_PLAYOUTS)
    return [
        *(int(phase) for phase in Phase),
        *(PLACE_BASE, ROLL_BASE, DRAW_BASE, DECISION_IDS, SQUARES, NO_LINK),
        *(PLANES_OFFSET, LINKS_OFFSET, ASSAM_OFFSET, PHASE_OFFSET, FACING_OFFSET),
        *(SEATS_OFFSET, SEAT_FEATURES, SEAT_EXISTS, SEAT_IN, SEAT_DIRHAMS, SEAT_CARPETS),
        *(SEAT_TOP_FIRST, DIRHAMS_SCALE, CHANCE_SLOTS, _OPTIONS_KEY),
        *(part for word in words for part in (word >> 32, word & 0xFFFFFFFF)),
    ]


def flush_caches(namespace: dict[str, object]) -> None:
    """Drop the cached builds of every compiled function of a module's ``namespace``
    (its ``globals()``): what a module's cache guard does when its frozen values drift."""
    for value in list(namespace.values()):
        cache = getattr(value, "_cache", None)
        if cache is not None and hasattr(cache, "flush"):
            cache.flush()


def _guard_cache() -> None:
    """Numba's cache notices changes to this file only, not to the core modules the
    tables and constants come from: if the cached code holds other values, drop the
    cache. This also makes any drift between the kernels and their homes impossible."""
    frozen = (_frozen_checksum(), _frozen_constants().tolist(), _frozen_floats().tolist())
    if frozen == (_checksum(), _constants(), _floats()):
        return
    flush_caches(globals())
    # Cache the new values too, so the next process compares against them.
    _frozen_checksum.recompile()
    _frozen_constants.recompile()
    _frozen_floats.recompile()
    assert (_frozen_checksum(), _frozen_constants().tolist(), _frozen_floats().tolist()) == (
        _checksum(),
        _constants(),
        _floats(),
    )


_guard_cache()
