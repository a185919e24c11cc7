"""One arena game, and the schedule that makes a match fair and reproducible.

A match is a list of bot specs (one per seat, e.g. ``mcts,greedy,greedy,greedy``) played
``games`` times. Game ``i``:

* seats the bots by arrangement ``i mod k`` of the ``k`` distinct seat permutations of
  the list (first-seat advantage is large, so every bot sits in every seat equally often
  when ``games`` is a multiple of ``k``);
* draws every die roll and pile draw, and every bot's random choices, from generators
  seeded by ``(seed, i)`` only, so a game's outcome never depends on the worker count,
  the backend or the order in which games finish.

>>> config = MatchConfig(players=2, bots=("greedy", "random"), games=4, seed=1)
>>> [config.arrangement(i) for i in range(3)]
[('greedy', 'random'), ('random', 'greedy'), ('greedy', 'random')]
>>> result = play_game(config, 0)
>>> result.record.final_state().is_terminal, result.seats
(True, ('greedy', 'random'))
"""

from __future__ import annotations

import hashlib
import itertools
import random
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from marrakech.bots import make_bot, parse_bot_spec
from marrakech.errors import MarrakechError
from marrakech.luck import dice_luck
from marrakech.outcome import Outcome
from marrakech.playout import sample_outcome
from marrakech.record import MAX_SEAT_NAME, GameRecord
from marrakech.rules import PLAYER_COUNTS, STANDARD, RuleSet, parse_rules
from marrakech.state import State


def game_seed(seed: int, index: int, stream: str = "chance") -> int:
    """A 63-bit seed for one generator of one game, from the match seed and game index."""
    digest = hashlib.sha256(f"marrakech-arena/{seed}/{index}/{stream}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def arrangements(bots: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The distinct seat permutations of ``bots``, in a fixed order (the given one first)."""
    seen: dict[tuple[str, ...], None] = {}
    for order in itertools.permutations(range(len(bots))):
        seen.setdefault(tuple(bots[i] for i in order), None)
    return list(seen)


@dataclass(frozen=True)
class MatchConfig:
    """What a match plays: seats, rule set, number of games and the seed."""

    players: int
    bots: tuple[str, ...]
    games: int
    seed: int = 0
    rules: RuleSet = STANDARD

    def __post_init__(self) -> None:
        if self.players not in PLAYER_COUNTS:
            raise MarrakechError(f"expected 2, 3 or 4 players, found {self.players}")
        if len(self.bots) != self.players:
            raise MarrakechError(
                f"expected one bot per seat ({self.players}), found {len(self.bots)}: "
                f"{','.join(self.bots)}"
            )
        for spec in self.bots:
            try:
                parse_bot_spec(spec)
            except ValueError as error:
                raise MarrakechError(str(error)) from None
            if len(f"bot:{spec}") > MAX_SEAT_NAME:  # a record's seat names it (play_game)
                raise MarrakechError(
                    f"bot {spec[:40]}...: expected a spec of at most {MAX_SEAT_NAME - 4} "
                    f"characters (a game record's seat name), found {len(spec)}"
                )
        if self.games < 1:
            raise MarrakechError(f"expected at least 1 game, found {self.games}")

    @property
    def arrangement_count(self) -> int:
        return len(arrangements(self.bots))

    def arrangement(self, index: int) -> tuple[str, ...]:
        """The bot spec in each seat for game ``index``."""
        options = arrangements(self.bots)
        return options[index % len(options)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "bots": list(self.bots),
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules.token(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchConfig:
        try:
            return cls(
                players=int(data["players"]),
                bots=tuple(str(b) for b in data["bots"]),
                games=int(data["games"]),
                seed=int(data["seed"]),
                rules=parse_rules(str(data["rules"])),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise MarrakechError(f"expected a match header, found {data!r} ({error})") from None


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game, with its full record (replayable without the seed)."""

    index: int
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    money: tuple[int, ...]
    eliminated: tuple[int, ...]
    plies: int
    seconds: tuple[float, ...]
    decisions: tuple[int, ...]
    record: GameRecord = field(compare=False)

    @cached_property
    def outcome(self) -> Outcome:
        """How the game ended (:class:`marrakech.outcome.Outcome`)."""
        return Outcome(self.ranks)

    @property
    def winners(self) -> tuple[int, ...]:
        return self.outcome.winners

    def win_share(self, seat: int) -> float:
        """The seat's share of the win: 1 alone, 1/k when k winners share it (R21)."""
        return self.outcome.win_share(seat)

    @cached_property
    def luck(self) -> tuple[float, ...]:
        """Each seat's dice luck in dirhams (:func:`marrakech.luck.dice_luck`),
        replayed from the record once and kept (a worker computes it before sending the
        result back, so it travels with it)."""
        return dice_luck(self.record)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "game",
            "index": self.index,
            "seats": list(self.seats),
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "money": list(self.money),
            "eliminated": list(self.eliminated),
            "plies": self.plies,
            "seconds": [round(s, 4) for s in self.seconds],
            "decisions": list(self.decisions),
            "record": self.record.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        try:
            return cls(
                index=int(data["index"]),
                seats=tuple(data["seats"]),
                scores=tuple(int(x) for x in data["scores"]),
                ranks=tuple(int(x) for x in data["ranks"]),
                money=tuple(int(x) for x in data["money"]),
                eliminated=tuple(int(x) for x in data["eliminated"]),
                plies=int(data["plies"]),
                seconds=tuple(float(x) for x in data["seconds"]),
                decisions=tuple(int(x) for x in data["decisions"]),
                record=GameRecord.from_dict(data["record"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise MarrakechError(
                f"expected a game result, found a broken entry ({error})"
            ) from None


def play_game(config: MatchConfig, index: int) -> GameResult:
    """Play game ``index`` of ``config`` (fresh bots, so no state leaks between games)."""
    seats = config.arrangement(index)
    bots = [make_bot(spec) for spec in seats]
    chance = random.Random(game_seed(config.seed, index))
    rngs = [random.Random(game_seed(config.seed, index, f"seat{s}")) for s in range(len(seats))]
    state = State.new(config.players, config.rules)
    actions = []
    seconds = [0.0] * config.players
    decisions = [0] * config.players
    while not state.is_terminal:
        if state.is_chance:
            action = sample_outcome(state, chance)
        else:
            seat = state.turn
            began = time.perf_counter()
            action = bots[seat].choose(state, rngs[seat])
            seconds[seat] += time.perf_counter() - began
            decisions[seat] += 1
        actions.append(action)
        state = state.apply(action)  # raises IllegalActionError if a bot misbehaves
    record = GameRecord(
        players=config.players,
        rules=config.rules,
        first_seat=0,
        actions=tuple(actions),
        seats=tuple(f"bot:{spec}" for spec in seats),
        meta={"arena_seed": config.seed, "game": index},
    )
    result = GameResult(
        index=index,
        seats=seats,
        scores=state.scores(),
        ranks=state.ranks(),
        money=state.money,
        eliminated=state.eliminated,
        plies=len(actions),
        seconds=tuple(seconds),
        decisions=tuple(decisions),
        record=record,
    )
    _ = result.luck  # replayed here, in the worker: the cached value travels with it
    return result
