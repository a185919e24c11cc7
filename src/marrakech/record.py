"""Game records: the rule set, the seats and every action in order, as JSON.

A record holds no seed: rolls and draws are actions like any other, so replaying it is
exact. The format is versioned (``"format": "marrakech-record"``, ``"version": 2``).
Version 2 records 2-player orient-last games (R32) in Board Game Arena's order: the
placer's pile reveals its next top before he orients. Version 1 records, written before,
still load: their orientations and the reveals that followed them are put back in that
order (:func:`reveal_before_orient`)::

    >>> import random
    >>> from marrakech import State, random_game
    >>> final, actions = random_game(State.new(players=3), random.Random(7))
    >>> record = GameRecord.from_actions(State.new(players=3), actions)
    >>> GameRecord.from_json(record.to_json()).final_state() == final
    True
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marrakech.actions import Action, Draw, Orient, parse_action
from marrakech.errors import IllegalActionError, MarrakechError, NotationError
from marrakech.rules import PLAYER_COUNTS, STANDARD, RuleSet, parse_rules
from marrakech.state import State

FORMAT = "marrakech-record"
VERSION = 2
#: Record versions this code reads: 1 (2-player orient-last games in the old order,
#: the orientation before the pile's reveal) and 2.
VERSIONS = (1, 2)
MAX_ACTIONS = 2000  # a 4-player game has about 150; this bounds hostile input
#: The longest seat name a record holds: room for a bot's spec with a file's path
#: (``bot:az@weights=benchmarks/training/.../gen-0029.npz@simulations=2048``), and a
#: bound on hostile input.
MAX_SEAT_NAME = 1000


@dataclass(frozen=True)
class GameRecord:
    """A game as data: rules, seats, first seat, actions; optional metadata.

    ``seats`` names who sat where (``"human"``, ``"bot:mcts"``, a player name...).
    ``start`` is a position string when the game did not start from the opening.
    """

    players: int
    rules: RuleSet = STANDARD
    first_seat: int = 0
    actions: tuple[Action, ...] = ()
    seats: tuple[str, ...] = ()
    start: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # What a record may hold is what its reader accepts: a record written is one
        # that reads back (an arena's results file once had seats too long to resume).
        _check_seats(self.seats, self.players)

    @classmethod
    def from_actions(
        cls,
        start: State,
        actions: Sequence[Action],
        seats: Sequence[str] = (),
        meta: dict[str, Any] | None = None,
    ) -> GameRecord:
        """A record of ``actions`` played from ``start`` (checked for legality)."""
        opening = State.new(start.players, start.rules, start.turn)
        record = cls(
            players=start.players,
            rules=start.rules,
            first_seat=start.turn,
            actions=tuple(actions),
            seats=tuple(seats),
            start=None if start == opening else start.notation(),
            meta=dict(meta or {}),
        )
        record.final_state()
        return record

    def initial_state(self) -> State:
        if self.start is not None:
            return State.from_notation(self.start)
        return State.new(self.players, self.rules, self.first_seat)

    def states(self) -> Iterator[State]:
        """Every position from the start to the last, replayed exactly."""
        state = self.initial_state()
        yield state
        for number, action in enumerate(self.actions, 1):
            try:
                state = state.apply(action)
            except IllegalActionError as error:
                raise NotationError(f"record action {number} ({action}): {error}") from None
            yield state

    def final_state(self) -> State:
        return deque(self.states(), maxlen=1)[0]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "players": self.players,
            "rules": self.rules.token(),
            "first_seat": self.first_seat,
            "seats": list(self.seats),
            "actions": [str(a) for a in self.actions],
        }
        if self.start is not None:
            data["start"] = self.start
        if self.meta:
            data["meta"] = self.meta
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Parse and replay-check a JSON record; any fault raises :class:`NotationError`."""
        try:
            data = json.loads(text)
        except (ValueError, TypeError) as error:
            raise NotationError(f"expected a JSON game record: {error}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        if not isinstance(data, dict):
            raise NotationError(f"expected a JSON object, found {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise NotationError(f'expected "format": "{FORMAT}", found {data.get("format")!r}')
        version = data.get("version")
        if version not in VERSIONS or isinstance(version, bool):
            raise NotationError(
                f"expected record version {' or '.join(map(str, VERSIONS))}, found {version!r}"
            )
        players = _field(data, "players", int)
        if players not in PLAYER_COUNTS:
            raise NotationError(f'"players": expected 2, 3 or 4, found {players!r}')
        rules = parse_rules(_field(data, "rules", str))
        first_seat = _field(data, "first_seat", int)
        if not 0 <= first_seat < players:
            raise NotationError(f'"first_seat": expected 0..{players - 1}, found {first_seat!r}')
        seats = _field(data, "seats", list, default=[])
        _check_seats(seats, players)
        tokens = _field(data, "actions", list)
        if len(tokens) > MAX_ACTIONS:
            raise NotationError(f'"actions": expected at most {MAX_ACTIONS}, found {len(tokens)}')
        actions = []
        for number, token in enumerate(tokens, 1):
            if not isinstance(token, str):
                raise NotationError(f"action {number}: expected a token string, found {token!r}")
            try:
                actions.append(parse_action(token))
            except NotationError as error:
                raise NotationError(f"action {number}: {error}") from None
        if version == 1:
            actions = list(reveal_before_orient(players, rules, actions))
        start = _field(data, "start", str, default=None)
        meta = _field(data, "meta", dict, default={})
        record = cls(players, rules, first_seat, tuple(actions), tuple(seats), start, meta)
        try:
            initial = record.initial_state()
        except MarrakechError as error:
            raise NotationError(f'"start": {error}') from None
        if initial.players != players or initial.rules != rules:
            raise NotationError('"start" does not match "players" and "rules"')
        record.final_state()  # every action must be legal where it stands
        return record


def reveal_before_orient(
    players: int, rules: RuleSet, actions: Sequence[Action]
) -> tuple[Action, ...]:
    """``actions`` of a 2-player orient-last game (R32) in today's order: engines before
    record version 2 let the placer orient and then revealed his pile's next top (R7);
    Board Game Arena reveals it first, and so does the engine now. Each orientation
    directly followed by a draw is swapped with it; no other game changes, and actions
    already in today's order come back unchanged (there an orientation is never
    directly followed by a draw).

    >>> from marrakech.rules import parse_rules
    >>> old = [parse_action(t) for t in ("+R", "+B", "r2", "d5-d6", "L", "+Y", "r1")]
    >>> rules = parse_rules("standard+orient-last")
    >>> [str(a) for a in reveal_before_orient(2, rules, old)]
    ['+R', '+B', 'r2', 'd5-d6', '+Y', 'L', 'r1']
    """
    if players != 2 or not rules.orient_last:
        return tuple(actions)
    moved = list(actions)
    for index in range(len(moved) - 1):
        if isinstance(moved[index], Orient) and isinstance(moved[index + 1], Draw):
            moved[index], moved[index + 1] = moved[index + 1], moved[index]
    return tuple(moved)


def read_text(path: str | os.PathLike[str], what: str = "game record") -> str:
    """The text of a file, or a :class:`MarrakechError` saying why it cannot be read: a
    missing file, a folder, bytes that are not UTF-8 (``what`` names what was expected).
    """
    try:
        data = Path(path).expanduser().read_bytes()
    except OSError as error:
        # Chained, so that an interface can say the OS error in its own language.
        raise MarrakechError(f"cannot read {path}: {error.strerror}") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotationError(
            f"{path}: expected a {what} in UTF-8 text, found a byte that is not UTF-8 "
            f"(0x{data[error.start]:02x} at byte {error.start})"
        ) from None


def read_record(path: str | os.PathLike[str]) -> GameRecord:
    """The game record saved in the JSON file ``path`` (see :meth:`GameRecord.from_json`)."""
    text = read_text(path)
    try:
        return GameRecord.from_json(text)
    except NotationError as error:
        raise NotationError(f"{path}: {error}") from None


def _field(data: dict[str, Any], key: str, kind: type, default: Any = ...) -> Any:
    if key not in data or (data[key] is None and default is not ...):
        if default is ...:
            raise NotationError(f'expected a field "{key}" in the record')
        return default
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise NotationError(
            f'"{key}": expected {kind.__name__}, found {type(value).__name__} {value!r}'
        )
    return value


def _check_seats(seats: Sequence[Any], players: int) -> None:
    """Refuse seats that are not at most ``players`` names of at most
    :data:`MAX_SEAT_NAME` characters, saying which."""
    if len(seats) > players:
        raise NotationError(f'"seats": expected at most {players} names, found {len(seats)}')
    for seat, name in enumerate(seats):
        if not isinstance(name, str):
            raise NotationError(f'"seats": seat {seat}: expected a string, found {name!r}')
        if len(name) > MAX_SEAT_NAME:
            raise NotationError(
                f'"seats": seat {seat}: expected at most {MAX_SEAT_NAME} characters, '
                f"found {len(name)} ({name[:40]}...)"
            )
