"""Tournaments running on the server: created, joined, paired, ended (docs/web.md,
"Tournaments").

Every instance runs :meth:`Tournaments.run`: every ``tick`` seconds it takes the lease
of each tournament that is due (``tournaments.owner``, renewed while it pairs, as a
room's owner is), so only one instance pairs a tournament at a time; another takes
it over once the lease runs out (an instance killed with ``kill -9``). Nothing is
kept in memory between two ticks: the entrants, the pairings and the games' places
are read from the store, the standings derived from them
(:mod:`marrakech.web.tournaments.scoring`), so a restart or a takeover goes on where
the store is.

A pairing is stored before its game is created (``tournament_games``, numbered: two
instances cannot store the same number); a pairing whose game is missing (the
instance died in between) gets its game at the next tick.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from marrakech.web.limits import ClientRates
from marrakech.web.protocol import DEFAULT_LEVEL, ApiError
from marrakech.web.ratings import START, Rating, ranks_with_leavers, shown
from marrakech.web.room_manager import RoomManager, new_game_id
from marrakech.web.store import GameStore, SeatRow, Step, StoreConflict, hash_token
from marrakech.web.store.queries import Statement
from marrakech.web.store.tournament_queries import TournamentQueries
from marrakech.web.tournaments.matching import arena_pairs, swiss_round
from marrakech.web.tournaments.schedule import Recurring
from marrakech.web.tournaments.scoring import GameResult, Standing, standings
from marrakech.web.tournaments.tournament import Tournament, TournamentSpec

log = logging.getLogger("marrakech.web")

#: Seconds between two ticks, and a lease's length.
TICK_SECONDS = 1.0
LEASE_SECONDS = 5.0
#: Seconds between two readings of the schedule's next occurrences.
SCHEDULE_SECONDS = 60.0
#: Tournament pages an address may read a minute (each open page reads its own every
#: 3 s: a few tabs, or a few players behind one address), and in a burst.
PAGES_PER_MINUTE = 240
PAGE_BURST = 60


def _step(statement: Statement, **values: Any) -> Step:
    return statement.sql, statement.params(values)


def leavers_last(places: list[int], leavers: list[int]) -> tuple[int, ...]:
    """A finished game's places as a tournament counts them: the seats a stand-in
    played for at the end (their player was away) last, sharing that place, as a
    rated game ranks them already (:func:`~marrakech.web.ratings.ranks_with_leavers`;
    the same places again for a rated game), so an absent entrant scores nothing from
    its stand-in's play.

    >>> leavers_last([1, 2], []), leavers_last([1, 2], [0]), leavers_last([1, 2], [0, 1])
    ((1, 2), (2, 1), (1, 1))
    """
    return tuple(ranks_with_leavers(places, leavers))


def bot_entrant(level: str) -> str:
    return f"bot:{level}"


def is_bot(entrant: str) -> bool:
    return entrant.startswith("bot:")


def account_entrant(account_id: str) -> str:
    return f"account:{account_id}"


@dataclass(frozen=True)
class Entry:
    """One entrant: ``account:ID`` or ``bot:LEVEL``, its name, whether it is paired."""

    entrant: str
    name: str
    joined: float
    active: bool


@dataclass(frozen=True)
class Pairing:
    """A stored pairing and, once created, its game's places (None until it is over)."""

    number: int
    game_id: str
    round: int
    entrants: tuple[str, ...]
    bye: bool
    created: bool
    places: tuple[int, ...] | None
    #: Created, but an account's seat is not linked to it (its instance died between
    #: creating the game and linking its seats): linked at the next tick.
    unlinked: bool = False
    #: Once over: the entrants a stand-in finished for (away), and when it ended.
    away: tuple[str, ...] = ()
    ended: float = 0.0

    def result(self) -> GameResult:
        return GameResult(self.entrants, self.places, self.number, self.round, self.bye)


@dataclass(frozen=True)
class TournamentView:
    """A tournament as its page shows it: the stored row, its entrants, its pairings
    and the standings derived from them."""

    tournament: Tournament
    entries: list[Entry]
    pairings: list[Pairing]
    table: list[Standing]

    @property
    def round(self) -> int:
        return max((pairing.round for pairing in self.pairings), default=0)

    def names(self) -> dict[str, str]:
        return {entry.entrant: entry.name for entry in self.entries}


