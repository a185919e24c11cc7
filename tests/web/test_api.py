"""The HTTP API and the pages (docs/web-protocol.md): lobby, join, records, replays."""

from __future__ import annotations

import json
import logging
import random
from dataclasses import fields
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from marrakech import State, bots, random_game
from marrakech.record import GameRecord
from marrakech.rules import NAMED_RULE_SETS, PLAYER_COUNTS, RULE_OPTIONS
from marrakech.views import rim_view
from marrakech.web.limits import Limits
from marrakech.web.protocol import (
    MAX_BODY_BYTES,
    GameSummary,
    HttpError,
    JoinedSeat,
    PageConfig,
    Replay,
)
from tests.web.conftest import JSON, Apps, Conn, create_game, seat_token


def test_create_answers_links_for_each_human_seat(client: TestClient) -> None:
    game = create_game(
        client,
        players=4,
        rules="bga",
        seats=[
            {"kind": "human", "name": "Zoé"},
            {"kind": "bot", "level": "hard"},
            {"kind": "open"},
            {"kind": "human"},
        ],
        first_seat="random",
        lang="fr",
    )
    game_id = game["game_id"]
    assert len(game_id) >= 12
    seats = game["seats"]
    assert [s["kind"] for s in seats] == ["human", "bot", "open", "human"]
    for seat in (seats[0], seats[3]):
        assert len(seat["token"]) >= 32
        assert seat["link"] == f"/g/{game_id}#t={seat['token']}"  # in the fragment
    assert "token" not in seats[1] and "token" not in seats[2]
    assert seats[0]["token"] != seats[3]["token"]
    assert game["spectator_link"] == f"/g/{game_id}"
    assert game["replay_link"] == f"/r/{game_id}"
    summary = client.get(f"/api/games/{game_id}").json()
    assert summary["status"] == "waiting" and summary["open_seats"] == [2]
    assert summary["lang"] == "fr" and summary["rules"] == "bga"
    assert 0 <= summary["first_seat"] < 4
    assert summary["seats"][0] == {
        "seat": 0,
        "kind": "human",
        "level": None,
        "name": "Zoé",
        "presence": "away",
        "stand_in": None,
        "resigned": False,
        "host": True,
        "hints": 0,
        "external": False,
    }
    assert summary["hints"] is True  # hints are allowed unless the creator turns them off
    assert summary["host"] == "Zoé" and summary["taken"] == 3 and summary["turn"] == 0
    assert summary["seats"][1]["level"] == "hard"
    assert "token" not in json.dumps(summary) and "hash" not in json.dumps(summary)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"players": 5, "seats": []}, "players: expected 2, 3 or 4"),
        ({"players": 3, "seats": [{"kind": "human"}] * 2}, "expected 3 seats"),
        ({"players": 2, "seats": [{"kind": "human"}, {"kind": "robot"}]}, "seats[1].kind"),
        (
            {"players": 2, "seats": [{"kind": "human", "level": "easy"}, {"kind": "bot"}]},
            "level is for bot seats only",
        ),
        (
            {"players": 2, "seats": [{"kind": "bot", "level": "godlike"}] * 2},
            "seats[0].level: expected 'easy', 'learned', 'medium', 'hard' or 'expert' "
            "(found 'godlike')",
        ),
        ({"players": 2, "seats": [{"kind": "human"}] * 2, "rules": "chess"}, "rules"),
        ({"players": 2, "seats": [{"kind": "human"}] * 2, "first_seat": 2}, "first_seat"),
        ({"players": 2, "seats": [{"kind": "human"}] * 2, "lang": "de"}, "lang"),
        ({"players": 2, "seats": [{"kind": "human", "name": "x" * 41}] * 2}, "at most 40"),
        ({"players": 2, "seats": [{"kind": "human"}] * 2, "extra": 1}, "extra: unexpected"),
        ({"players": "2", "seats": [{"kind": "human"}] * 2}, "players"),
    ],
)
def test_create_refuses_bad_requests_clearly(
    client: TestClient, body: dict[str, object], expected: str
) -> None:
    reply = client.post("/api/games", json=body)
    assert reply.status_code == 400
    error = reply.json()
    assert error["error"] == "bad_request"
    assert expected in error["message"], error["message"]


