"""The board as an RGB image (``render_mode="rgb_array"``), drawn with numpy alone.

No browser, display or font is needed: :func:`board_image` rasterises the position
itself, so videos of games can be recorded anywhere (``gymnasium.wrappers.RecordVideo``,
PettingZoo's ``RecordVideo``). What it shows:

* the 7x7 market, rank 7 at the top and file ``a`` on the left, as every renderer of
  the project draws it;
* the visible carpets in colour-blind-safe colours (those of the terminal app), each
  half with its colour's letter (``R B Y P``); the two halves of a carpet still whole
  are joined;
* Assam, a black arrow pointing where he faces;
* the rim arcs and corner loops of :data:`marrakech.geometry.RIM` (R2), so the walks
  across the border can be followed;
* below the board, one box per seat: its colours, dirhams and carpets in hand, a bar
  under the seat to decide, greyed when eliminated.

    >>> from marrakech import State
    >>> image = board_image(State.new(players=3))
    >>> image.shape, image.dtype
    ((432, 384, 3), dtype('uint8'))

Edges are anti-aliased by drawing at twice the size and averaging.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from marrakech.geometry import RIM, SIZE, E, N, S, W, file_of, rank_of
from marrakech.palette import CARPET_HEX, LETTER_HEX, RIM_HEX, SAND_HEX, WALL_HEX, rgb
from marrakech.rules import COLOUR_LETTERS, colours_of
from marrakech.state import State

__all__ = ["CARPET_RGB", "board_image"]

Image = npt.NDArray[np.uint8]
RGB = tuple[int, int, int]

#: Carpet colours (red, blue, yellow, purple) and their letters' (marrakech.palette).
CARPET_RGB: tuple[RGB, ...] = tuple(rgb(colour) for colour in CARPET_HEX)
_LETTER_RGB: tuple[RGB, ...] = tuple(rgb(colour) for colour in LETTER_HEX)
_SAND: RGB = rgb(SAND_HEX)
_GROUND: RGB = (246, 236, 214)
_WALL: RGB = rgb(WALL_HEX)
_RIM: RGB = rgb(RIM_HEX)
_INK: RGB = (17, 17, 17)
_WHITE: RGB = (255, 255, 255)
_GREY: RGB = (150, 150, 150)

CELL = 48  # pixels per square
MARGIN = 24  # room for the rim around the board
STRIP = 48  # the seats' boxes below the board
_SUPER = 2  # drawn at twice the size, then averaged

# A 5x7 pixel font for the few characters drawn: carpet letters and numbers.
_FONT = {
    "R": ("####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"),
    "B": ("####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."),
    "Y": ("#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."),
    "P": ("####.", "#...#", "#...#", "####.", "#....", "#....", "#...."),
    "0": (".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."),
    "1": ("..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "2": (".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"),
    "3": ("####.", "....#", "....#", ".###.", "....#", "....#", "####."),
    "4": ("...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."),
    "5": ("#####", "#....", "####.", "....#", "....#", "#...#", ".###."),
    "6": (".###.", "#....", "#....", "####.", "#...#", "#...#", ".###."),
    "7": ("#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."),
    "8": (".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."),
    "9": (".###.", "#...#", "#...#", ".####", "....#", "....#", ".###."),
    "/": ("....#", "...#.", "...#.", "..#..", ".#...", ".#...", "#...."),
}
_GLYPHS = {
    char: np.array([[c == "#" for c in row] for row in rows], dtype=bool)
    for char, rows in _FONT.items()
}


class _Canvas:
    """An RGB picture in float, drawn in board units (a square is 1 unit wide)."""

    def __init__(self, width: float, height: float, scale: int) -> None:
        self.scale = scale
        self.pixels = np.empty((round(height * scale), round(width * scale), 3), np.float32)
        self.pixels[:] = _GROUND

    def _window(
        self, x0: float, y0: float, x1: float, y1: float
    ) -> tuple[slice, slice, npt.NDArray[np.floating], npt.NDArray[np.floating]]:
        """The pixels of a box, and the board coordinates of their centres."""
        height, width = self.pixels.shape[:2]
        left, top = max(0, int(x0 * self.scale)), max(0, int(y0 * self.scale))
        right = min(width, int(np.ceil(x1 * self.scale)))
        bottom = min(height, int(np.ceil(y1 * self.scale)))
        ys = ((np.arange(top, bottom, dtype=np.float32) + 0.5) / self.scale)[:, None]
        xs = ((np.arange(left, right, dtype=np.float32) + 0.5) / self.scale)[None, :]
        return slice(top, bottom), slice(left, right), xs, ys

    def rect(self, x0: float, y0: float, x1: float, y1: float, colour: RGB) -> None:
        rows, cols, _, _ = self._window(x0, y0, x1, y1)
        self.pixels[rows, cols] = colour

    def ring(
        self,
        cx: float,
        cy: float,
        radius: float,
        width: float,
        colour: RGB,
        keep: tuple[float, float] | None = None,
    ) -> None:
        """A circle's outline; ``keep`` (a direction) keeps only the half it points to."""
        outer = radius + width / 2
        rows, cols, xs, ys = self._window(cx - outer, cy - outer, cx + outer, cy + outer)
        distance = np.hypot(xs - cx, ys - cy)
        mask = np.abs(distance - radius) <= width / 2
        if keep is not None:
            mask &= (xs - cx) * keep[0] + (ys - cy) * keep[1] >= 0
        self.pixels[rows, cols][mask] = colour

    def polygon(self, points: list[tuple[float, float]], colour: RGB) -> None:
        """A convex polygon, its points in either turning order."""
        xs_all, ys_all = [p[0] for p in points], [p[1] for p in points]
        rows, cols, xs, ys = self._window(min(xs_all), min(ys_all), max(xs_all), max(ys_all))
        sides = []
        for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1], strict=True):
            sides.append((bx - ax) * (ys - ay) - (by - ay) * (xs - ax))
        mask = np.all([side >= 0 for side in sides], axis=0)
        mask |= np.all([side <= 0 for side in sides], axis=0)
        self.pixels[rows, cols][mask] = colour

    def text(self, text: str, cx: float, cy: float, height: float, colour: RGB) -> None:
        """``text`` in the 5x7 font, centred on (cx, cy), ``height`` units tall."""
        dot = height / 7
        x = cx - (len(text) * 6 - 1) * dot / 2
        for char in text:
            glyph = _GLYPHS[char]
            rows, cols, xs, ys = self._window(x, cy - height / 2, x + 5 * dot, cy + height / 2)
            gx = np.clip(((xs - x) / dot).astype(int), 0, 4)
            gy = np.clip(((ys - (cy - height / 2)) / dot).astype(int), 0, 6)
            self.pixels[rows, cols][glyph[gy, gx]] = colour
            x += 6 * dot

    def image(self, factor: int) -> Image:
        """The picture shrunk ``factor`` times, each pixel the mean of its block."""
        total = np.zeros_like(self.pixels[::factor, ::factor])
        for dy in range(factor):
            for dx in range(factor):
                total += self.pixels[dy::factor, dx::factor]
        return (total * (1 / factor**2) + 0.5).astype(np.uint8)


