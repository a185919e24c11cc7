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


def interleaved_per_cpu_second(
    runs: dict[str, Callable[[], int]],
    seconds: float,
    slice_seconds: float = 0.25,
    warm_seconds: float = 1.0,
) -> dict[str, float]:
    """Work per CPU-second of each of ``runs``, for comparing them: each is warmed up for
    ``warm_seconds`` (Numba loads, its games reach their usual stages), then they take
    turns in slices of about ``slice_seconds`` until each has had ``seconds``, and each
    gets the rate of its best slice. Taking turns puts every run on the same machine at
    the same moments, and the best slice is the one least slowed by other work (as
    ``timeit`` keeps its best repeat), so their ratios hold while the machine is shared."""

    def one_slice(run: Callable[[], int], length: float) -> tuple[int, float]:
        done, start = 0, time.process_time()
        while time.process_time() - start < length:
            done += run()
        return done, time.process_time() - start

    for run in runs.values():
        one_slice(run, warm_seconds)
    best = dict.fromkeys(runs, 0.0)
    spent = dict.fromkeys(runs, 0.0)
    while any(spent[label] < seconds for label in runs):
        for label, run in runs.items():
            if spent[label] < seconds:
                done, took = one_slice(run, slice_seconds)
                spent[label] += took
                best[label] = max(best[label], done / took)
    return best