def test_create_refuses_non_json_and_huge_bodies(client: TestClient) -> None:
    reply = client.post("/api/games", content=b"players=2", headers=JSON)
    assert reply.status_code == 400 and "expected a JSON object" in reply.json()["message"]
    reply = client.post("/api/games", content=b"[" * (MAX_BODY_BYTES + 1), headers=JSON)
    assert reply.status_code == 413 and reply.json()["error"] == "too_large"


def test_join_an_open_seat_and_the_lobby(client: TestClient) -> None:
    game = create_game(
        client, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    )
    game_id = game["game_id"]
    listed = client.get("/api/games/open").json()
    assert [g["game_id"] for g in listed] == [game_id]
    assert listed[0]["open_seats"] == [1, 2]
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        reply = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bea"})
        assert reply.status_code == 200, reply.text
        joined = reply.json()
        assert joined["seat"] == 1 and joined["link"] == f"/g/{game_id}#t={joined['token']}"
        message = red.receive()  # everyone connected learns who sits where
        assert message["type"] == "game"
        assert message["game"]["seats"][1] == {
            "seat": 1,
            "kind": "human",
            "level": None,
            "name": "Bea",
            "presence": "away",
            "stand_in": None,
            "resigned": False,
            "host": False,
            "hints": 0,
            "external": False,
        }
    taken = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bea"})
    assert taken.status_code == 409 and taken.json()["error"] == "seat_taken"
    assert (
        client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Bea"}).status_code
        == 409
    )
    assert (
        client.post(f"/api/games/{game_id}/join", json={"seat": 3, "name": "Bea"}).status_code
        == 400
    )
    assert (
        client.post("/api/games/nosuchgame/join", json={"seat": 1, "name": "Bea"}).status_code
        == 404
    )
    # The new token opens seat 1.
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        assert Conn(ws, [joined["token"]]).you == [1]
    client.post(f"/api/games/{game_id}/join", json={"seat": 2, "name": "Cy"})
    assert client.get("/api/games/open").json() == []
    assert client.get(f"/api/games/{game_id}").json()["status"] == "playing"


def test_the_page_config_has_the_registry_levels_and_the_rim(client: TestClient) -> None:
    reply = client.get("/api/config")
    config = PageConfig.model_validate_json(reply.text, strict=True)
    assert config.levels == list(bots.LEVELS) and config.default_level in config.levels
    assert config.rim == rim_view()
    assert config.clocks == {
        "none": 0,
        "relaxed": 180,
        "blitz": 30,
        # Turn-based (issue 25): an hour, 12 hours, a day, 3 days per move.
        "turn_1h": 3600,
        "turn_12h": 43200,
        "turn_1d": 86400,
        "turn_3d": 259200,
    }


def test_the_page_config_publishes_the_per_client_limits(client: TestClient) -> None:
    """A page or a load test can keep within what one address may ask (issue 23)."""
    limits = client.get("/api/config").json()["limits"]
    assert {field.name for field in fields(Limits)} <= set(limits)
    assert limits["sockets_per_client"] == Limits().sockets_per_client
    assert limits["messages_per_second"] > 0 and limits["message_burst"] >= 1


def test_the_page_config_declares_rule_sets_options_players_and_colours(
    client: TestClient,
) -> None:
    """The form is built from the core's declaration (R4, R32), not a copy in the page."""
    config = client.get("/api/config").json()
    assert config["players"] == list(PLAYER_COUNTS)
    assert [rule_set["name"] for rule_set in config["rule_sets"]] == list(NAMED_RULE_SETS)
    assert [option["word"] for option in config["rule_options"]] == [
        option.word for option in RULE_OPTIONS
    ]
    orient_last = config["rule_options"][0]
    assert orient_last["name"] == "orient_last" and orient_last["rule"] == "R32"
    assert orient_last["label"]["fr"] == "Tourner Assam à la fin du tour"
    assert set(config["palette"]) == {"R", "B", "Y", "P"}


@pytest.mark.parametrize(
    "spec", [{"options": {"orient_last": True}}, {"orient_last": True}], ids=["options", "field"]
)
def test_r32_a_game_created_with_an_option_says_so_by_name(
    client: TestClient, spec: dict[str, Any]
) -> None:
    game = create_game(client, rules="bga", **spec)
    listed = client.get(f"/api/games?ids={game['game_id']}").json()[0]
    assert listed["rules"] == "bga+orient-last"
    assert listed["rule_set"] == "bga" and listed["options"] == {"orient_last": True}


