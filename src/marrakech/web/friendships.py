"""Friends and challenges (issue 37, item 2; docs/web.md, "Friends and challenges"):
the follows, blocks and challenges of accounts on the store, and when an account's
pages were last open (its presence, site-wide).

- **Follow** a player to see them in the friends list: online (a page of the site open
  lately), playing (seated in an unfinished game: a link to watch it), or waiting in a
  quick-pairing pool.
- **Block** a player: no challenge either way (the open ones end), their chat lines
  hidden from you (:func:`blocked_by`), and no pairing with them
  (:func:`blocked_pairs`, for the quick-pairing pools).
- **Challenge** a player by name with a 2-player game's settings; they accept (the game
  is made then, both players seated: :mod:`marrakech.web.routes.friends`) or decline,
  or it expires after :data:`CHALLENGE_SECONDS`. A challenger has at most
  :data:`MAX_OPEN` open at once and one per player, and sends them within the shared
  budgets (:data:`CHALLENGES`, per account and per address).

Each refusal is an :class:`~marrakech.web.protocol.ApiError` saying what was expected;
nothing stored changes with it.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from marrakech.web.accounts.names import name_key
from marrakech.web.budgets import Budgets, Rate
from marrakech.web.protocol import ApiError
from marrakech.web.store import GameStore, Step
from marrakech.web.store.friend_queries import FriendQueries
from marrakech.web.store.queries import Statement

#: Seconds a challenge waits for its answer.
CHALLENGE_SECONDS = 600
#: Open challenges a player may have sent at once.
MAX_OPEN = 5
#: Challenges sent, per account and per address, shared by every instance.
CHALLENGES = Rate("challenge", per_minute=4, burst=8)
#: Follows, unfollows, blocks and unblocks, per account.
CHANGES = Rate("friends", per_minute=30, burst=30)
#: A page of the site says it is open every this many seconds (``GET
#: /api/friends/inbox``); an account is online while its last heartbeat is younger
#: than :data:`ONLINE_SECONDS` (a hidden tab's timers may run once a minute).
HEARTBEAT_SECONDS = 20
ONLINE_SECONDS = 90
#: Answered (and expired) challenges are kept this long, then purged.
KEPT_SECONDS = 86400
#: The most players one account follows, and blocks.
MAX_FOLLOWS = 500

ChallengeStatus = Literal["open", "accepted", "declined", "cancelled", "expired"]


def _step(statement: Statement, **values: Any) -> Step:
    return statement.sql, statement.params(values)


def queries_of(store: GameStore) -> FriendQueries:
    """The friends' statements for ``store``'s database."""
    return _QUERIES["postgresql" if store.dialect == "postgresql" else "sqlite"]


_QUERIES = {"sqlite": FriendQueries("sqlite"), "postgresql": FriendQueries("postgresql")}


async def blocked_pairs(store: GameStore, account_ids: Iterable[str]) -> set[frozenset[str]]:
    """The pairs of ``account_ids`` where one blocked the other (each pair once, as a
    frozenset of the two ids): players never paired together (the quick-pairing pools
    ask it before they pair)."""
    q = queries_of(store)
    ids = q.ids(sorted(set(account_ids)))
    (rows,) = await store.transact([_step(q.blocked_pairs, ids=ids)])
    return {frozenset((row["blocker"], row["blocked"])) for row in rows}


async def blocked_by(store: GameStore, account_id: str | None) -> frozenset[str]:
    """The accounts ``account_id`` blocked (their chat lines are hidden from it)."""
    if account_id is None:
        return frozenset()
    q = queries_of(store)
    (rows,) = await store.transact([_step(q.blocked_list, blocker=account_id)])
    return frozenset(row["id"] for row in rows)


def forget_steps(store: GameStore, account_id: str) -> list[Step]:
    """The steps that delete a deleted account's follows, blocks and challenges (run
    with the account's deletion, in its transaction)."""
    return [_step(statement, gone=account_id) for statement in queries_of(store).forget]


