"""A game ready for a player whose pages are all closed, pushed to their devices (issue
37, item 4; docs/web.md, "Push notifications"), through the reminders' outbox as a
challenge's push is (:mod:`marrakech.web.reminders.challenge_push`):

- ``pool_game``: players of a turn-based quick-pairing pool were seated at the open
  table of a player who left the pool's page (:meth:`marrakech.web.pools.Pools._fill_open`):
  "a game with Bo is ready for you", tagged ``pool_game:GAME``, opening the game (their
  seat is their account's). Once per (game, seats filled in one wave, device): a table
  filled over two waves pushes twice, the newer replacing the older on the device.
- ``tournament``: a tournament the player joined gave them their first game
  (:class:`marrakech.web.tournaments.service.Tournaments`): "your tournament starts",
  tagged ``tournament:ID``, opening that game (the tournament's page once it is over).
  Once per (tournament, device).

Each is queued only when no page of the site of the player's is open (the friends'
heartbeat, as for a challenge), to the devices that opted in to the kind, unless the
seat muted the game; and checked again at sending time: the device still the seat's
account's, the game not over (a pool's), still no page open. It expires after the
kind's TTL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from marrakech.web.reminders.challenge_push import ChallengePusher, page_open
from marrakech.web.reminders.webpush import notice
from marrakech.web.store import Step

POOL_GAME = "pool_game"
TOURNAMENT = "tournament"

#: The other players of a game by name, in a language: ``(game_id, seat, lang)``.
Opponents = Callable[[str, int, str], Awaitable[str]]


def _step(statement: Any, **values: Any) -> Step:
    return statement.sql, statement.params(values)


async def _queue(
    devices: ChallengePusher | None, kind: str, about: str, game_id: str, seat: int
) -> int:
    """Queue a push of ``kind`` to the devices of the seat's account that opted in to it
    (outbox key ``ABOUT/push:KIND/DEVICE``), unless a page of that account's is open:
    how many were queued."""
    if devices is None:
        return 0
    (found,) = await devices.store.transact(
        [_step(devices.q.seat_devices, game_id=game_id, seat=seat)]
    )
    chosen = [device for device in found if kind in device["kinds"].split()]
    if not chosen or await page_open(devices, chosen[0]["account_id"]):
        return 0
    return await devices.enqueue(chosen, kind, about, game_id, seat)


async def queue_pool_game_push(
    devices: ChallengePusher | None, game_id: str, seat: int, filled: list[int]
) -> int:
    """Queue "game found" for the player of ``seat`` (the open table's host) now that
    the seats ``filled`` of their game were taken by the pool's players."""
    about = f"pool/{game_id}/{'.'.join(map(str, sorted(filled)))}"
    return await _queue(devices, POOL_GAME, about, game_id, seat)


async def queue_tournament_push(
    devices: ChallengePusher | None, tournament_id: str, game_id: str, seat: int
) -> int:
    """Queue "your tournament starts" for the player of ``seat`` in their first game of
    the tournament."""
    return await _queue(devices, TOURNAMENT, f"tournament/{tournament_id}", game_id, seat)


async def deliver_game_ready(
    devices: ChallengePusher, row: dict[str, Any], device: dict[str, Any], opponents: Opponents
) -> tuple[str, str]:
    """Push a queued ``pool_game`` or ``tournament`` notice to ``device`` if it still
    holds (see the module's docstring): the row's new status and why."""
    kind = str(row["kind"]).removeprefix("push:")
    game_id, seat = str(row["game_id"]), int(row["seat"])
    (seated,) = await devices.store.transact(
        [_step(devices.q.seat_devices, game_id=game_id, seat=seat)]
    )
    if device["id"] not in {other["id"] for other in seated}:
        return "skipped", "the seat is not the device's account's, or muted"
    games = await devices.store.summaries([game_id])
    over = not games or games[0].status == "over"
    if over and kind == POOL_GAME:
        return "skipped", "the game is over"
    if await page_open(devices, device["account_id"]):
        return "skipped", "a page of the site is open"
    about = str(row["key"]).split("/")[1]
    if kind == TOURNAMENT:
        url, tag = (f"/t/{about}" if over else f"/g/{game_id}"), f"tournament:{about}"
    else:
        url, tag = f"/g/{game_id}", f"pool_game:{game_id}"
    names = await opponents(game_id, seat, device["lang"])
    return await devices.push(device, notice(kind, device["lang"], url, tag, opponents=names))
