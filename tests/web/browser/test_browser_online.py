"""Online play seen from two browsers: presence, a short turn clock and its stand-in bot,
the host's start / replace / kick, taking a seat back, resigning (R22); the orient
preview against the core's (R9-R13); the lobby's summaries; the replay's turning points."""

from __future__ import annotations

import random
from typing import Any

import pytest

from marrakech.record import GameRecord
from marrakech.views import preview_view
from tests.web.browser.helpers import (
    PHONE,
    ROOMY,
    LiveServer,
    analysed,
    finished_bot_game,
    lobby_form,
    mouse_turn,
    touch_turn,
    version,
    wait_input,
    wait_until,
)

pytestmark = pytest.mark.browser

#: Seconds per turn of the test server's blitz clock: short, so a timeout comes quickly,
#: yet long enough for the host's three clicks of a turn on a loaded machine (with 4 s,
#: a slow page let the host's own time run out and a stand-in took the turn).
BLITZ = 10


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"limits": ROOMY, "blitz_seconds": BLITZ}


def create(server: LiveServer, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {"players": len(seats), "seats": seats, "first_seat": 0, **extra}
    return dict(server.api("POST", "/api/games", body))


def presence(page: Any, seat: int, value: str) -> None:
    page.wait_for_selector(f"[data-testid=presence-{seat}][data-presence={value}]")


def test_orient_preview_is_the_cores(server: LiveServer, new_page: Any) -> None:
    answer = create(
        server,
        [{"kind": "human"}, {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}],
    )
    page = new_page(touch=True, **PHONE)
    page.goto(server.base + answer["seats"][0]["link"])
    rng = random.Random(31)
    turns = 0
    while turns < 3:
        if wait_input(page) == "orient":
            turns += 1
        if turns < 3:
            touch_turn(page, rng)
    # Carpets lie on the board now: the preview the page shows is the core's.
    record = GameRecord.from_dict(server.api("GET", f"/api/games/{answer['game_id']}/record"))
    expected = preview_view(record.final_state())
    for option in expected:
        choice = option["orient"]
        cost = f"{option['expected_tithe']:.1f}".removesuffix(".0")
        assert cost in page.inner_text(f"[data-testid=expected-{choice}]")
        page.tap(f"[data-testid=orient-{choice}]")
        page.wait_for_selector(f"[data-testid=orient-{choice}][aria-pressed=true]")
        rows = page.locator("[data-testid=preview-table] tbody tr")
        assert rows.count() == len(option["rolls"])
        for i, roll in enumerate(option["rolls"]):
            cells = rows.nth(i).locator("td").all_inner_texts()
            assert cells[0] == roll["roll"].removeprefix("r")
            assert cells[2] == roll["landing"]
            assert (str(roll["due"]) in cells[3]) == (roll["due"] > 0)
        landings = page.eval_on_selector_all(
            "[data-testid=board] .landing", "els => els.map(e => e.dataset.square)"
        )
        assert sorted(landings) == sorted({roll["landing"] for roll in option["rolls"]})
    # Nothing was sent while previewing; the confirm button sends the last one shown.
    before = version(page)
    page.tap("[data-testid=orient-confirm]")
    wait_until(page, lambda: version(page) > before, "the facing to be sent")


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_absent_player_clock_stand_in_and_take_back(
    server: LiveServer, new_page: Any, browser: Any
) -> None:
    answer = create(
        server,
        [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}],
        clock="blitz",
    )
    host = new_page(speed="off")
    host.goto(server.base + answer["seats"][0]["link"])
    guest = new_page(speed="off")
    guest.goto(server.base + answer["seats"][1]["link"])
    guest.wait_for_selector("#app[data-welcomes='1']")
    presence(host, 1, "connected")
    assert host.get_attribute("[data-testid=clock]", "data-seat") == "0"
    # Bea closes her page: the host sees her away.
    guest.close()
    presence(host, 1, "away")
    rng = random.Random(41)
    for expected in ("orient", "roll", "place"):
        assert wait_input(host) == expected
        mouse_turn(host, rng)
    # Bea's turn, Bea away: her time runs (the page counts it down) ...
    host.wait_for_selector("[data-testid=clock][data-seat='1']")
    # The clock names the seat whose turn the board and the panels show.
    assert "to-move" in (host.get_attribute("[data-testid=panel-1]", "class") or "")
    first = int(host.get_attribute("[data-testid=clock]", "data-left") or 0)
    assert 0 < first <= BLITZ
    assert "away" in host.inner_text("[data-testid=status]")
    # ... and the host may hand her seat to a bot at once.
    host.select_option("[data-testid=replace-level-1]", "easy")
    host.click("[data-testid=host-replace-1]")
    host.wait_for_selector("[data-testid=stand-in-1]")
    assert "easy" in host.inner_text("[data-testid=stand-in-1]").lower()
    # The stand-in plays Bea's turn; it is Ana's again.
    assert wait_input(host) == "orient"

    # Bea comes back: a bot plays for her; she takes her seat back.
    guest = new_page(speed="off")
    guest.goto(server.base + answer["seats"][1]["link"])
    guest.wait_for_selector("[data-testid=take-back-1]")
    guest.click("[data-testid=take-back-1]")
    guest.wait_for_selector("[data-testid=take-back-1]", state="detached")
    host.wait_for_selector("[data-testid=stand-in-1]", state="detached")
    presence(host, 1, "connected")
    for _ in range(3):
        mouse_turn(host, rng)
    # Bea is here but does nothing: her time runs out and the stand-in plays again.
    guest.wait_for_selector("[data-testid=clock][data-seat='1']")
    assert "Your time" in guest.inner_text("[data-testid=clock]")
    guest.wait_for_selector("[data-testid=take-back-1]", timeout=(BLITZ + 10) * 1000)
    assert "time ran out" in guest.inner_text("[data-testid=notice]").lower()
    assert wait_input(host) == "orient"


