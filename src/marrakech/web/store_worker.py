"""The store's own thread: the event loop never waits on the disk.

Every store call of a server (:class:`~marrakech.web.store.GameStore`) runs in one
thread, in the order the calls were made. Calls made while the thread is busy are handed
over together, in one trip: under load that saves a thread switch per action (group
hand-off)::

    >>> import asyncio, threading
    >>> from marrakech.web.sqlite_store import SQLiteStore
    >>> async def main() -> list[str]:
    ...     worker = StoreWorker(SQLiteStore(":memory:"))
    ...     found = await worker.run(worker.store.games_with_bot_to_move)
    ...     await worker.close()
    ...     return found
    >>> found = []  # in a thread of its own: a test runner may already run a loop here
    >>> runner = threading.Thread(target=lambda: found.append(asyncio.run(main())))
    >>> runner.start(); runner.join()
    >>> found
    [[]]
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, ParamSpec, TypeVar

from marrakech.web.store import GameStore

P = ParamSpec("P")
T = TypeVar("T")

#: A call waiting for the store's thread, and where its result goes.
_Call = tuple[Callable[[], Any], "asyncio.Future[Any]"]


def _run_calls(calls: list[Callable[[], Any]]) -> list[tuple[bool, Any]]:
    """Run store calls in order in the store thread; each one's result or exception."""
    outcomes: list[tuple[bool, Any]] = []
    for call in calls:
        try:
            outcomes.append((True, call()))
        except Exception as error:
            outcomes.append((False, error))
    return outcomes


class StoreWorker:
    """Runs the blocking calls of one store in the store's own thread, in order."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="marrakech-store")
        self._calls: list[_Call] = []
        self._task: asyncio.Task[None] | None = None

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in the store's thread; its result or exception."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._calls.append((partial(function, *args, **kwargs), future))
        if self._task is None:
            self._task = loop.create_task(self._drain())
        result: T = await future
        return result

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._calls:
                batch, self._calls = self._calls, []
                calls = [call for call, _ in batch]
                try:
                    outcomes = await loop.run_in_executor(self._thread, _run_calls, calls)
                except asyncio.CancelledError:
                    for _, future in batch:
                        future.cancel()
                    raise
                except Exception as error:  # the thread is gone (shut down)...
                    outcomes = [(False, error)] * len(batch)
                for (_, future), (ok, value) in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
        finally:
            self._task = None

    async def close(self) -> None:
        """Close the store (in its thread, after the calls before) and stop the thread."""
        await self.run(self.store.close)
        self._thread.shutdown(wait=True)
