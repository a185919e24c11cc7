"""Words for players: every English string has its French twin, with the same blanks."""

from __future__ import annotations

import string

import pytest

from marrakech import i18n


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def test_languages_are_english_and_french() -> None:
    assert i18n.LANGUAGES == ("en", "fr")
    for table in (i18n._TEXT, i18n.COLOURS, i18n.FACINGS):
        assert set(table) == set(i18n.LANGUAGES)


def test_every_sentence_exists_in_both_languages_with_the_same_blanks() -> None:
    english, french = i18n._TEXT["en"], i18n._TEXT["fr"]
    assert set(english) == set(french)
    for key, text in english.items():
        assert placeholders(text) == placeholders(french[key]), key
        assert french[key].strip() and french[key] != text, key  # translated, not copied


@pytest.mark.parametrize("table", [i18n.COLOURS, i18n.FACINGS])
def test_word_lists_match_in_length(table: dict[str, tuple[str, ...]]) -> None:
    assert len(table["en"]) == len(table["fr"]) == 4
    assert all(word.strip() for words in table.values() for word in words)


def test_every_rule_set_and_option_has_words_in_every_language() -> None:
    from marrakech.i18n import LANGUAGES, rule_option_words, rule_set_words
    from marrakech.rules import NAMED_RULE_SETS, RULE_OPTIONS

    for lang in LANGUAGES:
        for name in NAMED_RULE_SETS:
            words = rule_set_words(name, lang)
            assert words.label and words.help and words.short
        for option in RULE_OPTIONS:
            words = rule_option_words(option.field, lang)
            assert words.label and words.help and words.short
    assert rule_set_words("bga", "fr") != rule_set_words("bga", "en")
