"""Tournaments on the server (issue 37, item 3), on SQLite and PostgreSQL: an arena
created by an account for its friends, joined by four accounts and a bot, paired by
score as games end, ended at its time with its podium; standings derived from the
stored games across a restart; a pairing stored by an instance that died before its
game is created gets its game; one instance pairs a tournament at a time (its lease);
and the refusals (joined twice, after the end, above the rating cap)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech.web.app import create_app
from marrakech.web.limits import ClientRates
from marrakech.web.tournaments.service import Tournaments, _step
from marrakech.web.tournaments.tournament import TournamentSpec
from tests.web.test_accounts import CHEAP, sign_up
from tests.web.test_ratings_api import resign

ARENA = {"name": "Friday arena", "kind": "arena", "minutes": 60, "clock": "blitz"}


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url


class Server:
    """One app on ``database`` (started again on the same one for a restart)."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.client: TestClient | None = None

    def start(self, tick: float = 0.05, **options: Any) -> TestClient:
        app = create_app(
            self.database,
            bot_delay=0,
            seed=1,
            passwords=CHEAP,
            tournament_tick=tick,
            **options,
        )
        self.client = TestClient(app)
        self.client.__enter__()
        # the test reads the tournament's page far more often than people do
        service(self.client).page_rates = ClientRates(100_000, 100_000)
        return self.client

    def stop(self) -> None:
        if self.client is not None:
            self.client.__exit__(None, None, None)
            self.client = None


@pytest.fixture
def server(database: str) -> Iterator[Server]:
    one = Server(database)
    yield one
    one.stop()


def service(client: TestClient) -> Tournaments:
    tournaments = client.app.state.web.tournaments  # type: ignore[attr-defined]
    assert isinstance(tournaments, Tournaments)
    return tournaments


def session(host: TestClient) -> TestClient:
    """Another device on the app: its own cookies, its requests on the app's own event
    loop (where the tournaments' ticks run), as a real server's would be."""
    one = TestClient(host.app)
    one.portal = host.portal
    return one


def players(host: TestClient, *names: str) -> list[TestClient]:
    found = []
    for name in names:
        one = session(host)
        sign_up(one, name)
        found.append(one)
    return found


