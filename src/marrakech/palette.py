"""The colours every picture of the board uses: the terminal app, the text board's ANSI
colours and the environments' RGB images. Colour-blind safe (after Okabe-Ito), and
never alone: every renderer also writes the colour's letter (``R B Y P``).

    >>> CARPET_HEX[2], rgb(CARPET_HEX[2])
    ('#ffd700', (255, 215, 0))
"""

from __future__ import annotations

#: Carpets red, blue, yellow, purple (colour order of :data:`marrakech.rules.COLOUR_LETTERS`).
CARPET_HEX = ("#d75f00", "#005faf", "#ffd700", "#af5faf")
#: The letter on each carpet colour: black on yellow, white elsewhere.
LETTER_HEX = ("#ffffff", "#ffffff", "#000000", "#ffffff")
#: The empty market, the walls between squares, the rim's arcs.
SAND_HEX = "#e8c98f"
WALL_HEX = "#8a6a3d"
RIM_HEX = "#a0783c"


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """``'#rrggbb'`` as three integers 0..255."""
    value = int(hex_colour.lstrip("#"), 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255
