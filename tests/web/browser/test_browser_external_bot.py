"""An external bot's seat on the page: a program (:class:`GameClient`) holds seat 1
through its invitation link, and the people at the game see it as "Bot (external)",
"Robot (externe)" in French (docs/connect.md)."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from typing import Any

import pytest

from marrakech.web.connect import GameClient, load_agent, parse_target
from tests.web.browser.helpers import LiveServer

pytestmark = pytest.mark.browser


def test_an_external_bot_is_labelled_on_the_page(server: LiveServer, new_page: Any) -> None:
    body = {"players": 2, "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human"}]}
    request = urllib.request.Request(
        server.base + "/api/games",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        created = json.loads(reply.read())
    client = GameClient(parse_target(server.base + created["seats"][1]["link"]), load_agent("easy"))
    stop = threading.Event()

    async def play_until_stopped() -> None:
        playing = asyncio.create_task(client.play())
        while not stop.is_set() and not playing.done():
            await asyncio.sleep(0.1)
        playing.cancel()

    thread = threading.Thread(target=asyncio.run, args=(play_until_stopped(),), daemon=True)
    thread.start()
    try:
        for locale, words in (("en-GB", "Bot (external)"), ("fr-FR", "Robot (externe)")):
            page = new_page(locale=locale)
            page.goto(server.base + created["seats"][0]["link"])
            label = page.wait_for_selector("[data-testid=external-1]")
            assert label.inner_text() == words
            assert page.query_selector("[data-testid=external-0]") is None  # Ana
            assert words in page.inner_text("[data-testid=panel-1]")
    finally:
        stop.set()
        thread.join(timeout=10)
