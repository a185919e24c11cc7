"""The tutorial: short lessons, each a position built with the engine and a move to find.

Every interface (``/learn`` on the web, ``marrakech learn`` in the terminal) shows the
same lessons and asks :func:`answer` whether a move is right. Nothing here re-implements a
rule: a lesson's goal is a predicate over what the engine says about the move
(:meth:`State.describe <marrakech.state.State.describe>`, the chance of a roll, the
preview of an orientation, the ranks at the end), and a move the engine refuses is
refused with the engine's own list of legal moves::

    >>> lesson = LESSONS[0]
    >>> lesson.id, lesson.rules
    ('orient', ('R9',))
    >>> answer(lesson, "L", "en").correct
    True
    >>> print(answer(lesson, "R", "en").message)
    Not quite. R does not face him West; West is on his left. Red turned Assam right, to face East.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from marrakech.actions import Action, Orient, parse_action
from marrakech.errors import MarrakechError
from marrakech.events import Event
from marrakech.geometry import FACING_LETTERS, parse_square
from marrakech.i18n import LANGUAGES, colour_name, describe_event, seat_name
from marrakech.lesson_words import lesson_text, lesson_words
from marrakech.preview import OrientPreview, preview_orientations
from marrakech.state import State
from marrakech.views import state_view

#: What a lesson's goal is given: the position, the move tried, and what the engine did.
Goal = Callable[[State, Action, Event], bool]


@dataclass(frozen=True)
class Lesson:
    """One lesson: a position, the rule numbers it teaches, and the goal of the move.

    ``choices`` are extra move tokens an interface offers besides the legal ones, to let
    the player try a move the rules forbid (the engine refuses it).
    """

    id: str
    rules: tuple[str, ...]
    position: str
    goal: Goal
    choices: tuple[str, ...] = ()

    def state(self) -> State:
        """The lesson's position (parsed and checked by the engine)."""
        return State.from_notation(self.position)

    def offered(self) -> list[str]:
        """The move tokens to offer: the legal ones, then the lesson's forbidden tries."""
        state = self.state()
        legal = [str(a) for a in state.legal_actions()]
        return legal + [token for token in self.choices if token not in legal]


@dataclass(frozen=True)
class Verdict:
    """The engine's word on one answer: whether it is legal, whether it is the move asked,
    the sentence to show (the lesson's explanation, then what happened) and, for a legal
    move, the engine's :class:`~marrakech.events.Event` (``event.after`` is the position)."""

    lesson: str
    action: str
    legal: bool
    correct: bool
    message: str
    happened: str
    event: Event | None = None


def _facing_is(letter: str) -> Goal:
    facing = FACING_LETTERS.index(letter)
    return lambda state, action, event: event.facing_after == facing


def _lands(square: str, letter: str | None = None) -> Goal:
    target = parse_square(square)
    facing = None if letter is None else FACING_LETTERS.index(letter)

    def goal(state: State, action: Action, event: Event) -> bool:
        last = event.path[-1] if event.path else None
        return last is not None and last.square == target and facing in (None, last.facing)

    return goal


def _orient_preview(state: State, action: Action) -> OrientPreview:
    return next(o for o in preview_orientations(state) if o.orient == action)


def _no_tithe_expected(state: State, action: Action, event: Event) -> bool:
    return _orient_preview(state, action).expected_tithe == 0


def _never_out(state: State, action: Action, event: Event) -> bool:
    return _orient_preview(state, action).elimination_chance == 0


def _one_in_three(state: State, action: Action, event: Event) -> bool:
    return dict(state.chance_outcomes()).get(action) == Fraction(1, 3)


def _tithe_of(due: int) -> Goal:
    return lambda state, action, event: event.tithe is not None and event.tithe.due == due


def _no_tithe(state: State, action: Action, event: Event) -> bool:
    return event.tithe is None


def _reaches(square: str) -> Goal:
    target = parse_square(square)
    return lambda state, action, event: event.placed is not None and target in event.placed


def _covers(halves: int) -> Goal:
    return lambda state, action, event: len(event.covered) == halves


def _wins(state: State, action: Action, event: Event) -> bool:
    return event.after.winners() == (state.to_move,)


