"""Collection settings for the whole suite."""

import importlib.util

# The compiled kernels' modules import Numba at import time; without the `fast` extra
# their doctests cannot be collected (their tests skip themselves).
collect_ignore_glob = [] if importlib.util.find_spec("numba") else ["src/marrakech/fast/*"]
