"""A program playing its seats of a game on a Marrakech server, as a page does.

:class:`GameClient` speaks the public WebSocket protocol (docs/web-protocol.md): it
says hello with its seat tokens and ``"bot": true`` (the other players see "bot
(external)"), follows the game from each ``welcome`` and ``update``, and answers only
its own decisions: ``roll`` when its seat's roll is awaited (the server rolls), an
orientation or a placement chosen by its :class:`~marrakech.web.connect.agent.Agent`
within the clock; never a draw or another seat's turn. When the socket drops it
reconnects as the page does (a pause doubling from 0.4 s to 10 s) and carries on from
the new welcome; if a bot stood in for its seat meanwhile, it takes the seat back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from marrakech.state import State
from marrakech.web.connect.agent import Agent, StopTimer, agent_of, quick_agent
from marrakech.web.connect.seats import ConnectError, Target, request

#: Refusals of an action a client meets in a normal game (its action crossed a change,
#: it sent too fast, the store failed once): it carries on from the latest state.
RETRY = frozenset({"stale_version", "not_your_turn", "rate_limited", "server_error"})
#: Refusals that end the client: nothing it can do on this seat would work.
FATAL = {
    "not_found": "no such game on this server",
    "bad_token": "the link's token matches no seat of this game (a mistyped link, or "
    "the host opened the seat again)",
    "bots_refused": "this server refuses external bots here",
    "banned": "the server's operator banned this address",
    "not_your_seat": "the server says this connection holds no such seat",
}
#: WebSocket close codes after which reconnecting would not help (docs/web-protocol.md).
FATAL_CLOSE = {4404: "no such game", 4403: "banned", 4406: "external bots refused"}
#: Seconds kept back from the clock for the roll's round trip and the network.
CLOCK_MARGIN = 1.5
#: Below this many seconds of budget, the quick move is played at once.
QUICK_BELOW = 0.05
#: The server's message rate, if its ``GET /api/config`` does not say (its default).
DEFAULT_RATE, DEFAULT_BURST = 20.0, 40
#: The share of the server's rate and burst the client keeps to: messages sent evenly
#: may still arrive bunched by the network.
RATE_SHARE = 0.8


def reconnect_pause(attempt: int, rng: random.Random) -> float:
    """Seconds before reconnection attempt ``attempt`` (0 first), as the page waits
    (static/js/net.js): doubling from 0.4 s up to 10 s, give or take a quarter.

    >>> 0.3 <= reconnect_pause(0, random.Random(1)) <= 0.5
    True
    """
    return float(min(10.0, 0.4 * 2**attempt)) * rng.uniform(0.75, 1.25)


def merge_changes(view: Any, changes: Any) -> Any:
    """The view after an update's ``changes`` (the page's ``applyChanges``): an
    object, or a list keyed by index, gets the entries given; any other value is
    replaced; nothing is removed.

    >>> merge_changes({"a": [1, {"b": 2}], "c": 3}, {"a": {"1": {"b": 5}}, "c": None})
    {'a': [1, {'b': 5}], 'c': None}
    """
    if isinstance(changes, dict) and isinstance(view, dict):
        merged = dict(view)
        for key, value in changes.items():
            merged[key] = merge_changes(view.get(key), value)
        return merged
    if isinstance(changes, dict) and isinstance(view, list):
        items = list(view)
        for key, value in changes.items():
            index = int(key)
            while len(items) <= index:
                items.append(None)
            items[index] = merge_changes(items[index], value)
        return items
    return changes


@dataclass(frozen=True)
class GameResult:
    """How the game ended, for the client's seats."""

    game_id: str
    site: str
    #: The seats this client played.
    seats: tuple[int, ...]
    winners: tuple[int, ...]
    #: Per seat: its rank (1 best, tied seats share), its score (R20), its name.
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    names: tuple[str, ...]
    decisions: int = 0
    #: Decisions played by the quick move because the agent would have been late.
    quick_moves: int = 0
    reconnections: int = 0
    #: Actions the server refused (a game without mishaps has none: the client never
    #: sends out of turn, at a draw, or a token that is not legal).
    refusals: int = 0

    @property
    def won(self) -> bool:
        """Whether one of the client's seats is among the winners (R21)."""
        return any(seat in self.winners for seat in self.seats)

    def summary(self) -> str:
        """A few lines: who won, every seat's rank and score, the replay's link."""
        lines = [f"game {self.game_id} is over: " + ("won" if self.won else "lost")]
        for seat in sorted(range(len(self.ranks)), key=lambda s: self.ranks[s]):
            mark = " (this bot)" if seat in self.seats else ""
            lines.append(
                f"  {self.ranks[seat]}. seat {seat} {self.names[seat]}{mark}: {self.scores[seat]}"
            )
        lines.append(
            f"decisions {self.decisions} (quick moves {self.quick_moves}), "
            f"reconnections {self.reconnections}; replay {self.site}r/{self.game_id}"
        )
        return "\n".join(lines)


