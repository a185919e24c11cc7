"""The test server (:class:`LiveServer`) and driving the page like a player: by mouse
or by keyboard only.

The page says what it waits for in ``#app[data-input]``: ``orient``, ``roll``,
``place``, ``handover`` (same-screen seat change), ``over``, or ``wait`` (someone
else's turn, an animation, an action on its way).
"""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import uvicorn

from marrakech.web.app import create_app
from marrakech.web.limits import Limits

DOCS = Path(__file__).resolve().parents[3] / "docs"

READY = "#app[data-input]:not([data-input='wait'])"


def wait_input(page: Any) -> str:
    """Wait until the page expects something from this browser; return what."""
    page.wait_for_selector(READY)
    return str(page.get_attribute("#app", "data-input"))


def wait_until(page: Any, check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Poll ``check`` (the page's CSP forbids Playwright's eval-based wait_for_function)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(25)


def wait_version_above(page: Any, before: int) -> None:
    wait_until(page, lambda: version(page) > before, f"a version above {before}")


def version(page: Any) -> int:
    return int(page.get_attribute("#app", "data-version") or 0)


def legal_squares(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".hit.legal", "els => els.map(e => e.dataset.square)"))


def mouse_turn(page: Any, rng: random.Random) -> str:
    """Do what the page waits for with the mouse; return the input handled."""
    kind = wait_input(page)
    before = version(page)
    if kind == "orient":
        page.click(f"[data-testid=orient-{rng.choice('LSR')}]")
    elif kind == "roll":
        page.click("[data-testid=roll]")
    elif kind == "place":
        choose_carpet(page, rng, page.click)
        page.click("[data-testid=place-confirm]")
    elif kind == "handover":
        page.click("[data-testid=handover-ok]")
        return kind
    else:
        return kind
    wait_version_above(page, before)
    return kind


