"""A serving process's interpreter, tuned: garbage collections fewer and full ones spread
out, so that they do not stop the event loop every few seconds, and Python's interpreter
lock handed to the store's thread within a millisecond rather than five.

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
collections of the middle generation (about ten thousand young ones: minutes apart
under load, rarer on a quiet server, which makes little garbage), so the cyclic garbage
that outlived the young collections is still freed. A young collection waits for
:data:`YOUNG_EVERY` new objects rather than CPython's 700: an action makes thousands of
short-lived objects (its states, events, views and their JSON), which a collection every
700 found still alive, scanned and moved to the middle generation, to be scanned there
again; with room for a few actions' objects most are freed by reference counting before
any collection sees them. At 1,000 games (0.5 s to think) the event loop's CPU per
action fell by about a twentieth, against the simulated clients' in the same runs
(docs/web.md, "Capacity").

The SQLite store's thread (:mod:`marrakech.web.store.worker`) lets go of the interpreter
lock at each statement and needs it back to go on; a busy event loop gives it up only
when asked to, after the *switch interval* (CPython's default 5 ms). A group commit's
four statements then waited up to 20 ms, and every action of the group with them.
:data:`SWITCH_SECONDS` shortens that wait; shorter still (0.5 ms) cost the event loop
more than it saved (docs/web.md, "Capacity")::

    >>> import gc, sys
    >>> from marrakech.web.process_tuning import (
    ...     FULL_EVERY, SWITCH_SECONDS, YOUNG_EVERY, tune_for_serving)
    >>> before, switch = gc.get_threshold(), sys.getswitchinterval()
    >>> tune_for_serving()
    >>> gc.get_threshold() == (YOUNG_EVERY, before[1], FULL_EVERY) and gc.get_freeze_count() > 0
    True
    >>> sys.getswitchinterval() == SWITCH_SECONDS
    True
    >>> gc.unfreeze(); gc.set_threshold(*before); sys.setswitchinterval(switch)
"""

from __future__ import annotations

import gc
import sys

#: New objects (less those freed) between two young collections (CPython's default is
#: 700).
YOUNG_EVERY = 20_000
#: Collections of the middle generation between two full collections (CPython's default
#: is 10, with a full one also waiting for a quarter more long-lived objects).
FULL_EVERY = 1000
#: Seconds a thread holds the interpreter lock while another waits for it (CPython's
#: default is 0.005).
SWITCH_SECONDS = 0.001


def tune_for_serving() -> None:
    """Freeze what the process holds after its start, make the young collections fewer
    and the full ones rarer, and shorten the switch interval (see the module docstring)."""
    gc.collect()
    gc.freeze()
    _, middle, _ = gc.get_threshold()
    gc.set_threshold(YOUNG_EVERY, middle, FULL_EVERY)
    sys.setswitchinterval(SWITCH_SECONDS)


__all__ = ["FULL_EVERY", "SWITCH_SECONDS", "YOUNG_EVERY", "tune_for_serving"]