def test_resign_asks_first(server: LiveServer, new_page: Any) -> None:
    answer = create(server, [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "easy"}])
    page = new_page()
    page.goto(server.base + answer["seats"][0]["link"])
    assert wait_input(page) == "orient"
    page.click("[data-testid=resign-0]")
    page.wait_for_selector("[data-testid=resign-dialog][open]")
    assert "carpets stay" in page.inner_text("[data-testid=resign-dialog]")
    page.click("[data-testid=resign-cancel]")
    page.wait_for_selector("[data-testid=resign-dialog]", state="detached")
    assert wait_input(page) == "orient"
    page.click("[data-testid=resign-0]")
    page.click("[data-testid=resign-confirm]")
    # One merchant left: the game is over (R19), the resigned seat ranks last (R21, R22).
    page.wait_for_selector("[data-testid=end-screen][open]")
    row = page.locator("[data-testid=ranking] tbody tr").last
    assert row.get_attribute("data-testid") == "rank-row-0"
    assert "resigned" in row.inner_text().lower()


def test_host_waits_kicks_and_starts(server: LiveServer, new_page: Any) -> None:
    host = new_page()
    lobby_form(host, server.base, 3, {1: "open", 2: "open"})
    # An open seat needs the host's name (the lobby shows who hosts).
    host.click("[data-testid=create]")
    assert "name" in host.inner_text("form [role=alert]").lower()
    host.fill("[data-testid=your-name]", "Ana")
    host.click("[data-testid=create]")
    host.wait_for_url("**/g/*#t=*")
    game_id = host.url.split("/g/")[1].split("#")[0]
    host.wait_for_selector("[data-testid=host-start]")
    assert host.inner_text("[data-testid=status]") == "Waiting for players: 2 open seats."

    guest = new_page()
    guest.goto(server.base + "/")
    guest.wait_for_selector(f"[data-testid=who-{game_id}]")
    assert "hosted by Ana" in guest.inner_text(f"[data-testid=who-{game_id}]")
    guest.click(f"[data-testid=join-{game_id}-1]")
    # A name stacking marks on one letter is refused, and the lobby says why ...
    guest.fill("[data-testid=join-name]", "Z" + "\u0301" * 5)
    guest.click("[data-testid=join-go]")
    assert "combining marks" in guest.inner_text("[data-testid=join-error]")
    # ... as is one that looks like the host's, at the same table ...
    guest.fill("[data-testid=join-name]", "ANA")
    guest.click("[data-testid=join-go]")
    guest.wait_for_selector("[data-testid=join-error]:has-text('looks like it')")
    # ... while joiners (an emoji family, a Persian name) are welcome.
    family = "Zoé \U0001f469\u200d\U0001f469\u200d\U0001f467"
    guest.fill("[data-testid=join-name]", family)
    guest.click("[data-testid=join-go]")
    guest.wait_for_url(f"**/g/{game_id}#t=*")
    presence(host, 1, "connected")
    assert family in host.inner_text("[data-testid=panel-1]")
    # Zoé leaves before the start: the host opens her seat again.
    guest.close()
    host.click("[data-testid=host-kick-1]")
    presence(host, 1, "open")
    assert host.inner_text("[data-testid=status]") == "Waiting for players: 2 open seats."
    # The host starts: bots take the open seats, and play begins with seat 0.
    host.select_option("[data-testid=start-level]", "easy")
    host.click("[data-testid=host-start]")
    assert wait_input(host) == "orient"
    assert "Bot (easy)" in host.inner_text("[data-testid=panel-1]")
    assert "Bot (easy)" in host.inner_text("[data-testid=panel-2]")


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_lobby_tells_what_you_join(server: LiveServer, new_page: Any) -> None:
    waiting = create(
        server,
        [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "hard"}, {"kind": "open"}],
        clock="relaxed",
        orient_last=True,
    )
    page = new_page()
    page.goto(server.base + "/")
    who = f"[data-testid=who-{waiting['game_id']}]"
    page.wait_for_selector(who)
    text = page.inner_text(f"[data-testid=open-games] li[data-game='{waiting['game_id']}']")
    for words in ("hosted by Ana", "2 of 3 seats taken", "1 open", "bots: hard", "Relaxed"):
        assert words in text, (words, text)
    assert "end of the turn" in text  # the rule set says Assam turns last (R32)

    # A game played here: its turn number counts player turns, not actions.
    playing = create(server, [{"kind": "human"}, {"kind": "bot", "level": "easy"}])
    game = new_page()
    game.goto(server.base + playing["seats"][0]["link"])
    rng = random.Random(51)
    for _ in range(6):  # two turns of Red's: orient, roll, place twice
        mouse_turn(game, rng)
    assert wait_input(game) == "orient"
    summary = server.api("GET", f"/api/games/{playing['game_id']}")
    assert summary["turn"] < summary["version"]
    game.goto(server.base + "/")
    progress = game.inner_text(f"[data-testid=progress-{playing['game_id']}]")
    assert f"turn {summary['turn']}" in progress and f"turn {summary['version']}" not in progress


