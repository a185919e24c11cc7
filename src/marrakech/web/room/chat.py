"""A game's chat: short messages and quick reactions, by seat or by spectator
(docs/web.md, "Chat").

- **Who writes**: a player as a seat it holds, in the players' channel; a spectator (a
  connection holding no seat) in the spectators' channel, which players see only once
  the game is over. Spectators see the players' channel all along.
- **What is refused**, with a reason code and nothing stored: a game whose host turned
  the chat off (``chat_off``), a banned address (``banned``), a message past
  :data:`MAX_CHAT` characters (``chat_too_long``), control or bidirectional-override
  characters, characters that render blank, joiners where no script needs them, or
  nothing visible (``chat_bad_text``, as names: docs/web.md, "Names"), the other channel
  (``chat_channel``), a player or an address writing too fast (``chat_too_fast``).
- **Reports** queue a line for the operator (``marrakech admin reports``) and hide it
  from its reporter; reports of several players of the game hold it for everyone until
  the operator decides (:meth:`Chat.report`; docs/web.md, "Moderation").
- **Never in a move's way**: a line is stored on its own (not with the game's actions,
  not under the room's lock) by whichever instance the writer is connected to, then
  sent to this instance's connections and relayed to the others'
  (:meth:`~marrakech.web.cluster.Cluster.chat`).

::

    >>> chat_text("  good   game <b>!</b> ")
    'good game <b>!</b>'
    >>> chat_text("evil\\u202etxt.exe")
    Traceback (most recent call last):
    ...
    ValueError: messages cannot hold control or direction characters, found U+202E
    >>> chat_text("\\u3164\\u3164")
    Traceback (most recent call last):
    ...
    ValueError: expected a message with a visible character, found none
"""

from __future__ import annotations

import asyncio
import logging
import math
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol

from marrakech.web.budgets import Budgets, Rate
from marrakech.web.cluster import Cluster, HideReason
from marrakech.web.connection import Client
from marrakech.web.limits import Limits
from marrakech.web.protocol import (
    ChatChannel,
    ChatHidden,
    ChatLine,
    ChatLines,
    ChatMessage,
    MuteMessage,
    ProtocolError,
    ReactMessage,
    ReportMessage,
    invisible,
    iso_time,
    text_problem,
)
from marrakech.web.store import SPECTATOR, ChatKind, ChatRow, GameStore, Reporter

log = logging.getLogger("marrakech.web")

#: The most characters of a chat message.
MAX_CHAT = 200
#: The lines a room keeps (and a welcome sends): the last ones.
MAX_KEPT = 200


def chat_text(value: str) -> str:
    """A chat message: spaces and line breaks collapsed, something visible, and the
    characters names may hold (:func:`~marrakech.web.protocol.text_problem`: no control
    or direction characters, nothing that renders blank, the joiners only where emoji
    and scripts need them, no runs of combining marks); else :class:`ValueError` saying
    what was found. At most :data:`MAX_CHAT` characters is the caller's check. HTML
    stays text: pages never parse it."""
    value = " ".join(value.split())
    if not value or all(invisible(char) for char in value):
        raise ValueError("expected a message with a visible character, found none")
    problem = text_problem(value, "messages")
    if problem is not None:
        raise ValueError(problem)
    return value


def chat_line(row: ChatRow) -> ChatLine:
    """A stored line as pages see it (never who wrote it beyond the seat)."""
    return ChatLine(
        id=row.id,
        seat=None if row.seat == SPECTATOR else row.seat,
        channel=row.channel,
        kind=row.kind,
        text=row.text,
        at=iso_time(row.at),
    )


def public_lines(rows: Iterable[ChatRow], over: bool) -> list[ChatLine]:
    """The lines a replay shows: neither hidden by the operator nor held by players'
    reports (a line a single spectator reported stays), the spectators' only once the
    game is over."""
    return [
        chat_line(row)
        for row in rows
        if not row.hidden and not row.held and (over or row.channel == "players")
    ]


def reporter(client: Client) -> Reporter:
    """Who ``client`` is as a reporter: a player if it holds a seat of the game."""
    return Reporter("player" if client.seats else "spectator", client.address, client.account)


@dataclass
class ChatGate:
    """The chat limits: a token bucket per player (a game's seat, or a spectator's
    address in a game) and one per address across its games, in the ``budgets`` every
    instance of the database shares (a player writing through two instances has one
    budget)."""

    budgets: Budgets
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        limits = self.limits
        self.players = Rate("chat", limits.chats_per_minute, limits.chat_burst)
        self.addresses = Rate(
            "chat-address", limits.address_chats_per_minute, limits.address_chat_burst
        )

    async def check(self, player: str, address: str, account: str | None = None) -> None:
        """Take a message from both budgets (and from the signed-in ``account``'s, as
        an address's: one account from several addresses), or refuse it
        (``chat_too_fast``)."""
        takes = [(self.players, player), (self.addresses, address)]
        if account is not None:
            takes.append((self.addresses, f"account:{account}"))
        waited = await self.budgets.wait(*takes)
        if waited > 0:
            raise ProtocolError(
                "chat_too_fast",
                f"at most {self.limits.chat_burst} messages at once, then one every "
                f"{60 / self.limits.chats_per_minute:g} s: try again in "
                f"{max(1, math.ceil(waited))} s",
            )


