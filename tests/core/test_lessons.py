"""The tutorial's lessons (marrakech.lessons): every lesson played through, both languages."""

from __future__ import annotations

import re

import pytest

from marrakech.i18n import LANGUAGES
from marrakech.lesson_words import FRAME, lesson_words
from marrakech.lessons import LESSONS, LessonError, answer, lesson_by_id, lesson_view

#: The move each lesson asks for (one of the right ones).
RIGHT = {
    "orient": "L",
    "half-turn": "R",
    "die": "r2",
    "arc": "r4",
    "loop-g7": "r3",
    "loop-a1": "r3",
    "tithe": "r1",
    "place": "e4-f4",
    "cover": "d5-e5",
    "dirhams": "L",
    "end": "d5-e5",
    "two-players": "r4",
}
#: A legal move each lesson refuses as the wrong one, and a word of its explanation.
WRONG = {
    "orient": ("R", {"en": "West", "fr": "l’ouest"}),
    "half-turn": ("S", {"en": "4.0 dirhams", "fr": "4.0 dirhams"}),
    "die": ("r1", {"en": "1/6", "fr": "1/6"}),
    "arc": ("r3", {"en": "g4–g3", "fr": "g4–g3"}),
    "loop-g7": ("r2", {"en": "loop", "fr": "boucle"}),
    "loop-a1": ("r2", {"en": "loop", "fr": "boucle"}),
    "tithe": ("r3", {"en": "touch", "fr": "touchent"}),
    "place": ("c3-c4", {"en": "f4", "fr": "f4"}),
    "cover": ("e4-e5", {"en": "two blue halves", "fr": "deux moitiés bleues"}),
    "dirhams": ("S", {"en": "100%", "fr": "100 %"}),
    "end": ("c5-d5", {"en": "Blue 16", "fr": "Bleu 16"}),
    "two-players": ("r2", {"en": "blue", "fr": "bleu"}),
}


def test_every_lesson_has_an_answer_and_cites_its_rules() -> None:
    assert {lesson.id for lesson in LESSONS} == set(RIGHT) == set(WRONG)
    for lesson in LESSONS:
        assert lesson.rules and all(re.fullmatch(r"R\d+", rule) for rule in lesson.rules)
        # Every choice offered is a move the engine knows; the position is valid.
        assert lesson.offered()[: len(lesson.state().legal_actions())] == [
            str(a) for a in lesson.state().legal_actions()
        ]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.id)
def test_the_right_move_is_accepted(lesson: object, lang: str) -> None:
    lesson_id = lesson.id  # type: ignore[attr-defined]
    verdict = answer(lesson_by_id(lesson_id), RIGHT[lesson_id], lang)
    assert verdict.legal and verdict.correct
    assert verdict.message.startswith("Right!" if lang == "en" else "Bravo !")
    assert verdict.happened in verdict.message


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.id)
def test_a_wrong_move_is_refused_with_the_explanation(lesson: object, lang: str) -> None:
    lesson_id = lesson.id  # type: ignore[attr-defined]
    token, word = WRONG[lesson_id]
    verdict = answer(lesson_by_id(lesson_id), token, lang)
    assert verdict.legal and not verdict.correct
    assert word[lang] in verdict.message
    assert verdict.happened and verdict.happened in verdict.message


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_forbidden_try_is_refused_by_the_engine(lang: str) -> None:
    verdict = answer(lesson_by_id("cover"), "d5-d6", lang)
    assert not verdict.legal and not verdict.correct
    assert "d5-e5" in verdict.message  # the engine's legal moves
    assert lesson_words("cover", lang)["refused"] in verdict.message
    under = answer(lesson_by_id("place"), "d4-e4", lang)
    assert not under.legal and lesson_words("place", lang)["refused"] in under.message


def test_exactly_the_asked_moves_are_right() -> None:
    right = {
        lesson.id: sorted(t for t in lesson.offered() if answer(lesson, t).correct)
        for lesson in LESSONS
    }
    assert right == {
        "orient": ["L"],
        "half-turn": ["L", "R"],
        "die": ["r2", "r3"],
        "arc": ["r4"],
        "loop-g7": ["r3"],
        "loop-a1": ["r3"],
        "tithe": ["r1"],
        "place": ["e4-f4"],
        "cover": ["d5-e5"],
        "dirhams": ["L"],
        "end": ["d5-e5"],
        "two-players": ["r1", "r4"],
    }


def test_bad_input_says_what_was_expected() -> None:
    with pytest.raises(LessonError, match=r"expected a lesson id .*found 'nope'"):
        lesson_by_id("nope")
    with pytest.raises(LessonError, match="expected an action token"):
        answer(LESSONS[0], "up")
    with pytest.raises(LessonError, match="expected a language"):
        answer(LESSONS[0], "L", "de")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_view_has_words_position_and_choices(lang: str) -> None:
    view = lesson_view(lesson_by_id("cover"), lang)
    assert view["title"] == lesson_words("cover", lang)["title"]
    assert view["position"]["phase"] == "place"
    assert view["choices"][-1] == "d5-d6"
    assert set(FRAME["en"]) == set(FRAME["fr"])