def test_an_unknown_rule_option_is_refused_with_the_known_ones(client: TestClient) -> None:
    reply = client.post(
        "/api/games",
        json={"players": 2, "seats": [{"kind": "human"}] * 2, "options": {"spin": True}},
    )
    assert reply.status_code == 400
    assert "orient_last" in reply.json()["message"] and "spin" in reply.json()["message"]


def test_the_page_config_has_this_servers_clocks(apps: Apps) -> None:
    client = apps.start(relaxed_seconds=600, blitz_seconds=10, turn_scale=0.001)
    config = client.get("/api/config").json()
    assert config["clocks"] == {
        "none": 0,
        "relaxed": 600,
        "blitz": 10,
        "turn_1h": 4,
        "turn_12h": 43,
        "turn_1d": 86,
        "turn_3d": 259,
    }


def test_every_answer_validates_against_its_type(client: TestClient) -> None:
    game = create_game(  # checks the answer against CreatedGame
        client, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "bot"}]
    )
    game_id = game["game_id"]
    summaries = TypeAdapter(list[GameSummary])
    answers: list[tuple[httpx.Response, TypeAdapter[Any]]] = [
        (client.get(f"/api/games?ids={game_id}"), summaries),
        (client.get("/api/games/open"), summaries),
        (client.get(f"/api/games/{game_id}"), TypeAdapter(GameSummary)),
        (
            client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bea"}),
            TypeAdapter(JoinedSeat),
        ),
        (client.get(f"/api/games/{game_id}/replay"), TypeAdapter(Replay)),
        (
            client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bea"}),
            TypeAdapter(HttpError),
        ),
        (client.post("/api/games", content=b"[]", headers=JSON), TypeAdapter(HttpError)),
        (client.get("/api/games/nosuchgame"), TypeAdapter(HttpError)),
        (client.delete("/api/games"), TypeAdapter(HttpError)),
    ]
    for reply, answer in answers:
        assert reply.headers["content-type"] == "application/json"
        answer.validate_json(reply.text, strict=True)


def test_your_games_by_ids(client: TestClient) -> None:
    ids = [create_game(client)["game_id"] for _ in range(3)]
    reply = client.get("/api/games", params={"ids": f"{ids[2]},nosuch,{ids[0]},bad id!"})
    assert [g["game_id"] for g in reply.json()] == [ids[2], ids[0]]
    assert client.get("/api/games").json() == []
    too_many = ",".join(["x"] * 51)
    assert client.get("/api/games", params={"ids": too_many}).status_code == 400


def test_record_download_and_replay(client: TestClient) -> None:
    game = create_game(client, players=2)
    game_id = game["game_id"]
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        red.act(0, "L")
        red.until(lambda c: c.version == 3)
    reply = client.get(f"/api/games/{game_id}/record")
    assert reply.headers["content-type"] == "application/json"
    assert f'filename="marrakech-{game_id}.json"' in reply.headers["content-disposition"]
    record = GameRecord.from_json(reply.text)
    assert len(record.actions) == 3 and str(record.actions[2]) == "L"
    assert record.meta["game_id"] == game_id
    replay = client.get(f"/api/games/{game_id}/replay", params={"lang": "fr"}).json()
    assert replay["record"] == record.to_dict()
    assert len(replay["states"]) == 4 and len(replay["events"]) == len(replay["log"]) == 3
    assert replay["states"][3]["phase"] == "roll"
    assert replay["log"][2] == "Rouge-Jaune a tourné Assam à gauche, face à l’ouest."
    assert client.get(f"/api/games/{game_id}/replay?lang=xx").status_code == 400
    assert client.get("/api/games/nosuchgame/record").status_code == 404
    assert client.get("/api/games/nosuchgame/replay").json()["error"] == "not_found"


