"""The learned level on the web: a bot seat may be the shipped policy of the game's
player count (2 and 4 players), and a game it cannot play (3 players) is refused when
it is created or started, with the counts it plays, never in the middle of the game."""

from __future__ import annotations

import random
import time

import pytest
from fastapi.testclient import TestClient

from marrakech import bots
from marrakech.bots import policy
from marrakech.record import GameRecord
from marrakech.web import bot_workers
from marrakech.web.protocol import PageConfig
from marrakech.web.ratings import bot_seeds, shown
from tests.web.conftest import Apps, Conn, create_game, seat_token
from tests.web.test_accounts import CHEAP, sign_up
from tests.web.test_play import play_to_end
from tests.web.test_ratings_api import resign
from tests.web.test_seats import seat_of, until_reason

#: What a game of three with the learned level is refused with.
REFUSED = "the learned level plays 2- or 4-player games only, found 3 players"


def test_the_page_config_says_the_player_counts_of_each_level(client: TestClient) -> None:
    config = PageConfig.model_validate_json(client.get("/api/config").text, strict=True)
    assert config.levels == ["easy", "learned", "medium", "hard", "expert"]  # weakest first
    assert config.level_players == {
        "easy": [2, 3, 4],
        "learned": [2, 4],
        "medium": [2, 3, 4],
        "hard": [2, 3, 4],
        "expert": [2, 3, 4],
    }


def test_a_two_player_game_with_the_learned_bot_plays_to_the_end(client: TestClient) -> None:
    game = create_game(
        client,
        players=2,
        seats=[{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "learned"}],
    )
    game_id = game["game_id"]
    assert game["seats"][1] == {"seat": 1, "kind": "bot", "level": "learned"}
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws0,
        client.websocket_connect(f"/ws/{game_id}") as ws_watch,
    ):
        red, watcher = Conn(ws0, [seat_token(game, 0)]), Conn(ws_watch)
        assert seat_of(red.game, 1)["level"] == "learned"
        play_to_end({0: red}, watcher, {1}, random.Random(5))
        for conn in (red, watcher):
            conn.until(lambda c: c.over)
    assert watcher.state["phase"] == "over" and watcher.state["winners"]
    record = GameRecord.from_json(client.get(f"/api/games/{game_id}/record").text)
    assert record.seats == ("Ana", "bot:learned")
    assert record.final_state().is_terminal
    # The bot's decisions are the shipped two-player policy's, move for move.
    policy, state = bots.make_bot("policy-2p"), record.initial_state()
    decided = 0
    for action in record.actions:
        if state.to_move == 1:
            assert policy.choose(state, random.Random(0)) == action
            decided += 1
        state = state.apply(action)
    # Game ids are random, so are the dice: a random human may go broke early, but only
    # on a carpet the bot placed, so the bot has oriented and placed at least once.
    assert decided >= 2


def test_four_learned_bots_play_a_four_player_game(client: TestClient) -> None:
    game = create_game(
        client,
        players=4,
        seats=[{"kind": "human"}] + [{"kind": "bot", "level": "learned"}] * 3,
    )
    with (
        client.websocket_connect(f"/ws/{game['game_id']}") as ws0,
        client.websocket_connect(f"/ws/{game['game_id']}") as ws_watch,
    ):
        red, watcher = Conn(ws0, [seat_token(game, 0)]), Conn(ws_watch)
        red.send({"type": "resign", "seat": 0})  # the three bots play on alone (R22)
        watcher.until(lambda c: c.over)
    assert watcher.state["phase"] == "over"
    assert len(watcher.log) > 100  # the bots played on to the end, not only the resignation


def test_three_players_with_the_learned_level_are_refused_at_creation(
    client: TestClient,
) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "level": "learned"}, {"kind": "bot"}]
    reply = client.post("/api/games", json={"players": 3, "seats": seats})
    assert reply.status_code == 400
    assert reply.json()["error"] == "bad_request"
    assert f"seats[1].level: {REFUSED}" in reply.json()["message"]
    three = {"players": 3, "seats": [{"kind": "human"}] * 3, "stand_in_level": "learned"}
    reply = client.post("/api/games", json=three)
    assert reply.status_code == 400 and f"stand_in_level: {REFUSED}" in reply.json()["message"]
    assert client.get("/api/games/open").json() == []  # nothing was created


