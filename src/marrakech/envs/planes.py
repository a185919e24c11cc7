"""The observation as planes, ``(C, 7, 7)``, for convolutional networks.

Built from the one declaration of the vector, :data:`marrakech.observation.LAYOUT`: each
piece that covers the board (``colours``, ``links``, ``assam``) gives its 7x7 planes as
they are; each other value (``phase``, ``facing``, ``seats``) gives a constant plane. So
the planes hold exactly the vector's values, arranged for a CNN, and one gather makes
them from any batch of vectors::

    >>> import numpy as np
    >>> from marrakech import State
    >>> from marrakech.envs.spec import observation
    >>> vector = observation(State.new(players=4), seat=0)
    >>> planes(vector).shape, CHANNELS
    ((42, 7, 7), 42)
    >>> planes(np.stack([vector, vector])).shape
    (2, 42, 7, 7)
    >>> float(planes(vector)[PLANES["assam"].first][3, 3])   # d4: rank 4 (row 3), file d
    1.0

Rows are ranks 1..7 and columns files a..g (``square = rank * 7 + file``), as in the
vector and in OpenSpiel's observer views. ``python -m marrakech.envs.planes`` prints the
tables of ``docs/environments.md`` (a test checks that they agree).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from marrakech.geometry import SIZE, SQUARES
from marrakech.observation import LAYOUT, Piece

__all__ = [
    "CHANNELS",
    "PLANES",
    "PlaneGroup",
    "layout_markdown",
    "planes",
    "planes_space",
]


class PlaneGroup(NamedTuple):
    """The planes one piece of the vector becomes: ``depth`` planes from ``first``, each
    a board plane of the piece (``board``) or one of its values, constant."""

    piece: Piece
    first: int
    depth: int
    board: bool

    @property
    def channels(self) -> str:
        last = self.first + self.depth - 1
        return f"{self.first}" if last == self.first else f"{self.first}–{last}"


def _groups() -> tuple[PlaneGroup, ...]:
    groups, first = [], 0
    for piece in LAYOUT:
        board = piece.shape[-2:] == (SIZE, SIZE)
        depth = piece.size // SQUARES if board else piece.size
        groups.append(PlaneGroup(piece, first, depth, board))
        first += depth
    return tuple(groups)


#: Per piece of the layout, its planes, by name.
PLANES: dict[str, PlaneGroup] = {group.piece.name: group for group in _groups()}
#: The number of planes (42).
CHANNELS = sum(group.depth for group in PLANES.values())


def _gather() -> npt.NDArray[np.intp]:
    """For each value of the planes, flattened, the index of the vector value it is."""
    index: list[int] = []
    for group in PLANES.values():
        offset = group.piece.offset
        for k in range(group.depth):
            if group.board:
                index.extend(range(offset + k * SQUARES, offset + (k + 1) * SQUARES))
            else:
                index.extend([offset + k] * SQUARES)
    return np.array(index, dtype=np.intp)


_GATHER = _gather()


def planes(vectors: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``(..., 474)`` observation vectors as ``(..., 42, 7, 7)`` planes (float32)."""
    array = np.asarray(vectors, dtype=np.float32)
    return array.take(_GATHER, axis=-1).reshape(*array.shape[:-1], CHANNELS, SIZE, SIZE)


def planes_space() -> spaces.Box:
    """``Box(0, 1, (42, 7, 7), float32)``."""
    return spaces.Box(low=0.0, high=1.0, shape=(CHANNELS, SIZE, SIZE), dtype=np.float32)


def layout_markdown() -> str:
    """The two tables of ``docs/environments.md``: the vector's pieces, then the planes."""
    lines = ["| offset | piece | shape | content |", "|---|---|---|---|"]
    for piece in LAYOUT:
        shape = " × ".join(str(d) for d in piece.shape)
        lines.append(f"| {piece.offset} | `{piece.name}` | {shape} | {piece.meaning} |")
    lines += ["", "| planes | piece | from the vector |", "|---|---|---|"]
    for group in PLANES.values():
        piece = group.piece
        span = f"{piece.offset}..{piece.end - 1}"
        if group.board:
            how = f"values {span}: {group.depth} board plane{'s' * (group.depth > 1)}"
        else:
            how = f"values {span}: one constant plane per value"
        lines.append(f"| {group.channels} | `{piece.name}` | {how} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(layout_markdown())
