"""The board widget: 7 × 7 squares, the rim's arcs and corner loops, carpets and Assam.

The picture is built by :func:`draw_board` as rows of styled characters, independent of
Textual, so it is tested directly (where things go: :mod:`marrakech.tui.layout`; colours
and styles: :mod:`marrakech.tui.palette`); :class:`BoardWidget` shows it at the largest
scale that fits and turns mouse clicks into squares. The rim is drawn from
:data:`marrakech.geometry.RIM`, the arcs and loops the core derives from R2.

Carpets show their colour letter on their colour, so they are told apart without colour
(``NO_COLOR``): the wall between the two visible halves of one carpet is left open (as in
:mod:`marrakech.render`), a half whose other half is covered stands alone in its box.
The previewed placement and a tithe region are outlined with heavy lines; Assam is an
arrow pointing where he faces::

    >>> from marrakech import State, parse_action
    >>> state = State.new(players=3)
    >>> for token in ("R", "r2", "f3-g3"):  # Red turns right, rolls 2, places
    ...     state = state.apply(parse_action(token))
    >>> rows = draw_board(BoardView(state), SCALES[-1])
    >>> print("\\n".join("".join(char for char, _ in row).rstrip() for row in rows))
          ╭───╮   ╭───╮   ╭───╮   ╭───╮
        ┌───┬───┬───┬───┬───┬───┬───┐ │
    7 ╭ │   │   │   │   │   │   │   │ ╯
      │ ├───┼───┼───┼───┼───┼───┼───┤
    6 ╰ │   │   │   │   │   │   │   │ ╮
        ├───┼───┼───┼───┼───┼───┼───┤ │
    5 ╭ │   │   │   │   │   │   │   │ ╯
      │ ├───┼───┼───┼───┼───┼───┼───┤
    4 ╰ │   │   │   │   │   │▶  │   │ ╮
        ├───┼───┼───┼───┼───┼───┴───┤ │
    3 ╭ │   │   │   │   │   │ R   R │ ╯
      │ ├───┼───┼───┼───┼───┼───┬───┤
    2 ╰ │   │   │   │   │   │   │   │ ╮
        ├───┼───┼───┼───┼───┼───┼───┤ │
    1 ╭ │   │   │   │   │   │   │   │ ╯
      │ └───┴───┴───┴───┴───┴───┴───┘
      ╰───╯   ╰───╯   ╰───╯   ╰───╯
          a   b   c   d   e   f   g
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from marrakech.actions import Place
from marrakech.errors import MarrakechError
from marrakech.geometry import RIM, SIZE, E, N, S, W
from marrakech.rules import COLOUR_LETTERS
from marrakech.state import State
from marrakech.tui.layout import BOX, SCALES, Layout, Scale, layout
from marrakech.tui.palette import PALETTE, PLAIN, Palette

ARROWS = "▲▶▼◀"


@dataclass(frozen=True)
class BoardView:
    """What to draw: a state plus the interface's overlays.

    ``assam`` overrides Assam's square and facing (during his walk); ``pending_facing``
    shows the facing being chosen; ``preview`` is a placement being considered (two
    squares, in ``preview_colour``); ``region`` is a tithe region; ``trail`` the squares
    Assam walked through; ``arcs`` the rim arcs he followed, as ``(square, facing)`` of
    the step that left the board; ``marks`` puts a short text in the top right corner of
    squares (the rolls that would stop Assam there, while orienting).
    """

    state: State
    assam: tuple[int, int] | None = None
    pending_facing: int | None = None
    preview: tuple[int, int] | None = None
    preview_colour: int | None = None
    region: tuple[int, ...] = ()
    trail: tuple[int, ...] = ()
    arcs: tuple[tuple[int, int], ...] = field(default=())
    marks: tuple[tuple[int, str], ...] = ()


Cell = tuple[str, Style]


def _square(file: int, k: int) -> int:
    return (SIZE - 1 - k) * SIZE + file


def draw_board(view: BoardView, scale: Scale, pal: Palette = PALETTE) -> list[list[Cell]]:
    """The picture of ``view`` at ``scale`` as rows of (character, style), in the colours
    of ``pal`` (:data:`~marrakech.tui.palette.PLAIN` without colour: carpets patterned)."""
    lay = layout(scale)
    w, h = scale
    state = view.state
    grid: list[list[Cell]] = [[(" ", pal.blank)] * lay.width for _ in range(lay.height)]

    def put(x: int, y: int, char: str, style: Style) -> None:
        grid[y][x] = (char, style)

    # What each square shows: colour and the square holding its other visible half. A
    # previewed placement is shown as the core would lay it (R17), not re-derived here.
    shown = state
    ghost = [False] * (SIZE * SIZE)
    if view.preview is not None and view.preview_colour is not None:
        a, b = view.preview
        with contextlib.suppress(MarrakechError, ValueError):
            shown = state.apply(Place(a, b))
            ghost[a] = ghost[b] = True
    colours: list[int | None] = [shown.colour_at(sq) for sq in range(SIZE * SIZE)]
    partner: list[int | None] = [shown.other_half(sq) for sq in range(SIZE * SIZE)]
    preview = set(view.preview or ())
    region = set(view.region)

    def linked(s: int, t: int) -> bool:
        return partner[s] == t

    def weight(s: int | None, t: int | None) -> int:
        """Weight of the wall between squares s and t (None = off the board)."""
        if s is not None and t is not None and linked(s, t):
            return 0
        for group in (preview, region):
            if (s in group) != (t in group):
                return 2
        return 1

    def wall_style(s: int | None, t: int | None) -> Style:
        if (s in preview) != (t in preview):
            return pal.preview_wall
        if (s in region) != (t in region):
            return pal.region_wall
        return pal.wall

    def fill_char(sq: int) -> str:
        colour = colours[sq]
        return "░" if ghost[sq] else " " if colour is None else pal.fill(colour)

    def fill_style(sq: int) -> Style:
        colour = colours[sq]
        if colour is None:
            return pal.sand
        return pal.ghost(colour) if ghost[sq] else pal.carpet(colour)

    def sq_at(file: int, k: int) -> int | None:
        if 0 <= file < SIZE and 0 <= k < SIZE:
            return _square(file, k)
        return None

    # Horizontal wall segments: hw[k][f] between rank-rows k-1 and k (k = 0..7).
    hw = [[weight(sq_at(f, k - 1), sq_at(f, k)) for f in range(SIZE)] for k in range(SIZE + 1)]
    # Vertical wall segments: vw[k][j] left of file j in rank-row k (j = 0..7).
    vw = [[weight(sq_at(j - 1, k), sq_at(j, k)) for j in range(SIZE + 1)] for k in range(SIZE)]

    for k in range(SIZE + 1):
        y = lay.wall_row(k)
        for f in range(SIZE):
            s, t = sq_at(f, k - 1), sq_at(f, k)
            x0 = lay.wall_col(f) + 1
            if hw[k][f]:
                char = "━" if hw[k][f] == 2 else "─"
                style = wall_style(s, t)
            else:
                assert s is not None
                char, style = fill_char(s), fill_style(s)
            for x in range(x0, x0 + w):
                put(x, y, char, style)
    for k in range(SIZE):
        y0 = lay.wall_row(k) + 1
        for j in range(SIZE + 1):
            s, t = sq_at(j - 1, k), sq_at(j, k)
            x = lay.wall_col(j)
            if vw[k][j]:
                char = "┃" if vw[k][j] == 2 else "│"
                style = wall_style(s, t)
            else:
                assert s is not None
                char, style = fill_char(s), fill_style(s)
            for y in range(y0, y0 + h):
                put(x, y, char, style)
    # Junctions: their arms are the four wall segments that meet there.
    for k in range(SIZE + 1):
        for j in range(SIZE + 1):
            up = vw[k - 1][j] if k > 0 else 0
            down = vw[k][j] if k < SIZE else 0
            left = hw[k][j - 1] if j > 0 else 0
            right = hw[k][j] if j < SIZE else 0
            arms = (up, right, down, left)
            near = [
                sq for sq in (sq_at(j - 1, k - 1), sq_at(j, k - 1), sq_at(j - 1, k), sq_at(j, k))
            ]
            if 2 in arms:
                style = pal.preview_wall if any(sq in preview for sq in near) else pal.region_wall
            elif any(arms):
                style = pal.wall
            else:
                inside = [sq for sq in near if sq is not None]
                style = fill_style(inside[0]) if inside else pal.sand
            put(lay.wall_col(j), lay.wall_row(k), BOX[arms], style)

    # Inside of the squares: colour, letter, Assam, the trail of his walk.
    assam_square, assam_facing = view.assam or (state.assam_square, state.assam_facing)
    if view.pending_facing is not None and view.assam is None:
        assam_facing = view.pending_facing
    for sq in range(SIZE * SIZE):
        file, k = sq % SIZE, SIZE - 1 - sq // SIZE
        x0, y0 = lay.wall_col(file) + 1, lay.wall_row(k) + 1
        style = fill_style(sq)
        colour = colours[sq]
        hatch = fill_char(sq)
        for y in range(y0, y0 + h):
            for x in range(x0, x0 + w):
                put(x, y, hatch, style)
        cx, cy = lay.centre(sq)
        letter_style = pal.letter(colour) if colour is not None else style
        if hatch != " " and w >= 5:  # a pattern: room round the letter
            put(cx - 1, cy, " ", style)
            put(cx + 1, cy, " ", style)
        if sq == assam_square:
            arrow_style = pal.assam_pending if view.pending_facing is not None else pal.assam
            arrow = ARROWS[assam_facing]
            if h >= 2:
                ay = cy - 1
                for dx in (-1, 0, 1) if w >= 5 else (0,):
                    put(cx + dx, ay, " ", arrow_style)
                put(cx, ay, arrow, arrow_style)
                if colour is not None:
                    put(cx, cy, COLOUR_LETTERS[colour], letter_style)
            else:
                put(cx - 1, cy, arrow, arrow_style)
                if colour is not None:
                    put(cx + 1, cy, COLOUR_LETTERS[colour], letter_style)
        elif colour is not None:
            put(cx, cy, COLOUR_LETTERS[colour], letter_style)
        if sq in view.trail and sq != assam_square:
            put(x0, y0, "•", pal.trail + Style(bgcolor=style.bgcolor))
    for sq, mark in view.marks:
        x1, y0 = lay.wall_col(sq % SIZE) + w, lay.wall_row(SIZE - 1 - sq // SIZE) + 1
        for offset, char in enumerate(reversed(mark[:w])):
            put(x1 - offset, y0, char, pal.mark)

    _draw_rim(put, lay, set(view.arcs), pal)
    # Rank and file names.
    for rank in range(SIZE):
        _, cy = lay.centre(rank * SIZE)
        put(0, cy, str(rank + 1), pal.label)
    for file in range(SIZE):
        cx, _ = lay.centre(file)
        put(cx, lay.height - 1, "abcdefg"[file], pal.label)
    return grid


def _draw_rim(
    put: Callable[[int, int, str, Style], None],
    lay: Layout,
    lit: set[tuple[int, int]],
    pal: Palette,
) -> None:
    """The rim (R2) as :data:`marrakech.geometry.RIM` has it, as on the real board: a half
    circle outside each pair of joined edge squares, and a loop round the corners a1 and g7.

    ``lit`` holds the arcs Assam just followed, as (square he left, facing he left by).
    """
    # Where each edge's line runs (a row for N and S, a column for E and W), and the
    # rounded ends it draws with, the lower-left end first.
    line = {N: 0, S: lay.bottom + 1, W: lay.left - 2, E: lay.right + 2}
    ends = {N: "╭╮", S: "╰╯", W: "╭╰", E: "╮╯"}
    for arc in RIM:
        exits = {(square, edge) for square in arc.squares for edge in arc.edges}
        style = pal.rim_lit if exits & lit else pal.rim
        low, high = arc.squares
        for edge in arc.edges:
            axis = 0 if edge in (N, S) else 1  # x or y runs along the edge
            if arc.loop:  # from the corner square round to its other edge's line
                (other,) = (e for e in arc.edges if e != edge)
                span = (lay.centre(low)[axis], line[other])
            else:
                span = (lay.centre(low)[axis], lay.centre(high)[axis])
            first, last = sorted(span)
            glyphs = ends[edge][0] + "─│"[axis] * (last - first - 1) + ends[edge][1]
            for along, glyph in enumerate(glyphs, first):
                x, y = (along, line[edge]) if axis == 0 else (line[edge], along)
                put(x, y, glyph, style)


def picture_text(rows: list[list[Cell]]) -> Text:
    """Join picture rows into one Rich :class:`Text`."""
    text = Text(no_wrap=True, overflow="crop", end="")
    for number, row in enumerate(rows):
        if number:
            text.append("\n")
        run_style: Style | None = None
        run: list[str] = []
        for char, style in row:
            if style != run_style and run:
                text.append("".join(run), run_style)
                run = []
            run_style = style
            run.append(char)
        if run:
            text.append("".join(run), run_style)
    return text


class BoardWidget(Widget):
    """The board, at the largest scale that fits; clicking a square posts
    :class:`BoardWidget.SquareClicked`."""

    DEFAULT_CSS = """
    BoardWidget {
        width: 1fr;
        height: 1fr;
        min-width: 36;
        min-height: 18;
    }
    """

    class SquareClicked(Message):
        """A square of the board was clicked."""

        def __init__(self, square: int) -> None:
            super().__init__()
            self.square = square

    def __init__(self, view: BoardView, *, name: str | None = None, id: str | None = None):
        super().__init__(name=name, id=id)
        self.view = view

    def show(self, view: BoardView) -> None:
        self.view = view
        self.refresh()

    @property
    def scale(self) -> Scale:
        width, height = self.size
        for scale in SCALES:
            lay = layout(scale)
            if lay.width <= width and lay.height <= height:
                return scale
        return SCALES[-1]

    def _offset(self) -> tuple[int, int]:
        lay = layout(self.scale)
        return max(0, (self.size.width - lay.width) // 2), max(
            0, (self.size.height - lay.height) // 2
        )

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return layout(SCALES[0]).width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return layout(SCALES[0]).height

    def render(self) -> Text:
        rows = draw_board(self.view, self.scale, PLAIN if self.app.no_color else PALETTE)
        dx, dy = self._offset()
        pad = [(" ", PALETTE.blank)] * dx
        return picture_text([[] for _ in range(dy)] + [pad + row for row in rows])

    def square_at(self, x: int, y: int) -> int | None:
        """The square under widget offset (x, y), if any."""
        dx, dy = self._offset()
        return layout(self.scale).square_at(x - dx, y - dy)

    def on_click(self, event: events.Click) -> None:
        square = self.square_at(event.x, event.y)
        if square is not None:
            event.stop()
            self.post_message(self.SquareClicked(square))


__all__ = ["ARROWS", "BoardView", "BoardWidget", "draw_board", "picture_text"]