def test_the_host_cannot_start_or_replace_with_the_learned_level_at_three(
    client: TestClient,
) -> None:
    game = create_game(
        client,
        players=3,
        seats=[{"kind": "human", "name": "Ana"}, {"kind": "open"}, {"kind": "human"}],
    )
    game_id = game["game_id"]
    with client.websocket_connect(f"/ws/{game_id}") as ws0:
        red = Conn(ws0, [seat_token(game, 0)])
        red.send({"type": "start", "level": "learned"})
        assert red.expect_error("bad_message")["message"] == f"level: {REFUSED}"
        red.send({"type": "start", "level": "easy"})
        until_reason(red, "started")
        red.send({"type": "replace", "seat": 2, "level": "learned"})  # seat 2 is away
        assert red.expect_error("bad_message")["message"] == f"level: {REFUSED}"
        red.send({"type": "replace", "seat": 2, "level": "medium"})
        assert seat_of(until_reason(red, "replaced", 2)["game"], 2)["stand_in"] == "medium"


def test_the_host_starts_a_two_player_game_with_the_learned_level(client: TestClient) -> None:
    game = create_game(
        client, players=2, seats=[{"kind": "human", "name": "Ana"}, {"kind": "open"}]
    )
    with client.websocket_connect(f"/ws/{game['game_id']}") as ws0:
        red = Conn(ws0, [seat_token(game, 0)])
        red.send({"type": "start", "level": "learned"})
        assert seat_of(until_reason(red, "started")["game"], 1)["level"] == "learned"


def test_a_rated_game_with_the_learned_bot_rates_it_from_its_count_seed(apps: Apps) -> None:
    """The learned level is rated like the others, on the same scale, from a seed of
    its own at each player count (another policy each: scripts/bot_ratings.py); it has
    no rating at three players, where it does not play."""
    seeds2, seeds4 = bot_seeds(2), bot_seeds(4)
    assert seeds2["easy"].mu < seeds2["learned"].mu < seeds2["medium"].mu  # the ladder
    assert seeds4["easy"].mu < seeds4["learned"].mu < seeds4["medium"].mu
    assert seeds2["learned"] != seeds4["learned"] and "learned" not in bot_seeds(3)
    ana = apps.start(passwords=CHEAP, leaderboard_min_games=1)
    sign_up(ana, "Ana")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "learned"}]
    game = create_game(ana, players=2, rated=True, seats=seats)
    resign(ana, game, 0, seat_token(game, 0))  # the bot wins
    deadline = time.monotonic() + 20
    while ana.get(f"/api/games/{game['game_id']}").json()["status"] != "over":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    bots2 = {bot["level"]: bot for bot in ana.get("/api/leaderboard?players=2").json()["bots"]}
    assert list(bots2) == ["easy", "learned", "medium", "hard", "expert"]
    assert bots2["learned"]["games"] == 1
    assert bots2["learned"]["rating"] > shown(seeds2["learned"])  # it won from its seed
    bots3 = ana.get("/api/leaderboard?players=3").json()["bots"]
    assert [bot["level"] for bot in bots3] == ["easy", "medium", "hard", "expert"]
    bots4 = {bot["level"]: bot for bot in ana.get("/api/leaderboard?players=4").json()["bots"]}
    assert bots4["learned"] == {"level": "learned", "rating": shown(seeds4["learned"]), "games": 0}
    profile = ana.get("/api/players/ana").json()
    assert profile["plays_like"] in bots2


def test_a_bot_worker_reads_the_learned_policies_when_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not at the first decision of a game: a worker loads each level's bot at each
    player count it plays (here in this process, as a fresh worker process does)."""
    monkeypatch.setattr(policy, "_SHIPPED_CACHE", {})
    monkeypatch.setattr(bot_workers, "_WORKER_BOTS", {})
    bot_workers._warm_worker()
    assert set(policy._SHIPPED_CACHE) == {"policy-2p", "policy-4p"}
