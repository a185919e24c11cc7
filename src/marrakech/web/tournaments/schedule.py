"""The schedule file: tournaments created again and again (``marrakech serve
--tournament-schedule FILE``, docs/deploy.md). A TOML file of ``[[tournament]]``
tables, each a :class:`~marrakech.web.tournaments.tournament.TournamentSpec`'s settings and
when it recurs::

    [[tournament]]
    name = "Hourly blitz arena"
    every = "hour"          # hour, day or week
    at = "00"               # an hour's minute; a day's "HH:MM"; a week's "mon HH:MM" (UTC)
    kind = "arena"
    minutes = 45
    clock = "blitz"
    max_rating = 1500       # optional: accounts rated above it may not join

Every instance reads it at start and, every minute, stores each line's next
occurrence (within the hour, day or week to come) under a key made of the line's
name and its start, so that several instances create it once.
"""

from __future__ import annotations

import argparse
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from marrakech.web.tournaments.tournament import TournamentSpec

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SETTINGS = {"name", "kind", "players", "clock", "rules", "minutes", "rounds", "private"}
SETTINGS |= {"rated", "max_rating", "bots"}


@dataclass(frozen=True)
class Recurring:
    """One line of the schedule: a tournament and when it recurs."""

    spec: TournamentSpec
    every: str
    at: str

    def next_start(self, now: float) -> float:
        """The first start of this line at or after ``now`` (UTC)."""
        moment = datetime.fromtimestamp(now, UTC).replace(second=0, microsecond=0)
        if self.every == "hour":
            start = moment.replace(minute=int(self.at))
            step = timedelta(hours=1)
        else:
            day, _, clock = self.at.rpartition(" ")
            hour, minute = (int(part) for part in clock.split(":"))
            start = moment.replace(hour=hour, minute=minute)
            step = timedelta(days=1)
            if self.every == "week":
                start += timedelta(days=(DAYS.index(day) - start.weekday()) % 7)
                step = timedelta(weeks=1)
        while start.timestamp() < now:
            start += step
        return start.timestamp()

    def occurrence(self, now: float) -> TournamentSpec:
        """The next tournament of this line, keyed by its name and start."""
        starts = self.next_start(now)
        key = f"{self.spec.name}@{int(starts)}"
        return TournamentSpec(**{**self.spec.__dict__, "starts": starts, "schedule_key": key})


def _line(number: int, table: dict[str, Any]) -> Recurring:
    where = f"tournament {number}"
    every = table.pop("every", None)
    at = str(table.pop("at", ""))
    if every not in ("hour", "day", "week"):
        raise ValueError(f"{where}: every: expected 'hour', 'day' or 'week', found {every!r}")
    unknown = set(table) - SETTINGS
    if unknown:
        raise ValueError(
            f"{where}: expected settings among {', '.join(sorted(SETTINGS))},"
            f" found {', '.join(sorted(unknown))}"
        )
    if "bots" in table:
        table["bots"] = tuple(table["bots"])
    try:
        spec = TournamentSpec(**table).checked()
        recurring = Recurring(spec, every, at)
        recurring.next_start(0.0)
    except (TypeError, ValueError, IndexError) as error:
        shape = {"hour": "a minute, 00-59", "day": "HH:MM", "week": "mon HH:MM"}[every]
        raise ValueError(f"{where}: {error} (at: expected {shape}, found {at!r})") from None
    return recurring


def read_schedule(path: Path) -> list[Recurring]:
    """The lines of a schedule file; :class:`ValueError` naming the line and what was
    expected for anything wrong in it."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path}: expected a readable TOML file: {error}") from None
    tables = data.get("tournament", [])
    if not isinstance(tables, list) or set(data) - {"tournament"}:
        raise ValueError(f"{path}: expected [[tournament]] tables only, found {sorted(data)}")
    return [_line(number, dict(table)) for number, table in enumerate(tables, 1)]


def add_schedule_option(parser: argparse.ArgumentParser) -> None:
    """``marrakech serve --tournament-schedule FILE``."""
    parser.add_argument(
        "--tournament-schedule",
        type=Path,
        metavar="FILE",
        help="a TOML file of tournaments created again and again (hourly, daily, weekly:"
        " docs/deploy.md)",
    )


def schedule_of(args: argparse.Namespace) -> list[Recurring]:
    """The schedule ``--tournament-schedule`` names (none without it);
    :class:`ValueError` for a bad file."""
    path = getattr(args, "tournament_schedule", None)
    return [] if path is None else read_schedule(path)