def test_created_with_orient_last_and_a_clock(server: LiveServer, new_page: Any) -> None:
    page = new_page(locale="fr-FR")
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    page.check("[data-testid=players-3]")
    for seat in (1, 2):
        page.select_option(f"[data-testid=seat-level-{seat}]", "easy")
    page.select_option("[data-testid=first-seat]", "0")
    # The clocks offered say this server's seconds per turn.
    options = page.locator("[data-testid=clock] option").all_inner_texts()
    assert f"Blitz : {BLITZ} s par tour" in options, options
    page.select_option("[data-testid=clock]", "relaxed")
    page.check("[data-testid=orient-last]")
    page.click("[data-testid=create]")
    page.wait_for_url("**/g/*#t=*")
    # R32: the first player rolls at once; Assam is turned after the placement.
    assert wait_input(page) == "roll"
    assert "fin de tour" in page.inner_text("[data-testid=rules-label]")
    assert "tranquille" in page.inner_text("[data-testid=clock-mode]").lower()
    rng = random.Random(61)
    mouse_turn(page, rng)
    assert wait_input(page) == "place"
    mouse_turn(page, rng)
    assert wait_input(page) == "orient"
    assert "joueur suivant" in page.inner_text("[data-testid=controls]")


def test_replay_jumps_to_the_turning_points(server: LiveServer, new_page: Any) -> None:
    game_id = finished_bot_game(server)
    swings = analysed(server, game_id)["swings"]
    assert swings
    page = new_page()
    page.goto(f"{server.base}/r/{game_id}")
    page.wait_for_selector("[data-testid=swings]")
    assert page.locator("[data-testid=swings] button").count() == len(swings)
    target = swings[0]["version"]
    page.click(f"[data-testid=swing-{target}]")
    page.wait_for_selector(f"#app[data-position='{target}']")
    page.click("[data-testid=replay-last]")
    page.click("[data-testid=replay-result]")
    page.wait_for_selector("[data-testid=end-charts]")
    assert page.locator("[data-testid=chart-chances] .chart-line").count() == 3
