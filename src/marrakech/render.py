"""Plain-text boards: Unicode (optionally with ANSI colours) and ASCII.

Carpets show a colour letter (``R B Y P``) so they are told apart without colour; the two
halves of one visible carpet share a cell (no wall between them), so stacking shows;
Assam is an arrow pointing where he faces; the border arcs and the corner loops are drawn
on the rim::

    >>> from marrakech import State
    >>> print(render(State.new(players=3), unicode=False, status=False))
          .---.   .---.   .---.   @
        +---+---+---+---+---+---+---+
    7 . | . | . | . | . | . | . | . | @
      | +---+---+---+---+---+---+---+
    6 ' | . | . | . | . | . | . | . | .
        +---+---+---+---+---+---+---+ |
    5 . | . | . | . | . | . | . | . | '
      | +---+---+---+---+---+---+---+
    4 ' | . | . | . |^. | . | . | . | .
        +---+---+---+---+---+---+---+ |
    3 . | . | . | . | . | . | . | . | '
      | +---+---+---+---+---+---+---+
    2 ' | . | . | . | . | . | . | . | .
        +---+---+---+---+---+---+---+ |
    1 @ | . | . | . | . | . | . | . | '
        +---+---+---+---+---+---+---+
          @   '---'   '---'   '---'
          a   b   c   d   e   f   g
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from marrakech.geometry import RIM, SIZE, E, N, S, file_of, rank_of
from marrakech.position import NO_LINK, Phase
from marrakech.rules import COLOUR_LETTERS, colours_of

if TYPE_CHECKING:
    # Only named in annotations: render() is handed a state, State.__str__ calls it.
    from marrakech.state import State

# marrakech.palette's carpet colours as xterm-256 backgrounds (166 = #d75f00, 25 =
# #005faf, 220 = #ffd700, 133 = #af5faf), with the letter colour on each.
_ANSI_BACKGROUND = (
    "\x1b[48;5;166m\x1b[97m",
    "\x1b[48;5;25m\x1b[97m",
    "\x1b[48;5;220m\x1b[30m",
    "\x1b[48;5;133m\x1b[97m",
)
_RESET = "\x1b[0m"
_ASSAM = {True: "▲▶▼◀", False: "^>v<"}


def supports_color(stream: TextIO | None = None) -> bool:
    """True when ``stream`` is a terminal and ``NO_COLOR`` is not set."""
    stream = stream or sys.stdout
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def can_draw_unicode(stream: TextIO | None = None) -> bool:
    """True when ``stream``'s encoding can write every character of a Unicode board
    (box-drawing lines, Assam's arrows, the rim's arcs); False for ASCII or Latin-1.

    >>> import io
    >>> can_draw_unicode(io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))
    False
    """
    stream = stream or sys.stdout
    encoding = getattr(stream, "encoding", None) or "ascii"
    characters = "".join(
        "".join(glyph) if isinstance(glyph, str) else "" for glyph in _UNICODE.values()
    )
    try:
        characters.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def render(state: State, *, unicode: bool = True, color: bool = False, status: bool = True) -> str:
    """The board as text; ``status`` adds the seats, money, hands and phase below it."""
    glyphs = _UNICODE if unicode else _ASCII
    width = _LEFT + 4 * SIZE + 4
    grid = [[" "] * width for _ in range(2 * SIZE + 4)]

    def put(row: int, col: int, text: str) -> None:
        grid[row][col : col + len(text)] = list(text)

    board = state.board
    for rank in range(SIZE):
        row = _row(rank)
        put(row, 0, str(rank + 1))
        for file in range(SIZE):
            square = rank * SIZE + file
            cell = board[square]
            col = _LEFT + 4 * file
            link = (cell - 1) >> 2 if cell else NO_LINK
            marker = glyphs["assam"][state.assam_facing] if square == state.assam_square else " "
            letter = COLOUR_LETTERS[(cell - 1) & 3] if cell else glyphs["empty"]
            put(row, col + 1, f"{marker}{letter} ")
            # A wall between the two visible halves of one carpet is left open.
            put(row, col, " " if link == 3 else glyphs["|"])
            put(row + 1, col, glyphs["+"] + ("   " if link == 2 else glyphs["-"] * 3))
            if rank == SIZE - 1:
                put(row - 1, col, glyphs["+"] + glyphs["-"] * 3)
        put(row, _LEFT + 4 * SIZE, glyphs["|"])
        put(row + 1, _LEFT + 4 * SIZE, glyphs["+"])
    put(_row(SIZE - 1) - 1, _LEFT + 4 * SIZE, glyphs["+"])
    _draw_rim(put, glyphs)
    put(2 * SIZE + 3, _LEFT, "".join(f"  {f} " for f in "abcdefg"))
    text = "\n".join("".join(r).rstrip() for r in grid)
    if color:
        text = _colourize(text)
    if status:
        text += "\n" + status_lines(state)
    return text


_LEFT = 4  # column of the board's left wall (rank label, arc column before it)
_UNICODE = {
    "|": "│",
    "-": "─",
    "+": "┼",
    "empty": "·",
    "assam": "▲▶▼◀",
    "loop": "↺",
    "top": "╭───╮",
    "bottom": "╰───╯",
    "left": "╭│╰",
    "right": "╮│╯",
}
_ASCII = {
    "|": "|",
    "-": "-",
    "+": "+",
    "empty": ".",
    "assam": "^>v<",
    "loop": "@",
    "top": ".---.",
    "bottom": "'---'",
    "left": ".|'",
    "right": ".|'",
}


def _row(rank: int) -> int:
    return 2 + 2 * (SIZE - 1 - rank)


def _draw_rim(put: Callable[[int, int, str], None], glyphs: dict[str, str]) -> None:
    """The rim (R2) as :data:`marrakech.geometry.RIM` has it: a half circle outside each
    pair of joined squares, a loop beside a corner on each edge it leaves by."""
    right, bottom = _LEFT + 4 * SIZE + 2, 2 * SIZE + 2
    for arc in RIM:
        low, high = arc.squares
        for edge in arc.edges:
            column = _LEFT + 4 * file_of(low) + 2
            if edge == N:
                put(0, column, glyphs["loop" if arc.loop else "top"])
            elif edge == S:
                put(bottom, column, glyphs["loop" if arc.loop else "bottom"])
            else:
                side = right if edge == E else _LEFT - 2
                if arc.loop:
                    put(_row(rank_of(low)), side, glyphs["loop"])
                    continue
                for i, glyph in enumerate(glyphs["right" if edge == E else "left"]):
                    put(_row(rank_of(high)) + i, side, glyph)


def _colourize(text: str) -> str:
    out = []
    for line in text.split("\n"):
        coloured = ""
        for char in line:
            if char in COLOUR_LETTERS:
                coloured += _ANSI_BACKGROUND[COLOUR_LETTERS.index(char)] + char + _RESET
            else:
                coloured += char
        out.append(coloured)
    return "\n".join(out)


def status_lines(state: State) -> str:
    """Seats, dirhams, carpets in hand (or pile top), scores and the phase, one per line."""
    scores = state.scores()
    lines = []
    for seat in range(state.players):
        letters = "".join(COLOUR_LETTERS[c] for c in colours_of(seat, state.players))
        mark = ">" if state.turn == seat and not state.is_terminal else " "
        line = (
            f"{mark} seat {seat} [{letters}] {state.money[seat]:3d} dirhams, "
            f"{state.carpets_in_hand(seat):2d} carpets, score {scores[seat]}"
        )
        top = state.pile_top(seat)
        if top is not None:
            line += f", top {COLOUR_LETTERS[top]}"
        if not state.is_in(seat):
            line += ", eliminated"
        lines.append(line)
    if state.phase == Phase.OVER:
        winners = ", ".join(str(s) for s in state.winners())
        lines.append(f"game over: ranks {list(state.ranks())}, winner(s) seat {winners}")
    elif state.phase == Phase.DRAW:
        lines.append(f"DRAW: seat {state.draw_pile}'s pile reveals its top carpet")
    else:
        lines.append(f"{state.phase.name}: seat {state.turn}")
    return "\n".join(lines)
