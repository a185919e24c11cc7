"""The garbage collector of a serving process: full collections spread out, so that they
do not stop the event loop every few seconds.

CPython frees most objects by reference counting; its cycle collector scans the young
objects often (cheap) and, once a quarter more objects have lived long since the last
time, every object the process holds (a *full* collection). A server with hundreds of
live games holds millions of objects (each game's states, events and logs), so a full
collection stops the event loop for a third of a second, and under load they came every
few seconds: at 600 games (0.5 s to think, ``benchmarks/load_web.py``) 11 full
collections in 42 s took up to 421 ms each, and the actions waiting behind them made the
95th percentile of an action's latency 255 ms; with the full collections spread out,
109 ms (docs/web.md, "Capacity").

:func:`tune_for_serving` runs once the server accepts connections: one full collection,
then what survived it (the modules, the rules' tables, the app) is *frozen* out of every
later scan (:func:`gc.freeze`), and a full collection waits for :data:`FULL_EVERY`
collections of the middle generation (about ten thousand young ones, each after 700 new
objects: minutes apart under load, rarer on a quiet server, which makes little garbage),
so the cyclic garbage that outlived the young collections is still freed::

    >>> import gc
    >>> from marrakech.web.garbage_collection import FULL_EVERY, tune_for_serving
    >>> before = gc.get_threshold()
    >>> tune_for_serving()
    >>> gc.get_threshold()[2] == FULL_EVERY and gc.get_freeze_count() > 0
    True
    >>> gc.unfreeze(); gc.set_threshold(*before)
"""

from __future__ import annotations

import gc

#: Collections of the middle generation between two full collections (CPython's default
#: is 10, with a full one also waiting for a quarter more long-lived objects).
FULL_EVERY = 1000


def tune_for_serving() -> None:
    """Freeze what the process holds after its start and spread the full collections
    out (see the module docstring)."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)


__all__ = ["FULL_EVERY", "tune_for_serving"]
