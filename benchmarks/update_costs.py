"""What a room's update costs its event loop per action, in process (issue 36).

Plays random games of 2 people and a bot (3 players) and times only
:meth:`marrakech.web.room.updates.Updates.broadcast` after each action, with two
connections (one per person, as ``benchmarks/load_web.py`` has): the state view and its
changes, the preview while a person orients, the log line, the last turn, the JSON,
each connection's legal tokens. No sockets, no store, no clients: the figure moves only
with the update's own code, so two versions compare without the noise of a shared
machine (``load_web.py`` measures the whole)::

    .venv/bin/python benchmarks/update_costs.py
    PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/update_costs.py  # another version

It prints the best and the median of 15 passes over the same games, in microseconds per
action (on a busy machine the best is the steadiest).
"""

from __future__ import annotations

import argparse
import random
import time

from marrakech.events import Event
from marrakech.player_turns import TurnSpan, extend_turns
from marrakech.playout import sample_outcome
from marrakech.state import State
from marrakech.web.connection import Client
from marrakech.web.protocol import Analysis, Clock, GameMeta, Legal
from marrakech.web.room.meta import clock_view
from marrakech.web.room.status import seat_to_move
from marrakech.web.room.updates import Updates
from marrakech.web.store import SeatRow


class Room:
    """What :class:`Updates` reads of a room (its ``UpdatedRoom``), for one game."""

    def __init__(self) -> None:
        self.state = State.new(3)
        self.events: list[Event] = []
        self.spans: list[TurnSpan] = []
        self.seats = [
            SeatRow(0, "human", name="Amir"),
            SeatRow(1, "human", name="Bea"),
            SeatRow(2, "bot", level="easy"),
        ]
        self.clients = {Client(frozenset({0}), "en", 10**6), Client(frozenset({1}), "en", 10**6)}
        self.analysis: Analysis | None = None
        self._legal: tuple[int, list[str]] = (-1, [])

    @property
    def version(self) -> int:
        return len(self.events)

    def meta(self) -> GameMeta:
        raise NotImplementedError("an update carries no game setting")

    def legal_for(self, seat: int) -> list[str]:
        """As the room's: once per version, for every connection."""
        if seat_to_move(self.state) != seat:
            return []
        version, tokens = self._legal
        if version != self.version:
            state = self.state
            tokens = ["roll"] if state.is_chance else [str(a) for a in state.legal_actions()]
            self._legal = (self.version, tokens)
        return tokens

    def legal_map(self, client: Client) -> Legal:
        return {str(seat): self.legal_for(seat) for seat in sorted(client.seats)}

    def clock_view(self) -> Clock:
        return clock_view("none", 0, "easy", None)


def games(count: int, seed: int) -> list[list[Event]]:
    """The events of ``count`` random games of 3 players."""
    rng = random.Random(seed)
    played = []
    for _ in range(count):
        state, events = State.new(3), []
        while not state.is_terminal:
            action = (
                sample_outcome(state, rng) if state.is_chance else rng.choice(state.legal_actions())
            )
            events.append(state.describe(action))
            state = events[-1].after
        played.append(events)
    return played


def one_pass(played: list[list[Event]]) -> float:
    """Seconds spent in the updates of every action of ``played``."""
    spent = 0.0
    for events in played:
        room, updates = Room(), Updates()
        updates.reset(room)
        updates.view(room)
        for event in events:
            room.events.append(event)
            room.state = event.after
            extend_turns(room.spans, room.events)
            began = time.perf_counter()
            updates.broadcast(room, [event])
            spent += time.perf_counter() - began
            for client in room.clients:  # what the connections' writers would take
                while not client.outbox.empty():
                    client.outbox.get_nowait()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="random games (30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--passes", type=int, default=15, help="passes; the best is shown (15)")
    args = parser.parse_args()
    played = games(args.games, args.seed)
    actions = sum(len(events) for events in played)
    passes = [1e6 * one_pass(played) / actions for _ in range(args.passes)]
    passes.sort()
    print(
        f"update per action: {passes[0]:.1f} us (best of {len(passes)} passes;"
        f" median {passes[len(passes) // 2]:.0f} us), {actions} actions"
    )


if __name__ == "__main__":
    main()