def _square_box(square: int) -> tuple[float, float]:
    """The top-left corner of a square, in units (rank 7 at the top)."""
    margin = MARGIN / CELL
    return margin + file_of(square), margin + SIZE - 1 - rank_of(square)


#: Unit vectors of the facings N, E, S, W on the picture (y grows downwards).
_DIRECTIONS = {N: (0.0, -1.0), E: (1.0, 0.0), S: (0.0, 1.0), W: (-1.0, 0.0)}


def _draw_board(canvas: _Canvas, state: State) -> None:
    margin = MARGIN / CELL
    canvas.rect(margin - 0.04, margin - 0.04, margin + SIZE + 0.04, margin + SIZE + 0.04, _WALL)
    gap = 0.06
    for square, cell in enumerate(state.board):
        x, y = _square_box(square)
        canvas.rect(x + 0.02, y + 0.02, x + 0.98, y + 0.98, _SAND)
        if not cell:
            continue
        colour, link = (cell - 1) & 3, (cell - 1) >> 2
        # The half fills its square less a gap, but reaches across it to its other half.
        left, top, right, bottom = x + gap, y + gap, x + 1 - gap, y + 1 - gap
        if link == N:
            top = y
        elif link == S:
            bottom = y + 1
        elif link == E:
            right = x + 1
        elif link == W:
            left = x
        canvas.rect(left, top, right, bottom, CARPET_RGB[colour])
        canvas.text(COLOUR_LETTERS[colour], x + 0.5, y + 0.5, 0.36, _LETTER_RGB[colour])


