"""The learned value's features: their names, order and scales.

The learned value (:mod:`marrakech.bots.value`) and its compiled mirror in the search
(:mod:`marrakech.fast.search_kernels`) both read this module, so the two cannot drift;
it lives in the core because the compiled layer sits below the bots and may import the
core only (``docs/architecture.md``).

>>> FEATURE_NAMES[F_TITHE], VALUE_WEIGHTS
('tithe', 14)
"""

from __future__ import annotations

#: The features of a seat, in order.
FEATURE_NAMES = ("dirhams", "visible", "regions", "hand", "tithe", "ruin", "mover")
FEATURES = len(FEATURE_NAMES)
#: Each feature's index in a seat's row.
F_DIRHAMS, F_VISIBLE, F_REGIONS, F_HAND, F_TITHE, F_RUIN, F_MOVER = range(FEATURES)
#: Weights of the value: one per feature, then one per feature times the game's progress.
VALUE_WEIGHTS = 2 * FEATURES

# Scales that keep every feature near [0, 1].
#: Dirhams per unit of the ``dirhams`` feature.
DIRHAMS_UNIT = 10.0
#: Visible squares per unit of the ``visible`` feature.
VISIBLE_UNIT = 10.0
#: ``size * size`` summed over a seat's regions, per unit of the ``regions`` feature.
REGIONS_UNIT = 100.0
#: Expected dirhams of the coming roll per unit of the ``tithe`` feature.
TITHE_UNIT = 10.0

__all__ = [
    "DIRHAMS_UNIT",
    "FEATURES",
    "FEATURE_NAMES",
    "F_DIRHAMS",
    "F_HAND",
    "F_MOVER",
    "F_REGIONS",
    "F_RUIN",
    "F_TITHE",
    "F_VISIBLE",
    "REGIONS_UNIT",
    "TITHE_UNIT",
    "VALUE_WEIGHTS",
    "VISIBLE_UNIT",
]