#: The lessons, in the order they are taught (RULES.md numbers).
LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "orient",
        ("R9",),
        "7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - orient:0 standard",
        _facing_is("W"),
    ),
    Lesson(
        "half-turn",
        ("R9",),
        "2BeBw3/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 10,8,10 - - orient:0 standard",
        _no_tithe_expected,
    ),
    Lesson(
        "die", ("R3",), "7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - roll:0 standard", _one_in_three
    ),
    Lesson(
        "arc",
        ("R2", "R10"),
        "7/7/7/7/7/7/7 e4E 30,30,30 10,10,10 - - roll:0 standard",
        _lands("f3"),
    ),
    Lesson(
        "loop-g7",
        ("R2",),
        "7/7/7/7/7/7/7 g5N 30,30,30 10,10,10 - - roll:0 standard",
        _lands("g7", "W"),
    ),
    Lesson(
        "loop-a1", ("R2",), "7/7/7/7/7/7/7 a1W 30,30,30 10,10,10 - - roll:0 standard", _lands("a3")
    ),
    Lesson(
        "tithe",
        ("R11", "R12"),
        "2BeBw3/4BeBw1/3BeBw2/7/7/7/7 d4N 30,30,30 10,7,10 - - roll:0 standard",
        _tithe_of(4),
    ),
    Lesson(
        "place",
        ("R14", "R15"),
        "7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - place:0 standard",
        _reaches("f4"),
        choices=("d4-e4", "f4-g4"),
    ),
    Lesson(
        "cover",
        ("R16", "R17"),
        "7/3BsBs2/3BnBn2/7/7/7/7 d4N 30,30,30 10,8,10 - - place:0 standard",
        _covers(2),
        choices=("d5-d6",),
    ),
    Lesson(
        "dirhams",
        ("R13",),
        "2BeBw3/3Bs3/3Bn3/1BeBw1BeBwBs/6Bn/7/7 d4N 3,30,30 10,5,10 - - orient:0 standard",
        _never_out,
    ),
    Lesson(
        "end",
        ("R19", "R20", "R21"),
        "BeBw4Bs/3BsBs1Bn/Rs2BnBn2/Rn6/YeYw5/Bs6/Bn4ReRw d4N 9,7,2 1,0,0 - - place:0 standard",
        _wins,
    ),
    Lesson(
        "two-players",
        ("R7", "R12"),
        "1ReRwPePw2/3BeBw2/3YeYw2/7/7/7/7 d4N 30,30 11,11,11,11 Y,B - roll:0 standard",
        _no_tithe,
    ),
)

BY_ID: dict[str, Lesson] = {lesson.id: lesson for lesson in LESSONS}


class LessonError(MarrakechError, ValueError):
    """An answer that names no lesson, or a move that is no move token."""


def lesson_by_id(lesson_id: str) -> Lesson:
    """The lesson called ``lesson_id``; a :class:`LessonError` naming the lessons if none."""
    try:
        return BY_ID[lesson_id]
    except KeyError:
        raise LessonError(
            f"expected a lesson id ({', '.join(BY_ID)}), found {lesson_id!r}"
        ) from None


def _chance(state: State, action: Action) -> str:
    probability = dict(state.chance_outcomes()).get(action)
    return "" if probability is None else f"{probability.numerator}/{probability.denominator}"


def _facts(state: State, action: Action, event: Event, lang: str) -> dict[str, object]:
    """Numbers the engine gives about the move, for the lesson's sentences."""
    facts: dict[str, object] = {"move": str(action), "chance": _chance(state, action)}
    if isinstance(action, Orient):
        option = _orient_preview(state, action)
        facts["expected"] = f"{float(option.expected_tithe):.1f}"
        risk = option.elimination_chance
        facts["risk"] = f"{round(100 * risk)}"
    after = event.after
    if after.is_terminal:
        players = after.players
        facts["scores"] = ", ".join(
            lesson_text(
                "score",
                lang,
                seat=seat_name(seat, players, lang),
                score=after.scores()[seat],
                dirhams=after.money[seat],
            )
            for seat in range(players)
        )
        facts["winners"] = ", ".join(seat_name(s, players, lang) for s in after.winners())
    if event.tithe is not None:
        facts["colour"] = colour_name(event.tithe.colour, lang).lower()
    return facts


def answer(lesson: Lesson, token: str, lang: str = "en") -> Verdict:
    """Check the move ``token`` in ``lesson``: the engine applies it (or refuses it), then
    the lesson's goal judges what happened. The message is in ``lang``."""
    if lang not in LANGUAGES:
        raise LessonError(f"expected a language ({', '.join(LANGUAGES)}), found {lang!r}")
    try:
        action = parse_action(token)
    except MarrakechError as error:
        raise LessonError(str(error)) from None
    state = lesson.state()
    words = lesson_words(lesson.id, lang)
    if action not in state.legal_actions():
        legal = ", ".join(str(a) for a in state.legal_actions())
        message = lesson_text("refused", lang, move=str(action), legal=legal)
        return Verdict(lesson.id, str(action), False, False, f"{message} {words['refused']}", "")
    event = state.describe(action)
    happened = describe_event(event, lang)
    correct = lesson.goal(state, action, event)
    facts = _facts(state, action, event, lang)
    explanation = (words["right"] if correct else words["wrong"]).format(**facts)
    lead = lesson_text("right" if correct else "wrong", lang)
    return Verdict(
        lesson.id,
        str(action),
        True,
        correct,
        f"{lead} {explanation} {happened}",
        happened,
        event,
    )


def lesson_view(lesson: Lesson, lang: str = "en") -> dict[str, Any]:
    """What an interface shows of a lesson: its words, rules, position and the moves."""
    words = lesson_words(lesson.id, lang)
    return {
        "id": lesson.id,
        "rules": list(lesson.rules),
        "title": words["title"],
        "prompt": words["prompt"],
        "position": state_view(lesson.state()),
        "choices": lesson.offered(),
    }


__all__ = ["LESSONS", "Lesson", "LessonError", "Verdict", "answer", "lesson_by_id", "lesson_view"]
