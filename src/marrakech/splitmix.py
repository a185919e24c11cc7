"""SplitMix64 random streams: the generator of the batched games, in plain Python.

The compiled kernels (:mod:`marrakech.fast.kernels`) draw every die roll, pile draw
and sampled action of a batch from SplitMix64 streams, one ``uint64`` of state per
stream: fast, good enough for simulation and simple to keep per game. This module is
the same generator in plain Python, so that the pure-Python batch
(:class:`marrakech.envs.python_batch.PythonBatch`) plays exactly the games the compiled batch
plays for the same seed. The kernels mirror these functions line for line, and a test
compares the two.

``below(state, k)`` draws ``k`` outcomes with the multiply-shift method on the top 32
bits (bias below ``k / 2**32``)::

    >>> streams = seed_streams(seed=7, salt=SALT_CHANCE, count=2)
    >>> state, face = below(streams[0], 6)
    >>> 0 <= face < 6, state == (streams[0] + GOLDEN) & MASK
    (True, True)
"""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
#: Salts that keep a batch's streams apart: chance (rolls, draws) and sampled actions.
SALT_CHANCE = 0x243F6A8885A308D3
SALT_ACTIONS = 0x13198A2E03707344
#: The salt of a batch's streams for its compiled bots' choices (``greedy``'s ties).
SALT_BOTS = 0xA4093822299F31D0
#: The salt of the playout kernel's single stream.
SALT_PLAYOUTS = 0x3C6EF372FE94F82B
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def mix64(z: int) -> int:
    """The SplitMix64 output function (also used to derive seeds)."""
    z = ((z ^ (z >> 30)) * MIX1) & MASK
    z = ((z ^ (z >> 27)) * MIX2) & MASK
    return z ^ (z >> 31)


def below(state: int, k: int) -> tuple[int, int]:
    """Advance ``state``; return it and a uniform integer in ``[0, k)``."""
    state = (state + GOLDEN) & MASK
    return state, ((mix64(state) >> 32) * k) >> 32


def unit(state: int) -> tuple[int, float]:
    """Advance ``state``; return it and a uniform float in ``[0, 1)``."""
    state = (state + GOLDEN) & MASK
    return state, (mix64(state) >> 11) * _TO_UNIT


def seed_streams(seed: int, salt: int, count: int) -> list[int]:
    """``count`` independent stream states derived from ``seed`` (any integer) and ``salt``."""
    seed &= MASK
    base = mix64((mix64(seed ^ salt) + salt) & MASK)
    return [mix64((base + i * GOLDEN) & MASK) for i in range(count)]


__all__ = [
    "GOLDEN",
    "MASK",
    "SALT_ACTIONS",
    "SALT_BOTS",
    "SALT_CHANCE",
    "SALT_PLAYOUTS",
    "below",
    "mix64",
    "seed_streams",
    "unit",
]