async def exported(store: GameStore, account_id: str) -> dict[str, Any]:
    """The account's follows, blocks and challenges in its data export (not the seat
    tokens: a seat's link is in the game's page)."""
    q = queries_of(store)
    following, blocked, challenges = await store.transact(
        [
            _step(q.following, follower=account_id),
            _step(q.blocked_list, blocker=account_id),
            _step(q.challenges_of, account_id=account_id, now=-1.0, since=-1.0),
        ]
    )
    return {
        "following": [row["name"] for row in following],
        "blocked": [row["name"] for row in blocked],
        "challenges": [
            {
                "by": row["challenger_name"],
                "to": row["challenged_name"],
                "status": row["status"],
                "created": float(row["created"]),
                "game": json.loads(row["settings"]),
                "game_id": row["game_id"],
            }
            for row in challenges
        ],
    }


@dataclass(frozen=True)
class Player:
    """An account as the friends list shows it."""

    id: str
    name: str


@dataclass(frozen=True)
class Friend:
    """A followed player: ``online`` (a page of the site open lately), the
    unfinished game it is seated in, if any (``playing``: its id, to watch), and the
    quick-pairing pool it waits in, if any (``waiting``: ``blitz:casual``...)."""

    name: str
    online: bool
    playing: str | None
    waiting: str | None = None


@dataclass(frozen=True)
class Challenge:
    """A challenge as its two players see it (``status`` says ``expired`` for an open
    one past its time); ``token`` is the reader's seat token once accepted."""

    id: str
    challenger: str
    challenged: str
    settings: str
    #: The two accounts' ids (their names are ``challenger`` and ``challenged``).
    challenger_id: str
    challenged_id: str
    status: ChallengeStatus
    created: float
    expires: float
    game_id: str | None
    incoming: bool
    token: str | None


