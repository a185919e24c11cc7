"""Compiled simulation: random playouts and batched stepping near C speed.

Numba kernels over flat integer arrays implement exactly the rules of the core (both rule
sets, 2/3/4 players, 2-player piles, elimination, R19's end) and are differential-tested
against it. Install with the ``fast`` extra (``pip install 'marrakech[fast]'``)::

    >>> from marrakech import State
    >>> from marrakech.fast import random_playouts, Batch
    >>> result = random_playouts(State.new(players=4), n=100, seed=1)
    >>> result.scores.shape, result.ranks.shape
    ((100, 4), (100, 4))
    >>> batch = Batch(8, players=3, seed=1)
    >>> batch.legal_masks().shape, batch.to_move().tolist()
    ((8, 87), [0, 0, 0, 0, 0, 0, 0, 0])

Without Numba, importing this package raises :class:`FastUnavailableError` (an
``ImportError``), and the rest of ``marrakech`` keeps working. See ``docs/fast.md``.
"""

from __future__ import annotations


class FastUnavailableError(ImportError):
    """``marrakech.fast`` needs Numba and NumPy: ``pip install 'marrakech[fast]'``."""


try:
    import numba  # noqa: F401
    import numpy  # noqa: F401
except ImportError as _error:  # pragma: no cover - exercised in a subprocess test
    raise FastUnavailableError(
        f"marrakech.fast needs Numba and NumPy ({_error}); install the extra with: "
        "pip install 'marrakech[fast]'"
    ) from _error

from marrakech.fast import compile_cache  # noqa: E402

compile_cache.install()  # before any kernel module compiles: see compile_cache

from marrakech.fast.batch import Batch  # noqa: E402
from marrakech.fast.playouts import PlayoutResult, random_playouts  # noqa: E402
from marrakech.fast.rows import WIDTH, from_arrays, to_arrays  # noqa: E402

__all__ = [
    "WIDTH",
    "Batch",
    "FastUnavailableError",
    "PlayoutResult",
    "from_arrays",
    "random_playouts",
    "to_arrays",
]
