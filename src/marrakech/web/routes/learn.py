"""The tutorial's API (``/learn``): the lessons with their positions and words, and the
engine's word on an answer (:mod:`marrakech.lessons`; the page never judges a move).

``GET /api/lessons?lang=fr`` lists the lessons; ``POST /api/lessons/{id}/answer?lang=fr``
with ``{"move": "L"}`` answers ``{"legal", "correct", "message", "after"}``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from marrakech.lesson_words import FRAME
from marrakech.lessons import LESSONS, LessonError, answer, lesson_by_id, lesson_view
from marrakech.views import event_view, state_view
from marrakech.web.http_protocol import read_json_body
from marrakech.web.protocol import ApiError, StrictModel, parse_body
from marrakech.web.routes.api import check_lang

router = APIRouter(prefix="/api")


class LessonAnswer(StrictModel):
    """``POST /api/lessons/{id}/answer``: the move tried, as an action token."""

    move: str = Field(min_length=1, max_length=12)


@router.get("/lessons")
async def lessons(lang: str = "en") -> dict[str, Any]:
    """Every lesson in teaching order, with the tutorial's frame words, in ``lang``."""
    check_lang(lang)
    return {"words": FRAME[lang], "lessons": [lesson_view(lesson, lang) for lesson in LESSONS]}


@router.post("/lessons/{lesson_id}/answer")
async def lesson_answer(request: Request, lesson_id: str, lang: str = "en") -> dict[str, Any]:
    """The engine's verdict on one move of a lesson (a refused move is not an error)."""
    check_lang(lang)
    body = parse_body(LessonAnswer, await read_json_body(request))
    try:
        lesson = lesson_by_id(lesson_id)
    except LessonError as error:
        raise ApiError(404, "not_found", str(error)[:200]) from None
    try:
        verdict = answer(lesson, body.move, lang)
    except LessonError as error:
        raise ApiError(400, "bad_request", str(error)) from None
    event = verdict.event
    return {
        "lesson": verdict.lesson,
        "move": verdict.action,
        "legal": verdict.legal,
        "correct": verdict.correct,
        "message": verdict.message,
        "after": None if event is None else state_view(event.after),
        "event": None if event is None else event_view(event),
    }
