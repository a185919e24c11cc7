"""A live game on the server: the :class:`Room` (the game's master) and, in modules of
their own, what happens around it. Which file holds what:

============================  =============================================================
``game_room.py``              the room: state, store-before-broadcast, follow the owner
``reveals_resigns.py``        the server's reveals and due resignations, places, stored log
``handlers.py``               one handler per client message type (``HANDLERS``)
``seat_commands.py``          resign (R22), take back, rematch; the host's start/replace/kick
``updates.py``                the welcome and each update, computed once per version
``presence.py``               who is here, on this instance and on the others
``clock.py``                  the turn clock and its stand-in bot
``hints.py``                  players' hints, searched once per position and counted
``bot_loop.py``               the bots' turns
``rematch.py``                the rematch's seat tokens
``meta.py``                   the game's summary (``GameMeta``), for rooms and the lobby
``status.py``                 who the game waits for (pure functions)
``turn_summaries.py``         one player turn at a glance (``TurnSummary``)
============================  =============================================================
"""

from marrakech.web.room.clock import RESUME_SECONDS, resumed_deadline
from marrakech.web.room.game_room import COMMAND, Room, RoomLobby, RoomServices
from marrakech.web.room.handlers import HANDLERS, handle
from marrakech.web.room.rematch import rematch_token
from marrakech.web.room.reveals_resigns import stored_actions
from marrakech.web.room.status import bot_to_move, game_status, mover_kind, seat_to_move

__all__ = [
    "COMMAND",
    "HANDLERS",
    "RESUME_SECONDS",
    "Room",
    "RoomLobby",
    "RoomServices",
    "bot_to_move",
    "game_status",
    "handle",
    "mover_kind",
    "rematch_token",
    "resumed_deadline",
    "seat_to_move",
    "stored_actions",
]
