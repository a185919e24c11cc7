"""The recipe "add a rule option" of docs/architecture.md, tried: an option declared in
the core (``RULE_OPTIONS``) with its words (``i18n.RULE_WORDS``) is offered by
``/api/config``, accepted by game creation and written in the game's rules, with no
web code of its own. R31's ``own_cover`` (a real field of ``RuleSet``) stands in for
the new option."""

from __future__ import annotations

import sys

import pytest
from fastapi.testclient import TestClient

from marrakech import i18n, rules
from marrakech.i18n import RuleWords
from marrakech.rules import RULE_OPTIONS, RuleOption, parse_rules
from tests.web.conftest import create_game

NEW = RuleOption("own_cover", "own-cover", "R31")


@pytest.fixture
def new_option(monkeypatch: pytest.MonkeyPatch) -> RuleOption:
    """Declare one more option, as a developer would in ``rules.py`` and ``i18n.py``
    (every module that imported the tuple sees the new one)."""
    declared = (*RULE_OPTIONS, NEW)
    for module in list(sys.modules.values()):
        if getattr(module, "RULE_OPTIONS", None) is RULE_OPTIONS:
            monkeypatch.setattr(module, "RULE_OPTIONS", declared)
    monkeypatch.setitem(rules._OPTION_WORDS, NEW.word, NEW)
    for lang, label in (("en", "Cover your own carpet"), ("fr", "Recouvrir son tapis")):
        words = RuleWords(label, f"{label} (R31).", label)
        monkeypatch.setitem(i18n.RULE_WORDS[lang], NEW.field, words)
    return NEW


def test_r31_a_new_option_is_offered_created_and_named(
    client: TestClient, new_option: RuleOption
) -> None:
    assert parse_rules("standard+own-cover").own_cover
    offered = client.get("/api/config").json()["rule_options"]
    assert [option["word"] for option in offered] == ["orient-last", "own-cover"]
    assert offered[1]["label"] == {"en": "Cover your own carpet", "fr": "Recouvrir son tapis"}
    game = create_game(client, options={"own_cover": True, "orient_last": True})
    listed = client.get(f"/api/games?ids={game['game_id']}").json()[0]
    assert listed["rules"] == "standard+orient-last+own-cover"
    assert listed["options"] == {"orient_last": True, "own_cover": True}
    record = client.get(f"/api/games/{game['game_id']}/record").json()
    assert record["rules"] == "standard+orient-last+own-cover"
