"""The site as an app on a phone (issue 25): a web app manifest with its icons, a service
worker controlling every page, an offline page when there is no network, and the turn
notification shown by the worker (`registration.showNotification`, which Android needs)."""

from __future__ import annotations

import struct
import urllib.request
from typing import Any

import pytest

from tests.web.browser.helpers import LiveServer, wait_until

pytestmark = pytest.mark.browser

TWO_HUMANS = {
    "players": 2,
    "seats": [{"kind": "human"}, {"kind": "human"}],
    "first_seat": "random",
    "rules": "standard",
}


def fetch(url: str) -> tuple[bytes, str]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return reply.read(), reply.headers["Content-Type"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_makes_the_site_installable(server: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/")
    href = page.get_attribute("link[rel=manifest]", "href")
    assert href == "/manifest.webmanifest"
    manifest = page.evaluate("fetch('/manifest.webmanifest').then((r) => r.json())")
    assert manifest["name"] == "Marrakech" and manifest["display"] == "standalone"
    assert manifest["start_url"].startswith("/") and manifest["scope"] == "/"
    assert manifest["theme_color"] and manifest["background_color"]
    sizes = set()
    for icon in manifest["icons"]:
        data, kind = fetch(server.base + icon["src"])
        assert kind == icon["type"] == "image/png"
        width, height = png_size(data)
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add(width)
    assert {192, 512} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    _, kind = fetch(server.base + "/manifest.webmanifest")
    assert kind.startswith("application/manifest+json")


def test_the_worker_controls_the_pages_and_shows_the_offline_page(
    server: LiveServer, new_page: Any
) -> None:
    page = new_page()
    page.goto(server.base + "/")
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == server.base + "/"
    page.reload()  # the worker claims the pages: from now on it sees their loads
    controlled = "navigator.serviceWorker.controller !== null"
    wait_until(page, lambda: bool(page.evaluate(controlled)), "the worker to control the page")
    source, kind = fetch(server.base + "/sw.js")
    assert kind.startswith("text/javascript") and b"__VERSION__" not in source
    page.context.set_offline(True)
    try:
        page.goto(server.base + "/g/abcdefghijkl")
        page.wait_for_selector("[data-testid=offline-page]")
        assert "No network" in page.inner_text("h1")
        assert "Pas de réseau" in page.inner_text("body")
        # Its logo comes from the worker's cache too (a broken image on phones before).
        logo = page.locator("[data-testid=offline-page] img")
        wait_until(page, lambda: bool(logo.evaluate("img => img.complete")), "the logo loaded")
        assert logo.evaluate("img => img.naturalWidth") == 192
    finally:
        page.context.set_offline(False)
    page.goto(server.base + "/")  # the network back: the lobby as usual
    page.wait_for_selector("body[data-ready='1']")


def test_the_turn_notification_is_shown_by_the_worker(server: LiveServer, new_page: Any) -> None:
    game = server.api("POST", "/api/games", TWO_HUMANS)
    tokens = ",".join(seat["token"] for seat in game["seats"])
    page = new_page()
    page.context.grant_permissions(["notifications"], origin=server.base)
    page.goto(f"{server.base}/g/{game['game_id']}#t={tokens}")
    page.wait_for_selector("body[data-ready='1']")
    page.evaluate("navigator.serviceWorker.ready")
    # The page is in the background (another tab or app in front), notifications wanted:
    # the page's own notify() is called, as on the turn's arrival.
    shown = page.evaluate(
        """async () => {
            Object.defineProperty(document, "hidden", { get: () => true });
            localStorage.setItem("marrakech.notify", "on");
            const app = document.querySelector("script[type=module]").src;
            const signals = await import(app.replace(/app\\.js$/, "signals.js"));
            await signals.registerWorker();
            return signals.notify("Your turn", "Amir played: your turn to orient Assam.");
        }"""
    )
    assert shown is True
    read = (
        "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((notes) =>"
        " notes.map((n) => ({title: n.title, body: n.body, data: n.data})))"
    )
    notes: list[dict[str, Any]] = []

    def shown_by_the_worker() -> bool:
        notes[:] = page.evaluate(read)  # kept as read: the browser may close it later
        return bool(notes)

    wait_until(page, shown_by_the_worker, "the worker's notification")
    # Ours, or the page's own turn notice made the same way since the page looks hidden
    # (same tag: the last replaces the other): either way the worker showed it.
    assert notes[-1]["title"] and notes[-1]["data"]["url"] == f"/g/{game['game_id']}"
