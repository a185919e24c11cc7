"""The benchmarks' one clock: work per CPU-second of the process.

CPU time rather than wall time, so that the figures hold while other work shares the
machine (the ratios of figures measured in one run are what to compare).
"""

from __future__ import annotations

import time
from collections.abc import Callable


def per_cpu_second(run: Callable[[], int], seconds: float) -> float:
    """Call ``run`` (it returns the work it did: steps, games...) once to warm up, then
    for about ``seconds`` of CPU time; the work per CPU-second."""
    run()  # Numba compiles or loads on first use, caches fill
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        done += run()
    return done / (time.process_time() - start)
