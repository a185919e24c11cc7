"""Who owns a game's room when several server instances share one database.

One instance at a time **owns** a game's room: it rolls the die, runs the bots, and is
the only one that writes the game's actions. Any other instance with connections to
that game **follows** it: it forwards its clients' actions to the owner and relays the
owner's updates to its clients. A :class:`Cluster` says which instance owns what and
carries the messages between them.

- :class:`LocalCluster`: one server on its own (SQLite, ``make run``): it owns every room
  it loads, and there is no one to talk to but ``marrakech admin``, whose decisions on
  chat lines it reads from the store every :data:`DECISIONS_POLL` seconds;
- :class:`~marrakech.web.postgres_cluster.PostgresCluster`: instances on one PostgreSQL
  database; ownership is a lease there, messages go by ``LISTEN``/``NOTIFY``, and a room
  whose owner dies is taken over by another instance within a few seconds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from marrakech.web.protocol import ChangeReason, SeatMessage
from marrakech.web.store import ActionRow, ChatRow, GameStore

log = logging.getLogger("marrakech.web")

#: Seconds between two reads of the operator's decisions on chat lines by a server on
#: its own (:class:`LocalCluster`): a line ``marrakech admin`` hides leaves the pages
#: within this.
DECISIONS_POLL = 1.0
#: Why lines leave every page: the operator ``hidden`` them, or players' reports
#: ``held`` them until the operator decides.
HideReason = Literal["hidden", "held"]


@dataclass(frozen=True)
class Command:
    """A seat command (``message``) and the address of the client that sent it, which
    pays for what it creates (a rematch is a new game: its creation limits)."""

    message: SeatMessage
    address: str = ""
    #: The sender's signed-in account (None: a guest), whose caps a rematch counts
    #: against too (issue 24).
    account: str | None = None


#: What a follower forwards to a game's owner: an action's token, or a seat command.
Move = str | Command


class ChatListener(Protocol):
    """What the cluster needs of a room's chat (:class:`marrakech.web.room.chat.Chat`)."""

    def heard(self, row: ChatRow) -> None:
        """Another instance stored a chat line of this game."""

    def hidden(self, ids: list[int], reason: HideReason = "hidden") -> None:
        """The operator hid chat lines of this game, or players' reports held them."""

    def restored(self, ids: list[int]) -> None:
        """The operator dismissed the reports of chat lines of this game."""


