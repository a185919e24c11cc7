"""Lookup tables for the kernels, built once from the core's geometry (R2, R3, R14, R15).

The kernels read these as module globals, which Numba freezes into the compiled code, so
the compiled kernels and the core always agree on the board: nothing is typed in twice.
"""

from __future__ import annotations

import numpy as np

from marrakech.geometry import CANDIDATES, DELTA, NEIGHBOURS, PATHS, SIZE, SLOTS, SQUARES
from marrakech.rules import DIE_FACES


def _path_end() -> np.ndarray:
    table = np.zeros(SQUARES * 4 * 5, dtype=np.int32)
    for position in range(SQUARES * 4):
        table[position * 5] = position
        for steps in range(1, 5):
            last = PATHS[position * 5 + steps][-1]
            table[position * 5 + steps] = last.square * 4 + last.facing
    return table


def _candidates() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    slots = np.full((SQUARES, 12), -1, dtype=np.int32)
    counts = np.zeros(SQUARES, dtype=np.int32)
    allowed = np.zeros((SQUARES, len(SLOTS)), dtype=np.bool_)
    for square in range(SQUARES):
        for i, slot in enumerate(CANDIDATES[square]):
            slots[square, i] = slot.number
            allowed[square, slot.number] = True
        counts[square] = len(CANDIDATES[square])
    return slots, counts, allowed


#: PATH_END[(square * 4 + facing) * 5 + steps] -> Assam's square * 4 + facing after the roll.
PATH_END = _path_end()
#: CAND[square, i] -> the i-th slot number allowed by R14/R15 around Assam's square (-1 pad).
CAND, CAND_N, CAND_OK = _candidates()
#: CAND_LOW[square, i], CAND_LINK[square, i]: the low square and link of that slot.
CAND_LOW = np.where(
    CAND >= 0, np.array([s.low for s in SLOTS] + [0], dtype=np.int32)[CAND], 0
).astype(np.int32)
CAND_LINK = np.where(
    CAND >= 0, np.array([1 if s.horizontal else 0 for s in SLOTS] + [0], dtype=np.int32)[CAND], 0
).astype(np.int32)
SLOT_LOW = np.array([s.low for s in SLOTS], dtype=np.int32)
SLOT_HIGH = np.array([s.high for s in SLOTS], dtype=np.int32)
#: The link (facing from the low square towards the high one): E for horizontal, N vertical.
SLOT_LINK = np.array([1 if s.horizontal else 0 for s in SLOTS], dtype=np.int32)
DELTA_T = np.array(DELTA, dtype=np.int32)
DIE = np.array(DIE_FACES, dtype=np.int32)
#: Squares not on file g (a step East stays on the board) and not on file a, as bitboards.
NOT_FILE_G = sum(1 << sq for sq in range(SQUARES) if sq % SIZE != SIZE - 1)
NOT_FILE_A = sum(1 << sq for sq in range(SQUARES) if sq % SIZE != 0)


def _check_neighbours() -> None:
    # The kernels grow regions with bit shifts; make sure that matches NEIGHBOURS.
    for sq in range(SQUARES):
        bit = 1 << sq
        grown = (bit << 7) | (bit >> 7) | ((bit & NOT_FILE_G) << 1) | ((bit & NOT_FILE_A) >> 1)
        grown &= (1 << SQUARES) - 1
        expected = sum(1 << n for n in NEIGHBOURS[sq])
        assert grown == expected, sq


_check_neighbours()
