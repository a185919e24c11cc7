"""The board picture: walls, carpets, stacking, Assam, rim arcs (R2), highlights."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from marrakech.actions import parse_action
from marrakech.geometry import SIZE, STEP, parse_square
from marrakech.playout import random_action
from marrakech.state import State
from marrakech.tui.board import ARROWS, BoardView, draw_board, picture_text
from marrakech.tui.layout import BOX, SCALES, Scale, layout
from marrakech.tui.palette import PALETTE


def played(*tokens: str, players: int = 3) -> State:
    state = State.new(players=players)
    for token in tokens:
        state = state.apply(parse_action(token))
    return state


def char(rows: list, x: int, y: int) -> str:  # type: ignore[type-arg]
    return str(rows[y][x][0])


def wall_between(scale: Scale, a: str, b: str) -> tuple[int, int]:
    """Picture position of the middle of the wall between two adjacent squares."""
    lay = layout(scale)
    (xa, ya), (_, yb) = lay.centre(parse_square(a)), lay.centre(parse_square(b))
    if ya == yb:
        return (lay.wall_col(max(parse_square(a), parse_square(b)) % SIZE), ya)
    rank = max(parse_square(a), parse_square(b)) // SIZE  # the upper square's rank
    return (xa, lay.wall_row(SIZE - rank))


def test_box_table_has_every_junction() -> None:
    assert len(BOX) == 81  # 3 ** 4 arm combinations, blank included
    assert BOX[(1, 1, 1, 1)] == "┼" and BOX[(2, 2, 2, 2)] == "╋" and BOX[(0, 1, 1, 0)] == "┌"


@pytest.mark.parametrize("scale", SCALES)
def test_every_scale_has_the_layout_size(scale: Scale) -> None:
    rows = draw_board(BoardView(State.new(players=4)), scale)
    lay = layout(scale)
    assert len(rows) == lay.height and all(len(row) == lay.width for row in rows)
    for square in range(SIZE * SIZE):
        assert lay.square_at(*lay.centre(square)) == square
    assert lay.square_at(0, 0) is None and lay.square_at(lay.width - 1, lay.height - 1) is None


@pytest.mark.parametrize("scale", SCALES)
def test_one_carpet_shows_as_one_box(scale: Scale) -> None:
    # R14: Red places on f3-g3; the wall between its two halves is open (R16 needs links).
    state = played("R", "r2", "f3-g3")
    rows = draw_board(BoardView(state), scale)
    lay = layout(scale)
    for name in ("f3", "g3"):
        x, y = lay.centre(parse_square(name))
        assert char(rows, x, y) == "R"
        assert rows[y][x][1] == PALETTE.carpet(0)
    x, y = wall_between(scale, "f3", "g3")
    assert char(rows, x, y) == " " and rows[y][x][1] == PALETTE.carpet(0)
    x, y = wall_between(scale, "e3", "f3")
    assert char(rows, x, y) == "│"


def test_a_half_covered_carpet_stands_alone() -> None:
    # Blue covers half of Red's carpet: Red's other half keeps walls all round (R17).
    state = played("R", "r2", "f3-g3", "S", "r1", "g2-g3")
    assert state.colour_at(parse_square("g3")) == 1 and state.other_half(parse_square("f3")) is None
    scale = SCALES[-1]
    rows = draw_board(BoardView(state), scale)
    x, y = wall_between(scale, "f3", "g3")
    assert char(rows, x, y) == "│"
    x, y = wall_between(scale, "g2", "g3")
    assert char(rows, x, y) == " "


@pytest.mark.parametrize("facing", range(4))
def test_assam_points_where_he_faces(facing: int) -> None:
    state = State.new(players=3)
    rows = draw_board(BoardView(state, assam=(parse_square("b6"), facing)), SCALES[2])
    text = "".join(c for row in rows for c, _ in row)
    assert text.count(ARROWS[facing]) == 1
    assert sum(text.count(arrow) for arrow in ARROWS) == 1


def test_pending_facing_and_preview_and_region_use_heavy_lines() -> None:
    state = played("L", "r1")  # Assam on c4 facing West, Red to place
    preview = parse_action("b4-b5").squares  # type: ignore[attr-defined]
    view = BoardView(state, preview=preview, preview_colour=0, region=(parse_square("f6"),))
    scale = SCALES[-1]
    rows = draw_board(view, scale)
    text = "\n".join("".join(c for c, _ in row) for row in rows)
    assert "░" in text  # the previewed carpet is hatched
    assert "┃" in text and "━" in text
    x, y = wall_between(scale, "b4", "b5")
    assert char(rows, x, y) == "░"  # open wall inside the previewed carpet
    rows = draw_board(BoardView(state, pending_facing=0), scale)
    assert ARROWS[0] in "".join(c for row in rows for c, _ in row)


def test_rim_draws_every_arc_and_lights_the_ones_followed() -> None:
    state = State.new(players=3)
    scale = SCALES[-1]
    plain = draw_board(BoardView(state), scale)
    lit = draw_board(BoardView(state, arcs=((parse_square("a1"), 3),)), scale)
    lit_cells = [
        (x, y)
        for y, row in enumerate(lit)
        for x, cell in enumerate(row)
        if cell[1] == PALETTE.rim_lit
    ]
    assert lit_cells  # the a1 loop
    assert all(plain[y][x][1] == PALETTE.rim for x, y in lit_cells)
    text = "\n".join("".join(c for c, _ in row) for row in plain)
    # 3 arcs on each of the 4 edges (2 rounded ends each), and 2 corner loops (3 each).
    assert sum(text.count(c) for c in "╭╮╰╯") == 12 * 2 + 2 * 3


def test_random_positions_render_at_every_scale() -> None:
    rng = random.Random(5)
    state = State.new(players=4)
    while not state.is_terminal:
        state = state.apply(random_action(state, rng))
        if state.phase.name == "PLACE":
            for scale in SCALES:
                rows = draw_board(BoardView(state, trail=(0, 1)), scale)
                letters = "".join(c for row in rows for c, _ in row if c in "RBYP")
                assert len(letters) == sum(1 for sq in range(49) if state.colour_at(sq) is not None)
    text = picture_text(draw_board(BoardView(state), SCALES[0]))
    assert text.plain.count("\n") == layout(SCALES[0]).height - 1


#: The rim of the empty board at each scale (R2), as four lines: the top row, the bottom
#: row, then the left and right columns read downwards. ``glyphs`` is what is drawn;
#: ``pieces`` names, per cell, the piece lit when Assam leaves by one of its exits (the
#: letters follow the exits in square order: A is the a1 loop, N the g7 loop).
RIM_GOLDEN = {
    Scale(7, 3): {
        "glyphs": (
            "        ╭───────╮       ╭───────╮       ╭───────╮       ╭─────╮",
            "  ╰─────╯       ╰───────╯       ╰───────╯       ╰───────╯",
            "   ╭│││╰   ╭│││╰   ╭│││╰   ╭││╰",
            "╮││╯   ╮│││╯   ╮│││╯   ╮│││╯",
        ),
        "pieces": (
            "        KKKKKKKKK       LLLLLLLLL       MMMMMMMMM       NNNNNNN",
            "  AAAAAAA       BBBBBBBBB       CCCCCCCCC       DDDDDDDDD",
            "   JJJJJ   HHHHH   FFFFF   AAAA",
            "NNNN   IIIII   GGGGG   EEEEE",
        ),
    },
    Scale(5, 2): {
        "glyphs": (
            "       ╭─────╮     ╭─────╮     ╭─────╮     ╭────╮",
            "  ╰────╯     ╰─────╯     ╰─────╯     ╰─────╯",
            "   ╭││╰  ╭││╰  ╭││╰  ╭│╰",
            "╮││╯  ╮││╯  ╮││╯  ╮││╯",
        ),
        "pieces": (
            "       KKKKKKK     LLLLLLL     MMMMMMM     NNNNNN",
            "  AAAAAA     BBBBBBB     CCCCCCC     DDDDDDD",
            "   JJJJ  HHHH  FFFF  AAA",
            "NNNN  IIII  GGGG  EEEE",
        ),
    },
    Scale(5, 1): {
        "glyphs": (
            "       ╭─────╮     ╭─────╮     ╭─────╮     ╭────╮",
            "  ╰────╯     ╰─────╯     ╰─────╯     ╰─────╯",
            "  ╭│╰ ╭│╰ ╭│╰ ╭│╰",
            "╮│╯ ╮│╯ ╮│╯ ╮│╯",
        ),
        "pieces": (
            "       KKKKKKK     LLLLLLL     MMMMMMM     NNNNNN",
            "  AAAAAA     BBBBBBB     CCCCCCC     DDDDDDD",
            "  JJJ HHH FFF AAA",
            "NNN III GGG EEE",
        ),
    },
    Scale(3, 1): {
        "glyphs": (
            "      ╭───╮   ╭───╮   ╭───╮   ╭───╮",
            "  ╰───╯   ╰───╯   ╰───╯   ╰───╯",
            "  ╭│╰ ╭│╰ ╭│╰ ╭│╰",
            "╮│╯ ╮│╯ ╮│╯ ╮│╯",
        ),
        "pieces": (
            "      KKKKK   LLLLL   MMMMM   NNNNN",
            "  AAAAA   BBBBB   CCCCC   DDDDD",
            "  JJJ HHH FFF AAA",
            "NNN III GGG EEE",
        ),
    },
}


def rim_lines(scale: Scale, mark: Callable[[int, int], str]) -> tuple[str, ...]:
    """The rim's four lines (see :data:`RIM_GOLDEN`), each cell shown by ``mark(x, y)``."""
    lay = layout(scale)
    rows, columns = (0, lay.bottom + 1), (lay.left - 2, lay.right + 2)
    return (
        *("".join(mark(x, y) for x in range(lay.width)).rstrip() for y in rows),
        *("".join(mark(x, y) for y in range(lay.height)).rstrip() for x in columns),
    )


