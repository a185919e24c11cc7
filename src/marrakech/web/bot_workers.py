"""Where the bots think: one scheduler for the whole server, fair to every game.

A strong bot takes about a second a decision, and every game's bots share a few worker
processes (or threads). :class:`BotScheduler` keeps them fair and bounded:

- **round robin**: a game asks for one decision at a time, and requests are served in
  the order they came, so each game waiting gets its turn before any game gets two;
- **shorter thinking under load**: when more decisions wait than there are workers, a
  bot with a time budget gets a share of it (``seconds / load``, at least
  ``min_seconds``), so a full server answers every game a little weaker rather than
  queueing without end; the scheduler says so (:attr:`BotScheduler.busy`) and the rooms
  tell the pages;
- **cheap bots stay home**: a level whose decisions take microseconds (measured) is
  asked in the event loop, without a trip to a worker;
- **no orphans**: a worker process ends when the server ends, however it ends (a
  ``kill -9`` included): it watches its parent (:func:`_watch_parent`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import multiprocessing
import multiprocessing.connection
import os
import random
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from marrakech.actions import Action, action_from_id
from marrakech.bots import LEVEL_PLAYERS, LEVELS, Bot, bot_name, check_players, make_bot, options_of
from marrakech.state import State

log = logging.getLogger("marrakech.web")

T = TypeVar("T")

#: A level whose decisions take less than this (on average) is asked in the event loop.
INLINE_SECONDS = 0.0002
#: How long the scheduler must be calm again before it says the bots are no longer busy.
CALM_SECONDS = 2.0

#: In a worker process: its bots, made once per (level, time budget).
_WORKER_BOTS: dict[tuple[str, float | None], Bot] = {}


def _watch_parent() -> None:
    """In a worker process: end it as soon as the server is gone.

    Linux kills it at once when its parent dies (``PR_SET_PDEATHSIG``); everywhere, a
    thread waits on the pipe multiprocessing keeps to the parent and exits when it
    closes, which the system does for a parent killed with ``SIGKILL``.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    if not parent.is_alive():  # it died before the watch began
        os._exit(0)

    def wait() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=wait, name="marrakech-parent-watch", daemon=True).start()


