"""Play a seat on a Marrakech server from a program: an external bot.

``marrakech connect URL`` (:mod:`marrakech.web.connect.cli`) and :class:`GameClient` take
a seat (an invitation link, a game's open seat, or an open seat of the lobby) and play
it with a bot spec or a policy file over the public WebSocket protocol
(docs/web-protocol.md), declaring themselves a bot: the other players see "bot
(external)". Needs ``websockets`` (``pip install 'marrakech[connect]'``); see
docs/connect.md. ::

    from marrakech.web.connect import play_seat
    result = play_seat("http://127.0.0.1:8000/g/GAME#t=TOKEN", "expert")
    print(result.summary())
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from marrakech.web.connect.agent import (
    Agent,
    AgentError,
    agent_of,
    bot_agent,
    default_name,
    load_agent,
    load_policy,
)
from marrakech.web.connect.game_client import GameClient, GameResult, reconnect_pause
from marrakech.web.connect.seats import (
    ConnectError,
    Target,
    join_game,
    join_lobby,
    parse_target,
    take_seat,
)

__all__ = [
    "Agent",
    "AgentError",
    "ConnectError",
    "GameClient",
    "GameResult",
    "Target",
    "agent_of",
    "bot_agent",
    "default_name",
    "join_game",
    "join_lobby",
    "load_agent",
    "load_policy",
    "parse_target",
    "play_seat",
    "reconnect_pause",
    "take_seat",
]


def play_seat(
    url: str,
    agent: Any,
    *,
    name: str | None = None,
    seat: int | None = None,
    players: int | None = None,
    report: Callable[[str], None] | None = None,
    **options: Any,
) -> GameResult:
    """Take a seat (:func:`take_seat`) and play it to the end with ``agent`` (a bot
    spec such as ``"expert"``, a bot, a ``choose`` or ``policy`` function): blocking.
    ``options`` go to :class:`GameClient` (``lang``, ``seed``, ``patience``)."""
    player = load_agent(agent) if isinstance(agent, str) else agent_of(agent, "agent")
    target = take_seat(url, name or default_name(player), seat=seat, players=players)
    client = GameClient(target, player, report=report, **options)
    return asyncio.run(client.play())