def lobby_form(page: Any, base: str, players: int, kinds: Mapping[int, str]) -> None:
    """Open the lobby and fill the New game form: players, seat kinds, seat 0 first."""
    page.goto(base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    page.check(f"[data-testid=players-{players}]")
    for seat, kind in kinds.items():
        page.select_option(f"[data-testid=seat-kind-{seat}]", kind)
    page.select_option("[data-testid=first-seat]", "0")


def choose_carpet(page: Any, rng: random.Random, press: Callable[[str], None]) -> str:
    """Pick a legal placement on the board with ``press`` (a click or a tap): a square,
    then a partner if the first has several; return the squares of the carpet shown."""
    squares = legal_squares(page)
    assert squares, "no legal square highlighted in the place phase"
    press(f"[data-testid=sq-{rng.choice(squares)}]")
    if page.is_disabled("[data-testid=place-confirm]"):
        partners = legal_squares(page)
        assert partners, "no partner square highlighted after choosing a first square"
        press(f"[data-testid=sq-{rng.choice(partners)}]")
    shown = page.get_attribute("[data-testid=preview] .carpet", "data-squares")
    assert shown, "choosing on the board shows the carpet before placing it"
    return str(shown)


def keyboard_turn(page: Any, rng: random.Random) -> str:
    """Do what the page waits for with the keyboard only."""
    kind = wait_input(page)
    before = version(page)
    if kind == "orient":
        key = rng.choice(["ArrowLeft", "ArrowRight", "ArrowUp"])
        page.keyboard.press(key)
        page.wait_for_selector("[data-testid=orient-confirm]")
        page.keyboard.press("Enter")
    elif kind == "roll":
        page.keyboard.press("Enter")
    elif kind == "place":
        for _ in range(rng.randint(1, 4)):
            page.keyboard.press(rng.choice(["ArrowRight", "ArrowDown", "ArrowLeft"]))
        assert page.get_attribute("[data-testid=preview] .carpet", "data-squares")
        page.keyboard.press("Enter")
    elif kind == "handover":
        page.keyboard.press("Enter")
        return kind
    else:
        return kind
    wait_version_above(page, before)
    return kind


def panel_numbers(page: Any, seat: int) -> tuple[int, int, int]:
    """(dirhams, carpets, score) shown on a seat's panel."""
    return (
        int(page.inner_text(f"[data-testid=dirhams-{seat}]")),
        int(page.inner_text(f"[data-testid=carpets-{seat}]")),
        int(page.inner_text(f"[data-testid=score-{seat}]")),
    )


class LiveServer:
    """The Marrakech app on uvicorn in a thread, restartable on the same port and file."""

    def __init__(
        self,
        db: Path,
        bot_delay: float = 0.03,
        seed: int = 11,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """``options``: more of :func:`create_app`'s keywords (limits, clocks...)."""
        self.db = db
        self.bot_delay = bot_delay
        self.seed = seed
        self.options = dict(options or {})
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        app = create_app(self.db, bot_delay=self.bot_delay, seed=self.seed, **self.options)
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        server = uvicorn.Server(config)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 15
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        self._server, self._thread, self._sock = server, thread, sock

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.should_exit = True
        assert self._thread is not None
        self._thread.join(timeout=15)
        self._sock.close()
        self._server = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def api(self, method: str, path: str, body: Any = None) -> Any:
        import httpx

        reply = httpx.request(method, self.base + path, json=body, timeout=10)
        reply.raise_for_status()
        return reply.json()


def screenshot_path(name: str, tmp_path: Path) -> Path:
    """Where a documentation screenshot goes: docs/ on request, else the test's tmp."""
    if os.environ.get("MARRAKECH_SCREENSHOTS") == "1":
        return DOCS / name
    return tmp_path / name


#: Limits for test modules that make many games from one address.
ROOMY = Limits(creates_per_minute=600, create_burst=100, games_per_client=200, bots_per_client=400)

#: The smallest side of a control a finger can hit reliably (WCAG 2.5.5), in CSS pixels.
TOUCH_MIN = 44

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def horizontal_overflow(page: Any) -> int:
    """How many pixels the page is wider than the window (0 when nothing scrolls sideways)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def small_controls(page: Any) -> list[str]:
    """Visible buttons, links styled as buttons, selects and inputs under TOUCH_MIN px high
    or wide, described by test id or text, so a failure says which."""
    script = """(min) => {
      const out = [];
      const sel = 'button, a.btn, a.brand, .meta-line a, select, input:not([type=hidden]),'
        + ' .radio-row label';
      for (const found of document.querySelectorAll(sel)) {
        // A checkbox or radio is tapped through its label: the label is the target.
        const boxed = found.matches('input[type=checkbox], input[type=radio]');
        const el = boxed && found.closest('label') ? found.closest('label') : found;
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height) continue;
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || el.closest('[hidden], .sr-only')) continue;
        if (r.height + 0.5 < min || r.width + 0.5 < min) {
          const name = el.dataset.testid || el.id || (el.textContent || '').trim().slice(0, 30)
            || el.getAttribute('aria-label') || el.tagName;
          out.push(`${name} ${Math.round(r.width)}x${Math.round(r.height)}`);
        }
      }
      return out;
    }"""
    return list(page.evaluate(script, TOUCH_MIN))


def touch_turn(page: Any, rng: random.Random) -> str:
    """Do what the page waits for with taps only (a phone): a first tap previews, a
    second one (or the confirm button) sends; return the input handled."""
    kind = wait_input(page)
    before = version(page)
    if kind == "orient":
        choice = rng.choice([b for b in "LSR" if page.locator(f"[data-testid=orient-{b}]").count()])
        page.tap(f"[data-testid=orient-{choice}]")
        # The tap only previews: the facing is drawn, nothing is sent yet.
        page.wait_for_selector("[data-testid=orient-confirm]")
        assert page.get_attribute("[data-testid=facing-preview]", "visibility") == "visible"
        assert version(page) == before
        if rng.random() < 0.5:
            page.tap("[data-testid=orient-confirm]")
        else:
            page.tap(f"[data-testid=orient-{choice}]")
    elif kind == "roll":
        page.tap("[data-testid=roll]")
    elif kind == "place":
        shown = choose_carpet(page, rng, page.tap)
        assert version(page) == before
        if rng.random() < 0.5:
            page.tap("[data-testid=place-confirm]")
        else:
            # A second tap on the carpet shown places it.
            page.tap(f"[data-testid=sq-{shown.split('-')[0]}]")
    elif kind == "handover":
        page.tap("[data-testid=handover-ok]")
        return kind
    else:
        return kind
    wait_version_above(page, before)
    return kind


#: Phone viewports the layout must fit: landscape, and a small portrait screen.
SIDEWAYS = {"width": 844, "height": 390}
SMALL = {"width": 360, "height": 740}


def off_screen(page: Any, testids: list[str]) -> list[str]:
    """Of the elements named by test id, those not wholly inside the window as the page
    stands (not scrolled), each with its box, so a failure says which and where."""
    script = """(ids) => {
      const out = [];
      if (window.scrollY || window.scrollX) out.push(`page scrolled to ${window.scrollY}`);
      for (const id of ids) {
        const el = document.querySelector(`[data-testid="${id}"]`);
        if (!el) { out.push(`${id} missing`); continue; }
        const r = el.getBoundingClientRect();
        if (r.top < -0.5 || r.left < -0.5 || r.bottom > innerHeight + 0.5
            || r.right > innerWidth + 0.5) {
          out.push(`${id} at ${Math.round(r.left)},${Math.round(r.top)}`
            + `-${Math.round(r.right)},${Math.round(r.bottom)}`);
        }
      }
      return out;
    }"""
    return list(page.evaluate(script, testids))


def page_fits(page: Any) -> None:
    """Nothing scrolls sideways: the page, and an open dialog inside itself."""
    assert horizontal_overflow(page) <= 0, f"{page.url}: {horizontal_overflow(page)} px too wide"
    inside = page.evaluate(
        "[...document.querySelectorAll('dialog[open], dialog[open] .table-wrap')]"
        ".map(d => d.scrollWidth - d.clientWidth).reduce((a, b) => Math.max(a, b), 0)"
    )
    assert inside <= 0, f"{page.url}: an open dialog or its table is {inside} px too wide"


def finished_bot_game(server: LiveServer) -> str:
    answer = server.api(
        "POST",
        "/api/games",
        {"players": 3, "seats": [{"kind": "bot", "level": "easy"}] * 3, "first_seat": "random"},
    )
    game_id = str(answer["game_id"])
    deadline = time.monotonic() + 60
    while server.api("GET", f"/api/games/{game_id}")["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish their game"
        time.sleep(0.2)
    return game_id


def analysed(server: LiveServer, game_id: str) -> dict[str, Any]:
    """The analysis of a finished game, once the server's bot workers have made it."""
    deadline = time.monotonic() + 60
    while (answer := server.api("GET", f"/api/games/{game_id}/analysis"))["status"] != "ready":
        assert time.monotonic() < deadline, "the analysis never came"
        time.sleep(0.2)
    return dict(answer["analysis"])


def screens_by_language(
    sizes: list[dict[str, int]], ids: list[str], locales: tuple[str, ...] = ("en-GB", "fr-FR")
) -> list[Any]:
    """``(locale, size)`` parameters for a check run at every screen size in every
    language: each size once in ``make test`` (the languages taking turns), the other
    pairs under ``-m slow`` (CI runs them all), as the lessons are played in French."""
    import pytest

    return [
        pytest.param(
            locale,
            size,
            id=f"{size_id}-{locale}",
            marks=() if (i + j) % len(locales) == 0 else pytest.mark.slow,
        )
        for i, (size, size_id) in enumerate(zip(sizes, ids, strict=True))
        for j, locale in enumerate(locales)
    ]