class ChatRoom(Protocol):
    """What the chat needs of its room (:class:`~marrakech.web.room.Room`)."""

    game_id: str
    players: int
    clients: set[Client]

    @property
    def chat_on(self) -> bool: ...

    @property
    def over(self) -> bool: ...


class Chat:
    """One game's chat: the lines kept (the last :data:`MAX_KEPT`, loaded from the
    store when a page is welcomed), who may see which, what each client sends."""

    def __init__(self, room: ChatRoom, store: GameStore, cluster: Cluster, gate: ChatGate) -> None:
        self._room = weakref.ref(room)  # the room holds its chat: see BotLoop
        self.store = store
        self.cluster = cluster
        self.gate = gate
        #: The lines kept, by id (in order once sorted: ids only grow).
        self.rows: dict[int, ChatRow] = {}
        self._loading = asyncio.Lock()
        #: The players were sent the spectators' lines (the game ended).
        self._opened = False

    @property
    def room(self) -> ChatRoom:
        """The chat's room (alive while anything can reach this chat but its room)."""
        room = self._room()
        if room is None:
            raise RuntimeError("the chat's room was freed")
        return room

    # -- what each connection sees ------------------------------------------------------

    def visible(self, client: Client, row: ChatRow, muting: bool = True) -> bool:
        """Whether ``client`` may see ``row``: neither hidden nor held, not reported by
        it (its account, or its address for a guest), not by a seat it muted (unless
        not ``muting``: the page keeps those) nor by an account it blocked, and a
        spectators' line only for a spectator or once the game is over."""
        if row.hidden or row.held or (muting and row.seat in client.muted):
            return False
        if row.reporters and reporter(client).key in row.reporters:
            return False
        if row.account_id is not None and row.account_id in client.blocked:
            return False  # its author is blocked by this connection's account
        return row.channel == "players" or not client.seats or self.room.over

    def lines_for(self, client: Client) -> list[ChatLine]:
        return [chat_line(row) for _, row in sorted(self.rows.items()) if self.visible(client, row)]

    async def load(self) -> None:
        """Read the game's last lines from the store again (at each welcome: a line
        the operator hid from a process that could not tell this one, ``marrakech
        admin`` on SQLite, is then hidden here too); pages opening together share one
        read."""
        if self._loading.locked():
            async with self._loading:
                return  # read just now, for another page
        async with self._loading:
            for row in await self.store.load_chat(self.room.game_id, MAX_KEPT):
                self.rows[row.id] = row
            while len(self.rows) > MAX_KEPT:
                del self.rows[min(self.rows)]

    async def welcome(self, client: Client) -> None:
        """After a ``welcome``: the lines so far this client may see (if any)."""
        try:
            await self.load()
        except Exception as error:  # the store is away: the page shows no history
            log.warning("could not read the chat of game %s: %s", self.room.game_id, error)
            return
        lines = self.lines_for(client)
        if lines:
            client.send(ChatLines(lines=lines, history=True).model_dump_json())

    def heard(self, row: ChatRow) -> None:
        """A new line (written here, or relayed by another instance): keep it and send
        it to the connections that may see it."""
        if row.id in self.rows:
            return
        self.rows[row.id] = row
        while len(self.rows) > MAX_KEPT:
            del self.rows[min(self.rows)]
        text = ChatLines(lines=[chat_line(row)]).model_dump_json()
        for client in list(self.room.clients):
            if self.visible(client, row):
                client.send(text)

    def hidden(self, ids: Iterable[int], reason: HideReason = "hidden") -> None:
        """The operator hid these lines (``hidden``), or players' reports ``held``
        them: take them away from every page."""
        before = []
        for line_id in ids:
            row = self.rows.get(line_id)
            if row is None or row.hidden or (reason == "held" and (row.held or row.dismissed)):
                continue
            before.append(row)
            if reason == "hidden":
                self.rows[line_id] = replace(row, hidden=True, held=False)
            else:
                self.rows[line_id] = replace(row, held=True)
        for client in list(self.room.clients):
            shown = [row.id for row in before if self.visible(client, row, muting=False)]
            if shown:
                client.send(ChatHidden(ids=shown, reason=reason).model_dump_json())

    def restored(self, ids: Iterable[int]) -> None:
        """The operator dismissed these lines' reports: a held one comes back to the
        pages that may see it, and no report holds them again."""
        for line_id in ids:
            row = self.rows.get(line_id)
            if row is None or row.dismissed:
                continue
            self.rows[line_id] = replace(row, held=False, dismissed=True)
            if not row.held or row.hidden:
                continue  # the pages still show it, or never will
            text = ChatLines(lines=[chat_line(row)]).model_dump_json()
            for client in list(self.room.clients):
                if self.visible(client, self.rows[line_id]):
                    client.send(text)

    def game_over(self) -> None:
        """The game ended: its players now see the spectators' channel too."""
        if self._opened:
            return
        self._opened = True
        for client in list(self.room.clients):
            lines = [
                chat_line(row)
                for _, row in sorted(self.rows.items())
                if client.seats and row.channel == "spectators" and self.visible(client, row)
            ]
            if lines:
                client.send(ChatLines(lines=lines).model_dump_json())

    # -- what clients send --------------------------------------------------------------

    async def say(self, client: Client, message: ChatMessage) -> None:
        """A message: checked, stored, sent."""
        await self._check_open(client)
        channel = self._channel(client, message.channel)
        try:
            text = chat_text(message.text)
        except ValueError as error:
            raise ProtocolError("chat_bad_text", str(error)) from None
        if len(text) > MAX_CHAT:
            raise ProtocolError(
                "chat_too_long",
                f"expected a message of at most {MAX_CHAT} characters, found {len(text)}",
            )
        await self._write(client, message.seat, channel, "text", text)

    async def react(self, client: Client, message: ReactMessage) -> None:
        """A quick reaction: stored and sent as its code."""
        await self._check_open(client)
        channel = self._channel(client, None)
        await self._write(client, message.seat, channel, "reaction", message.reaction)

    async def report(self, client: Client, message: ReportMessage) -> None:
        """Report a line to the operator's queue: this client (its account, or its
        address) sees it no more; reports of :data:`~marrakech.web.store.HOLD_REPORTS`
        distinct players hold it for every page until the operator decides."""
        await self._check_open(client)
        game_id = self.room.game_id
        try:
            row = await self.store.report_chat(game_id, message.id, reporter(client))
        except Exception:
            log.exception("could not store a report in game %s", game_id)
            raise ProtocolError("server_error", "the server could not store the report") from None
        if row is None:
            raise ProtocolError(
                "no_such_message", f"id: expected a line of this game's chat, found {message.id}"
            )
        kept = self.rows.get(message.id)
        if kept is not None:
            self.rows[message.id] = replace(row, held=kept.held)
        client.send(ChatHidden(ids=[message.id], reason="reported").model_dump_json())
        if row.held and (kept is None or not kept.held):
            self.hidden([message.id], "held")
            self.cluster.chat_held(game_id, [message.id])

    def mute(self, client: Client, message: MuteMessage) -> None:
        """Stop or start showing a seat's lines to this client (from now on)."""
        if message.seat >= self.room.players:
            raise ProtocolError(
                "no_such_seat", f"seat: expected 0..{self.room.players - 1}, found {message.seat}"
            )
        if message.seat in client.seats:
            raise ProtocolError("bad_message", "seat: expected another player's seat, found yours")
        if message.muted:
            client.muted.add(message.seat)
        else:
            client.muted.discard(message.seat)

    def _channel(self, client: Client, asked: ChatChannel | None) -> ChatChannel:
        """The sender's channel: the players' for a seat, the spectators' else."""
        channel: ChatChannel = "players" if client.seats else "spectators"
        if asked is not None and asked != channel:
            raise ProtocolError(
                "chat_channel",
                "players write in the players' chat and spectators in the spectators' one:"
                f" expected {channel!r}, found {asked!r}",
            )
        return channel

    async def _check_open(self, client: Client) -> None:
        if not self.room.chat_on:
            raise ProtocolError("chat_off", "this game has no chat (its host turned it off)")
        if await self.store.is_banned("address", client.address):
            raise ProtocolError("banned", "your address is banned from this server's chat")
        if client.account is not None and await self.store.is_banned("account", client.account):
            raise ProtocolError("banned", "your account is banned from this server's chat")

    async def _write(
        self, client: Client, seat: int | None, channel: ChatChannel, kind: ChatKind, text: str
    ) -> None:
        """Store a checked line as the client's seat (or as a spectator), within the
        limits, then send and relay it."""
        if client.seats:
            author = min(client.seats) if seat is None else seat
            if author not in client.seats:
                raise ProtocolError("not_your_seat", f"seat {author} is not yours")
            player = f"{self.room.game_id}/{author}"
        else:
            if seat is not None:
                raise ProtocolError("not_your_seat", "spectators write as spectators, not seats")
            author, player = SPECTATOR, f"{self.room.game_id}/{client.address}"
        await self.gate.check(player, client.address, client.account)
        row = ChatRow(
            self.room.game_id,
            author,
            channel,
            kind,
            text,
            address=client.address,
            account_id=client.account,
        )
        try:
            row = await self.store.add_chat(row)
        except Exception:
            log.exception("could not store a chat line of game %s", self.room.game_id)
            raise ProtocolError(
                "server_error", "the server could not store the message; nothing was sent"
            ) from None
        self.heard(row)
        self.cluster.chat(replace(row, address=""))
