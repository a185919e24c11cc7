"""Draw the app's icons (the web app manifest's 192 and 512 px PNGs) from the brand mark
of the page's header: an orange carpet with a cream stitched border and a yellow
diamond, on the whole square so that platforms may cut it to any shape ("maskable").

Pure Python (zlib and struct): no imaging library needed. Run after changing the mark::

    .venv/bin/python scripts/make_icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

IMG = Path(__file__).resolve().parents[1] / "src" / "marrakech" / "web" / "static" / "img"
ORANGE = (0xD5, 0x5E, 0x00)
DARK = (0x7A, 0x2A, 0x12)
CREAM = (0xF7, 0xE2, 0xB5)
YELLOW = (0xF0, 0xE4, 0x42)
SAMPLES = 4  # per side, for smooth edges


def colour_at(x: float, y: float) -> tuple[int, int, int]:
    """The mark at (x, y) in a 40 x 40 square (the header's SVG coordinates)."""
    diamond = abs(x - 20) + abs(y - 20)
    if diamond <= 9.2:
        return YELLOW if diamond <= 8.3 else DARK
    if 8 <= x <= 32 and 8 <= y <= 32 and not (10 <= x <= 30 and 10 <= y <= 30):
        # The stitches: dashes of 4 and gaps of 3 along each side.
        along = x if min(y - 8, 32 - y) < min(x - 8, 32 - x) else y
        return CREAM if (along - 8) % 7 < 4 else ORANGE
    return ORANGE


def png(size: int) -> bytes:
    rows = []
    for row in range(size):
        line = bytearray(b"\0")
        for column in range(size):
            total = [0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = (column + (sx + 0.5) / SAMPLES) * 40 / size
                    y = (row + (sy + 0.5) / SAMPLES) * 40 / size
                    for i, value in enumerate(colour_at(x, y)):
                        total[i] += value
            line += bytes(round(value / SAMPLES**2) for value in total)
        rows.append(bytes(line))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    for size in (192, 512):
        path = IMG / f"icon-{size}.png"
        path.write_bytes(png(size))
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
