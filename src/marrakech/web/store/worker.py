"""The SQLite store's own thread: the event loop never waits on the disk.

:class:`StoreWorker` is the :class:`~marrakech.web.store.GameStore` the server uses on
an SQLite file: the asynchronous face of the synchronous
:class:`~marrakech.web.store.sqlite.SQLiteStore`. Every call runs in one thread, in the
order the calls were made. Calls made while the thread is busy wait, and it then takes
them all at once, the appends among them committed together (group commit: one
transaction, :meth:`~marrakech.web.store.sqlite.SQLiteStore.append_batch`), so under
load a commit serves many moves; each caller still hears back only once its actions are
committed::

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

#: A call for the store's thread (a function, or an append to group): the event loop
#: that waits, the call, and where its result goes.
_Job = tuple[asyncio.AbstractEventLoop, "Callable[[], Any] | Append", "asyncio.Future[Any]"]


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
    """The store's own thread: runs the calls in the order they came and hands each
    outcome back to the event loop that asked.

    A call goes to the thread's queue at once. Whenever the thread is free it takes
    *everything* waiting as one batch (:func:`_run_calls`: its appends share one commit)
    and answers each loop once for the whole batch, so the calls that came while it
    worked go together next, without waiting for their loop to hear about the batch
    before. Under load an event loop's turn lasts milliseconds, and each step from a
    callback or a task to the next waits for a turn: a task on the loop gathering the
    batches and waiting for each made a move wait about two turns more (docs/web.md,
    "Capacity").

    A thread of its own rather than a one-thread ``ThreadPoolExecutor``: the executor's
    futures, their wrapping into the loop's and its idle-thread bookkeeping cost the
    event loop a third more per trip, and a busy server makes a trip for every move.
    """

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        #: Calls in the batch the thread runs now.
        self.running = 0
        # A daemon: a server that exits without closing its store is not held up; a
        # batch cut short there was never answered (nothing acknowledged is lost).
        self._thread = threading.Thread(target=self._serve, name="marrakech-store", daemon=True)
        self._thread.start()
        self._stopped = False

    def submit(self, call: Callable[[], Any] | Append) -> asyncio.Future[Any]:
        """The outcome of ``call``, once the thread ran it (on the running loop)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if self._stopped:
            future.set_exception(RuntimeError("the store's thread has stopped"))
        else:
            self._jobs.put((loop, call, future))
        return future

    @property
    def waiting(self) -> int:
        """Calls waiting for the thread."""
        return self._jobs.qsize()

    def stop(self) -> None:
        """Stop the thread once the calls before are run (and wait for it)."""
        self._stopped = True
        self._jobs.put(None)
        self._thread.join()

    def _serve(self) -> None:
        stopping = False
        while not stopping and (job := self._jobs.get()) is not None:
            batch = [job]
            while True:  # everything waiting goes with it
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True  # after this batch
                    break
                batch.append(job)
            self.running = len(batch)
            try:
                outcomes: list[Any] = _run_calls(self.store, [call for _, call, _ in batch])
            except BaseException as error:  # _run_calls catches each call's own errors
                outcomes = [error] * len(batch)
            self.running = 0
            answers: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any]]] = {}
            for (loop, _, future), outcome in zip(batch, outcomes, strict=True):
                answers.setdefault(loop, []).append((future, outcome))
            for loop, answered in answers.items():
                # A closed loop: nobody waits any more.
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(_answer, answered)


def _answer(answered: list[tuple[asyncio.Future[Any], Any]]) -> None:
    """On the loop that asked: each call's outcome to its future (unless its caller
    stopped waiting). A call's exception comes back as its outcome."""
    for future, outcome in answered:
        if future.done():
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)


class StoreWorker(GameStore):
    """An SQLite store as the server's asynchronous :class:`GameStore`: its blocking
    calls run in the store's own thread, in order; appends are group-committed
    (:class:`_StoreThread`).

    Make one with :meth:`over` (mypy counts the methods made from the protocol, below,
    as missing from the class itself, so it refuses ``StoreWorker(store)``).
    """

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self._thread = _StoreThread(store)

    @classmethod
    def over(cls, store: SQLiteStore) -> StoreWorker:
        """The asynchronous store over ``store``, whose calls it runs in its thread."""
        return cls(store)

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in the store's thread; its result or exception."""
        result: T = await self._thread.submit(functools.partial(function, *args, **kwargs))
        return result

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
        await self._thread.submit(
            Append(game_id, version, tuple(actions), status, bot_to_move, turns, end)
        )

    @property
    def dialect(self) -> str:
        return self.store.dialect

    @property
    def busy(self) -> int:
        """1 while the thread runs calls, else 0 (the metrics' pool of one)."""
        return 1 if self._thread.running else 0

    @property
    def waiting(self) -> int:
        """Calls waiting for the thread."""
        return self._thread.waiting

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
