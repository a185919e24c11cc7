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


#: The web page's carpets, by colour letter: the Okabe-Ito colour itself (``base``), a
#: darker edge and pattern (``dark``), a lighter highlight (``light``) and the letter's
#: ink on it (``ink``). The page reads them from ``GET /api/config``;
#: the terminal keeps :data:`CARPET_HEX`, the nearest colours a 256-colour terminal has.
WEB_CARPETS: dict[str, dict[str, str]] = {
    "R": {"base": "#D55E00", "dark": "#8F3F00", "light": "#F08A4B", "ink": "#ffffff"},
    "B": {"base": "#0072B2", "dark": "#004C77", "light": "#56A7D8", "ink": "#ffffff"},
    "Y": {"base": "#F0E442", "dark": "#A89A12", "light": "#FFF6A0", "ink": "#2b2100"},
    "P": {"base": "#CC79A7", "dark": "#7E3F64", "light": "#EBC0D9", "ink": "#2a0b1d"},
}


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """``'#rrggbb'`` as three integers 0..255."""
    value = int(hex_colour.lstrip("#"), 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255
