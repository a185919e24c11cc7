"""The interface's words: every string table of ``marrakech.tui`` in English and French."""

from __future__ import annotations

import importlib
import pkgutil
import string
from types import ModuleType

import pytest

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
