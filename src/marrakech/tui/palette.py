"""The board's colours and styles, one place to change the looks (the seat chips of
:mod:`marrakech.tui.widgets` use the carpet colours too)."""

from __future__ import annotations

from rich.style import Style

from marrakech.palette import CARPET_HEX, LETTER_HEX, RIM_HEX, SAND_HEX, WALL_HEX

# The project's colours (marrakech.palette), the same as render.py's ANSI ones.
CARPET_BG = CARPET_HEX
CARPET_FG = LETTER_HEX
SAND = SAND_HEX
WALL = WALL_HEX
RIM_COLOUR = RIM_HEX


#: Without colour (``NO_COLOR``), each carpet colour fills its squares with a pattern of
#: its own (besides its letter), so no carpet looks like an empty square or like another.
PATTERNS = ("╱", "╲", "≈", "╳")


class Palette:
    """Styles of the picture (one place to change the looks). ``plain``: for a terminal
    without colour, where empty squares are blank and carpets are told by pattern."""

    def __init__(self, plain: bool = False) -> None:
        self.plain = plain
        sand = Style() if plain else Style(bgcolor=SAND)
        self.sand = sand
        self.wall = sand + Style(color=None if plain else WALL)
        self.preview_wall = sand + Style(color=None if plain else "#000000", bold=True)
        self.region_wall = sand + Style(color=None if plain else "#9b0000", bold=True)
        self.rim = Style(color=None if plain else RIM_COLOUR)
        self.rim_lit = Style(color=None if plain else "#ffd700", bold=True)
        self.label = Style(color=None if plain else "#9a9a9a", dim=plain)
        self.assam = Style(color="#ffffff", bgcolor="#111111", bold=True)
        self.assam_pending = Style(color="#000000", bgcolor="#ffffff", bold=True, blink=True)
        self.trail = Style(color=None if plain else "#111111", bold=True)
        self.mark = (
            Style(reverse=True, bold=True)
            if plain
            else Style(color="#ffffff", bgcolor="#5f00af", bold=True)
        )
        self.blank = Style()

    def carpet(self, colour: int) -> Style:
        if self.plain:
            return Style(bold=True)
        return Style(color=CARPET_FG[colour], bgcolor=CARPET_BG[colour], bold=True)

    def letter(self, colour: int) -> Style:
        """A carpet's letter: on its colour, or (without colour) in reverse."""
        return Style(bold=True, reverse=True) if self.plain else self.carpet(colour)

    def fill(self, colour: int) -> str:
        """What fills a carpet's squares: its colour alone, or (without colour) its pattern."""
        return PATTERNS[colour] if self.plain else " "

    def ghost(self, colour: int) -> Style:
        # The previewed carpet: its colour as a hatch on the sand, the letter solid.
        return self.sand + Style(color=None if self.plain else CARPET_BG[colour], bold=True)


PALETTE = Palette()
PLAIN = Palette(plain=True)


__all__ = ["CARPET_BG", "CARPET_FG", "PALETTE", "PATTERNS", "PLAIN", "Palette"]