def test_uploaded_record_is_replayed_as_data(client: TestClient) -> None:
    _, actions = random_game(State.new(players=4), random.Random(2))
    record = GameRecord.from_actions(
        State.new(players=4),
        actions,
        seats=["<script>alert(1)</script>", "bot:mcts", "Ève", "human"],
        meta={"note": "<img src=x onerror=alert(1)>"},
    )
    reply = client.post("/api/replay?lang=en", content=record.to_json(), headers=JSON)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/json"
    replay = reply.json()
    assert replay["record"]["seats"][0] == "<script>alert(1)</script>"  # data, untouched
    assert len(replay["states"]) == len(actions) + 1
    assert replay["states"][-1]["notation"] == record.final_state().notation()
    # The log names players as the panels do; a bot or "human" by its colour.
    assert any(line.startswith("Ève (Yellow) ") for line in replay["log"])
    assert any(line.startswith("Blue ") for line in replay["log"])
    # Turns counted as the lobby counts them: one per seat's go, not one per action.
    turns = replay["turns"]
    assert len(turns) == len(replay["states"]) and turns[0] == 1
    assert all(b - a in (0, 1) for a, b in pairwise(turns))
    mover_changes = sum(a["turn"] != b["turn"] for a, b in pairwise(replay["states"]))
    assert turns[-1] <= mover_changes + 1 < len(actions)
    assert replay["events"][-1]["game_over"] is True


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"not json", "expected a JSON game record"),
        (b'{"format": "pgn"}', '"format"'),
        (
            b'{"format": "marrakech-record", "version": 1, "players": 3, "rules": "standard",'
            b' "first_seat": 0, "actions": ["L", "r2", "a1-a2"]}',
            "record action 3 (a1-a2)",
        ),
        (
            b'{"format": "marrakech-record", "version": 1, "players": 3, "rules": "standard",'
            b' "first_seat": 0, "actions": ["L", "zz"]}',
            "action 2",
        ),
    ],
)
def test_bad_uploaded_records_say_where(client: TestClient, body: bytes, expected: str) -> None:
    reply = client.post("/api/replay", content=body, headers=JSON)
    assert reply.status_code == 400
    assert reply.json()["error"] == "bad_record"
    assert expected in reply.json()["message"], reply.json()["message"]


def test_pages_and_static_files(apps: Apps, tmp_path: Path) -> None:
    static = tmp_path / "static"
    (static / "js").mkdir(parents=True)
    (static / "index.html").write_text("<!doctype html><title>page</title>", encoding="utf-8")
    (static / "js" / "app.js").write_text("export {};", encoding="utf-8")
    client = apps.start(static_dir=static)
    for path in ("/", "/g/abc123", "/r/abc123", "/r/upload"):
        reply = client.get(path)
        assert reply.status_code == 200, path
        assert reply.text == "<!doctype html><title>page</title>"
        policy = reply.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert reply.headers["referrer-policy"] == "no-referrer"
    script = client.get("/static/js/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/static/../app.py").status_code == 404
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


def test_missing_page_files_are_reported(apps: Apps, tmp_path: Path) -> None:
    client = apps.start(static_dir=tmp_path / "nowhere")
    reply = client.get("/")
    assert reply.status_code == 503 and "index.html" in reply.text


def test_tokens_never_reach_the_logs_or_the_database(
    client: TestClient, caplog: pytest.LogCaptureFixture, db_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    game = create_game(
        client, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "bot"}]
    )
    joined = client.post(
        f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": "Bea"}
    ).json()
    secrets = [seat_token(game, 0), joined["token"]]
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, secrets)
        red.act(0, "L")
        red.until(lambda c: c.version == 1)
    stored = b"".join(
        path.read_bytes() for path in db_path.parent.iterdir() if path.name.startswith("games")
    )
    for token in secrets:
        assert token
        assert token not in caplog.text
        assert token.encode() not in stored


def test_debug_logs_of_websocket_frames_are_hidden() -> None:
    from marrakech.web.security import HideFrames

    def record(level: int, msg: str) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.error", level, __file__, 1, msg, ("x",), None)

    hide = HideFrames()
    assert not hide.filter(record(logging.DEBUG, "< TEXT %s"))  # a hello frame: tokens
    assert not hide.filter(record(logging.DEBUG, "> TEXT %s"))
    assert hide.filter(record(logging.DEBUG, "= connection is %s"))
    assert hide.filter(record(logging.INFO, "< odd but not a frame %s"))
