"""The rematch's seats: each holder of a seat of the finished game gets the matching
seat of the rematch, with a token only its holder can compute (:func:`rematch_token`)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Awaitable, Callable

from marrakech.web.connection import Client
from marrakech.web.protocol import RematchReady, RematchSeat, seat_link
from marrakech.web.store import hash_token


def rematch_token(token: str, rematch_id: str) -> str:
    """The token of a seat in the rematch ``rematch_id``, for the holder of ``token``,
    the seat's token in the finished game: only its holder can compute it, and any
    server instance can, so nothing secret is stored (the rematch's seat keeps only its
    hash, set when its holder first comes back, :meth:`GameStore.activate_seat`).

    >>> one = rematch_token("secret", "g2")
    >>> len(one), one == rematch_token("secret", "g2"), one == rematch_token("other", "g2")
    (32, True, False)
    """
    digest = hmac.new(token.encode(), f"rematch {rematch_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


async def send_rematch(
    client: Client, rematch: str, activate: Callable[[str, int, str], Awaitable[None]]
) -> None:
    """Send a connection its seats' tokens in the rematch, activating each seat
    (``activate(game_id, seat, token_hash)``) first."""
    seats = []
    for seat, token in sorted(client.tokens.items()):
        new = rematch_token(token, rematch)
        await activate(rematch, seat, hash_token(new))
        seats.append(RematchSeat(seat=seat, token=new, link=seat_link(rematch, new)))
    ready = RematchReady(game_id=rematch, seats=seats, spectator_link=f"/g/{rematch}")
    client.send(ready.model_dump_json())