@pytest.mark.parametrize("scale", SCALES)
def test_rim_stays_where_it_is_drawn(scale: Scale) -> None:
    # Every exit by an arc or a loop (R2), in square order, and what it lights.
    exits = [(sq, f) for sq in range(SIZE * SIZE) for f in range(4) if STEP[sq * 4 + f].arc]
    state = State.new(players=3)
    plain = draw_board(BoardView(state), scale)
    assert rim_lines(scale, lambda x, y: str(plain[y][x][0])) == RIM_GOLDEN[scale]["glyphs"]
    lay = layout(scale)
    rim_rows, rim_columns = (0, lay.bottom + 1), (lay.left - 2, lay.right + 2)
    assert all(
        y in rim_rows or x in rim_columns
        for y, row in enumerate(plain)
        for x, (_, style) in enumerate(row)
        if style == PALETTE.rim
    )
    pieces: dict[frozenset[tuple[int, int]], str] = {}
    owner: dict[tuple[int, int], str] = {}
    for exit_ in exits:
        lit = draw_board(BoardView(state, arcs=(exit_,)), scale)
        cells = frozenset(
            (x, y)
            for y, row in enumerate(lit)
            for x, (_, style) in enumerate(row)
            if style == PALETTE.rim_lit
        )
        if cells not in pieces:
            pieces[cells] = "ABCDEFGHIJKLMN"[len(pieces)]
        owner.update(dict.fromkeys(cells, pieces[cells]))
    assert len(pieces) == 14  # 12 arcs and 2 corner loops
    assert rim_lines(scale, lambda x, y: owner.get((x, y), " ")) == RIM_GOLDEN[scale]["pieces"]