class Tournaments:
    """The tournaments of a store; ``manager`` (a server's rooms) creates their games
    (without one, as ``marrakech admin`` has, they are created and read, never run)."""

    def __init__(
        self,
        store: GameStore,
        manager: RoomManager | None = None,
        *,
        instance: str | None = None,
        tick: float = TICK_SECONDS,
        lease: float = LEASE_SECONDS,
        schedule: Sequence[Recurring] = (),
    ) -> None:
        self.manager = manager
        self.store = store
        self.q = TournamentQueries("postgresql" if self.store.dialect == "postgresql" else "sqlite")
        self.instance = instance or secrets.token_hex(6)
        self.tick = tick
        self.lease = lease
        self._task: asyncio.Task[None] | None = None
        #: The tournament pages read per address (GET /api/tournaments/{id}).
        self.page_rates = ClientRates(PAGES_PER_MINUTE, PAGE_BURST)
        #: The schedule file's lines (``--tournament-schedule``), and when their next
        #: occurrences were last stored.
        self.schedule = list(schedule)
        self._scheduled = 0.0
        #: Told of an entrant's first game in a tournament (the tournament, the game and
        #: the entrant's seat): "your tournament starts" pushed to a player whose pages
        #: are closed (:mod:`marrakech.web.reminders.game_ready_push`).
        self.first_game: Callable[[str, str, int], Awaitable[object]] | None = None

    # -- creating and reading ---------------------------------------------------------

    async def create(self, spec: TournamentSpec) -> Tournament | None:
        """Store a new tournament (:class:`ValueError` for a bad spec); None if one of
        the same ``schedule_key`` is stored already."""
        spec = spec.checked()
        tournament_id = new_game_id()
        values = {
            "id": tournament_id,
            "name": spec.name,
            "kind": spec.kind,
            "players": spec.players,
            "clock": spec.clock,
            "rules": spec.rules,
            "starts": spec.starts,
            "ends": spec.starts + spec.minutes * 60 if spec.kind == "arena" else 0.0,
            "rounds": spec.rounds,
            "private": spec.private,
            "rated": spec.rated,
            "max_rating": spec.max_rating,
            "bots": " ".join(spec.bots),
            "creator": spec.creator,
            "schedule_key": spec.schedule_key,
            "secret": secrets.token_hex(32),
            "created": time.time(),
        }
        steps = [_step(self.q.insert, **values)]
        steps += [
            _step(
                self.q.insert_entry,
                tournament_id=tournament_id,
                entrant=bot_entrant(level),
                name=level,
                joined=values["created"],
            )
            for level in spec.bots
        ]
        try:
            (created, *_) = await self.store.transact(steps)
        except StoreConflict:
            return None  # the same schedule_key
        if not created:
            return None
        return await self.get(tournament_id)

    async def get(self, tournament_id: str) -> Tournament | None:
        (rows,) = await self.store.transact([_step(self.q.one, id=tournament_id)])
        return Tournament.from_row(rows[0]) if rows else None

    async def listed(self, limit: int = 20, private: bool = False) -> list[Tournament]:
        """The public (or private) tournaments not over yet, the soonest first."""
        (rows,) = await self.store.transact([_step(self.q.listed, private=private, limit=limit)])
        return [Tournament.from_row(row) for row in rows]

    async def view(self, tournament_id: str) -> TournamentView | None:
        """A tournament with its entrants, pairings and standings (None: no such one)."""
        one, entries, pairings, places = await self.store.transact(
            [
                _step(self.q.one, id=tournament_id),
                _step(self.q.entries, id=tournament_id),
                _step(self.q.pairings, id=tournament_id),
                _step(self.q.places, id=tournament_id),
            ]
        )
        if not one:
            return None
        tournament = Tournament.from_row(one[0])
        seats: dict[str, dict[int, dict[str, Any]]] = {}
        for row in places:
            seats.setdefault(row["game_id"], {})[row["seat"]] = row
        listed = []
        for row in pairings:
            game_id = row["game_id"]
            entrants = tuple(row["entrants"].split())
            known = seats.get(game_id, {})
            result = None
            if known and all(
                seat in known and known[seat]["status"] == "over" and known[seat]["place"]
                for seat in range(len(entrants))
            ):
                result = leavers_last(
                    [int(known[seat]["place"]) for seat in range(len(entrants))],
                    [seat for seat in range(len(entrants)) if known[seat]["stand_in"]],
                )
            unlinked = any(
                entrant.startswith("account:") and seat in known and not known[seat]["account_id"]
                for seat, entrant in enumerate(entrants)
            )
            away = tuple(
                entrant
                for seat, entrant in enumerate(entrants)
                if result is not None and known[seat]["stand_in"]
            )
            ended = float(known[0]["updated"]) if result is not None else 0.0
            listed.append(
                Pairing(
                    row["number"],
                    game_id,
                    row["round"],
                    entrants,
                    bool(row["bye"]),
                    bool(row["bye"]) or bool(known),
                    result,
                    unlinked,
                    away,
                    ended,
                )
            )
        listed_entries = [
            Entry(row["entrant"], row["name"], row["joined"], bool(row["active"]))
            for row in entries
        ]
        table = standings(
            [entry.entrant for entry in listed_entries],
            [pairing.result() for pairing in listed],
            players=tournament.players,
            streaks=tournament.kind == "arena",
        )
        return TournamentView(tournament, listed_entries, listed, table)

    async def results(self, account_id: str) -> list[tuple[TournamentView, int, int, int]]:
        """An account's last ten tournaments over: each with its rank, score and the
        number of entrants."""
        entrant = account_entrant(account_id)
        (rows,) = await self.store.transact([_step(self.q.entered, entrant=entrant, limit=10)])
        found = []
        for row in rows:
            view = await self.view(row["id"])
            line = (
                next((one for one in view.table if one.entrant == entrant), None) if view else None
            )
            if view is not None and line is not None:
                found.append((view, line.rank, line.score, len(view.table)))
        return found

    # -- entrants -----------------------------------------------------------------------

    async def join(self, tournament_id: str, account_id: str, name: str) -> None:
        """Enter an account (again, after it withdrew); :class:`ApiError` if the
        tournament is over, the account is in it already or rated above its cap."""
        tournament = await self.get(tournament_id)
        if tournament is None:
            raise ApiError(404, "not_found", f"no tournament {tournament_id}")
        if tournament.status == "over":
            raise ApiError(409, "tournament_over", "this tournament is over: nobody joins it now")
        if tournament.max_rating is not None:
            (rows,) = await self.store.transact(
                [_step(self.q.rating, account_id=account_id, players=tournament.players)]
            )
            rating = Rating(rows[0]["mu"], rows[0]["sigma"]) if rows else START
            if shown(rating) > tournament.max_rating:
                raise ApiError(
                    403,
                    "rating_too_high",
                    f"this tournament is for ratings up to {tournament.max_rating} at"
                    f" {tournament.players} players; yours is {shown(rating)}",
                )
        entrant = account_entrant(account_id)
        (inserted,) = await self.store.transact(
            [
                _step(
                    self.q.insert_entry,
                    tournament_id=tournament_id,
                    entrant=entrant,
                    name=name,
                    joined=time.time(),
                )
            ]
        )
        if inserted:
            return
        (back,) = await self.store.transact(
            [_step(self.q.rejoin, id=tournament_id, entrant=entrant, now=time.time())]
        )
        if not back:
            raise ApiError(409, "already_joined", "you are in this tournament already")

    async def withdraw(self, tournament_id: str, account_id: str) -> None:
        """Pair an account no more (its points stay); :class:`ApiError` if it is not in."""
        (left,) = await self.store.transact(
            [
                _step(
                    self.q.set_active,
                    id=tournament_id,
                    entrant=account_entrant(account_id),
                    was=True,
                    active=False,
                )
            ]
        )
        if not left:
            raise ApiError(409, "not_joined", "you are not playing in this tournament")

    @staticmethod
    def seat_token(tournament: Tournament, game_id: str, seat: int, entrant: str) -> str:
        """The token of an entrant's seat in a tournament game, derived from the
        tournament's secret: the store keeps its hash only, and the entrant, signed
        in, gets it again on any device and after any restart."""
        message = f"{game_id}|{seat}|{entrant}".encode()
        mac = hmac.new(bytes.fromhex(tournament.secret), message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:24]).decode("ascii")

    # -- running ------------------------------------------------------------------------

    def start(self) -> None:
        """Run the tournaments in the background (:meth:`run`)."""
        self._task = asyncio.get_running_loop().create_task(self.run(), name="tournaments")

    async def stop(self) -> None:
        """Stop pairing and give the leases up at once, for another instance."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            try:
                await self.store.transact([_step(self.q.release, me=self.instance)])
            except Exception as error:
                log.warning("cannot give the tournaments' leases up: %s", error)

    async def run(self) -> None:
        while True:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:  # the store is down: the next tick tries again
                log.exception("the tournaments' tick failed")
            await asyncio.sleep(self.tick)

    async def step(self, now: float | None = None) -> None:
        """One tick: every due tournament this instance holds the lease of moves on."""
        now = time.time() if now is None else now
        if self.schedule and now - self._scheduled >= SCHEDULE_SECONDS:
            for line in self.schedule:  # stored once whoever stores it first
                await self.create(line.occurrence(now))
            self._scheduled = now
        (due,) = await self.store.transact([_step(self.q.due, now=now)])
        for row in due:
            tournament_id = row["id"]
            (leased,) = await self.store.transact(
                [
                    _step(
                        self.q.lease,
                        id=tournament_id,
                        me=self.instance,
                        now=now,
                        until=now + self.lease,
                    )
                ]
            )
            if leased:
                await self._advance(tournament_id, now)

    async def _set_status(self, tournament: Tournament, status: str, now: float) -> None:
        ended = now if status == "over" else 0.0
        await self.store.transact(
            [
                _step(
                    self.q.set_status,
                    id=tournament.id,
                    me=self.instance,
                    status=status,
                    ended=ended,
                )
            ]
        )
        log.info("tournament %s (%s) is %s", tournament.id, tournament.name, status)

    async def _advance(self, tournament_id: str, now: float) -> None:
        view = await self.view(tournament_id)
        if view is None:
            return
        tournament = view.tournament
        for pairing in view.pairings:  # stored, and its game not (the last owner died)
            if not pairing.created or pairing.unlinked:
                await self._create_game(tournament, pairing, view.names())
        if tournament.status == "scheduled":
            await self._set_status(tournament, "running", now)
        if tournament.kind == "arena":
            if now >= tournament.ends:
                await self._set_status(tournament, "over", now)
                return
            await self._pair_arena(view)
        else:
            if any(not pairing.places and not pairing.bye for pairing in view.pairings):
                return  # the round goes on
            if view.round >= tournament.rounds:
                await self._set_status(tournament, "over", now)
                return
            await self._pair_swiss(view)

    async def _pair_arena(self, view: TournamentView) -> None:
        playing = {entrant for line in view.table if line.playing for entrant in [line.entrant]}
        active = {entry.entrant for entry in view.entries if entry.active}
        # An entrant away for its last game (a stand-in finished it) is paused, as
        # lichess pauses those who leave: paired again once it joins again.
        joined = {entry.entrant: entry.joined for entry in view.entries}
        last: dict[str, Pairing] = {}
        for pairing in view.pairings:
            if pairing.places is not None:
                for entrant in pairing.entrants:
                    last[entrant] = pairing
        for entrant in sorted(active):
            game = last.get(entrant)
            if game is not None and entrant in game.away and game.ended > joined[entrant]:
                await self.store.transact(
                    [
                        _step(
                            self.q.set_active,
                            id=view.tournament.id,
                            entrant=entrant,
                            was=True,
                            active=False,
                        )
                    ]
                )
                active.discard(entrant)
        waiting = [entrant for entrant in active if entrant not in playing]
        opponents: dict[str, Sequence[str]] = {}
        for pairing in view.pairings:  # in order: the last game of each wins
            for entrant in pairing.entrants:
                opponents[entrant] = [other for other in pairing.entrants if other != entrant]
        ranking = [line.entrant for line in view.table]
        # An account's tournament seats a person in every game: its bots play people,
        # never each other for the arena's length on the server's CPU.
        groups = arena_pairs(
            waiting,
            view.tournament.players,
            ranking=ranking,
            last_opponents=opponents,
            person=(lambda entrant: not is_bot(entrant)) if view.tournament.creator else None,
        )
        await self._store_pairings(view, groups, [], 0)

    async def _pair_swiss(self, view: TournamentView) -> None:
        met: dict[str, dict[str, int]] = {}
        byes: dict[str, int] = {}
        for pairing in view.pairings:
            if pairing.bye:
                byes[pairing.entrants[0]] = byes.get(pairing.entrants[0], 0) + 1
            for entrant in pairing.entrants:
                seen = met.setdefault(entrant, {})
                for other in pairing.entrants:
                    if other != entrant:
                        seen[other] = seen.get(other, 0) + 1
        active = {entry.entrant for entry in view.entries if entry.active}
        ranking = [line.entrant for line in view.table if line.entrant in active]
        if len(ranking) < view.tournament.players:
            # too few to pair, at the start (nobody came) or later (they withdrew): over
            await self._set_status(view.tournament, "over", time.time())
            return
        groups, bye = swiss_round(ranking, view.tournament.players, met=met, byes=byes)
        await self._store_pairings(view, groups, bye, view.round + 1)

    async def _store_pairings(
        self,
        view: TournamentView,
        groups: list[tuple[str, ...]],
        byes: list[str],
        round_number: int,
    ) -> None:
        """Store a tick's pairings in one transaction, then create their games."""
        if not groups and not byes:
            return
        number = max((pairing.number for pairing in view.pairings), default=0)
        now = time.time()
        pairings = []
        for group in groups:
            number += 1
            pairings.append(Pairing(number, new_game_id(), round_number, group, False, False, None))
        for entrant in byes:
            number += 1
            pairings.append(Pairing(number, "", round_number, (entrant,), True, True, None))
        steps = [
            _step(
                self.q.insert_pairing,
                tournament_id=view.tournament.id,
                number=pairing.number,
                game_id=pairing.game_id,
                round=pairing.round,
                entrants=" ".join(pairing.entrants),
                bye=pairing.bye,
                created=now,
            )
            for pairing in pairings
        ]
        try:
            await self.store.transact(steps)
        except StoreConflict:  # another instance paired meanwhile (its lease ran out)
            return
        for pairing in pairings:
            if not pairing.bye:
                await self._create_game(view.tournament, pairing, view.names())
        await self._tell_first_games(view, pairings)

    async def _tell_first_games(self, view: TournamentView, pairings: list[Pairing]) -> None:
        """Tell :attr:`first_game` of the accounts these new pairings give their first
        game of the tournament (a bye is no game)."""
        if self.first_game is None:
            return
        played = {entrant for p in view.pairings if not p.bye for entrant in p.entrants}
        for pairing in pairings:
            for seat, entrant in enumerate(() if pairing.bye else pairing.entrants):
                if is_bot(entrant) or entrant in played:
                    continue
                try:  # the game stands if this fails
                    await self.first_game(view.tournament.id, pairing.game_id, seat)
                except Exception:
                    log.exception("could not tell %s of its first game", entrant)

    async def _create_game(
        self, tournament: Tournament, pairing: Pairing, names: dict[str, str]
    ) -> None:
        """Create a pairing's game under the pairing's id: the entrants' seats in its
        order (an account's with its derived token, a bot entrant's as a bot)."""
        manager = self.manager
        if manager is None:
            raise RuntimeError("tournaments without a server's rooms create no game")
        seats: list[SeatRow] = []
        accounts: list[tuple[int, str]] = []
        for seat, entrant in enumerate(pairing.entrants):
            kind, _, key = entrant.partition(":")
            if kind == "bot":
                seats.append(SeatRow(seat, "bot", key))
                continue
            token = self.seat_token(tournament, pairing.game_id, seat, entrant)
            seats.append(SeatRow(seat, "human", None, names.get(entrant, ""), hash_token(token)))
            accounts.append((seat, key))
        game = manager.new_game(
            tournament.players,
            tournament.rules,
            secrets.randbelow(tournament.players),
            "en",
            seats,
            tournament.clock,
            DEFAULT_LEVEL,
            f"tournament:{tournament.id}",
            False,
            True,
            tournament.rated and bool(accounts),
        )
        game = replace(game, id=pairing.game_id)
        if not pairing.created:
            await self.store.create_game(game)
        steps = [
            _step(self.q.link_seat, game_id=game.id, seat=seat, account_id=account)
            for seat, account in accounts
        ]
        if steps:
            await self.store.transact(steps)
        if pairing.created:
            return  # only its seats were to link
        room = await manager.get(game.id)
        if room is not None:
            room.kick()
            # Its clock runs from now, whether its players come or not: an entrant
            # who stays away is played for by the stand-in, and the arena goes on.
            room.update_clock()
            manager.release(room)
