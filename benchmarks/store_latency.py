"""How long an append waits for the SQLite store on a busy event loop (issue 36).

Under load the server's event loop is busy most of the time, and each of its turns runs
every callback and task step that was ready when it began. A step that becomes ready
during a turn (a future set, a callback from the store's thread) waits for the turn's
end, so an action's path through the store costs whole turns, not the store's own
milliseconds. This benchmark makes those turns on purpose: ``--busy`` tasks each
compute for ``--work`` milliseconds and yield, so a turn lasts about ``busy * work``
milliseconds, while ``--games`` players append one action after another to the real
store (:class:`~marrakech.web.store.worker.StoreWorker` over an SQLite file, on
uvloop, with the serving process's switch interval). It prints the appends' latency in
milliseconds and in turns: the figure moves with the number of steps on an append's
path, not with the machine's speed, so two versions compare on a shared machine::

    .venv/bin/python benchmarks/store_latency.py
    PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/store_latency.py  # another version
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from marrakech.web.process_tuning import SWITCH_SECONDS
from marrakech.web.store import ActionRow, SeatRow, StoredGame
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.store.worker import StoreWorker


def _compute(seconds: float) -> None:
    """Hold the interpreter for ``seconds``, as a busy loop's callbacks do."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def measure(games: int, moves: int, busy: int, work: float, folder: Path) -> list[float]:
    """The latencies (s) of ``games * moves`` appends on a loop kept busy."""
    worker = StoreWorker.over(SQLiteStore(folder / "games.sqlite3"))
    seats = (SeatRow(0, "human", name="Ana"), SeatRow(1, "bot", level="easy"))
    for number in range(games):
        await worker.create_game(StoredGame(f"g{number}", 2, "standard", 0, "en", seats))
    running = True

    async def keep_busy() -> None:
        while running:
            _compute(work)
            await asyncio.sleep(0)

    async def play(game_id: str) -> None:
        for version in range(moves):
            started = time.perf_counter()
            await worker.append_actions(game_id, version, [ActionRow("L", 0)], "running", False)
            latencies.append(time.perf_counter() - started)
            await asyncio.sleep(0.005)  # a person's pause, shortened

    latencies: list[float] = []
    loaders = [asyncio.create_task(keep_busy()) for _ in range(busy)]
    await asyncio.gather(*(play(f"g{number}") for number in range(games)))
    running = False
    await asyncio.gather(*loaders)
    await worker.close()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games appending (50)")
    parser.add_argument("--moves", type=int, default=40, help="appends per game (40)")
    parser.add_argument("--busy", type=int, default=100, help="tasks keeping the loop busy")
    parser.add_argument("--work", type=float, default=0.1, help="ms each busy task computes")
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    try:
        import uvloop
    except ImportError:  # the server runs on uvloop when it is installed
        uvloop = None
    sys.setswitchinterval(SWITCH_SECONDS)
    turn = args.busy * args.work
    print(f"{args.games} games appending, loop turns of about {turn:g} ms")
    for _ in range(args.passes):
        with tempfile.TemporaryDirectory() as folder:
            run = measure(args.games, args.moves, args.busy, args.work / 1000, Path(folder))
            found = uvloop.run(run) if uvloop is not None else asyncio.run(run)
        found.sort()
        p50, p95 = found[len(found) // 2] * 1000, found[int(0.95 * len(found))] * 1000
        print(
            f"append latency: p50 {p50:.1f} ms ({p50 / turn:.1f} turns), "
            f"p95 {p95:.1f} ms ({p95 / turn:.1f} turns)"
        )


if __name__ == "__main__":
    main()
