"""The board's colours and styles, one place to change the looks (the seat chips of
:mod:`marrakech.tui.widgets` use the carpet colours too)."""

from __future__ import annotations

from rich.style import Style

# Colour-blind-safe carpet colours, the same as render.py's ANSI ones, and letters on them.
CARPET_BG = ("#d75f00", "#005faf", "#ffd700", "#af5faf")
CARPET_FG = ("#ffffff", "#ffffff", "#000000", "#ffffff")
SAND = "#e8c98f"
WALL = "#8a6a3d"
RIM_COLOUR = "#a0783c"


class Palette:
    """Styles of the picture (one place to change the looks)."""

    sand: Style = Style(bgcolor=SAND)
    wall: Style = Style(color=WALL, bgcolor=SAND)
    preview_wall: Style = Style(color="#000000", bgcolor=SAND, bold=True)
    region_wall: Style = Style(color="#9b0000", bgcolor=SAND, bold=True)
    rim: Style = Style(color=RIM_COLOUR)
    rim_lit: Style = Style(color="#ffd700", bold=True)
    label: Style = Style(color="#9a9a9a")
    assam: Style = Style(color="#ffffff", bgcolor="#111111", bold=True)
    assam_pending: Style = Style(color="#000000", bgcolor="#ffffff", bold=True, blink=True)
    trail: Style = Style(color="#111111", bold=True)
    blank: Style = Style()

    def carpet(self, colour: int) -> Style:
        return Style(color=CARPET_FG[colour], bgcolor=CARPET_BG[colour], bold=True)

    def ghost(self, colour: int) -> Style:
        # The previewed carpet: its colour as a hatch on the sand, the letter solid.
        return Style(color=CARPET_BG[colour], bgcolor=SAND, bold=True)


PALETTE = Palette()


__all__ = ["CARPET_BG", "CARPET_FG", "PALETTE", "Palette"]
