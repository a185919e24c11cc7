"""Replays and analyses (issue 23): a finished game's are computed once and then served
from a cache (they never change); the others are rate-limited per client."""

from __future__ import annotations

from typing import Any

import pytest

from marrakech.web.limits import Limits
from marrakech.web.routes import api
from tests.web.conftest import TWO_HUMANS, Apps, create_game, finished_game


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The languages of the replays the server built (not served from its cache)."""
    calls: list[str] = []
    build = api.replay

    def counting(record: Any, lang: str) -> Any:
        calls.append(lang)
        return build(record, lang)

    monkeypatch.setattr(api, "replay", counting)
    return calls


def test_a_finished_games_replay_is_built_once_per_language(apps: Apps, built: list[str]) -> None:
    client = apps.start()
    game_id = finished_game(client)["game_id"]
    langs = ["en", "en", "fr", "en"]
    answers = [client.get(f"/api/games/{game_id}/replay?lang={lang}") for lang in langs]
    assert [reply.status_code for reply in answers] == [200] * 4
    assert answers[0].content == answers[1].content == answers[3].content != answers[2].content
    assert built == ["en", "fr"]
    assert "max-age" in answers[1].headers["cache-control"]


def test_replays_are_rate_limited_but_a_cached_one_is_free(apps: Apps, built: list[str]) -> None:
    client = apps.start(limits=Limits(replays_per_minute=1, replay_burst=2))
    live = create_game(client, **TWO_HUMANS)["game_id"]
    over = finished_game(client)["game_id"]
    assert client.get(f"/api/games/{over}/replay").status_code == 200  # built: 1st
    assert client.get(f"/api/games/{live}/replay").status_code == 200  # built: 2nd
    refused = client.get(f"/api/games/{live}/replay")  # a live game's changes: built again
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert "replays and analyses" in refused.json()["message"]
    for _ in range(5):
        assert client.get(f"/api/games/{over}/replay").status_code == 200  # from the cache
    assert built == ["en", "en"]
    upload = client.get(f"/api/games/{over}/record").json()
    assert client.post("/api/replay", json=upload).status_code == 429  # uploads too
