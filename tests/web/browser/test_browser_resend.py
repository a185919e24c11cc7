"""An action in flight is not lost (issue 36): the page sends its last action again when
the connection dropped before the answer, and when the server answered ``server_error``
(it could not store it: nothing changed), as long as the game is still at its version;
the server's version check makes that safe (never applied twice)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from marrakech.web.store import sqlite as sqlite_store
from tests.web.browser.helpers import LiveServer, mouse_turn, version, wait_input, wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server_options() -> Iterator[dict[str, Any]]:
    # No retry on the server: its store's failure reaches the page at once. And a short
    # wait on the locked file: every background write queued ahead of the roll (the
    # pools' and tournaments' ticks) waits that long on the lock before failing, and at
    # SQLite's 10 s, three of them hid the refusal past the test's patience on CI.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite_store, "BUSY_SECONDS", 1.0)
        yield {"store_retry": 0.0}


def against_bots(server: LiveServer) -> str:
    """A 3-player game, seat 0 human and first; the human seat's link."""
    bot = {"kind": "bot", "level": "easy"}
    answer = server.api(
        "POST",
        "/api/games",
        {"players": 3, "seats": [{"kind": "human"}, bot, bot], "first_seat": 0},
    )
    return str(answer["seats"][0]["link"])


def test_an_action_lost_with_the_connection_is_sent_again(
    server: LiveServer, new_page: Any
) -> None:
    """The connection drops after the page sent its roll and before the server got it:
    the page reconnects, finds the game at the same position and sends the roll again,
    without the player pressing anything."""
    page = new_page(speed="fast")
    lost: list[str] = []

    def relay(ws: Any) -> None:
        to_server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if (
                not lost
                and isinstance(message, str)
                and '"type":"action"' in message.replace(" ", "")
            ):
                lost.append(message)  # never reaches the server; the connection drops
                ws.close(code=1012, reason="restarting")
                to_server.close()
                return
            to_server.send(message)

        ws.on_message(from_page)

    page.route_web_socket("**/ws/**", relay)
    page.goto(server.base + against_bots(server))
    rng = random.Random(5)
    assert wait_input(page) == "orient"
    mouse_turn(page, rng)  # lost: an orientation, sent once and dropped with the socket
    wait_until(page, lambda: page.get_attribute("#app", "data-welcomes") == "2", "a reconnection")
    assert lost, "the action never went through the relay"
    # Sent again after the welcome: the game moves on to the roll by itself.
    assert wait_input(page) == "roll"
    assert version(page) > 0


def test_an_action_refused_with_server_error_is_sent_again(
    server: LiveServer, new_page: Any
) -> None:
    """The store is locked by another program when the page rolls: the server answers
    ``server_error`` (nothing changed); the page says it sends the move again, does,
    and the game goes on once the store is free."""
    page = new_page(speed="fast")
    page.goto(server.base + against_bots(server))
    rng = random.Random(6)
    assert wait_input(page) == "orient"
    mouse_turn(page, rng)
    assert wait_input(page) == "roll"
    before = version(page)
    lock = sqlite3.connect(server.db, isolation_level=None)
    try:
        lock.execute("BEGIN EXCLUSIVE")  # the server's append waits, then gives up
        page.click("[data-testid=roll]")
        page.wait_for_selector("[data-testid=notice]:has-text('sending it again')", timeout=30_000)
        assert version(page) == before
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    wait_until(page, lambda: version(page) > before, "the roll sent again", timeout=30)
    # Stored once: the record has one roll where the page showed it.
    assert page.get_attribute("[data-testid=die]", "data-value") in {"1", "2", "3", "4"}
