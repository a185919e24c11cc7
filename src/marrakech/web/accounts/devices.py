"""Device cookies: a browser that signed in to an account keeps, signed by the server,
the account's id, a random id of its own and when it signed in. It then has its own
budget of sign-in tries for that account (:data:`~marrakech.web.accounts.service.
SIGN_IN_TRIES`), which nobody flooding the name with wrong passwords can spend
(OWASP's "Slow Down Online Guessing Attacks with Device Cookies").

The key is made by the first instance that needs it and kept in the database, so every
instance knows every device. A cookie is trusted for a year, for its own account only.
"""

from __future__ import annotations

import secrets
import time

from marrakech.web.reminders.tokens import sign, unsign
from marrakech.web.store import GameStore
from marrakech.web.store.queries import AccountQueries

#: Seconds a device cookie is trusted (a session's longest life).
DEVICE_SECONDS = 365 * 24 * 3600.0


class Devices:
    """The device cookies of the accounts on ``store`` (``q``: their statements)."""

    def __init__(self, store: GameStore, q: AccountQueries) -> None:
        self.store = store
        self.q = q
        self._key: bytes | None = None

    async def key(self) -> bytes:
        """The key that signs device cookies, the same on every instance."""
        if self._key is None:
            candidate = secrets.token_hex(32)
            insert, read = self.q.insert_key, self.q.key
            _, rows = await self.store.transact(
                [
                    (insert.sql, insert.params({"name": "devices", "secret": candidate})),
                    (read.sql, read.params({"name": "devices"})),
                ]
            )
            self._key = bytes.fromhex(rows[0]["secret"])
        return self._key

    async def known(self, cookie: str | None) -> tuple[str, str] | None:
        """The account a device cookie says this device signed in to, and the device's
        id; None for no cookie, a forged or altered one, or one over a year old."""
        if not cookie:
            return None
        fields = unsign(await self.key(), cookie, "device")
        if fields is None or len(fields) != 3 or not fields[2].isdigit():
            return None
        if time.time() - int(fields[2]) > DEVICE_SECONDS:
            return None
        return fields[0], fields[1]

    async def cookie(self, account_id: str, cookie: str | None) -> str:
        """The device cookie of a device that just signed in to ``account_id`` (the
        same device id if its ``cookie`` was that account's already)."""
        known = await self.known(cookie)
        device = known[1] if known is not None and known[0] == account_id else None
        device = device or secrets.token_urlsafe(12)
        return sign(await self.key(), "device", account_id, device, str(int(time.time())))
