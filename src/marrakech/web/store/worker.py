"""The SQLite store's own thread: the event loop never waits on the disk.

:class:`StoreWorker` is the :class:`~marrakech.web.store.GameStore` the server uses on
an SQLite file: the asynchronous face of the synchronous
:class:`~marrakech.web.store.sqlite.SQLiteStore`. Every call runs in one thread, in the
order the calls were made. Calls made while the thread is busy are handed over
together, in one trip, and the appends among them are committed together (group commit:
one transaction, a savepoint each), so under load a commit serves many moves; each
caller still hears back only once its actions are committed::

    >>> import asyncio, threading
    >>> from marrakech.web.store.sqlite import SQLiteStore
    >>> async def main() -> list[str]:
    ...     worker = StoreWorker.over(SQLiteStore(":memory:"))
    ...     found = await worker.games_to_resume()
    ...     await worker.close()
    ...     return found
    >>> found = []  # in a thread of its own: a test runner may already run a loop here
    >>> runner = threading.Thread(target=lambda: found.append(asyncio.run(main())))
    >>> runner.start(); runner.join()
    >>> found
    [[]]

A method of the protocol is written once per database: its declaration in
:class:`~marrakech.web.store.GameStore`, its body in ``SQLiteStore`` (blocking, same name
and parameters) and in ``PostgresStore``. The worker has nothing to add: each of the
protocol's coroutines that it does not write itself (the grouped appends, closing) is
made from the protocol's declaration when this module loads and runs the SQLite store's
method of the same name in the thread (:meth:`StoreWorker.run`). mypy reads the worker
as the protocol's subclass, so every call is checked against the declaration;
``tests/web/test_store_faces.py`` checks that the SQLite store's methods have the
protocol's parameters and types and that the worker forwards every one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import queue
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, ParamSpec, TypeVar

from marrakech.web.store import ActionRow, Append, GameEnd, GameStatus, GameStore
from marrakech.web.store.sqlite import SQLiteStore

P = ParamSpec("P")
T = TypeVar("T")

#: A call waiting for the store's thread (a function, or an append to group), and where
#: its result goes.
_Call = tuple["Callable[[], Any] | Append", "asyncio.Future[Any]"]


def _run_calls(store: SQLiteStore, calls: list[Callable[[], Any] | Append]) -> list[Any]:
    """Run store calls in order in the store thread: each one's result or exception.
    Consecutive appends share one transaction (:meth:`SQLiteStore.append_batch`)."""
    outcomes: list[Any] = []
    index = 0
    while index < len(calls):
        call = calls[index]
        if isinstance(call, Append):
            group: list[Append] = []
            while index < len(calls) and isinstance(calls[index], Append):
                group.append(calls[index])  # type: ignore[arg-type]
                index += 1
            try:
                outcomes.extend(store.append_batch(group))
            except Exception as error:
                outcomes.extend([error] * len(group))
            continue
        try:
            outcomes.append(call())
        except Exception as error:
            outcomes.append(error)
        index += 1
    return outcomes


class _StoreThread:
    """The store's own thread: runs each batch of calls (:func:`_run_calls`) in order
    and hands the outcomes back to the event loop that asked.

    A thread of its own rather than a one-thread ``ThreadPoolExecutor``: the executor's
    futures, their wrapping into the loop's and its idle-thread bookkeeping cost the
    event loop a third more per trip, and a busy server makes a trip for every move.
    """

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        # A daemon: a server that exits without closing its store is not held up; a
        # batch cut short there was never answered (nothing acknowledged is lost).
        self._thread = threading.Thread(target=self._serve, name="marrakech-store", daemon=True)
        self._thread.start()
        self._stopped = False

    def run(
        self, loop: asyncio.AbstractEventLoop, calls: list[Callable[[], Any] | Append]
    ) -> asyncio.Future[list[Any]]:
        """The outcomes of ``calls`` (:func:`_run_calls`), once the thread ran them."""
        future: asyncio.Future[list[Any]] = loop.create_future()
        if self._stopped:
            future.set_exception(RuntimeError("the store's thread has stopped"))
        else:
            self._jobs.put((loop, calls, future))
        return future

    def stop(self) -> None:
        """Stop the thread once the calls before are run (and wait for it)."""
        self._stopped = True
        self._jobs.put(None)
        self._thread.join()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            loop, calls, future = job
            try:
                outcomes: list[Any] | BaseException = _run_calls(self.store, calls)
            except BaseException as error:  # _run_calls catches each call's own errors
                outcomes = error
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(_settle, future, outcomes)


#: A batch for the store's thread: the loop that waits, the calls, where the outcomes go.
_Job = tuple[
    asyncio.AbstractEventLoop, list["Callable[[], Any] | Append"], "asyncio.Future[list[Any]]"
]


def _settle(future: asyncio.Future[list[Any]], outcomes: list[Any] | BaseException) -> None:
    """On the loop: give the waiting batch its outcomes (unless it stopped waiting)."""
    if future.done():
        return
    if isinstance(outcomes, BaseException):
        future.set_exception(outcomes)
    else:
        future.set_result(outcomes)


class StoreWorker(GameStore):
    """An SQLite store as the server's asynchronous :class:`GameStore`: its blocking
    calls run in the store's own thread, in order; appends are group-committed.

    Make one with :meth:`over` (mypy counts the methods made from the protocol, below,
    as missing from the class itself, so it refuses ``StoreWorker(store)``).
    """

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self._thread = _StoreThread(store)
        # By event loop: a server runs one, but tests run the app from several (a
        # ``TestClient`` per address), and a loop's futures are settled on that loop only
        # (a batch drained on another loop left its caller waiting for ever).
        self._calls: dict[asyncio.AbstractEventLoop, list[_Call]] = {}
        self._tasks: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}

    @classmethod
    def over(cls, store: SQLiteStore) -> StoreWorker:
        """The asynchronous store over ``store``, whose calls it runs in its thread."""
        return cls(store)

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in the store's thread; its result or exception."""
        result: T = await self._submit(functools.partial(function, *args, **kwargs))
        return result

    def _submit(self, call: Callable[[], Any] | Append) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._calls.setdefault(loop, []).append((call, future))
        if loop not in self._tasks:
            self._tasks[loop] = loop.create_task(self._drain(loop))
        return future

    async def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            while batch := self._calls.pop(loop, None):
                calls = [call for call, _ in batch]
                try:
                    outcomes = await self._thread.run(loop, calls)
                except asyncio.CancelledError:
                    for _, future in batch:
                        future.cancel()
                    raise
                except Exception as error:  # the thread is gone (shut down)...
                    outcomes = [error] * len(batch)
                for (_, future), value in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if isinstance(value, Exception):
                        future.set_exception(value)
                    else:
                        future.set_result(value)
        finally:
            self._tasks.pop(loop, None)

    # -- GameStore: what the thread cannot simply forward ------------------------------

    async def append_actions(
        self,
        game_id: str,
        version: int,
        actions: Sequence[ActionRow],
        status: GameStatus,
        bot_to_move: bool,
        turns: int = 0,
        end: GameEnd | None = None,
    ) -> None:
        # Not run alone: consecutive appends are committed together (_run_calls).
        await self._submit(
            Append(game_id, version, tuple(actions), status, bot_to_move, turns, end)
        )

    @property
    def dialect(self) -> str:
        return self.store.dialect

    @property
    def busy(self) -> int:
        """1 while the thread runs calls, else 0 (the metrics' pool of one)."""
        return 1 if self._tasks else 0

    @property
    def waiting(self) -> int:
        """Calls waiting for the thread."""
        return sum(len(calls) for calls in self._calls.values())

    async def close(self) -> None:
        """Close the store (in its thread, after the calls before) and stop the thread."""
        await self.run(self.store.close)
        self._thread.stop()


def _forwarder(name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    """The worker's method ``name``: the SQLite store's method of that name, run in the
    store's thread; its name, documentation and signature are the protocol's."""

    @functools.wraps(getattr(GameStore, name))
    async def forward(self: StoreWorker, *args: Any, **kwargs: Any) -> Any:
        return await self.run(getattr(self.store, name), *args, **kwargs)

    return forward


for _name, _declared in vars(GameStore).items():
    if inspect.iscoroutinefunction(_declared) and _name not in vars(StoreWorker):
        setattr(StoreWorker, _name, _forwarder(_name))
