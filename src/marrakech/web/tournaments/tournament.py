"""What a tournament is: the settings its creator gives (:class:`TournamentSpec`,
checked with a clear refusal for each bad one) and the stored tournament
(:class:`Tournament`)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from marrakech.errors import MarrakechError
from marrakech.rules import parse_rules
from marrakech.web.protocol.client import LEVEL_PLAYERS, ClockMode

Kind = Literal["arena", "swiss"]
Status = Literal["scheduled", "running", "over"]
#: The clocks a tournament may use: every clock but ``none`` (a game without one
#: could hold its players, and the tournament, for ever).
CLOCKS: tuple[str, ...] = tuple(mode for mode in get_args(ClockMode) if mode != "none")
#: The longest arena, in minutes (a week), and the most rounds of a Swiss event.
MAX_MINUTES = 7 * 24 * 60
MAX_ROUNDS = 30
#: The longest name.
MAX_NAME = 60


@dataclass(frozen=True)
class TournamentSpec:
    """A new tournament: an ``arena`` of ``minutes`` from ``starts`` (epoch seconds),
    or a ``swiss`` event of ``rounds``; its games of ``players`` (2 to 4) with
    ``clock`` and ``rules``. ``bots``: bot levels that play as entrants; ``max_rating``:
    the highest rating shown an account may join with; ``private``: listed nowhere,
    joined by its link; ``creator``: the account that made it ('' for the operator
    and the schedule); ``schedule_key``: the schedule's line it comes from."""

    name: str
    kind: Kind = "arena"
    players: int = 2
    clock: str = "blitz"
    rules: str = "standard"
    starts: float = 0.0
    minutes: int = 0
    rounds: int = 0
    private: bool = False
    rated: bool = True
    max_rating: int | None = None
    bots: tuple[str, ...] = ()
    creator: str = ""
    schedule_key: str | None = None

    def checked(self) -> TournamentSpec:
        """This spec, or :class:`ValueError` saying what was expected and found."""
        name = " ".join(self.name.split())
        if not 1 <= len(name) <= MAX_NAME:
            raise ValueError(f"name: expected 1 to {MAX_NAME} characters, found {len(name)}")
        if self.kind not in ("arena", "swiss"):
            raise ValueError(f"kind: expected 'arena' or 'swiss', found {self.kind!r}")
        if self.players not in (2, 3, 4):
            raise ValueError(f"players: expected 2, 3 or 4, found {self.players}")
        if self.clock not in CLOCKS:
            raise ValueError(f"clock: expected one of {', '.join(CLOCKS)}, found {self.clock!r}")
        try:
            rules = parse_rules(self.rules).token()
        except MarrakechError as error:
            raise ValueError(f"rules: {error}") from None
        if self.kind == "arena" and not 1 <= self.minutes <= MAX_MINUTES:
            raise ValueError(f"minutes: expected 1 to {MAX_MINUTES}, found {self.minutes}")
        if self.kind == "swiss" and not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds: expected 1 to {MAX_ROUNDS}, found {self.rounds}")
        for level in self.bots:
            if self.players not in LEVEL_PLAYERS.get(level, ()):
                known = [lvl for lvl, counts in LEVEL_PLAYERS.items() if self.players in counts]
                raise ValueError(
                    f"bots: expected levels playing {self.players} players"
                    f" ({', '.join(known)}), found {level!r}"
                )
        if len(set(self.bots)) != len(self.bots):
            raise ValueError(f"bots: expected each level once, found {' '.join(self.bots)}")
        if self.max_rating is not None and not 0 < self.max_rating < 10_000:
            raise ValueError(f"max_rating: expected 1 to 9999, found {self.max_rating}")
        starts = self.starts or time.time()
        return TournamentSpec(
            name,
            self.kind,
            self.players,
            self.clock,
            rules,
            starts,
            self.minutes if self.kind == "arena" else 0,
            self.rounds if self.kind == "swiss" else 0,
            self.private,
            self.rated,
            self.max_rating,
            self.bots,
            self.creator,
            self.schedule_key,
        )


@dataclass(frozen=True)
class Tournament:
    """A stored tournament (the ``tournaments`` row)."""

    id: str
    name: str
    kind: Kind
    players: int
    clock: str
    rules: str
    starts: float
    ends: float
    rounds: int
    status: Status
    private: bool
    rated: bool
    max_rating: int | None
    bots: tuple[str, ...]
    creator: str
    secret: str
    created: float
    ended: float

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Tournament:
        return cls(
            id=row["id"],
            name=row["name"],
            kind=row["kind"],
            players=row["players"],
            clock=row["clock"],
            rules=row["rules"],
            starts=row["starts"],
            ends=row["ends"],
            rounds=row["rounds"],
            status=row["status"],
            private=bool(row["private"]),
            rated=bool(row["rated"]),
            max_rating=row["max_rating"],
            bots=tuple(row["bots"].split()),
            creator=row["creator"],
            secret=row["secret"],
            created=row["created"],
            ended=row["ended"],
        )
