"""The tutorial's API (/api/lessons): every lesson through the server, in both languages."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from marrakech.lessons import LESSONS
from tests.core.test_lessons import RIGHT, WRONG
from tests.web.conftest import JSON


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_lesson_is_played_through_the_api(client: TestClient, lang: str) -> None:
    listed = client.get(f"/api/lessons?lang={lang}").json()
    assert [lesson["id"] for lesson in listed["lessons"]] == [lesson.id for lesson in LESSONS]
    assert listed["words"]["title"] == ("Learn to play" if lang == "en" else "Apprendre à jouer")
    for lesson in listed["lessons"]:
        assert lesson["rules"] and lesson["prompt"] and lesson["position"]["notation"]
        url = f"/api/lessons/{lesson['id']}/answer?lang={lang}"
        wrong = client.post(url, json={"move": WRONG[lesson["id"]][0]}, headers=JSON)
        assert wrong.status_code == 200
        assert wrong.json()["legal"] and not wrong.json()["correct"]
        assert WRONG[lesson["id"]][1][lang] in wrong.json()["message"]
        right = client.post(url, json={"move": RIGHT[lesson["id"]]}, headers=JSON).json()
        assert right["correct"] and right["after"]["notation"] and right["event"]["action"]


def test_a_forbidden_move_is_refused_by_the_engine(client: TestClient) -> None:
    answer = client.post(
        "/api/lessons/cover/answer?lang=fr", json={"move": "d5-d6"}, headers=JSON
    ).json()
    assert not answer["legal"] and answer["after"] is None
    assert "jamais permis" in answer["message"]


def test_bad_answers_say_what_was_expected(client: TestClient) -> None:
    unknown = client.post("/api/lessons/nope/answer", json={"move": "L"}, headers=JSON)
    assert unknown.status_code == 404 and "expected a lesson id" in unknown.json()["message"]
    bad_move = client.post("/api/lessons/orient/answer", json={"move": "up"}, headers=JSON)
    assert bad_move.status_code == 400 and "expected an action token" in bad_move.json()["message"]
    no_move = client.post("/api/lessons/orient/answer", json={}, headers=JSON)
    assert no_move.status_code == 400 and "move" in no_move.json()["message"]
    bad_lang = client.get("/api/lessons?lang=de")
    assert bad_lang.status_code == 400 and "expected 'en' or 'fr'" in bad_lang.json()["message"]
    form = client.post("/api/lessons/orient/answer", content=b"move=L")
    assert form.status_code == 415


def test_the_learn_page_is_served(client: TestClient) -> None:
    page = client.get("/learn")
    assert page.status_code == 200 and "<html" in page.text.lower()