class Pace:
    """Keeps the messages sent within a rate: ``rate`` a second, bursts of ``burst``
    (a token bucket, as the server's for each connection). :meth:`delay` books one
    message and says how long to wait before sending it.

    >>> pace = Pace(rate=2.0, burst=2, clock=lambda: 0.0)
    >>> [pace.delay() for _ in range(4)]
    [0.0, 0.0, 0.5, 1.0]
    """

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"expected rate > 0 and burst >= 1, found {rate} and {burst}")
        self.rate, self.burst, self._clock = rate, burst, clock
        self._tokens, self._last = burst, clock()

    def delay(self) -> float:
        """Seconds until one more message may go (0: now); the message is booked."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate) - 1.0
        self._last = now
        return max(0.0, -self._tokens / self.rate)


def server_pace(site: str) -> Pace:
    """A :class:`Pace` within the message rate ``site`` declares (``limits`` of
    ``GET /api/config``), or the server's default if it says nothing."""
    try:
        status, config = request(site, "GET", "api/config")
    except ConnectError:
        status, config = 0, None
    limits = config.get("limits", {}) if status == 200 and isinstance(config, dict) else {}
    rate = limits.get("messages_per_second", DEFAULT_RATE)
    burst = limits.get("message_burst", DEFAULT_BURST)
    if not isinstance(rate, int | float) or not isinstance(burst, int | float) or rate <= 0:
        rate, burst = DEFAULT_RATE, DEFAULT_BURST
    return Pace(rate * RATE_SHARE, max(1.0, burst * RATE_SHARE))


