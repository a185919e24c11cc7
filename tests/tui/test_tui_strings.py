"""The interface's words: every string table of ``marrakech.tui`` in English and French."""

from __future__ import annotations

import importlib
import pkgutil
import string
from types import ModuleType

import pytest
from textual.binding import Binding

import marrakech.tui
from marrakech.bots import LEVELS
from marrakech.tui.strings import LANGUAGE_NAMES, STRINGS, t

Table = dict[str, dict[str, str]]


def modules() -> list[ModuleType]:
    return [
        importlib.import_module(info.name)
        for info in pkgutil.iter_modules(marrakech.tui.__path__, "marrakech.tui.")
    ]


def is_table(value: object) -> bool:
    """A string table: one ``{key: sentence}`` dict per language code."""
    return (
        isinstance(value, dict)
        and set(value) == set(LANGUAGE_NAMES)
        and all(
            isinstance(words, dict) and all(isinstance(w, str) for w in words.values())
            for words in value.values()
        )
    )


def tables() -> dict[str, Table]:
    """Every string table defined by a module of the terminal app, by qualified name."""
    found: dict[int, tuple[str, Table]] = {}
    for module in modules():
        for name, value in vars(module).items():
            if is_table(value):  # once, where it is defined or first imported
                found.setdefault(id(value), (f"{module.__name__}.{name}", value))
    return dict(found.values())


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_the_string_tables_are_found() -> None:
    assert any(table is STRINGS for table in tables().values())


@pytest.mark.parametrize("name", sorted(tables()))
def test_every_key_is_in_every_language_with_the_same_placeholders(name: str) -> None:
    table = tables()[name]
    english = table["en"]
    for lang, words in table.items():
        assert set(words) == set(english), (lang, set(words) ^ set(english))
        for key, template in words.items():
            assert fields(template) == fields(english[key]), (lang, key)


def test_every_bot_level_has_a_name() -> None:
    for lang in LANGUAGE_NAMES:
        for level in LEVELS:
            assert t(f"level.{level}", lang)


def test_sentences_are_filled_in() -> None:
    assert t("notice.undone", "fr", count=2).startswith("2 actions annulées :")
    assert t("notice.undone", "en", count=1).startswith("Took back 1 action:")
    assert t("setup.start", "en") == "Start" and t("setup.start", "fr") == "Commencer"
    with pytest.raises(KeyError):
        t("no.such.key", "en")
    assert set(STRINGS) == set(LANGUAGE_NAMES)


#: How the help page names Textual's keys, per language; letters are named in capitals,
#: the square letters and numbers as ranges.
KEY_NAMES = {
    "en": {
        "up": "↑", "down": "↓", "left": "←", "right": "→", "space": "Space",
        "enter": "Enter", "tab": "Tab", "shift+tab": "Shift+Tab", "escape": "Esc",
        "question_mark": "?", "f1": "F1", "f2": "F2", "pageup": "PgUp", "pagedown": "PgDn",
        "home": "Home", "end": "End", "minus": "-",
    },
    "fr": {
        "up": "↑", "down": "↓", "left": "←", "right": "→", "space": "Espace",
        "enter": "Entrée", "tab": "Tab", "shift+tab": "Maj+Tab", "escape": "Échap",
        "question_mark": "?", "f1": "F1", "f2": "F2", "pageup": "PgPréc",
        "pagedown": "PgSuiv", "home": "Début", "end": "Fin", "minus": "-",
    },
}  # fmt: skip


def help_name(key: str, lang: str) -> str:
    if key in KEY_NAMES[lang]:
        return KEY_NAMES[lang][key]
    if key.startswith("ctrl+"):
        return "Ctrl+" + key.removeprefix("ctrl+").upper()
    if len(key) == 1 and key.lower() in "abcdefg":  # a capital types the same square
        return "a–g"
    if key in "1234567":
        return "1–7"
    return key.upper()


@pytest.mark.parametrize("lang", sorted(LANGUAGE_NAMES))
def test_the_help_names_every_key_of_the_game_end_and_replay_screens(lang: str) -> None:
    from marrakech.tui.app import MarrakechApp
    from marrakech.tui.dialogs import EndScreen
    from marrakech.tui.game_screen import GameScreen
    from marrakech.tui.replay_screen import ReplayScreen

    text = t("help.body", lang)
    words = set(text.replace("|", " ").replace(",", " ").replace("/", " ").split())
    for screen in (GameScreen, EndScreen, ReplayScreen, MarrakechApp):
        for binding in screen.BINDINGS:
            assert isinstance(binding, Binding)
            for key in binding.key.split(","):
                name = help_name(key, lang)
                assert name in words, (screen.__name__, key, name)
