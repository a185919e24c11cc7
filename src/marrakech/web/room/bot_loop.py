"""The bots' turns: while a bot is to move in a game this instance owns, ask the
server's scheduler (:mod:`marrakech.web.bot_workers`) for its move, wait out a short
visible pause, then play it, unless the game moved on meanwhile."""

from __future__ import annotations

import asyncio
import logging
import random
import weakref
from collections.abc import Callable
from typing import Protocol, TypeVar

from marrakech.actions import Action
from marrakech.bots import Bot
from marrakech.playout import sample_outcome
from marrakech.state import Phase, State
from marrakech.web.bot_workers import BotScheduler
from marrakech.web.protocol import DEFAULT_LEVEL, ProtocolError
from marrakech.web.store import SeatRow

log = logging.getLogger("marrakech.web")

#: Refusals of a bot's move that are tried again: the store failed, or another instance
#: moved the game on (the room caught up from the store).
RETRIED = ("server_error", "stale_version")
#: The longest wait between two tries.
MAX_RETRY_SECONDS = 8.0


class BotsRoom(Protocol):
    """What the bot loop needs of a room."""

    game_id: str
    state: State
    seats: list[SeatRow]
    closed: bool
    owner: bool
    lock: asyncio.Lock
    die: random.Random

    @property
    def version(self) -> int: ...

    def mover(self) -> int | None: ...

    def bot_to_move(self) -> bool: ...

    async def accept(self, action: Action | None, resign: int | None = None) -> None: ...


R = TypeVar("R")


def release_when_idle(release: Callable[[R], None], room: R) -> Callable[[], None]:
    """``release(room)``, to call when the bots are idle, holding ``room`` weakly (a
    room's parts never keep it alive: see :class:`BotLoop`)."""
    held = weakref.ref(room)

    def idle() -> None:
        alive = held()
        if alive is not None:
            release(alive)

    return idle


class BotLoop:
    """One game's bot turns: at most one loop runs (:meth:`kick` starts it).

    The loop holds its room weakly (as the room's clock and chat do), the room holding
    it: an unloaded room is freed at once, by reference counting, rather than at the
    cycle collector's next full pass, which may come thousands of rooms later
    (``benchmarks/load_turn_based.py``: memory per idle game)."""

    def __init__(
        self,
        room: BotsRoom,
        scheduler: BotScheduler,
        rng: random.Random,
        delay: float,
        on_idle: Callable[[], None],
    ) -> None:
        self._room = weakref.ref(room)
        self._game_id = room.game_id
        self._scheduler = scheduler
        self._rng = rng
        self._delay = delay
        self._on_idle = on_idle
        self._bots: dict[tuple[int, str], Bot] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self._task is not None

    def kick(self) -> None:
        """Start the loop if the room's instance owns the game, a bot is to move and no
        loop runs."""
        room = self._room()
        if room is None or room.closed or not room.owner:
            return
        if self._task is not None or not room.bot_to_move():
            return
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"bots of game {room.game_id}"
        )

    def cancel(self) -> asyncio.Task[None] | None:
        task = self._task
        if task is not None:
            task.cancel()
        return task

    async def _run(self) -> None:
        room = self._room()  # kept while the loop runs
        loop = asyncio.get_running_loop()
        failures = 0
        try:
            while room is not None and not room.closed and room.owner and room.bot_to_move():
                version = room.version
                started = loop.time()
                action = await self._choose(room, room.state)
                # Thinking counts towards the pause that lets people see each bot move.
                await asyncio.sleep(max(0.0, self._delay - (loop.time() - started)))
                async with room.lock:
                    # A player who took the seat back meanwhile decides, not the bot.
                    if (
                        room.closed
                        or not room.owner
                        or room.version != version
                        or not room.bot_to_move()
                    ):
                        continue
                    try:
                        await room.accept(action)
                        failures = 0
                        continue
                    except ProtocolError as error:
                        if error.code not in RETRIED:
                            log.error("bot move in game %s refused: %s", room.game_id, error)
                            return
                failures += 1
                # The store failed (a database restart, a full disk) or moved on behind
                # this room: wait, then choose again; the game must not freeze.
                delay = min(MAX_RETRY_SECONDS, 0.25 * 2**failures)
                log.warning(
                    "game %s: a bot move could not be stored (%d in a row), retrying in %.1f s",
                    room.game_id,
                    failures,
                    delay,
                )
                await asyncio.sleep(delay)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the bots of game %s stopped", self._game_id)
        finally:
            self._task = None
            self._on_idle()

    async def _choose(self, room: BotsRoom, state: State) -> Action:
        if state.phase is Phase.ROLL:
            return sample_outcome(state, room.die)
        seat = room.mover()
        assert seat is not None
        row = room.seats[seat]
        level = row.stand_in or row.level or DEFAULT_LEVEL
        bot = None if self._scheduler.processes else self._bot(seat, level)
        seed = self._rng.getrandbits(64)
        action = await self._scheduler.choose(bot, level, state, seed)
        if action not in state.legal_actions():  # a bot bug must not stall a game
            who = f"game {room.game_id}, the bot of seat {seat}"
            log.error("%s", state.illegal_action_error(action, who=who))
            action = state.legal_actions()[0]
        return action

    def _bot(self, seat: int, level: str) -> Bot:
        bot = self._bots.get((seat, level))
        if bot is None:
            bot = self._bots[seat, level] = self._scheduler.make_bot(level)
        return bot
