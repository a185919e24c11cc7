"""The French page and the language switch; replays stepped by keyboard; records
downloaded and uploaded again."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.helpers import LiveServer, finished_bot_game, keyboard_turn, wait_input

pytestmark = pytest.mark.browser


def test_french_page_and_language_switch(server: LiveServer, new_page: Any) -> None:
    page = new_page(locale="fr-FR")
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=lobby]")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("[data-testid=create]") == "Créer la partie"
    assert "Qui est allé au Maroc" in page.inner_text("[data-testid=lobby]")
    # Every interface string exists in both languages.
    assert page.evaluate("import('/static/js/i18n.js').then(m => m.missingKeys())") == []
    for seat in (1, 2, 3):
        page.select_option(f"[data-testid=seat-level-{seat}]", "easy")
    page.select_option("[data-testid=first-seat]", "0")
    assert page.input_value("[data-testid=game-lang]") == "fr"
    page.click("[data-testid=create]")
    page.wait_for_url("**/g/*#t=*")
    assert wait_input(page) == "orient"
    assert page.inner_text("[data-testid=status]") == "À vous, Rouge"
    keyboard_turn(page, random.Random(7))
    log = page.locator("[data-testid=log] li").all_inner_texts()
    assert log[-1].startswith(("Rouge a tourné Assam", "Rouge a laissé Assam")), log

    # Switching language redraws the page and brings the log in that language.
    page.click("[data-testid=lang-en]")
    page.wait_for_selector("#app[data-welcomes='2']")
    assert wait_input(page) == "roll"
    assert page.inner_text("[data-testid=status]") == "Your turn, Red"
    log = page.locator("[data-testid=log] li").all_inner_texts()
    assert log[-1].startswith(("Red turned Assam", "Red kept Assam")), log
    assert page.get_attribute("html", "lang") == "en"
    # The help lists the keys; '?' opens it.
    page.keyboard.press("?")
    page.wait_for_selector("[data-testid=help-dialog][open]")
    assert "Enter" in page.inner_text("[data-testid=help-keys]")
    page.keyboard.press("Escape")
    page.click("[data-testid=lang-fr]")
    page.wait_for_selector("#app[data-welcomes='3']")
    page.click("[data-testid=help-button]")
    assert "Touches" in page.inner_text("[data-testid=help-dialog]")


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
def test_replay_download_and_upload(server: LiveServer, new_page: Any, tmp_path: Path) -> None:
    game_id = finished_bot_game(server)
    page = new_page(speed="fast")
    page.goto(f"{server.base}/r/{game_id}")
    page.wait_for_selector("#app[data-position='0']")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("#app[data-position='3']")
    assert page.locator("[data-testid=log] li").count() == 3
    assert page.locator("[data-testid=log] li.current").count() == 1
    # The turn that led here is drawn: its carpet outlined, Assam's walk.
    assert page.locator("[data-testid=last-move] .last-placed").count() == 1
    assert page.locator("[data-testid=last-trail]").count() == 1
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#app[data-position='2']")
    # Back before the placement: the walk only.
    assert page.locator("[data-testid=last-move] .last-placed").count() == 0
    assert page.locator("[data-testid=last-trail]").count() == 1
    page.keyboard.press("End")
    last = int(page.get_attribute("[data-testid=replay-slider]", "max") or 0)
    page.wait_for_selector(f"#app[data-position='{last}']")
    assert page.locator("[data-testid=log] li").count() == last
    page.click("[data-testid=replay-result]")
    page.wait_for_selector("[data-testid=end-screen][open]")
    assert page.locator("[data-testid=ranking] tbody tr").count() == 3
    page.keyboard.press("Escape")

    with page.expect_download() as download:
        page.click("[data-testid=replay-download]")
    saved = tmp_path / "record.json"
    download.value.save_as(saved)
    record = json.loads(saved.read_text())
    assert record["format"] == "marrakech-record" and len(record["actions"]) == last

    page.goto(server.base + "/")
    page.set_input_files("[data-testid=upload-file]", str(saved))
    page.click("[data-testid=upload-go]")
    page.wait_for_url("**/r/upload")
    page.wait_for_selector("#app[data-position='0']")
    page.keyboard.press("End")
    page.wait_for_selector(f"#app[data-position='{last}']")
    assert page.locator("[data-testid=log] li").count() == last


def test_a_bad_record_is_explained(server: LiveServer, new_page: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps({"format": "marrakech-record", "version": 1, "players": 3, "actions": ["zz"]})
    )
    page = new_page()
    page.goto(server.base + "/")
    page.set_input_files("[data-testid=upload-file]", str(bad))
    page.click("[data-testid=upload-go]")
    page.wait_for_url("**/r/upload")
    error = page.inner_text("[data-testid=replay-error]")
    assert "could not be read" in error and len(error) > 40


def english_game(server: LiveServer, second: str) -> tuple[str, str]:
    """A game an English host made (its log in English): a bot first, then ``second``
    (``human`` or ``open``); its id and the second seat's link, if any."""
    answer = server.api(
        "POST",
        "/api/games",
        {
            "players": 2,
            "seats": [{"kind": "bot", "level": "easy"}, {"kind": second}],
            "first_seat": 1,
            "lang": "en",
        },
    )
    return str(answer["game_id"]), str(answer["seats"][1].get("link") or "")


def test_a_french_guest_reads_french(server: LiveServer, new_page: Any) -> None:
    _, link = english_game(server, "human")
    page = new_page(locale="fr-FR")
    page.goto(server.base + link)
    assert wait_input(page) == "orient"
    page.wait_for_selector("[data-testid=log] li")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("[data-testid=status]").startswith("À vous")
    # The log comes in the guest's language too, not the host's.
    keyboard_turn(page, random.Random(2))
    assert "Assam" in page.locator("[data-testid=log] li").last.inner_text()
    assert " a " in page.locator("[data-testid=log] li").last.inner_text()
    # A choice made on this browser wins over the browser's language.
    page.click("[data-testid=lang-en]")
    page.wait_for_selector("html[lang=en]")
    page.reload()
    page.wait_for_selector("#app[data-welcomes]")
    assert page.get_attribute("html", "lang") == "en"


def test_a_game_joined_from_the_french_lobby_is_french(server: LiveServer, new_page: Any) -> None:
    game_id, _ = english_game(server, "open")
    page = new_page(locale="en-GB")
    page.goto(server.base + "/")
    page.click("[data-testid=lang-fr]")
    page.click(f"[data-testid=join-{game_id}-1]")
    page.fill("[data-testid=join-name]", "Zoé")
    page.click("[data-testid=join-go]")
    page.wait_for_url(f"**/g/{game_id}#t=*")
    assert wait_input(page) == "orient"
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("[data-testid=status]").startswith("À vous")