class ClusterRoom(Protocol):
    """What the cluster needs of a live room (:class:`marrakech.web.room.Room`)."""

    owner: bool

    @property
    def chat(self) -> ChatListener: ...

    @property
    def game_id(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def remote(self) -> dict[str, frozenset[int]]: ...

    def local_seats(self) -> frozenset[int]: ...

    def set_remote(self, instance: str, seats: frozenset[int]) -> None: ...

    def keep_remote(self, living: set[str]) -> None: ...

    async def follow(
        self, version: int | None = None, rows: Sequence[ActionRow] | None = None
    ) -> None: ...

    async def promote(self) -> None: ...

    async def reload_seats(
        self, reason: ChangeReason | None = None, seat: int | None = None
    ) -> None: ...


class ClusterHost(Protocol):
    """What the cluster needs of its instance's rooms
    (:class:`marrakech.web.room_manager.RoomManager`)."""

    @property
    def rooms(self) -> Mapping[str, ClusterRoom]: ...

    def loading(self, game_id: str) -> Awaitable[ClusterRoom | None] | None: ...

    async def resume(self, game_ids: list[str]) -> None: ...

    async def catch_up(self, game_id: str, version: int, rows: list[ActionRow] | None) -> None: ...

    async def apply_forwarded(self, game_id: str, seat: int, version: int, move: Move) -> bool:
        """Apply a ``move`` another instance forwarded, as the game's owner: False if this
        instance does not own the game (the sender asks again who does);
        :class:`~marrakech.web.protocol.ProtocolError` if it is refused."""
        ...


class Cluster(Protocol):
    """What the rooms of an instance need to know about the others."""

    #: This instance's id (random at every start).
    instance: str

    async def start(self, host: ClusterHost) -> None:
        """Begin: heartbeat, listen to the others, take over rooms of dead instances."""
        ...

    async def stop(self) -> None:
        """End: the rooms this instance owned may be taken over at once."""
        ...

    async def claim(self, game_id: str) -> bool:
        """Own the game's room (True), or follow its living owner (False)."""
        ...

    def release(self, game_id: str) -> None:
        """This instance unloaded the game's room: any instance may own it now."""
        ...

    async def forward(self, room: ClusterRoom, seat: int, version: int, move: Move) -> bool:
        """Have the owner of a followed room apply a client's ``move`` (an action at
        ``version``, or a seat command): True once it did,
        False if this instance now owns the room (the owner was gone) and must apply it
        itself; :class:`~marrakech.web.protocol.ProtocolError` if the owner refused it."""
        ...

    def seats_changed(self, game_id: str, reason: ChangeReason | None, seat: int | None) -> None:
        """The game's seats changed here (``reason``: joined, started, timeout...; its
        rematch or analysis too): the other instances reload them and tell their
        connections."""
        ...

    def presence(self, game_id: str, seats: frozenset[int]) -> None:
        """This instance's connections to the game now hold ``seats``: the others count
        them in each seat's presence."""
        ...

    def chat(self, row: ChatRow) -> None:
        """A chat line was stored here: the others send it to their connections."""
        ...

    def chat_held(self, game_id: str, ids: list[int]) -> None:
        """Players' reports held chat lines here: the others take them away too."""
        ...


class LocalCluster:
    """One server on its own: it owns every room it loads. Given its ``store``, it
    reads the operator's decisions on chat lines (``marrakech admin``, another
    process) every :data:`DECISIONS_POLL` seconds and tells the rooms it holds."""

    def __init__(self, instance: str = "local", store: GameStore | None = None) -> None:
        self.instance = instance
        self.store = store
        self._watch: asyncio.Task[None] | None = None

    async def start(self, host: ClusterHost) -> None:
        if self.store is None:
            return
        try:
            last = await self.store.chat_decisions(None)
        except Exception as error:  # the store is away: from the first decision then
            log.warning("could not read the operator's decisions: %s", error)
            last = []
        after = last[-1].id if last else 0
        self._watch = asyncio.get_running_loop().create_task(
            self._read_decisions(host, self.store, after), name="operator's decisions"
        )

    async def _read_decisions(self, host: ClusterHost, store: GameStore, after: int) -> None:
        """Every :data:`DECISIONS_POLL` seconds: the decisions newer than ``after``, to
        the rooms of their games held here (as PostgreSQL's instances hear them)."""
        while True:
            await asyncio.sleep(DECISIONS_POLL)
            try:
                decisions = await store.chat_decisions(after)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the store is away: the next read tries again
                log.warning("could not read the operator's decisions: %s", error)
                continue
            for decision in decisions:
                after = decision.id
                room = host.rooms.get(decision.game_id)
                if room is None:
                    continue  # a later welcome reads the line from the store
                if decision.decision == "hidden":
                    room.chat.hidden([decision.line_id])
                else:
                    room.chat.restored([decision.line_id])

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None

    async def claim(self, game_id: str) -> bool:
        return True

    def release(self, game_id: str) -> None:
        return None

    async def forward(self, room: ClusterRoom, seat: int, version: int, move: Move) -> bool:
        return False  # never a follower: apply it here

    def seats_changed(self, game_id: str, reason: ChangeReason | None, seat: int | None) -> None:
        return None

    def presence(self, game_id: str, seats: frozenset[int]) -> None:
        return None

    def chat(self, row: ChatRow) -> None:
        return None

    def chat_held(self, game_id: str, ids: list[int]) -> None:
        return None
