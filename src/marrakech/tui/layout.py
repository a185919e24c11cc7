"""Where things are in the board picture: the scales a square is drawn at, the layout of
squares, walls and rim for one scale, and the box-drawing characters of wall junctions.

    >>> lay = layout(SCALES[-1])            # squares 3 columns wide and 1 row high
    >>> lay.width, lay.height, lay.centre(0), lay.square_at(*lay.centre(48))
    (35, 18, (6, 14), 48)
    >>> BOX[(1, 1, 1, 1)], BOX[(2, 0, 2, 0)]
    ('┼', '┃')
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

from marrakech.geometry import SIZE


class Scale(NamedTuple):
    """Inside of one square: ``width`` columns by ``height`` rows."""

    width: int
    height: int


#: From the largest to the smallest; the widget uses the largest that fits.
SCALES = (Scale(7, 3), Scale(5, 2), Scale(5, 1), Scale(3, 1))


def _box_table() -> dict[tuple[int, int, int, int], str]:
    """Box-drawing character per arms (up, right, down, left), each 0 none, 1 light, 2 heavy."""
    weights = {"LIGHT": 1, "HEAVY": 2}
    arms_of = {
        "UP": (0,),
        "RIGHT": (1,),
        "DOWN": (2,),
        "LEFT": (3,),
        "VERTICAL": (0, 2),
        "HORIZONTAL": (1, 3),
    }
    table: dict[tuple[int, int, int, int], str] = {(0, 0, 0, 0): " "}
    for code in range(0x2500, 0x2580):
        name = unicodedata.name(chr(code))[len("BOX DRAWINGS ") :]
        if any(word in name for word in ("DOUBLE", "DASH", "ARC", "DIAGONAL", "SINGLE")):
            continue
        arms = [0, 0, 0, 0]
        weight = 0
        for part in name.split(" AND "):
            words = part.split()
            weight = next((weights[w] for w in words if w in weights), weight)
            for word in words:
                for arm in arms_of.get(word, ()):
                    arms[arm] = weight
        table[(arms[0], arms[1], arms[2], arms[3])] = chr(code)
    return table


BOX = _box_table()


class Layout(NamedTuple):
    """Where things are in the picture for one scale."""

    scale: Scale
    left: int  # column of the board's left wall
    top: int  # row of the board's top wall

    @property
    def width(self) -> int:
        return self.right + 3

    @property
    def height(self) -> int:
        return self.bottom + 3

    @property
    def right(self) -> int:
        return self.left + SIZE * (self.scale.width + 1)

    @property
    def bottom(self) -> int:
        return self.top + SIZE * (self.scale.height + 1)

    def wall_col(self, file: int) -> int:
        return self.left + file * (self.scale.width + 1)

    def wall_row(self, k: int) -> int:
        """Row of the wall above rank-row ``k`` (k = 0 is rank 7, the top)."""
        return self.top + k * (self.scale.height + 1)

    def centre(self, square: int) -> tuple[int, int]:
        """(column, row) of the middle of a square."""
        file, rank = square % SIZE, square // SIZE
        k = SIZE - 1 - rank
        return (
            self.wall_col(file) + 1 + self.scale.width // 2,
            self.wall_row(k) + 1 + self.scale.height // 2,
        )

    def square_at(self, x: int, y: int) -> int | None:
        """The square under picture column ``x``, row ``y`` (walls go with the square
        right of or below them), or None off the board."""
        file = (x - self.left) // (self.scale.width + 1)
        k = (y - self.top) // (self.scale.height + 1)
        if not (0 <= file < SIZE and 0 <= k < SIZE) or x >= self.right or y >= self.bottom:
            return None
        if x <= self.left or y <= self.top:
            return None
        return (SIZE - 1 - k) * SIZE + file


def layout(scale: Scale) -> Layout:
    return Layout(scale, left=4, top=1)


__all__ = ["BOX", "SCALES", "Layout", "Scale", "layout"]
