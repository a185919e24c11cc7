"""Tournaments created by the operator (issue 37, item 3): ``marrakech admin
tournament`` on the server's database, and the schedule file read at start
(``marrakech serve --tournament-schedule``), each occurrence stored once however
many instances read it; bad settings refused, naming the line and what was expected."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from marrakech.web.app import create_app
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.store.worker import StoreWorker
from marrakech.web.tournaments.schedule import read_schedule, schedule_of
from marrakech.web.tournaments.service import Tournaments
from tests.web.test_moderation import admin_ok, admin_refused

SCHEDULE = """
[[tournament]]
name = "Hourly blitz arena"
every = "hour"
at = "00"
minutes = 45

[[tournament]]
name = "Weekly turn-based Swiss"
every = "week"
at = "mon 18:00"
kind = "swiss"
rounds = 5
clock = "turn_1d"
players = 3

[[tournament]]
name = "Under 1200"
every = "day"
at = "20:30"
minutes = 30
max_rating = 1200
bots = ["easy"]
"""
#: Wednesday 2026-12-02 17:10 UTC.
NOW = datetime(2026, 12, 2, 17, 10, tzinfo=UTC).timestamp()


def utc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%a %Y-%m-%d %H:%M")


def test_the_schedule_files_lines_recur_hourly_daily_weekly(tmp_path: Path) -> None:
    path = tmp_path / "schedule.toml"
    path.write_text(SCHEDULE)
    hourly, weekly, daily = read_schedule(path)
    assert utc(hourly.next_start(NOW)) == "Wed 2026-12-02 18:00"
    assert utc(weekly.next_start(NOW)) == "Mon 2026-12-07 18:00"
    assert utc(daily.next_start(NOW)) == "Wed 2026-12-02 20:30"
    spec = weekly.occurrence(NOW)
    assert spec.kind == "swiss" and spec.players == 3 and spec.clock == "turn_1d"
    assert spec.schedule_key == f"Weekly turn-based Swiss@{int(weekly.next_start(NOW))}"
    assert daily.spec.max_rating == 1200 and daily.spec.bots == ("easy",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[[tournament]]\nname = "A"\nevery = "month"', "tournament 1: every: expected 'hour'"),
        ('[[tournament]]\nname = "A"\nevery = "hour"\nat = "75"\nminutes = 5', "expected a minute"),
        (
            '[[tournament]]\nname = "A"\nevery = "week"\nat = "someday 18:00"\nminutes = 5',
            "expected mon HH:MM",
        ),
        ('[[tournament]]\nname = "A"\nevery = "day"\nat = "10:00"', "minutes: expected 1 to"),
        (
            '[[tournament]]\nname = "A"\nevery = "day"\nat = "1:00"\nminutes = 5\nclock = "none"',
            "clock: expected one of relaxed",
        ),
        ('[[tournament]]\nname = "A"\nevery = "day"\nprize = 5', "found prize"),
        ("[other]\n", "expected [[tournament]] tables only"),
        ("not toml [", "expected a readable TOML file"),
    ],
)
def test_a_bad_schedule_is_refused_naming_what_was_expected(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "schedule.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=expected.replace("[", r"\[")):
        read_schedule(path)


def test_serve_reads_the_schedule_option(tmp_path: Path) -> None:
    from marrakech.cli import build_parser

    path = tmp_path / "schedule.toml"
    path.write_text(SCHEDULE)
    assert schedule_of(build_parser().parse_args(["serve"])) == []
    args = build_parser().parse_args(["serve", "--tournament-schedule", str(path)])
    assert schedule_of(args)[0].spec.name == "Hourly blitz arena"


def test_every_instance_reading_the_schedule_stores_each_occurrence_once(tmp_path: Path) -> None:
    path = tmp_path / "schedule.toml"
    path.write_text(SCHEDULE)
    schedule = read_schedule(path)
    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(db, tournament_schedule=schedule)) as client:
        deadline = time.monotonic() + 30
        while len(listed := client.get("/api/tournaments").json()) < 3:  # the first tick
            assert time.monotonic() < deadline, listed
            time.sleep(0.05)
        names = sorted(one["name"] for one in listed)
        assert names == ["Hourly blitz arena", "Under 1200", "Weekly turn-based Swiss"]

    async def second_instance() -> int:
        store = StoreWorker.over(SQLiteStore(str(db)))
        try:
            other = Tournaments(store, schedule=schedule, instance="other")
            await other.step()
            return len(await other.listed())
        finally:
            await store.close()

    assert asyncio.run(second_instance()) == 3


@pytest.mark.slow  # over 7 s: make test-slow runs it (CI too)
@pytest.mark.e2e  # marrakech admin's own processes
def test_the_operator_creates_and_lists_tournaments(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(db)):
        pass  # the schema, as a server made it
    said = admin_ok(db, "tournament", "create", "Friday arena", "--minutes", "30", "--in", "5")
    assert said.startswith("created arena 'Friday arena', starting ")
    link = said.split()[-1]
    said = admin_ok(
        db,
        *("tournament", "create", "Weekly Swiss", "--kind", "swiss", "--rounds", "4"),
        *("--clock", "turn_1d", "--starts", "2031-01-06T18:00Z", "--bot", "medium", "--private"),
    )
    assert "starting 2031-01-06T18:00:00Z" in said
    listed = admin_ok(db, "tournament", "list")
    assert link in listed and "Weekly Swiss  (private)" in listed
    refused = admin_refused(db, "tournament", "create", "Long", "--minutes", "100000")
    assert "minutes: expected 1 to 10080, found 100000" in refused
    refused = admin_refused(db, "tournament", "create", "X", "--players", "3", "--bot", "learned")
    assert "bots: expected levels playing 3 players" in refused
    with TestClient(create_app(db)) as client:
        page = client.get(f"/api/tournaments/{link.removeprefix('/t/')}").json()
        assert page["tournament"]["name"] == "Friday arena"


def test_serve_refuses_a_bad_schedule_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from marrakech.cli import main

    path = tmp_path / "schedule.toml"
    path.write_text('[[tournament]]\nname = "A"\nevery = "month"\n')
    db = tmp_path / "games.sqlite3"
    assert main(["serve", "--db", str(db), "--tournament-schedule", str(path)]) == 2
    said = capsys.readouterr().err
    assert "marrakech serve: tournament 1: every: expected 'hour', 'day' or 'week'" in said
    assert not db.exists()  # refused before anything was made