def _draw_rim(canvas: _Canvas) -> None:
    """Each arc a half circle outside the two squares it joins; each loop a circle
    outside its corner square, on each edge it leaves by (R2)."""
    for arc in RIM:
        low, high = arc.squares
        for edge in arc.edges:
            dx, dy = _DIRECTIONS[edge]
            (ax, ay), (bx, by) = _square_box(low), _square_box(high)
            # The middle of each square's outer side.
            ax, ay = ax + 0.5 + dx * 0.5, ay + 0.5 + dy * 0.5
            bx, by = bx + 0.5 + dx * 0.5, by + 0.5 + dy * 0.5
            if arc.loop:
                canvas.ring(ax + dx * 0.2, ay + dy * 0.2, 0.16, 0.07, _RIM)
            else:
                radius = max(abs(bx - ax), abs(by - ay)) / 2
                canvas.ring((ax + bx) / 2, (ay + by) / 2, radius, 0.08, _RIM, keep=(dx, dy))


def _draw_assam(canvas: _Canvas, state: State) -> None:
    x, y = _square_box(state.assam_square)
    cx, cy = x + 0.5, y + 0.5
    dx, dy = _DIRECTIONS[state.assam_facing]
    px, py = -dy, dx  # across the arrow

    def arrow(grow: float) -> list[tuple[float, float]]:
        tip, back, half = 0.38 + grow, 0.26 + grow, 0.27 + grow
        return [
            (cx + dx * tip, cy + dy * tip),
            (cx - dx * back + px * half, cy - dy * back + py * half),
            (cx - dx * back - px * half, cy - dy * back - py * half),
        ]

    canvas.polygon(arrow(0.07), _WHITE)
    canvas.polygon(arrow(0.0), _INK)


def _draw_seats(canvas: _Canvas, state: State) -> None:
    """One box per seat below the board: colours, dirhams / carpets, whose turn."""
    players = state.players
    width = (2 * MARGIN / CELL + SIZE) / players
    top = 2 * MARGIN / CELL + SIZE
    for seat in range(players):
        left = seat * width
        out = not state.is_in(seat)
        colours = colours_of(seat, players)
        for k, colour in enumerate(colours):
            sx = left + 0.15 + k * 0.45
            fill, letter = (_GREY, _WHITE) if out else (CARPET_RGB[colour], _LETTER_RGB[colour])
            canvas.rect(sx, top + 0.15, sx + 0.4, top + 0.55, fill)
            canvas.text(COLOUR_LETTERS[colour], sx + 0.2, top + 0.35, 0.26, letter)
        numbers = f"{state.money[seat]}/{state.carpets_in_hand(seat)}"
        canvas.text(numbers, left + width * 0.62, top + 0.35, 0.26, _GREY if out else _INK)
        if state.to_move == seat:
            canvas.rect(left + 0.15, top + 0.68, left + width - 0.15, top + 0.78, _INK)


def board_image(state: State) -> Image:
    """``state`` as an ``(H, W, 3)`` uint8 RGB picture (432 x 384 pixels)."""
    units = 2 * MARGIN / CELL + SIZE
    canvas = _Canvas(units, units + STRIP / CELL, CELL * _SUPER)
    _draw_rim(canvas)
    _draw_board(canvas, state)
    _draw_assam(canvas, state)
    _draw_seats(canvas, state)
    return canvas.image(_SUPER)
