"""Where the bots think: worker processes or threads, never the event loop.

A strong bot takes about a second a decision. :class:`BotWorkers` computes decisions in
worker processes when ``processes`` > 0 (the bots then never compete with the event
loop for the GIL; each process keeps one bot per level, its compiled kernels loaded at
start), else in threads, where each room seat thinks with its own bot.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import signal
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from marrakech.actions import Action, action_from_id
from marrakech.bots import LEVELS, Bot, make_bot
from marrakech.state import State

#: In a worker process: its bot of each level, made once.
_WORKER_BOTS: dict[str, Bot] = {}


def _quiet_worker() -> None:
    """A bot worker leaves Ctrl+C to the server, which shuts it down in order."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _warm_worker() -> None:
    """Load the bots (and their compiled kernels) in a fresh worker process."""
    for level in LEVELS:
        _WORKER_BOTS.setdefault(level, make_bot(level))


def _choose_in_worker(level: str, notation: str, seed: int) -> int:
    """In a bot worker process: the id of the bot's decision for this position."""
    bot = _WORKER_BOTS.get(level)
    if bot is None:
        bot = _WORKER_BOTS[level] = make_bot(level)
    return bot.choose(State.from_notation(notation), random.Random(seed)).id


class BotWorkers:
    """The bots' worker processes (``processes`` > 0) or threads (``threads``).

    ``factory`` makes the bot of a level for the threads (tests pass broken bots); the
    worker processes always use :func:`marrakech.bots.make_bot`.
    """

    def __init__(
        self,
        *,
        threads: int = 2,
        processes: int = 0,
        factory: Callable[[str], Bot] | None = None,
    ) -> None:
        self.processes = processes
        self._factory = factory or make_bot
        self._executor: Executor
        if processes > 0:
            self._executor = ProcessPoolExecutor(
                processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_quiet_worker,
            )
        else:
            self._executor = ThreadPoolExecutor(threads, thread_name_prefix="marrakech-bot")

    def start(self) -> None:
        """Start the worker processes now, not at the first bot move."""
        for _ in range(self.processes):
            self._executor.submit(_warm_worker)

    def make_bot(self, level: str) -> Bot:
        """The bot of a level (for a thread; ValueError if there is no such level)."""
        return self._factory(level)

    async def choose(self, bot: Bot | None, level: str, state: State, seed: int) -> Action:
        """A bot's decision, computed off the event loop: in a worker process (``bot`` is
        not used) or in a thread by ``bot`` (one room's seat; never two at a time)."""
        loop = asyncio.get_running_loop()
        if self.processes:
            action_id = await loop.run_in_executor(
                self._executor, _choose_in_worker, level, state.notation(), seed
            )
            return action_from_id(action_id)
        assert bot is not None
        return await loop.run_in_executor(self._executor, bot.choose, state, random.Random(seed))

    def shutdown(self) -> None:
        """Stop the workers; decisions not started yet are dropped."""
        self._executor.shutdown(wait=False, cancel_futures=True)
