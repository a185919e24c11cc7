"""A serving process spreads its full garbage collections out (web/process_tuning.py):
under load they stopped the event loop for a third of a second every few seconds; and
it hands the interpreter lock to the store's thread within a millisecond."""

from __future__ import annotations

import asyncio
import gc
import socket
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from marrakech.web.http_protocol import ReadyServer
from marrakech.web.process_tuning import FULL_EVERY, SWITCH_SECONDS, YOUNG_EVERY, tune_for_serving


@pytest.fixture
def collector() -> Iterator[None]:
    """The test process's collector as it was, whatever the test did to it."""
    before, switch = gc.get_threshold(), sys.getswitchinterval()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)
    sys.setswitchinterval(switch)


async def empty_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    return None


def test_full_collections_wait_and_the_start_is_frozen(collector: None) -> None:
    middle = gc.get_threshold()[1]
    held = [[index] for index in range(10_000)]  # long-lived objects, as a start leaves
    tune_for_serving()
    assert gc.get_threshold()[:2] == (YOUNG_EVERY, middle)
    assert YOUNG_EVERY > 700  # CPython's default: an action's objects outlived it
    assert gc.get_threshold()[2] == FULL_EVERY > 10  # CPython's default is 10
    assert gc.get_freeze_count() >= len(held)
    assert sys.getswitchinterval() == SWITCH_SECONDS < 0.005  # CPython's default is 5 ms


def test_the_server_tunes_the_collector_before_it_says_it_is_ready(collector: None) -> None:
    seen: list[tuple[int, int, float]] = []
    server = ReadyServer(
        uvicorn.Config(empty_app, lifespan="off", log_level="warning"),
        lambda: seen.append(
            (gc.get_threshold()[2], gc.get_freeze_count(), sys.getswitchinterval())
        ),
    )
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))

    async def start_and_stop() -> None:
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        for _ in range(500):
            await asyncio.sleep(0.01)
            if seen or serving.done():
                break
        server.should_exit = True
        await asyncio.wait_for(serving, 10)

    try:
        asyncio.run(start_and_stop())
    finally:
        listener.close()
    assert len(seen) == 1
    threshold, frozen, switch = seen[0]
    assert threshold == FULL_EVERY and frozen > 0 and switch == SWITCH_SECONDS
