"""The SQLite store's own thread: the event loop never waits on the disk.

:class:`StoreWorker` is the :class:`~marrakech.web.store.GameStore` the server uses on
an SQLite file: every call runs in one thread, in the order the calls were made. Calls
made while the thread is busy are handed over together, in one trip, and the appends
among them are committed together (group commit: one transaction, a savepoint each), so
under load a commit serves many moves; each caller still hears back only once its
actions are committed::

    >>> import asyncio, threading
    >>> from marrakech.web.store.sqlite import SQLiteStore
    >>> async def main() -> list[str]:
    ...     worker = StoreWorker(SQLiteStore(":memory:"))
    ...     found = await worker.games_to_resume()
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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, ParamSpec, TypeVar

from marrakech.web.store import (
    ActionRow,
    Append,
    BanKind,
    ChatReport,
    ChatRow,
    GameEnd,
    GameStatus,
    SeatRow,
    Step,
    StoredGame,
    Usage,
)
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


class StoreWorker:
    """An SQLite store as the server's asynchronous :class:`GameStore`: its blocking
    calls run in the store's own thread, in order; appends are group-committed."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="marrakech-store")
        self._calls: list[_Call] = []
        self._task: asyncio.Task[None] | None = None

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in the store's thread; its result or exception."""
        result: T = await self._submit(partial(function, *args, **kwargs))
        return result

    def _submit(self, call: Callable[[], Any] | Append) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._calls.append((call, future))
        if self._task is None:
            self._task = loop.create_task(self._drain())
        return future

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._calls:
                batch, self._calls = self._calls, []
                calls = [call for call, _ in batch]
                try:
                    outcomes = await loop.run_in_executor(
                        self._thread, _run_calls, self.store, calls
                    )
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
            self._task = None

    # -- GameStore ----------------------------------------------------------------------

    async def create_game(self, game: StoredGame) -> None:
        await self.run(self.store.create_game, game)

    async def load_game(self, game_id: str) -> StoredGame | None:
        return await self.run(self.store.load_game, game_id)

    async def load_actions(self, game_id: str, start: int) -> list[ActionRow]:
        return await self.run(self.store.load_actions, game_id, start)

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
        await self._submit(
            Append(game_id, version, tuple(actions), status, bot_to_move, turns, end)
        )

    async def claim_seat(self, game_id: str, seat: int, token_hash: str, name: str) -> bool:
        return await self.run(self.store.claim_seat, game_id, seat, token_hash, name)

    async def update_seats(
        self, game_id: str, seats: Sequence[SeatRow], status: GameStatus, bot_to_move: bool
    ) -> None:
        await self.run(self.store.update_seats, game_id, seats, status, bot_to_move)

    async def activate_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        return await self.run(self.store.activate_seat, game_id, seat, token_hash)

    async def set_rematch(self, game_id: str, rematch_id: str) -> str:
        return await self.run(self.store.set_rematch, game_id, rematch_id)

    async def save_analysis(self, game_id: str, analysis: str) -> None:
        await self.run(self.store.save_analysis, game_id, analysis)

    async def save_turn_state(
        self,
        game_id: str,
        turn_clock: tuple[int, int, float] | None,
        pending_resigns: frozenset[int],
    ) -> None:
        await self.run(self.store.save_turn_state, game_id, turn_clock, pending_resigns)

    async def count_hint(self, game_id: str, seat: int, version: int) -> int:
        return await self.run(self.store.count_hint, game_id, seat, version)

    async def summaries(self, game_ids: Sequence[str]) -> list[StoredGame]:
        return await self.run(self.store.summaries, game_ids)

    async def open_games(self, limit: int, since: float = 0.0) -> list[StoredGame]:
        return await self.run(self.store.open_games, limit, since)

    async def games_to_resume(self) -> list[str]:
        return await self.run(self.store.games_to_resume)

    async def usage(self, creator: str, since: float) -> Usage:
        return await self.run(self.store.usage, creator, since)

    async def add_chat(self, row: ChatRow) -> ChatRow:
        return await self.run(self.store.add_chat, row)

    async def load_chat(self, game_id: str, limit: int) -> list[ChatRow]:
        return await self.run(self.store.load_chat, game_id, limit)

    async def report_chat(self, game_id: str, line_id: int, reporter: str) -> bool:
        return await self.run(self.store.report_chat, game_id, line_id, reporter)

    async def hide_chat(self, game_id: str, line_id: int) -> bool:
        return await self.run(self.store.hide_chat, game_id, line_id)

    async def chat_reports(self, limit: int) -> list[ChatReport]:
        return await self.run(self.store.chat_reports, limit)

    async def ban(self, kind: BanKind, value: str, reason: str) -> None:
        await self.run(self.store.ban, kind, value, reason)

    async def unban(self, kind: BanKind, value: str) -> bool:
        return await self.run(self.store.unban, kind, value)

    async def is_banned(self, kind: BanKind, value: str) -> bool:
        return await self.run(self.store.is_banned, kind, value)

    @property
    def dialect(self) -> str:
        return self.store.dialect

    async def transact(self, steps: Sequence[Step]) -> list[list[dict[str, Any]]]:
        return await self.run(self.store.transact, steps)

    async def close(self) -> None:
        """Close the store (in its thread, after the calls before) and stop the thread."""
        await self.run(self.store.close)
        self._thread.shutdown(wait=True)
