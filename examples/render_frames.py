"""Pictures of a game: ``render_mode="rgb_array"`` frames saved as PNG files.

Plays one game of random agents in the Gymnasium environment against ``greedy`` bots
and writes the board after each of the learning seat's decisions (numpy only: the PNG
files are written with the standard library)::

    .venv/bin/python examples/render_frames.py --out frames/        # frames/000.png ...
    .venv/bin/python examples/render_frames.py --only 20 --out docs/render-rgb-array.png

With ``gymnasium.wrappers.RecordVideo`` (it needs ``moviepy``) the same frames make a
video: ``RecordVideo(gymnasium.make("Marrakech-v0", render_mode="rgb_array"), "videos")``.
"""

from __future__ import annotations

import argparse
import struct
import zlib
from pathlib import Path

import gymnasium
import numpy as np
import numpy.typing as npt

import marrakech.envs  # noqa: F401  (registers Marrakech-v0)


def write_png(path: Path, image: npt.NDArray[np.uint8]) -> None:
    """An (H, W, 3) uint8 image as an RGB PNG file."""
    height, width, _ = image.shape
    rows = b"".join(b"\x00" + image[y].tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="frames", help="a folder, or a .png file with --only")
    parser.add_argument("--only", type=int, default=None, help="save only this frame")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args()

    env = gymnasium.make(
        "Marrakech-v0", opponents=("greedy",) * (args.players - 1), render_mode="rgb_array"
    )
    rng = np.random.default_rng(args.seed)
    _, info = env.reset(seed=args.seed)
    frames = [env.render()]
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        frames.append(env.render())
    out = Path(args.out)
    if args.only is not None:
        index = min(args.only, len(frames) - 1)
        write_png(out, frames[index])
        print(f"frame {index} of {len(frames)} written to {out}")
        return
    out.mkdir(parents=True, exist_ok=True)
    for index, frame in enumerate(frames):
        write_png(out / f"{index:03d}.png", frame)
    print(f"{len(frames)} frames of {frames[0].shape[1]}x{frames[0].shape[0]} written to {out}/")


if __name__ == "__main__":
    main()
