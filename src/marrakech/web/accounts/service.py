"""What an account can do, on the store: sign up and in (password or passkey), sessions,
sign out (here or everywhere), credentials, deletion, the data export, and the link of
game seats to the account.

Every change is one transaction (:meth:`~marrakech.web.store.GameStore.transact`), so
it holds across server instances on one PostgreSQL database as on one SQLite file:
names are unique by the database's own index, a passkey challenge is taken by deleting
its row (two instances cannot both use it), and a passkey's counter moves on only from
the value it was checked against.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from typing import Any

from marrakech.web.accounts import passkeys
from marrakech.web.accounts.devices import Devices
from marrakech.web.accounts.export import export_document
from marrakech.web.accounts.names import DELETED_NAME, account_name, name_key
from marrakech.web.accounts.passwords import Passwords, password_problem
from marrakech.web.budgets import Budgets, Delays, Rate, refuse_after
from marrakech.web.friendships import exported, forget_steps
from marrakech.web.protocol import ApiError, name_skeleton
from marrakech.web.ratings.queries import RatingQueries
from marrakech.web.reminders.webpush import exported_devices
from marrakech.web.store import GameStore, Step, StoreConflict, Usage, hash_token
from marrakech.web.store.queries import AccountQueries, Statement

#: Seconds a session lasts without being used, and at most.
SESSION_IDLE = 30 * 24 * 3600.0
SESSION_MAX = 365 * 24 * 3600.0
#: Seconds between two writes of a session's ``last_seen`` (not one write a request).
TOUCH_EVERY = 600.0
#: Seconds a passkey ceremony's challenge may be answered in.
CHALLENGE_SECONDS = 300.0
#: The most guest seats one claim may name.
MAX_CLAIMS = 200

# The accounts' budgets, shared by every instance of the database (docs/web.md,
# "Accounts"). None counts per name alone: whoever floods a name with wrong passwords
# slows down only their own address, never its owner (OWASP's device cookies).
#: Sign-in attempts per client address, over every name (and a signed-in account's
#: password checks, per account).
SIGN_INS = Rate("sign-in", per_minute=10, burst=10)
#: Tries for one name from one address, or from one device that signed in to the
#: account before (its device cookie: that device's own budget): 5 at once, then 30 s
#: before the next, doubled at each further try up to an hour, forgotten a day after;
#: a right password starts afresh.
SIGN_IN_TRIES = Delays("sign-in-tries", tries=5, first=30.0, longest=3600.0, forget=86400.0)
#: New accounts (a password's or a passkey's) per client address.
SIGN_UPS = Rate("sign-up", per_minute=5, burst=5)


@dataclass(frozen=True)
class Account:
    """A signed-in account: its id (what seats and ratings refer to), name, creation."""

    id: str
    name: str
    created: float


@dataclass(frozen=True)
class SignedIn:
    """The account of a request's session cookie, and that session's stored hash."""

    account: Account
    session: str


def _step(statement: Statement, **values: Any) -> Step:
    return statement.sql, statement.params(values)


def bad_credentials() -> ApiError:
    """The one answer to a wrong name or password: it never says which."""
    return ApiError(401, "bad_credentials", "wrong name or password")


def not_signed_in() -> ApiError:
    return ApiError(401, "unauthorized", "expected to be signed in: sign in first")


class Accounts:
    """The accounts of a server, on its store; ``passwords`` hashes (Argon2id)."""

    def __init__(self, store: GameStore, passwords: Passwords | None = None) -> None:
        self.store = store
        self.q = AccountQueries("postgresql" if store.dialect == "postgresql" else "sqlite")
        self.rq = RatingQueries("postgresql" if store.dialect == "postgresql" else "sqlite")
        self.passwords = passwords or Passwords()
        # Two hashes at a time at most: each takes 64 MiB and a core for a moment.
        self._hashing = asyncio.Semaphore(2)
        #: The budgets of sign-ins and sign-ups (:data:`SIGN_INS`, :data:`SIGN_IN_TRIES`,
        #: :data:`SIGN_UPS`), in the database.
        self.budgets = Budgets(store)
        self.sign_ins, self.sign_in_tries, self.sign_ups = SIGN_INS, SIGN_IN_TRIES, SIGN_UPS
        #: The device cookies: who signed in before, from which device.
        self.devices = Devices(store, self.q)

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(self.passwords.hash, password)

    async def _verify(self, encoded: str | None, password: str) -> bool:
        async with self._hashing:
            return await asyncio.to_thread(self.passwords.verify, encoded, password)

    # -- sessions -----------------------------------------------------------------------

    def _new_session(self, account_id: str, user_agent: str, now: float) -> tuple[str, Step]:
        token = secrets.token_urlsafe(32)
        return token, _step(
            self.q.insert_session,
            token_hash=hash_token(token),
            account_id=account_id,
            created=now,
            last_seen=now,
            user_agent=user_agent[:200],
        )

    def _expire(self, now: float) -> list[Step]:
        return [
            _step(
                self.q.delete_old_sessions, idle_since=now - SESSION_IDLE, oldest=now - SESSION_MAX
            ),
            _step(self.q.delete_old_challenges, now=now),
        ]

    async def session(self, token: str | None) -> SignedIn | None:
        """The account whose live session ``token`` is, or None (no cookie, signed out,
        expired, deleted account)."""
        if not token or len(token) > 100:
            return None
        now = time.time()
        token_hash = hash_token(token)
        steps = [
            _step(
                self.q.session,
                token_hash=token_hash,
                idle_since=now - SESSION_IDLE,
                oldest=now - SESSION_MAX,
            )
        ]
        (rows,) = await self.store.transact(steps)
        if not rows:
            return None
        row = rows[0]
        if now - float(row["last_seen"]) > TOUCH_EVERY:
            await self.store.transact([_step(self.q.touch_session, token_hash=token_hash, now=now)])
        account = Account(row["account_id"], row["name"], float(row["account_created"]))
        return SignedIn(account, token_hash)

    async def sign_out(self, signed_in: SignedIn) -> None:
        await self.store.transact([_step(self.q.delete_session, token_hash=signed_in.session)])

    async def sign_out_everywhere(self, signed_in: SignedIn) -> None:
        """End every session of the account, this one included."""
        await self.store.transact(
            [_step(self.q.delete_sessions_of, account_id=signed_in.account.id)]
        )

    # -- passwords ----------------------------------------------------------------------

    def check_name(self, value: str) -> str:
        try:
            return account_name(value)
        except ValueError as error:
            raise ApiError(400, "bad_name", f"name: {error}") from None

    def check_password(self, password: str, name: str) -> None:
        problem = password_problem(password, name)
        if problem is not None:
            raise ApiError(400, "weak_password", f"password: {problem}")

    def _insert_account(self, account_id: str, name: str, now: float) -> Step:
        return _step(
            self.q.insert_account,
            id=account_id,
            name=name,
            name_key=name_key(name),
            name_skeleton=name_skeleton(name),
            created=now,
        )

    def _password_row(self, account_id: str, encoded: str, now: float) -> Step:
        return _step(
            self.q.insert_credential,
            **_credential(
                f"password:{account_id}", account_id, "password", now, password_hash=encoded
            ),
        )

    async def sign_up(
        self, client: str, name: str, password: str, user_agent: str
    ) -> tuple[Account, str]:
        """A new account with a password, signed in: the account and its session token."""
        await self.budgets.check(self.sign_ups, client, "new accounts")
        name = self.check_name(name)
        self.check_password(password, name)
        await self._check_free(name)  # else the database's indexes refuse it, after a hash
        encoded = await self._hash(password)
        now = time.time()
        account_id = new_account_id()
        token, session = self._new_session(account_id, user_agent, now)
        steps = [
            self._insert_account(account_id, name, now),
            self._password_row(account_id, encoded, now),
            session,
        ]
        await self._create(steps, name)
        return Account(account_id, name, now), token

    async def _create(self, steps: list[Step], name: str) -> None:
        """Run the steps that create an account named ``name``; ``name_taken`` if the
        database's unique indexes find its name, or a look-alike, taken meanwhile."""
        try:
            await self.store.transact(steps)
        except StoreConflict:
            await self._check_free(name)
            raise ApiError(409, "name_taken", f"name: {name!r} is taken: choose another") from None

    async def _check_free(self, name: str) -> None:
        """``name_taken`` if an account has this name, whatever its case, or one that
        looks like it (the error names it: names are public)."""
        step = _step(self.q.account_like, key=name_key(name), skeleton=name_skeleton(name))
        rows = (await self.store.transact([step]))[0]
        if not rows:
            return
        existing = rows[0]["name"]
        if name_key(existing) == name_key(name):
            detail = f"{name!r} is taken (names ignore case)"
        else:
            detail = f"{name!r} looks like the existing name {existing!r}"
        raise ApiError(409, "name_taken", f"name: {detail}: choose another")

    async def sign_in(
        self, client: str, name: str, password: str, user_agent: str, device: str | None = None
    ) -> tuple[Account, str]:
        """Sign in with a password: the account and a new session token, or the same
        ``bad_credentials`` whether the name exists or not (and in about the same time).

        Tries are counted before the password is checked, in :data:`SIGN_IN_TRIES`: the
        budget of ``device`` (the request's device cookie) if it signed in to this
        account before, and then that budget alone (no flood from its address, a shared
        NAT, can spend it); else :data:`SIGN_INS` of this address ``client`` and the
        name's tries from it. Refused with the same ``429`` either way, whether the name
        exists or not."""
        key = name_key(name[:100])
        rows, hashes = await self.store.transact(
            [_step(self.q.account_named, key=key), _step(self.q.password_named, key=key)]
        )
        account = rows[0] if rows else None
        known = await self.devices.known(device)
        if account is not None and known is not None and known[0] == account["id"]:
            tries = f"device:{known[0]}/{known[1]}"
        else:
            await self.budgets.check(self.sign_ins, client, "sign-in attempts")
            tries = f"name:{key}|{client}"
        waited = await self.budgets.wait((self.sign_in_tries, tries))
        refuse_after(waited, "too many sign-in attempts for this name")
        encoded = hashes[0]["password_hash"] if hashes and account is not None else None
        if not await self._verify(encoded, password) or account is None or encoded is None:
            raise bad_credentials()
        await self.budgets.forget(self.sign_in_tries, [tries])
        now = time.time()
        token, session = self._new_session(account["id"], user_agent, now)
        used = _step(self.q.touch_credential, credential=f"password:{account['id']}", now=now)
        steps = [*self._expire(now), used, session]
        if self.passwords.needs_rehash(encoded):
            encoded = await self._hash(password)
            steps += self._replace_password(account["id"], encoded, now)
        await self.store.transact(steps)
        return Account(account["id"], account["name"], float(account["created"])), token

    def _replace_password(self, account_id: str, encoded: str, now: float) -> list[Step]:
        return [
            _step(self.q.delete_credential, credential=f"password:{account_id}"),
            self._password_row(account_id, encoded, now),
        ]

    async def set_password(self, signed_in: SignedIn, password: str, current: str | None) -> None:
        """Add a password to the account, or change it (``current`` must then be the
        present one); every other session of the account ends."""
        account = signed_in.account
        credential = f"password:{account.id}"
        found = (await self.store.transact([_step(self.q.credential, credential=credential)]))[0]
        if found:
            await self.budgets.check(
                self.sign_ins, f"account:{account.id}", "password attempts", "this account"
            )
            if current is None or not await self._verify(found[0]["password_hash"], current):
                raise ApiError(
                    403, "bad_credentials", "current_password: expected the account's password"
                )
        self.check_password(password, account.name)
        encoded = await self._hash(password)
        now = time.time()
        others = _step(
            self.q.delete_other_sessions, account_id=account.id, token_hash=signed_in.session
        )
        await self.store.transact([*self._replace_password(account.id, encoded, now), others])

    # -- passkeys -----------------------------------------------------------------------

    async def _challenge(self, purpose: str, challenge: str, **values: Any) -> str:
        challenge_id = secrets.token_urlsafe(18)
        now = time.time()
        row = {
            "id": challenge_id,
            "purpose": purpose,
            "challenge": challenge,
            "account_id": None,
            "name": None,
            "user_handle": None,
            "expires": now + CHALLENGE_SECONDS,
            **values,
        }
        steps = [_step(self.q.delete_old_challenges, now=now)]
        steps.append(_step(self.q.insert_challenge, **row))
        await self.store.transact(steps)
        return challenge_id

    async def _take(self, challenge_id: str, purpose: str) -> dict[str, Any]:
        """The challenge, deleted as it is read: a second answer to it finds none."""
        step = _step(self.q.take_challenge, challenge_id=challenge_id, purpose=purpose)
        rows = (await self.store.transact([step]))[0]
        if not rows or float(rows[0]["expires"]) < time.time():
            raise ApiError(
                400,
                "bad_passkey",
                "challenge_id: no such ceremony under way (each is answered once, within "
                f"{int(CHALLENGE_SECONDS)} s): start again",
            )
        return rows[0]

    async def register_options(
        self, client: str, site: passkeys.Site, name: str | None, signed_in: SignedIn | None
    ) -> tuple[str, dict[str, Any]]:
        """Start registering a passkey: for the signed-in account (adding one), or for a
        new account named ``name``. The challenge's id and the browser's options."""
        exclude: list[str] = []
        if signed_in is not None:
            account = signed_in.account
            name, handle, account_id = account.name, account.id, account.id
            rows = (await self.store.transact([_step(self.q.credentials_of, account_id=handle)]))[0]
            exclude = [row["credential_id"] for row in rows if row["kind"] == "passkey"]
        else:
            await self.budgets.check(self.sign_ups, client, "new accounts")
            name = self.check_name(name or "")
            await self._check_free(name)
            handle, account_id = new_account_id(), None
        challenge, options = passkeys.registration_options(site, handle.encode(), name, exclude)
        challenge_id = await self._challenge(
            "register", challenge, account_id=account_id, name=name, user_handle=handle
        )
        return challenge_id, options

    async def register(
        self,
        challenge_id: str,
        credential: dict[str, Any],
        site: passkeys.Site,
        signed_in: SignedIn | None,
        user_agent: str,
    ) -> tuple[Account, str | None]:
        """Finish registering a passkey: the account (created if new) and, for a new
        account, its session token."""
        row = await self._take(challenge_id, "register")
        adding = row["account_id"]
        if adding is not None and (signed_in is None or signed_in.account.id != adding):
            raise not_signed_in()
        try:
            passkey = passkeys.verify_registration(credential, row["challenge"], site)
        except passkeys.PasskeyError as error:
            raise ApiError(400, "bad_passkey", str(error)) from None
        now = time.time()
        account_id = adding or row["user_handle"]
        stored = _step(
            self.q.insert_credential,
            **_credential(
                f"passkey:{passkey.credential_id}",
                account_id,
                "passkey",
                now,
                credential_id=passkey.credential_id,
                public_key=passkey.public_key,
                sign_count=passkey.sign_count,
                transports=passkey.transports,
            ),
        )
        if adding is not None and signed_in is not None:
            try:
                await self.store.transact([stored])
            except StoreConflict:
                raise ApiError(409, "bad_passkey", "this passkey is registered already") from None
            return signed_in.account, None
        token, session = self._new_session(account_id, user_agent, now)
        created = self._insert_account(account_id, row["name"], now)
        await self._create([created, stored, session], row["name"])
        return Account(account_id, row["name"], now), token

    async def sign_in_options(self, client: str, site: passkeys.Site) -> tuple[str, dict[str, Any]]:
        await self.budgets.check(self.sign_ins, client, "sign-in attempts")
        challenge, options = passkeys.authentication_options(site)
        return await self._challenge("authenticate", challenge), options

    async def passkey_sign_in(
        self, challenge_id: str, credential: dict[str, Any], site: passkeys.Site, user_agent: str
    ) -> tuple[Account, str]:
        """Sign in with a passkey's answer to a challenge of :meth:`sign_in_options`."""
        row = await self._take(challenge_id, "authenticate")
        refused = ApiError(401, "bad_passkey", "this passkey is not one of an account here")
        try:
            credential_id = passkeys.credential_of(credential)
        except passkeys.PasskeyError as error:
            raise ApiError(400, "bad_passkey", str(error)) from None
        step = _step(self.q.credential, credential=f"passkey:{credential_id}")
        found = (await self.store.transact([step]))[0]
        if not found:
            raise refused
        stored = found[0]
        account_rows = (
            await self.store.transact([_step(self.q.account, account_id=stored["account_id"])])
        )[0]
        if not account_rows or account_rows[0]["deleted"]:
            raise refused
        account = account_rows[0]
        response = credential.get("response")
        handle = response.get("userHandle") if isinstance(response, dict) else None
        if handle and passkeys.credential_of({"id": handle}) != passkeys.credential_of(
            {"id": _b64(account["id"])}
        ):
            raise ApiError(400, "bad_passkey", "the passkey's user is not its account")
        try:
            count = passkeys.verify_authentication(
                credential, row["challenge"], site, stored["public_key"], int(stored["sign_count"])
            )
        except passkeys.PasskeyError as error:
            raise ApiError(400, "bad_passkey", str(error)) from None
        now = time.time()
        token, session = self._new_session(account["id"], user_agent, now)
        used = _step(
            self.q.use_credential,
            credential=stored["id"],
            old_count=int(stored["sign_count"]),
            new_count=count,
            now=now,
        )
        results = await self.store.transact([used, *self._expire(now), session])
        if not results[0]:  # another answer moved the counter meanwhile: a replay
            await self.store.transact([_step(self.q.delete_session, token_hash=hash_token(token))])
            raise ApiError(400, "bad_passkey", "the passkey's answer was used already")
        return Account(account["id"], account["name"], float(account["created"])), token

    async def credentials(self, account_id: str) -> list[dict[str, Any]]:
        """The account's credentials (rows by column name), oldest first."""
        step = _step(self.q.credentials_of, account_id=account_id)
        return (await self.store.transact([step]))[0]

    async def usage(self, signed_in: SignedIn, since: float) -> Usage:
        """The account's unfinished games (those it hosts) that moved since ``since``,
        and their bot seats, as :func:`~marrakech.web.limits.check_caps` counts a
        client's (the server's totals left at 0: the address's check counts them)."""
        return await self.usage_of(signed_in.account.id, since)

    async def usage_of(self, account_id: str, since: float) -> Usage:
        """:meth:`usage` of the account ``account_id`` (a rematch's asker)."""
        step = _step(self.q.usage, account_id=account_id, since=since)
        (rows,) = await self.store.transact([step])
        return Usage(games=int(rows[0]["games"]), bots=int(rows[0]["bots"]))

    async def remove_passkey(self, signed_in: SignedIn, credential_id: str) -> None:
        """Remove one of the account's passkeys, unless it is the account's last way to
        sign in (:class:`ApiError` ``bad_request`` then, or for no such passkey)."""
        step = _step(
            self.q.remove_passkey,
            credential=f"passkey:{credential_id}",
            account_id=signed_in.account.id,
        )
        (removed,) = await self.store.transact([step])
        if not removed:
            raise ApiError(
                400,
                "bad_request",
                "credential_id: expected one of the account's passkeys, and another way to "
                "sign in left after removing it (add a password or a passkey first)",
            )

    # -- the account's data -------------------------------------------------------------

    async def delete(self, signed_in: SignedIn) -> None:
        """Delete the account: its credentials, sessions, reminders' address, push
        devices, follows, blocks and challenges go, its name is free again, its games
        stay with their seats named :data:`DELETED_NAME`."""
        account_id = signed_in.account.id
        now = time.time()
        await self.store.transact(
            [
                _step(self.q.delete_account, account_id=account_id, now=now),
                _step(self.q.delete_credentials_of, account_id=account_id),
                _step(self.q.delete_sessions_of, account_id=account_id),
                _step(self.q.delete_mail_of, account_id=account_id),
                _step(self.q.delete_devices_of, account_id=account_id),
                _step(self.q.rename_seats, account_id=account_id, new_name=DELETED_NAME),
                *forget_steps(self.store, account_id),  # follows, blocks, challenges
            ]
        )
        await self._guard_look_alikes()

    async def _guard_look_alikes(self) -> None:
        """Give their skeleton to the accounts that have none (their name looked like an
        older account's before revision 0008_name_skeletons) once it is free: the older
        account deleted, no new account may look like the one that stays."""
        (rows,) = await self.store.transact([_step(self.q.unguarded_accounts)])
        for row in rows:
            guard = _step(
                self.q.guard_account, account_id=row["id"], skeleton=name_skeleton(row["name"])
            )
            try:
                await self.store.transact([guard])
            except StoreConflict:
                continue  # its look is still an older account's

    async def export(self, signed_in: SignedIn) -> dict[str, Any]:
        """Everything stored about the account, as JSON data (no secret: password
        hashes, keys and session tokens are not data a person needs back)."""
        account_id = signed_in.account.id
        credentials, sessions, seats, ratings, history, mail, devices = await self.store.transact(
            [
                _step(self.q.credentials_of, account_id=account_id),
                _step(self.q.sessions_of, account_id=account_id),
                _step(self.q.seats_of, account_id=account_id),
                _step(self.rq.ratings_of, account_id=account_id),
                _step(self.rq.history_of, account_id=account_id),
                _step(self.q.mail_of, account_id=account_id),
                _step(self.q.devices_of, account_id=account_id),
            ]
        )
        who = (signed_in.account.id, signed_in.account.name, signed_in.account.created)
        rows = credentials, sessions, seats, ratings, history, mail
        document = export_document(who, signed_in.session, *rows)
        document["push_devices"] = exported_devices(devices)  # issue 37
        document["friends"] = await exported(self.store, account_id)  # issue 37
        return document

    async def claim(self, signed_in: SignedIn, seats: list[tuple[str, str]]) -> list[str]:
        """Link to the account the guest seats whose tokens this device holds, (game id,
        token) each: the games whose seat was linked now, once a seat (a seat of any
        account already, or a wrong token, is passed over)."""
        if len(seats) > MAX_CLAIMS:
            raise ApiError(
                400, "bad_request", f"seats: expected at most {MAX_CLAIMS}, found {len(seats)}"
            )
        steps = [
            _step(
                self.q.link_seat,
                game_id=game_id,
                token_hash=hash_token(token),
                account_id=signed_in.account.id,
            )
            for game_id, token in seats
        ]
        results = await self.store.transact(steps) if steps else []
        return [rows[0]["game_id"] for rows in results if rows]


def _credential(
    credential: str, account_id: str, kind: str, now: float, **own: Any
) -> dict[str, Any]:
    """A credentials row's values: ``own``, its kind's, and the others' defaults."""
    return {
        "id": credential,
        "account_id": account_id,
        "kind": kind,
        "password_hash": None,
        "credential_id": None,
        "public_key": None,
        "sign_count": 0,
        "transports": "",
        "created": now,
        "last_used": None,
        **own,
    }


def _b64(text: str) -> str:
    from webauthn.helpers import bytes_to_base64url

    return bytes_to_base64url(text.encode())


def new_account_id() -> str:
    """A new account's id: 96 random bits, URL-safe; it never changes, and is what
    seats and ratings refer to."""
    return secrets.token_urlsafe(12)