def until(client: TestClient, tid: str, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The tournament's page once ``done`` holds (the ticks run in the background)."""
    deadline = time.monotonic() + 60
    while True:
        page: dict[str, Any] = client.get(f"/api/tournaments/{tid}").json()
        if done(page):
            return page
        assert time.monotonic() < deadline, page
        time.sleep(0.05)


def resign_my_game(client: TestClient, tid: str) -> None:
    mine = until(client, tid, lambda page: page["my_game"] is not None)["my_game"]
    token = mine["link"].split("#t=")[1]
    resign(client, {"game_id": mine["game_id"]}, mine["seat"], token)


def playing(page: dict[str, Any]) -> int:
    return sum(1 for game in page["games"] if game["places"] is None)


def ended(page: dict[str, Any]) -> int:
    return sum(1 for game in page["games"] if game["places"] is not None)


def test_an_arena_of_four_accounts_and_a_bot_goes_to_its_podium(server: Server) -> None:
    host = server.start()
    ana, bo, cy, di = players(host, "Ana", "Bo", "Cy", "Di")
    guest = session(host)
    refused = guest.post("/api/tournaments", json=ARENA)
    assert refused.status_code == 403 and refused.json()["error"] == "sign_in_required"
    bad = ana.post("/api/tournaments", json={**ARENA, "clock": "none"})
    assert bad.status_code == 400 and "expected one of relaxed" in bad.json()["message"]
    made = ana.post("/api/tournaments", json={**ARENA, "bots": ["easy"]})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    assert made.json()["private"] and made.json()["link"] == f"/t/{tid}"
    # private: joined by its link, never listed
    assert all(one["id"] != tid for one in host.get("/api/tournaments").json())
    for one in (ana, bo, cy, di):
        assert one.post(f"/api/tournaments/{tid}/join").status_code == 204
    twice = bo.post(f"/api/tournaments/{tid}/join")
    assert twice.status_code == 409 and twice.json()["error"] == "already_joined"
    # five entrants, 2-player games: two games, one entrant waits
    page = until(host, tid, lambda page: playing(page) == 2)
    assert page["tournament"]["status"] == "running" and len(page["standings"]) == 5
    # every account resigns its game under way, twice: the bot and the others win
    for rounds in (1, 2):
        for one in (ana, bo, cy, di):
            mine = one.get(f"/api/tournaments/{tid}").json()["my_game"]
            if mine is not None:
                token = mine["link"].split("#t=")[1]
                resign(one, {"game_id": mine["game_id"]}, mine["seat"], token)
        # Both games of the round over (the page may not have heard yet), two new ones.
        until(host, tid, lambda page: ended(page) >= 2 * rounds and playing(page) == 2)  # noqa: B023
    page = host.get(f"/api/tournaments/{tid}").json()
    finished = [game for game in page["games"] if game["places"] is not None]
    assert len(finished) >= 4
    # the standings are the games' places scored (2 a win, 0 a loss, streaks doubled)
    total = sum(line["score"] for line in page["standings"])
    assert total == sum(2 for _ in finished) + sum(
        2 for line in page["standings"] for points in line["sheet"] if points == 4
    )
    # Restarted: the standings come back from the stored games, nothing lost.
    server.stop()
    host = server.start()
    again = until(host, tid, lambda page: len(page["games"]) >= len(finished))
    assert [(line["name"], line["score"]) for line in again["standings"]][:3] == [
        (line["name"], line["score"]) for line in page["standings"]
    ][:3]
    # Its end, as if its hour had passed: games under way still count, then the podium.
    tournaments = service(host)
    portal = host.portal
    assert portal is not None
    stored = portal.call(tournaments.get, tid)
    assert stored is not None
    portal.call(tournaments.step, stored.ends + 1)
    over = host.get(f"/api/tournaments/{tid}").json()
    assert over["tournament"]["status"] == "over"
    late = session(host)
    sign_up(late, "Eve")
    refused = late.post(f"/api/tournaments/{tid}/join")
    assert refused.status_code == 409 and refused.json()["error"] == "tournament_over"
    for one in players_again(host, ana, bo, cy, di):
        mine = one.get(f"/api/tournaments/{tid}").json()["my_game"]
        if mine is not None:
            resign(one, {"game_id": mine["game_id"]}, mine["seat"], mine["link"].split("#t=")[1])
    final = until(host, tid, lambda page: bool(page["podium"]))
    assert final["podium"][0]["rank"] == 1 and len(final["podium"]) >= 3
    assert final["podium"][0]["name"] == final["standings"][0]["name"]
    # results on the profiles
    results = host.get("/api/tournaments/player/Ana").json()
    assert [(one["tournament"]["id"], one["entrants"]) for one in results] == [(tid, 5)]


def players_again(host: TestClient, *clients: TestClient) -> list[TestClient]:
    """The same sessions on the restarted app."""
    found = []
    for one in clients:
        again = session(host)
        again.cookies.update(one.cookies)
        found.append(again)
    return found


def call(host: TestClient, function: Callable[..., Any], *args: Any) -> Any:
    """Run a coroutine function on the app's event loop."""
    portal = host.portal
    assert portal is not None
    return portal.call(function, *args)


def pairings(host: TestClient, tid: str) -> list[dict[str, Any]]:
    tournaments = service(host)
    (rows,) = call(host, tournaments.store.transact, [_step(tournaments.q.pairings, id=tid)])
    return list(rows)


def test_one_instance_pairs_at_a_time_and_a_dead_ones_pairing_gets_its_game(
    server: Server,
) -> None:
    host = server.start(tick=3600)  # no tick in the background: the test ticks
    mine = service(host)
    later = time.time() + 3600
    spec = TournamentSpec(name="Lease", starts=later, minutes=30)
    tid = call(host, mine.create, spec).id
    ana, bo, cy, di = players(host, "Ana", "Bo", "Cy", "Di")
    for one in (ana, bo):
        assert one.post(f"/api/tournaments/{tid}/join").status_code == 204
    call(host, mine.step, later)  # this instance leases it and pairs Ana and Bo
    assert [row["entrants"].count("account:") for row in pairings(host, tid)] == [2]
    other = Tournaments(mine.store, mine.manager, instance="other")
    for one in (cy, di):
        assert one.post(f"/api/tournaments/{tid}/join").status_code == 204
    call(host, other.step, later + 1)  # the lease holds: the other pairs nothing
    assert len(pairings(host, tid)) == 1
    # This instance dies (no more renewal): once its lease ran out the other goes on.
    call(host, other.step, later + mine.lease + 1)
    assert len(pairings(host, tid)) == 2
    # A pairing stored by an instance killed before it created the game: the next
    # tick creates it, its seats the accounts' (each gets the link of its seat).
    cy_id, di_id = (one.get("/api/account").json()["account"]["id"] for one in (cy, di))
    row = {
        "tournament_id": tid,
        "number": 3,
        "game_id": "deadgame0001",
        "round": 0,
        "entrants": f"account:{cy_id} account:{di_id}",
        "bye": False,
        "created": time.time(),
    }
    call(host, other.store.transact, [_step(other.q.insert_pairing, **row)])
    assert host.get("/api/games/deadgame0001").status_code == 404
    call(host, other.step, later + mine.lease + 2)
    assert host.get("/api/games/deadgame0001").status_code == 200
    page = di.get(f"/api/tournaments/{tid}").json()
    assert page["my_game"] is not None and page["joined"]
    # Killed between creating a game and linking its seats to the accounts: linked at
    # the next tick (the seat is the account's: its games, its rating).
    unlink = _step(other.q.link_seat, game_id="deadgame0001", seat=1, account_id=None)
    call(host, other.store.transact, [unlink])

    def unlinked() -> bool:
        view = call(host, other.view, tid)
        return any(pairing.unlinked for pairing in view.pairings)

    assert unlinked()
    call(host, other.step, later + mine.lease + 3)
    assert not unlinked()
    # withdrawn: paired no more, its points kept; withdrawn twice: refused
    assert ana.post(f"/api/tournaments/{tid}/withdraw").status_code == 204
    again = ana.post(f"/api/tournaments/{tid}/withdraw")
    assert again.status_code == 409 and again.json()["error"] == "not_joined"
    assert ana.get(f"/api/tournaments/{tid}").json()["joined"] is False
    unknown = ana.post("/api/tournaments/nosuchthing/join")
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"


def test_a_rating_capped_tournament_refuses_accounts_rated_above_it(server: Server) -> None:
    host = server.start(tick=3600)
    tournaments = service(host)
    capped = call(host, tournaments.create, TournamentSpec("Under 900", minutes=5, max_rating=900))
    listed = [one["id"] for one in host.get("/api/tournaments").json()]
    assert capped.id in listed  # public: in the lobby's list
    (ana,) = players(host, "Ana")
    refused = ana.post(f"/api/tournaments/{capped.id}/join")
    assert refused.status_code == 403 and refused.json()["error"] == "rating_too_high"
    assert "up to 900 at 2 players; yours is 1000" in refused.json()["message"]
    open_one = call(
        host, tournaments.create, TournamentSpec("Under 1500", minutes=5, max_rating=1500)
    )
    assert ana.post(f"/api/tournaments/{open_one.id}/join").status_code == 204


def test_a_swiss_event_plays_its_rounds_with_byes_to_its_podium(server: Server) -> None:
    host = server.start(tick=3600)
    tournaments = service(host)
    starts = time.time() + 3600
    spec = TournamentSpec("Weekly Swiss", kind="swiss", rounds=2, clock="turn_1d", starts=starts)
    tid = call(host, tournaments.create, spec).id
    accounts = players(host, "Ana", "Bo", "Cy")
    for one in accounts:
        assert one.post(f"/api/tournaments/{tid}/join").status_code == 204
    for round_number in (1, 2):
        call(host, tournaments.step, starts + round_number)
        page = host.get(f"/api/tournaments/{tid}").json()
        assert page["round"] == round_number and playing(page) == 1
        call(host, tournaments.step, starts + round_number)  # the round goes on: no new pairing
        assert host.get(f"/api/tournaments/{tid}").json()["round"] == round_number
        for one in accounts:
            mine = one.get(f"/api/tournaments/{tid}").json()["my_game"]
            if mine is not None:
                token = mine["link"].split("#t=")[1]
                resign(one, {"game_id": mine["game_id"]}, mine["seat"], token)
                break
        until(host, tid, lambda page: playing(page) == 0)
    call(host, tournaments.step, starts + 3)
    final = host.get(f"/api/tournaments/{tid}").json()
    assert final["tournament"]["status"] == "over" and final["podium"]
    rows = pairings(host, tid)
    byes = [row["entrants"] for row in rows if row["bye"]]
    assert len(byes) == 2 and byes[0] != byes[1]  # nobody has two byes while others have none
    # every entrant's points: 2 a win or a bye, 0 a loss, no streak
    assert sum(line["score"] for line in final["standings"]) == 2 * len(rows)


def test_an_absent_entrants_stand_in_scores_nothing_for_it(server: Server) -> None:
    # Unrated games keep their places as played; the tournament counts the seats a
    # stand-in finished for last, as rated games do: both away here, they share it.
    host = server.start(blitz_seconds=1)
    tournaments = service(host)
    tid = call(host, tournaments.create, TournamentSpec("Away", minutes=5, rated=False)).id
    ana, bo = players(host, "Ana", "Bo")
    for one in (ana, bo):
        assert one.post(f"/api/tournaments/{tid}/join").status_code == 204
    over = until(host, tid, lambda page: any(game["places"] for game in page["games"]))
    game = next(game for game in over["games"] if game["places"])
    assert game["places"] == [1, 1]
    scores = {line["name"]: line["sheet"][0] for line in over["standings"] if line["sheet"]}
    assert scores == {"Ana": 1, "Bo": 1}
    # Both away: paused (as lichess pauses those who leave), paired no more until they
    # join again.
    paused = until(host, tid, lambda page: all(line["withdrawn"] for line in page["standings"]))
    assert not ana.get(f"/api/tournaments/{tid}").json()["joined"]
    assert len(paused["games"]) == 1
    for one in (ana, bo):
        assert one.post(f"/api/tournaments/{tid}/join").status_code == 204
    until(host, tid, lambda page: len(page["games"]) == 2)


def test_a_swiss_event_too_few_joined_at_its_start_ends_at_once(server: Server) -> None:
    host = server.start(tick=3600)
    tournaments = service(host)
    starts = time.time() + 60
    spec = TournamentSpec("Empty Swiss", kind="swiss", rounds=3, starts=starts)
    tid = call(host, tournaments.create, spec).id
    (ana,) = players(host, "Ana")
    assert ana.post(f"/api/tournaments/{tid}/join").status_code == 204
    call(host, tournaments.step, starts + 1)
    page = host.get(f"/api/tournaments/{tid}").json()
    assert page["tournament"]["status"] == "over" and page["games"] == []
    assert all(one["id"] != tid for one in host.get("/api/tournaments").json())


def test_an_accounts_tournament_never_pairs_its_bots_with_each_other(server: Server) -> None:
    host = server.start(tick=3600)
    tournaments = service(host)
    (ana,) = players(host, "Ana")
    made = ana.post("/api/tournaments", json={**ARENA, "bots": ["easy", "medium"]})
    tid = made.json()["id"]
    call(host, tournaments.step, time.time() + 1)
    assert host.get(f"/api/tournaments/{tid}").json()["games"] == []
    assert ana.post(f"/api/tournaments/{tid}/join").status_code == 204
    call(host, tournaments.step, time.time() + 2)
    games = host.get(f"/api/tournaments/{tid}").json()["games"]
    assert len(games) == 1 and "Ana" in games[0]["names"]