@dataclass
class _Seen:
    """What the client knows of the game: the last message's view, version, legal
    tokens, meta and clock (with when it came)."""

    version: int = -1
    view: dict[str, Any] = field(default_factory=dict)
    legal: dict[str, list[str]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    clock: dict[str, Any] = field(default_factory=dict)
    clock_at: float = 0.0
    you: tuple[int, ...] = ()


class GameClient:
    """Plays the seats of ``target`` (its tokens) with ``agent`` until the game ends.

    ``agent``: an :class:`~marrakech.web.connect.agent.Agent`, a bot (``make_bot(...)``),
    a ``choose(state, rng)`` or a ``policy(observation, mask)`` function. ``report``
    receives a line for each notable thing (connected, reconnecting, a quick move).
    ``patience``: seconds without a connection before giving up.

    >>> from marrakech.web.connect import GameClient, Target, load_agent
    >>> client = GameClient(Target("http://127.0.0.1:8000/", "abc", ("TOKEN",)), load_agent("easy"))
    >>> client.target.socket_url()
    'ws://127.0.0.1:8000/ws/abc'
    """

    def __init__(
        self,
        target: Target,
        agent: Any,
        *,
        lang: str = "en",
        seed: int | None = None,
        patience: float = 300.0,
        report: Callable[[str], None] | None = None,
    ) -> None:
        if target.game_id is None or not target.tokens:
            raise ConnectError("a GameClient needs a game and a seat token: join a seat first")
        self.target = target
        self.agent: Agent = agent_of(agent, getattr(agent, "name", "agent"))
        self.quick = quick_agent()
        self.lang = lang
        self.rng = random.Random(seed)
        self.patience = patience
        self.report = report or (lambda line: None)
        self.seen = _Seen()
        self.decisions = 0
        self.quick_moves = 0
        self.reconnections = 0
        self.refusals = 0
        self._acting: tuple[int, int] | None = None
        self._illegal_at = -1
        self._taking_back: set[tuple[int, int]] = set()
        self._thinking: asyncio.Task[None] | None = None
        self._late: asyncio.Future[Any] | None = None
        self._said_waiting = False
        self._pace: Pace | None = None

    def run(self) -> GameResult:
        """:meth:`play` to the end (blocking: starts an event loop)."""
        return asyncio.run(self.play())

    async def play(self) -> GameResult:
        """Play until the game ends, reconnecting whenever the connection drops."""
        attempt = 0
        lost_since: float | None = None
        if self._pace is None:
            self._pace = await asyncio.to_thread(server_pace, self.target.site)
        while True:
            reason = "the connection closed"
            try:
                async with connect(
                    self.target.socket_url(), max_size=2**22, open_timeout=15, ping_interval=20
                ) as ws:
                    lost_since, attempt = None, 0
                    result = await self._session(ws)
                    if result is not None:
                        return result
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                if code in FATAL_CLOSE:
                    raise ConnectError(f"the server closed the game: {FATAL_CLOSE[code]}") from None
                reason = f"the connection closed ({code})"
            except InvalidStatus as error:
                status = error.response.status_code
                if status in (403, 404):
                    raise ConnectError(
                        f"the server refused the game's socket ({status}): "
                        f"{error.response.body.decode(errors='replace')[:200]}"
                    ) from None
                reason = f"the server answered {status}"
            except (OSError, InvalidHandshake, TimeoutError) as error:
                reason = f"no connection ({error or type(error).__name__})"
            finally:
                self._stop_thinking()
            now = time.monotonic()
            lost_since = lost_since or now
            if now - lost_since > self.patience:
                raise ConnectError(
                    f"no connection to {self.target.site} for {self.patience:g} s ({reason}): "
                    f"gave up; the seat's link is {self.target.link()}"
                )
            pause = reconnect_pause(attempt, self.rng)
            self.reconnections += 1
            self.report(f"{reason}: reconnecting in {pause:.1f} s")
            await asyncio.sleep(pause)
            attempt += 1

    # -- one connection -----------------------------------------------------------------

    async def _session(self, ws: ClientConnection) -> GameResult | None:
        """One connection's life: the result once the game is over, None if it closed."""
        hello = {"type": "hello", "tokens": list(self.target.tokens), "lang": self.lang}
        await ws.send(json.dumps({**hello, "bot": True}))
        self.seen.version = -1
        self._acting = None
        async for raw in ws:
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "error":
                await self._refused(ws, message)
            elif kind == "welcome":
                self._welcome(message)
            elif kind == "update":
                if not self._update(message):
                    return None  # a gap in the versions: a fresh welcome mends it
            elif kind == "game":
                self.seen.meta = message["game"]
                self._clock(message["game"].get("clock"))
            else:
                continue  # chat, analysis, bots busy, rematch, pong: not for a bot
            if self.seen.view.get("phase") == "over":
                self._stop_thinking()
                return self._result()
            await self._take_back(ws)
            await self._act(ws)
        return None

    def _welcome(self, message: dict[str, Any]) -> None:
        seen = self.seen
        seen.version, seen.view = message["version"], message["state"]
        seen.legal, seen.meta = message["legal"], message["game"]
        seen.you = tuple(message["you"])
        self._clock(message["game"].get("clock"))
        self._stop_thinking()
        self._acting = None
        if not seen.you:
            raise ConnectError(f"{FATAL['bad_token']}: {self.target.link()}")
        names = ", ".join(f"seat {seat}" for seat in seen.you)
        self.report(f"playing {names} of game {self.target.game_id} (version {seen.version})")
        if seen.meta.get("status") == "waiting" and not self._said_waiting:
            self._said_waiting = True
            self.report("the game waits for its open seats to be taken (or its host to start)")

    def _update(self, message: dict[str, Any]) -> bool:
        seen = self.seen
        version = message["version"]
        if version - len(message["events"]) != seen.version:
            self.report(f"missed versions {seen.version + 1}..{version}: reconnecting")
            return False
        changes = message.get("changes")
        seen.view = message["state"] if changes is None else merge_changes(seen.view, changes)
        seen.version, seen.legal = version, message["legal"]
        self._clock(message.get("clock"))
        return True

    def _clock(self, clock: dict[str, Any] | None) -> None:
        if clock is not None:
            self.seen.clock, self.seen.clock_at = clock, time.monotonic()

    async def _refused(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        self.refusals += 1
        if code in FATAL:
            raise ConnectError(f"{FATAL[code]} ({code}: {message.get('message')})")
        if code == "bad_message" and self.seen.version < 0:  # the hello itself
            raise ConnectError(
                f"the server refused the hello of a bot ({message.get('message')}): a server "
                "older than external bots cannot show the seat as a bot, so it is not played"
            )
        if code == "illegal_action":
            self._illegal_at = self.seen.version
        elif code not in RETRY:
            self.report(f"the server refused: {code}: {message.get('message')}")
            return
        if message.get("version") == self.seen.version:  # nothing else will come: retry
            await asyncio.sleep(1.0 if code in ("rate_limited", "server_error") else 0.2)
            self._acting = None

    async def _take_back(self, ws: ClientConnection) -> None:
        """A bot stands in for one of the seats (its time ran out, or the host replaced
        it while the connection was down): take the seat back."""
        if self.seen.meta.get("status") != "playing":
            return
        for info in self.seen.meta.get("seats", []):
            seat = info.get("seat")
            key = (seat, self.seen.version)
            if seat in self.seen.you and info.get("stand_in") and key not in self._taking_back:
                self._taking_back.add(key)
                self.report(f"a bot stood in for seat {seat}: taking it back")
                await self._paced(ws, {"type": "take_back", "seat": seat})

    # -- deciding -----------------------------------------------------------------------

    async def _act(self, ws: ClientConnection) -> None:
        """Answer the decision of one of the seats, if one is awaited and not answered."""
        seen = self.seen
        for key, tokens in seen.legal.items():
            seat = int(key)
            if not tokens or self._acting == (seat, seen.version):
                continue
            self._stop_thinking()
            self._acting = (seat, seen.version)
            if tokens == ["roll"]:
                await self._send(ws, seat, seen.version, "roll")
            else:
                self._thinking = asyncio.create_task(self._decide(ws, seat, seen.version, tokens))
            return

    async def _decide(
        self, ws: ClientConnection, seat: int, version: int, tokens: list[str]
    ) -> None:
        state = State.from_notation(self.seen.view["notation"])
        if state.to_move != seat or state.is_chance or state.is_terminal:
            return  # the view and the legal tokens disagree: wait for the next message
        if self._illegal_at == version:  # the agent's answer was refused: any legal one
            action = self.rng.choice(tokens)
        else:
            action = str(await self._choose(state, self._budget(seat, state)))
        if self.seen.version == version:  # the game did not move on meanwhile
            self.decisions += 1
            await self._send(ws, seat, version, action)

    def _budget(self, seat: int, state: State) -> float | None:
        """Seconds the agent may think for this decision: None without a running clock
        on the seat; else a share of the time left (orienting leaves the placement to
        come), less a margin for the roll and the network."""
        clock = self.seen.clock
        if clock.get("seat") != seat or clock.get("remaining") is None:
            return None
        left = float(clock["remaining"]) - (time.monotonic() - self.seen.clock_at)
        share = 0.5 if state.phase.name == "ORIENT" else 1.0
        return max(0.0, (left - CLOCK_MARGIN) * share * 0.9)

    async def _choose(self, state: State, budget: float | None) -> Any:
        """The agent's decision within ``budget`` seconds, else the quick move."""
        loop = asyncio.get_running_loop()
        if (budget is not None and budget < QUICK_BELOW) or (
            self._late is not None and not self._late.done()
        ):  # no time, or the agent still thinks about an earlier decision
            return self._quick(state, "no time left to think")
        agent = self.agent
        timer = StopTimer(budget if agent.stoppable else None)
        stop = timer.flag if agent.stoppable else None
        future = loop.run_in_executor(None, agent.decide, state, self.rng, stop)
        try:
            if budget is None:
                return await future
            return await asyncio.wait_for(asyncio.shield(future), budget + 0.2)
        except TimeoutError:
            self._late = future
            return self._quick(state, f"{agent.name} was still thinking after {budget:.1f} s")
        except Exception as error:  # a researcher's policy may raise anything
            return self._quick(state, f"{agent.name} failed: {error!r}")
        finally:
            timer.cancel()

    def _quick(self, state: State, why: str) -> Any:
        self.quick_moves += 1
        self.report(f"{why}: played a quick move")
        return self.quick.decide(state, self.rng, None)

    async def _send(self, ws: ClientConnection, seat: int, version: int, action: str) -> None:
        message = {"type": "action", "seat": seat, "version": version, "action": action}
        await self._paced(ws, message, version)

    async def _paced(
        self, ws: ClientConnection, message: dict[str, Any], version: int | None = None
    ) -> None:
        """Send ``message`` within the server's rate (a fast game is not refused), unless
        the game moved on from ``version`` meanwhile."""
        if self._pace is not None:
            await asyncio.sleep(self._pace.delay())
        if version is not None and self.seen.version != version:
            return
        with contextlib.suppress(ConnectionClosed):  # the reader sees the close too
            await ws.send(json.dumps(message))

    def _stop_thinking(self) -> None:
        if self._thinking is not None and not self._thinking.done():
            self._thinking.cancel()
        self._thinking = None

    def _result(self) -> GameResult:
        view, meta = self.seen.view, self.seen.meta
        seats = view["seats"]
        infos = {info["seat"]: info for info in meta.get("seats", [])}
        names = tuple(
            infos.get(n, {}).get("name") or "/".join(seats[n].get("colours", [])) or "?"
            for n in range(len(seats))
        )
        return GameResult(
            game_id=str(self.target.game_id),
            site=self.target.site,
            seats=self.seen.you,
            winners=tuple(view["winners"]),
            ranks=tuple(int(seat["rank"]) for seat in seats),
            scores=tuple(int(seat["score"]) for seat in seats),
            names=names,
            decisions=self.decisions,
            quick_moves=self.quick_moves,
            reconnections=self.reconnections,
            refusals=self.refusals,
        )