class Friendships:
    """Follows, blocks, challenges and presence on ``store``, on ``clock``."""

    def __init__(self, store: GameStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.q = queries_of(store)
        self.budgets = Budgets(store, clock)
        #: When this instance last wrote each account's heartbeat (a write at most
        #: every :data:`HEARTBEAT_SECONDS`).
        self._touched: dict[str, float] = {}

    async def player(self, name: str) -> Player:
        """The account named ``name``, or ``404`` saying so."""
        (rows,) = await self.store.transact([_step(self.q.account_named, key=name_key(name))])
        if not rows:
            raise ApiError(404, "not_found", f"no player is named {name[:40]!r}")
        return Player(rows[0]["id"], rows[0]["name"])

    async def _other(self, account_id: str, name: str, doing: str) -> Player:
        other = await self.player(name)
        if other.id == account_id:
            raise ApiError(400, "bad_request", f"{doing}: expected another player, found yourself")
        return other

    # -- follows and blocks ---------------------------------------------------------

    async def _change(self, account_id: str) -> None:
        await self.budgets.check(CHANGES, f"account:{account_id}", "changes", "your account")

    async def follow(self, account_id: str, name: str) -> Player:
        """Follow the player named ``name`` (twice is once)."""
        other = await self._other(account_id, name, "follow")
        await self._change(account_id)
        (rows,) = await self.store.transact([_step(self.q.following, follower=account_id)])
        if len(rows) >= MAX_FOLLOWS and other.id not in {row["id"] for row in rows}:
            raise ApiError(
                409, "http_error", f"expected at most {MAX_FOLLOWS} players followed: unfollow one"
            )
        await self.store.transact(
            [_step(self.q.follow, follower=account_id, followed=other.id, now=self.clock())]
        )
        return other

    async def unfollow(self, account_id: str, name: str) -> Player:
        other = await self.player(name)
        await self._change(account_id)
        await self.store.transact([_step(self.q.unfollow, follower=account_id, followed=other.id)])
        return other

    async def block(self, account_id: str, name: str) -> Player:
        """Block the player named ``name``: the open challenges between the two end."""
        other = await self._other(account_id, name, "block")
        await self._change(account_id)
        (rows,) = await self.store.transact([_step(self.q.blocked_list, blocker=account_id)])
        if len(rows) >= MAX_FOLLOWS and other.id not in {row["id"] for row in rows}:
            raise ApiError(
                409, "http_error", f"expected at most {MAX_FOLLOWS} players blocked: unblock one"
            )
        now = self.clock()
        await self.store.transact(
            [
                _step(self.q.block, blocker=account_id, blocked=other.id, now=now),
                _step(self.q.cancel_between, one=account_id, other=other.id, now=now),
            ]
        )
        return other

    async def unblock(self, account_id: str, name: str) -> Player:
        other = await self.player(name)
        await self._change(account_id)
        await self.store.transact([_step(self.q.unblock, blocker=account_id, blocked=other.id)])
        return other

    async def blocked(self, account_id: str) -> list[Player]:
        (rows,) = await self.store.transact([_step(self.q.blocked_list, blocker=account_id)])
        return [Player(row["id"], row["name"]) for row in rows]

    async def friends(self, account_id: str) -> list[Friend]:
        """The players ``account_id`` follows, online ones first, each with the game
        it plays (its latest)."""
        (rows,) = await self.store.transact([_step(self.q.following, follower=account_id)])
        ids = self.q.ids([row["id"] for row in rows])
        seen, playing, waiting = await self.store.transact(
            [
                _step(self.q.seen, ids=ids, since=self.clock() - ONLINE_SECONDS),
                _step(self.q.playing, ids=ids),
                _step(self.q.waiting, ids=ids),
            ]
        )
        online = {row["account_id"] for row in seen}
        games: dict[str, str] = {}
        for row in playing:
            games.setdefault(row["account_id"], row["game_id"])
        pools = {row["account_id"]: row["pool"] for row in waiting}
        found = [
            Friend(row["name"], row["id"] in online, games.get(row["id"]), pools.get(row["id"]))
            for row in rows
        ]
        return sorted(
            found,
            key=lambda f: (not f.online, f.playing is None and f.waiting is None),
        )

    # -- presence -------------------------------------------------------------------

    async def touch(self, account_id: str) -> None:
        """A page of the account's is open now (written at most every
        :data:`HEARTBEAT_SECONDS` by this instance)."""
        now = self.clock()
        if now - self._touched.get(account_id, -HEARTBEAT_SECONDS) < HEARTBEAT_SECONDS / 2:
            return
        if len(self._touched) > 100_000:
            self._touched.clear()
        self._touched[account_id] = now
        await self.store.transact([_step(self.q.touch, account_id=account_id, now=now)])

    async def online(self, account_id: str) -> bool:
        """Whether a page of the account's was open lately (any instance)."""
        (rows,) = await self.store.transact(
            [
                _step(
                    self.q.seen,
                    ids=self.q.ids([account_id]),
                    since=self.clock() - ONLINE_SECONDS,
                )
            ]
        )
        return bool(rows)

    # -- challenges -----------------------------------------------------------------

    async def challenge(self, account_id: str, address: str, name: str, settings: str) -> Challenge:
        """Send a challenge to the player named ``name`` with the game's ``settings``
        (JSON, checked by the caller). Refused: yourself or no such player (``400``,
        ``404``), a block either way (``403`` ``blocked``), a challenge already open
        to that player (``409`` ``already_challenged``), :data:`MAX_OPEN` open ones
        (``409`` ``too_many_challenges``), or past the budgets (``429``)."""
        other = await self._other(account_id, name, "challenge")
        now = self.clock()
        blocked, mine, count = await self.store.transact(
            [
                _step(self.q.blocked_between, one=account_id, other=other.id),
                _step(self.q.open_between, challenger=account_id, challenged=other.id, now=now),
                _step(self.q.open_count, challenger=account_id, now=now),
            ]
        )
        if blocked:
            raise ApiError(
                403, "blocked", f"{other.name} does not take challenges from you, nor you theirs"
            )
        if mine:
            raise ApiError(
                409,
                "already_challenged",
                f"you challenged {other.name} already: wait for the answer (or cancel it)",
            )
        if int(count[0]["count"]) >= MAX_OPEN:
            raise ApiError(
                409,
                "too_many_challenges",
                f"expected at most {MAX_OPEN} open challenges, found {MAX_OPEN}: "
                "wait for their answers or cancel one",
            )
        await self.budgets.check(CHALLENGES, f"account:{account_id}", "challenges", "your account")
        await self.budgets.check(CHALLENGES, address, "challenges")
        challenge_id = secrets.token_urlsafe(12)
        values = {
            "id": challenge_id,
            "challenger": account_id,
            "challenged": other.id,
            "settings": settings,
            "created": now,
            "expires": now + CHALLENGE_SECONDS,
        }
        await self.store.transact(
            [
                _step(self.q.insert_challenge, **values),
                _step(self.q.purge, before=now - KEPT_SECONDS),  # the old ones go
            ]
        )
        return await self.get(account_id, challenge_id)

    async def get(self, account_id: str, challenge_id: str) -> Challenge:
        """One challenge of ``account_id``'s (sent or received), or ``404``."""
        (rows,) = await self.store.transact(
            [_step(self.q.challenge_of, challenge_id=challenge_id, account_id=account_id)]
        )
        if not rows:
            raise ApiError(404, "not_found", "no such challenge of yours")
        return self._challenge(account_id, rows[0])

    def _challenge(self, account_id: str, row: dict[str, Any]) -> Challenge:
        incoming = row["challenged"] == account_id
        status: ChallengeStatus = row["status"]
        if status == "open" and float(row["expires"]) <= self.clock():
            status = "expired"
        return Challenge(
            id=row["id"],
            challenger=row["challenger_name"],
            challenged=row["challenged_name"],
            settings=row["settings"],
            challenger_id=row["challenger"],
            challenged_id=row["challenged"],
            status=status,
            created=float(row["created"]),
            expires=float(row["expires"]),
            game_id=row["game_id"],
            incoming=incoming,
            token=row["challenged_token"] if incoming else row["challenger_token"],
        )

    async def challenges(self, account_id: str) -> list[Challenge]:
        """The account's open challenges, sent and received, and those answered in the
        last :data:`CHALLENGE_SECONDS`, newest first."""
        now = self.clock()
        (rows,) = await self.store.transact(
            [
                _step(
                    self.q.challenges_of,
                    account_id=account_id,
                    now=now,
                    since=now - CHALLENGE_SECONDS,
                )
            ]
        )
        return [self._challenge(account_id, row) for row in rows]

    async def answer(self, account_id: str, challenge_id: str, accept: bool) -> dict[str, Any]:
        """Accept or decline a challenge sent to ``account_id``: its row, now answered
        (once: a second answer, or one after it expired or was cancelled, is ``409``
        ``challenge_gone`` saying what became of it)."""
        now = self.clock()
        (rows,) = await self.store.transact(
            [
                _step(
                    self.q.answer,
                    challenge_id=challenge_id,
                    account_id=account_id,
                    new_status="accepted" if accept else "declined",
                    now=now,
                )
            ]
        )
        if rows:
            return rows[0]
        what = (await self.get(account_id, challenge_id)).status
        if what == "open":  # not the reader's to answer
            raise ApiError(403, "forbidden", "only the challenged player answers a challenge")
        raise ApiError(409, "challenge_gone", f"this challenge is {what}: it takes no answer now")

    async def reopen(self, challenge_id: str) -> None:
        """An accepted challenge whose game could not be made waits again."""
        await self.store.transact([_step(self.q.reopen, challenge_id=challenge_id)])

    async def seat(self, challenge_id: str, game_id: str, tokens: tuple[str, str]) -> None:
        """The accepted challenge's game and each player's seat token."""
        await self.store.transact(
            [
                _step(
                    self.q.set_game,
                    challenge_id=challenge_id,
                    game_id=game_id,
                    challenger_token=tokens[0],
                    challenged_token=tokens[1],
                )
            ]
        )

    async def cancel(self, account_id: str, challenge_id: str) -> None:
        """The challenger takes an open challenge back (``409`` once answered)."""
        (rows,) = await self.store.transact(
            [
                _step(
                    self.q.cancel,
                    challenge_id=challenge_id,
                    account_id=account_id,
                    now=self.clock(),
                )
            ]
        )
        if not rows:
            what = (await self.get(account_id, challenge_id)).status
            raise ApiError(
                409, "challenge_gone", f"this challenge is {what}: it cannot be cancelled"
            )

    async def purge(self) -> None:
        """Forget the challenges answered or expired more than a day ago."""
        before = self.clock() - KEPT_SECONDS
        await self.store.transact([_step(self.q.purge, before=before)])
