"""Finding a seat on a server: an invitation link, a game's open seat, the lobby's.

Plain HTTP (the standard library's ``urllib``) against the server's JSON API
(docs/web-protocol.md): ``GET /api/games/{id}``, ``GET /api/games/open`` and
``POST /api/games/{id}/join`` with ``"bot": true``, so the seat is shown as an
external bot from the moment it is taken.

>>> parse_target("https://example.org/play/g/Ab3_x#t=TOKEN1,TOKEN2")
Target(site='https://example.org/play/', game_id='Ab3_x', tokens=('TOKEN1', 'TOKEN2'))
>>> parse_target("http://127.0.0.1:8000")
Target(site='http://127.0.0.1:8000/', game_id=None, tokens=())
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from marrakech.errors import MarrakechError

#: A game page's path (a seat's link or a spectator's), after the site's own prefix.
GAME_PATH = re.compile(r"^(?P<prefix>.*/)(?:g|r)/(?P<game>[A-Za-z0-9_-]{1,64})/?$")
EXPECTED_URL = (
    "a seat's invitation link (http(s)://HOST/g/GAME#t=TOKEN), a game "
    "(http(s)://HOST/g/GAME: one of its open seats) or a server (http(s)://HOST/: "
    "an open seat of its lobby)"
)


class ConnectError(MarrakechError):
    """The seat cannot be taken or played: the message says why and what would do."""


@dataclass(frozen=True)
class Target:
    """Where to play: the ``site`` (its root, ending in ``/``), a ``game_id`` (None: any
    open seat of the lobby) and the seat ``tokens`` held (none yet: join an open seat)."""

    site: str
    game_id: str | None
    tokens: tuple[str, ...] = ()

    def link(self) -> str:
        """The page of these seats (their invitation link): keep it to come back."""
        tokens = ",".join(self.tokens)
        return f"{self.site}g/{self.game_id}" + (f"#t={tokens}" if tokens else "")

    def socket_url(self) -> str:
        """The game's WebSocket (``ws://`` for ``http://``, ``wss://`` for ``https://``)."""
        scheme = "wss" if self.site.startswith("https:") else "ws"
        return f"{scheme}:{self.site.split(':', 1)[1]}ws/{self.game_id}"


def parse_target(url: str) -> Target:
    """Read a link: an invitation (``/g/GAME#t=TOKEN``), a game, or a server's root."""
    parts = urlsplit(url.strip())
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    if scheme not in ("http", "https") or not parts.netloc:
        raise ConnectError(f"expected {EXPECTED_URL}, found {url!r}")
    found = GAME_PATH.match(parts.path)
    if found is None:
        if "/g/" in parts.path or "/r/" in parts.path:
            raise ConnectError(f"expected {EXPECTED_URL}, found a game path {parts.path!r}")
        prefix = parts.path if parts.path.endswith("/") else parts.path + "/"
        return Target(urlunsplit((scheme, parts.netloc, prefix, "", "")), None)
    fragment = parse_qs(parts.fragment)
    tokens = tuple(token for value in fragment.get("t", []) for token in value.split(",") if token)
    site = urlunsplit((scheme, parts.netloc, found["prefix"], "", ""))
    return Target(site, found["game"], tokens)


def request(site: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One JSON request to the server: its status and answer. A server that cannot be
    reached raises :class:`ConnectError`."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    call = urllib.request.Request(site + path.lstrip("/"), data, headers, method=method)
    try:
        with urllib.request.urlopen(call, timeout=30) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ConnectError(f"cannot reach the server at {site}: {reason}") from None
    try:
        return status, json.loads(raw)
    except ValueError:
        raise ConnectError(
            f"{method} {site}{path.lstrip('/')} answered {status} with no JSON: is "
            f"{site} a Marrakech server?"
        ) from None


def _refusal(answer: Any) -> str:
    if isinstance(answer, dict) and "message" in answer:
        return f"{answer.get('error', 'error')}: {answer['message']}"
    return repr(answer)


def game_summary(site: str, game_id: str) -> dict[str, Any]:
    """``GET /api/games/{id}``; a game the server does not know raises."""
    status, answer = request(site, "GET", f"api/games/{game_id}")
    if status == 404:
        raise ConnectError(f"no game {game_id!r} on {site}")
    if status != 200:
        raise ConnectError(f"game {game_id!r}: {_refusal(answer)}")
    summary: dict[str, Any] = answer
    return summary


def join(site: str, game_id: str, seat: int, name: str) -> Target:
    """Take open ``seat`` of a game as an external bot named ``name``."""
    body = {"seat": seat, "name": name, "bot": True}
    status, answer = request(site, "POST", f"api/games/{game_id}/join", body)
    if status == 200:
        return Target(site, game_id, (str(answer["token"]),))
    if status == 404:
        raise ConnectError(f"no game {game_id!r} on {site}")
    if status == 409:
        raise ConnectError(f"seat {seat} of game {game_id!r} is taken: {_refusal(answer)}")
    raise ConnectError(f"the server refused seat {seat} of game {game_id!r}: {_refusal(answer)}")


def join_game(site: str, game_id: str, name: str, seat: int | None = None) -> Target:
    """Take an open seat of one game (``seat``, or its first open one)."""
    summary = game_summary(site, game_id)
    open_seats = [int(n) for n in summary.get("open_seats", [])]
    if summary.get("status") == "over":
        raise ConnectError(f"game {game_id!r} is over: there is no seat to take")
    if not open_seats:
        raise ConnectError(
            f"game {game_id!r} is full: all {summary.get('players')} seats are taken (a "
            "seat of it needs its invitation link, /g/GAME#t=TOKEN, from its host)"
        )
    if seat is not None and seat not in open_seats:
        raise ConnectError(f"seat {seat} of game {game_id!r} is not open: open seats {open_seats}")
    return join(site, game_id, open_seats[0] if seat is None else seat, name)


def join_lobby(site: str, name: str, players: int | None = None) -> Target:
    """Take the first open seat among the lobby's games waiting for players (of
    ``players`` players, if given)."""
    status, answer = request(site, "GET", "api/games/open")
    if status != 200 or not isinstance(answer, list):
        raise ConnectError(f"{site} has no lobby to read: {_refusal(answer)}")
    games = [game for game in answer if players is None or game.get("players") == players]
    for game in games:
        for seat in game.get("open_seats", []):
            try:
                return join(site, str(game["game_id"]), int(seat), name)
            except ConnectError as error:
                if "is taken" not in str(error):  # someone was quicker: try the next
                    raise
    which = "" if players is None else f" of {players} players"
    raise ConnectError(
        f"no game{which} waits for a player on {site}: open one there (a seat 'open' in "
        "the lobby's form) or give a game's link"
    )


def take_seat(
    url: str, name: str, *, seat: int | None = None, players: int | None = None
) -> Target:
    """The seat to play: an invitation link's (kept as it is), or an open seat taken now
    as an external bot named ``name``, of a game's link (``seat`` or its first open one)
    or of the lobby of a server's root (a game of ``players`` players, if given)."""
    target = parse_target(url)
    if target.tokens:
        return target
    if target.game_id is not None:
        return join_game(target.site, target.game_id, name, seat)
    return join_lobby(target.site, name, players)