def _start_worker() -> None:
    """A bot worker leaves Ctrl+C to the server, which shuts it down in order, and ends
    with the server however the server ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent()


def _warm_worker() -> None:
    """Load the bots (and their compiled kernels) in a fresh worker process: each level's
    bot at each player count it plays (the learned level reads a policy file per count,
    0.1 to 0.3 s each, not at a game's first decision)."""
    for level in LEVELS:
        bot = _worker_bot(level, None)
        for players in LEVEL_PLAYERS[level]:
            check_players(bot, players)


def _worker_bot(level: str, seconds: float | None) -> Bot:
    bot = _WORKER_BOTS.get((level, seconds))
    if bot is None:
        bot = _WORKER_BOTS[level, seconds] = (
            make_bot(level) if seconds is None else make_bot(level, seconds=seconds)
        )
    return bot


def _choose_in_worker(
    level: str, notation: str, seed: int, seconds: float | None
) -> tuple[int, float]:
    """In a bot worker: the id of the bot's decision for this position, and the time the
    bot took (what it would cost in the event loop)."""
    bot = _worker_bot(level, seconds)
    state, rng = State.from_notation(notation), random.Random(seed)
    started = time.perf_counter()
    action = bot.choose(state, rng)
    return action.id, time.perf_counter() - started


def default_seconds(level: str) -> float | None:
    """The time budget a level's bot thinks with by default (None: no clock)."""
    option = options_of(bot_name(level)).get("seconds")
    default = None if option is None else option.default
    return float(default) if isinstance(default, int | float) else None


def shortened(seconds: float | None, load: float, floor: float) -> float | None:
    """The budget to think with when ``load`` decisions share each worker: the whole
    budget up to one each, then a share, rounded down to a power of two (so workers
    keep few bots), never under ``floor``.

    >>> [shortened(1.0, load, 0.05) for load in (0.5, 1, 1.5, 3, 100)]
    [None, None, 0.5, 0.25, 0.05]
    >>> shortened(None, 10, 0.05) is None  # a bot without a clock is not shortened
    True
    """
    if seconds is None or load <= 1:
        return None
    share = seconds / load
    step = seconds
    while step > share:
        step /= 2
    return max(floor, step)


@dataclass
class _Request:
    level: str
    state: State
    seed: int
    bot: Bot | None
    future: asyncio.Future[Action] = field(repr=False)


@dataclass
class _Job:
    function: Callable[..., Any]
    args: tuple[object, ...]
    future: asyncio.Future[Any] = field(repr=False)


class BotScheduler:
    """The bots' workers (``processes`` > 0) or threads (``threads``), shared fairly.

    ``factory`` makes the bot of a level for the threads (tests pass broken bots); the
    worker processes always use :func:`marrakech.bots.make_bot`. ``on_busy`` hears
    when the bots become busy (thinking shortened, decisions waiting) and calm again.
    """

    def __init__(
        self,
        *,
        threads: int = 2,
        processes: int = 0,
        factory: Callable[[str], Bot] | None = None,
        min_seconds: float = 0.05,
    ) -> None:
        self.processes = processes
        self.slots = max(1, processes or threads)
        self.min_seconds = min_seconds
        self._factory = factory
        self._executor: Executor
        if processes > 0:
            self._executor = self._processes()
        else:
            self._executor = ThreadPoolExecutor(self.slots, thread_name_prefix="marrakech-bot")
        self._waiting: deque[_Request] = deque()
        #: Other work for the workers (:meth:`run`), served when no decision waits.
        self._jobs: deque[_Job] = deque()
        self._running = 0
        self._cost: dict[str, float] = {}
        #: The bots of the levels decided on the event loop, one per level: made once
        #: (a level's spec is parsed once, not at every move); they keep nothing
        #: between decisions, each drawing from the generator it is given.
        self._inline: dict[str, Bot] = {}
        self._busy = False
        self._calm_since: float | None = None
        self.on_busy: Callable[[bool], None] | None = None

    def _processes(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
        )

    def _renew(self) -> None:
        """New worker processes for a pool that lost one (killed, out of memory)."""
        log.error("a bot worker died; starting new ones")
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._executor = self._processes()
        self.start()

    def start(self) -> None:
        """Start the worker processes now, not at the first bot move."""
        for _ in range(self.processes):
            self._executor.submit(_warm_worker)

    def make_bot(self, level: str) -> Bot:
        """The bot of a level (for a thread; ValueError if there is no such level)."""
        return self._factory(level) if self._factory is not None else make_bot(level)

    @property
    def load(self) -> float:
        """Decisions asked for (thinking or waiting) per worker."""
        return (self._running + len(self._waiting)) / self.slots

    @property
    def running(self) -> int:
        """Decisions and jobs on a worker now."""
        return self._running

    @property
    def waiting(self) -> int:
        """Decisions and jobs waiting for a worker."""
        return len(self._waiting) + len(self._jobs)

    @property
    def busy(self) -> bool:
        """Whether bots think less than they would (decisions wait for a worker)."""
        return self._busy

    async def choose(self, bot: Bot | None, level: str, state: State, seed: int) -> Action:
        """A bot's decision, computed off the event loop (unless its level is known to
        take microseconds): in a worker process (``bot`` is not used) or in a thread by
        ``bot`` (one room's seat; never two at a time). Requests are served in order."""
        if self._cost.get(level, 1.0) < INLINE_SECONDS and self._factory is None:
            if bot is None:
                bot = self._inline.get(level)
                if bot is None:
                    bot = self._inline[level] = make_bot(level)
            return bot.choose(state, random.Random(seed))
        future: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Request(level, state, seed, bot, future))
        self._dispatch()
        return await future

    async def run(self, function: Callable[..., T], *args: object) -> T:
        """Run ``function(*args)`` (picklable: a module-level function) in a bot worker
        process, or a bot thread: long work the event loop must not do (a finished
        game's analysis). Decisions go first: a job starts only when a worker is free
        and no decision waits, so games never wait for it."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._jobs.append(_Job(function, args, future))
        self._dispatch()
        return await future

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self._running < self.slots and self._waiting:
            request = self._waiting.popleft()
            if request.future.done():  # its room stopped waiting
                continue
            seconds = shortened(default_seconds(request.level), self.load, self.min_seconds)
            try:
                job = self._submit(loop, request, seconds)
            except BrokenProcessPool:  # a worker died since the last decision
                self._renew()
                job = self._submit(loop, request, seconds)
            self._running += 1
            job.add_done_callback(functools.partial(self._finish, request, self._executor))
        while self._running < self.slots and not self._waiting and self._jobs:
            work = self._jobs.popleft()
            if work.future.done():
                continue
            try:
                done = loop.run_in_executor(self._executor, work.function, *work.args)
            except BrokenProcessPool:
                self._renew()
                done = loop.run_in_executor(self._executor, work.function, *work.args)
            self._running += 1
            done.add_done_callback(functools.partial(self._finish_job, work, self._executor))
        self._update_busy()

    def _finish_job(self, work: _Job, executor: Executor, done: asyncio.Future[Any]) -> None:
        self._running -= 1
        if not work.future.done():
            if done.cancelled():
                work.future.cancel()
            elif isinstance(error := done.exception(), BrokenProcessPool):
                if self._executor is executor:
                    self._renew()
                self._jobs.appendleft(work)
            elif error is not None:
                work.future.set_exception(error)
            else:
                work.future.set_result(done.result())
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self._dispatch()

    def _submit(
        self, loop: asyncio.AbstractEventLoop, request: _Request, seconds: float | None
    ) -> asyncio.Future[tuple[int, float]]:
        if self.processes:
            notation = request.state.notation()
            return loop.run_in_executor(
                self._executor, _choose_in_worker, request.level, notation, request.seed, seconds
            )
        bot = request.bot or self.make_bot(request.level)
        if seconds is not None and self._factory is None:
            bot = make_bot(request.level, seconds=seconds)
        return loop.run_in_executor(self._executor, _choose_in_thread, bot, request)

    def _finish(
        self, request: _Request, executor: Executor, done: asyncio.Future[tuple[int, float]]
    ) -> None:
        self._running -= 1
        if not request.future.done():
            if done.cancelled():
                request.future.cancel()
            elif isinstance(error := done.exception(), BrokenProcessPool):
                # A worker died (killed, out of memory): new workers, and ask again.
                if self._executor is executor:  # the first to hear of it
                    self._renew()
                self._waiting.appendleft(request)
            elif error is not None:
                request.future.set_exception(error)
            else:
                action_id, elapsed = done.result()
                cost = self._cost.get(request.level, elapsed)
                self._cost[request.level] = 0.8 * cost + 0.2 * elapsed
                request.future.set_result(action_from_id(action_id))
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self._dispatch()

    def _update_busy(self) -> None:
        pressed = bool(self._waiting) or self.load > 1
        now = time.monotonic()
        if pressed:
            self._calm_since = None
            if not self._busy:
                self._set_busy(True)
        elif self._busy:
            if self._calm_since is None:
                self._calm_since = now
            left = self._calm_since + CALM_SECONDS - now
            if left <= 0:
                self._set_busy(False)
            else:
                asyncio.get_running_loop().call_later(left + 0.01, self._update_busy)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        if busy:
            log.warning("the bots are busy: %.1f decisions per worker", self.load)
        if self.on_busy is not None:
            self.on_busy(busy)

    def shutdown(self) -> None:
        """Stop the workers; decisions not started yet are dropped."""
        for request in self._waiting:
            request.future.cancel()
        self._waiting.clear()
        for work in self._jobs:
            work.future.cancel()
        self._jobs.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)


def _choose_in_thread(bot: Bot, request: _Request) -> tuple[int, float]:
    started = time.perf_counter()
    action = bot.choose(request.state, random.Random(request.seed))
    return action.id, time.perf_counter() - started
