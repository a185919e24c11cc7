"""Fixtures for the end-to-end tests: a real uvicorn server and Debian's Chromium.

The server runs in a thread on 127.0.0.1 with a temporary SQLite file and a short bot
pause; it can be stopped and started again on the same port and file (a restart). The
browser is Debian's Chromium driven by Playwright; the tests are skipped when it is
missing. Nothing is downloaded.

Screenshots for the docs are written to ``docs/`` only when ``MARRAKECH_SCREENSHOTS=1``
(so a test run does not touch tracked files); otherwise to the test's temporary folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.helpers import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Milliseconds a page may take to show what a test waits for (a hang is a bug).
WAIT_MS = 20_000


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Every test in this folder drives a browser. A module's tests share its server and
    # browser (module fixtures), so xdist keeps each module in one worker; the modules
    # are spread over the workers (one group for all of them left a worker idle).
    here = Path(__file__).parent
    for item in items:
        path = Path(str(item.fspath))
        if path.parent == here:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.xdist_group(f"browser-{path.stem}"))


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    """More options of the test server's app (limits, clocks); a module may give its own."""
    return {}


@pytest.fixture(scope="module")
def server(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, server_options: dict[str, Any]
) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3", options=server_options)
    live.start()
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Per module, not per session: while Playwright's sync API is open its event loop
    # counts as running in this thread, and a later test of the same worker that calls
    # asyncio.run() would fail.
    if not CHROMIUM.exists():
        pytest.skip(f"end-to-end tests need Debian's Chromium at {CHROMIUM}")
    playwright_sync = pytest.importorskip("playwright.sync_api")
    with playwright_sync.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class PageErrors:
    """JavaScript errors seen by a page (a test fails if any happened)."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Any) -> Any:
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.on(
            "console",
            lambda m: (
                self.errors.append(f"{page.url}: console {m.text}")
                # A refused HTTP request logs "Failed to load resource", and a socket that
                # cannot connect (a server restarting) logs "WebSocket connection to ...":
                # the browser reports those itself; the page shows the server's message or
                # reconnects, which the tests check.
                if m.type == "error"
                and "Failed to load resource" not in m.text
                and "WebSocket connection to" not in m.text
                else None
            ),
        )
        page.set_default_timeout(WAIT_MS)
        return page


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """``new_page(locale="en-GB")``: a page in a fresh context (its own localStorage)."""
    contexts: list[Any] = []
    watcher = PageErrors()

    def make(
        locale: str = "en-GB",
        width: int = 1280,
        height: int = 860,
        speed: str = "off",
        touch: bool = False,
    ) -> Any:
        context = browser.new_context(
            locale=locale,
            viewport={"width": width, "height": height},
            device_scale_factor=1,
            has_touch=touch,
            is_mobile=touch,
        )
        # Animation speed is a player setting kept in localStorage; full games run
        # without animations, shorter tests keep them on to exercise them.
        context.add_init_script(f"localStorage.setItem('marrakech.speed', '{speed}')")
        contexts.append(context)
        return watcher.watch(context.new_page())

    yield make
    for context in contexts:
        context.close()
    assert not watcher.errors, "\n".join(watcher.errors)
