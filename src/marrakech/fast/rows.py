"""The kernel's flat array for one game, and conversion to and from the core :class:`State`.

A game is one row of :data:`WIDTH` ``int32`` values. The first fields hold exactly what
the core state holds (board cells packed as the core packs them, Assam, dirhams, carpets
in hand, 2-player pile tops, eliminated seats in order, phase, turn, draw pile, rule set);
the rest are per-game counters the kernels keep for statistics and for the differential
tests (tithes paid, the chance outcomes resolved during the last step)::

    >>> from marrakech import State
    >>> row = to_arrays(State.new(players=3))
    >>> row.shape, int(row[MONEY]), int(row[PHASE])
    ((104,), 30, 0)
    >>> from_arrays(row) == State.new(players=3)
    True

Only :func:`to_arrays` and :func:`from_arrays` (and the :class:`~marrakech.fast.Batch`
methods built on them) should be relied on; the field offsets may change between versions.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from marrakech.batch_checks import CHANCE_SLOTS
from marrakech.errors import InvalidStateError
from marrakech.fast.kernels import (  # the offsets live with the kernels (see there)
    ASSAM,
    BITS,
    BITS_SPLIT,
    BOARD,
    CHANCE_COUNT,
    CHANCE_LOG,
    HAND,
    LAST_DUE,
    LAST_PAID,
    LAST_PAYEE,
    LAST_PAYER,
    MONEY,
    NOUT,
    OPTION_BITS,
    OUT,
    OUTMASK,
    OWN_COVER,
    PHASE,
    PILE,
    PLACE_OPTIONS,
    PLACES,
    PLAYERS,
    PLIES,
    POSITION_FIELDS,
    RULE_CARPETS,
    RULE_FLAGS,
    RULE_MONEY,
    START_CARPETS,
    TITHE_DIRHAMS,
    TITHES,
    TOPS,
    TURN,
    TURNS,
    WIDTH,
    fill_bits,
)
from marrakech.geometry import SQUARES
from marrakech.position import Fields
from marrakech.rules import PLAYER_COUNTS, RuleSet, colours_in_play
from marrakech.state import State

__all__ = [
    "ASSAM",
    "BITS",
    "BITS_SPLIT",
    "BOARD",
    "CHANCE_COUNT",
    "CHANCE_LOG",
    "HAND",
    "LAST_DUE",
    "LAST_PAID",
    "LAST_PAYEE",
    "LAST_PAYER",
    "MONEY",
    "NOUT",
    "OPTION_BITS",
    "OUT",
    "OUTMASK",
    "OWN_COVER",
    "PHASE",
    "PILE",
    "PLACES",
    "PLACE_OPTIONS",
    "PLAYERS",
    "PLIES",
    "POSITION_FIELDS",
    "RULE_CARPETS",
    "RULE_FLAGS",
    "RULE_MONEY",
    "START_CARPETS",
    "TITHES",
    "TITHE_DIRHAMS",
    "TOPS",
    "TURN",
    "TURNS",
    "WIDTH",
    "from_arrays",
    "rule_flags",
    "rule_options",
    "rules_of",
    "to_arrays",
]


def to_arrays(state: State) -> npt.NDArray[np.int32]:
    """The kernel row of a core ``state`` (a new ``int32`` array of :data:`WIDTH` values).

    Counters start at zero and the last-step fields are empty.
    """
    if not isinstance(state, State):
        raise TypeError(f"expected a marrakech State, found {type(state).__name__}")
    # A Python list first: setting numpy items one by one costs far more.
    values = [0] * WIDTH
    players = state.players
    rules = state.rules
    board = state.board
    values[BOARD : BOARD + SQUARES] = board
    values[ASSAM] = state.assam_square * 4 + state.assam_facing
    values[MONEY : MONEY + players] = state.money
    hand = state.hand
    values[HAND : HAND + len(hand)] = hand
    values[TOPS] = values[TOPS + 1] = -1
    if players == 2:
        for seat in (0, 1):
            top = state.pile_top(seat)
            values[TOPS + seat] = -1 if top is None else top
    out = state.eliminated
    values[OUT : OUT + 4] = [*out, *(-1,) * (4 - len(out))]
    mask = 0
    for seat in out:
        mask |= 1 << seat
    values[NOUT] = len(out)
    values[OUTMASK] = mask
    values[PHASE] = int(state.phase)
    values[TURN] = state.turn
    pile = state.draw_pile
    values[PILE] = 0 if pile is None else pile
    values[PLAYERS] = players
    values[OWN_COVER] = 1 if rules.own_cover else 0
    values[RULE_FLAGS] = rule_flags(rules)
    values[RULE_CARPETS : RULE_CARPETS + 3] = rules.carpets
    values[RULE_MONEY] = rules.money
    values[START_CARPETS] = rules.starting_carpets(players)
    values[LAST_PAYER] = values[LAST_PAYEE] = -1
    values[CHANCE_LOG : CHANCE_LOG + CHANCE_SLOTS] = [-1] * CHANCE_SLOTS
    row = np.array(values, dtype=np.int32)
    fill_bits(row)  # the colour bitboards, derived from the board (compiled: faster)
    return row


@lru_cache(maxsize=64)
def rule_flags(rules: RuleSet) -> int:
    """The :data:`RULE_FLAGS` word of ``rules``: bit i set when option i of
    :data:`~marrakech.rules.RULE_OPTIONS` is on (:data:`OPTION_BITS`)::

        >>> from marrakech import STANDARD
        >>> rule_flags(STANDARD), rule_flags(STANDARD.with_options(orient_last=True))
        (0, 1)
    """
    return sum(OPTION_BITS[field] for field, on in rules.options().items() if on)


def rule_options(flags: int) -> dict[str, bool]:
    """The options a :data:`RULE_FLAGS` word holds, by field name (the inverse of
    :func:`rule_flags`: what :meth:`RuleSet.with_options` takes); a bit beyond the
    declared options is an :class:`~marrakech.InvalidStateError`."""
    if not 0 <= flags < 1 << len(OPTION_BITS):
        known = ", ".join(OPTION_BITS)
        raise InvalidStateError(f"kernel row: expected rule flags of {known}, found {flags}")
    return {field: (flags & bit) != 0 for field, bit in OPTION_BITS.items()}


def rules_of(row: npt.NDArray[np.integer]) -> RuleSet:
    """The rule set stored in a kernel row."""
    return _rule_set(
        *row[RULE_CARPETS : RULE_CARPETS + 4].tolist(), *row[[OWN_COVER, RULE_FLAGS]].tolist()
    )


@lru_cache(maxsize=64)
def _rule_set(c2: int, c3: int, c4: int, money: int, own_cover: int, flags: int) -> RuleSet:
    # Cached: converting many rows back to states should not rebuild the same value.
    try:
        base = RuleSet(carpets=(c2, c3, c4), money=money, own_cover=bool(own_cover))
    except ValueError as error:
        raise InvalidStateError(f"kernel row: {error}") from None
    return base.with_options(**rule_options(flags))


def from_arrays(row: npt.NDArray[np.integer]) -> State:
    """The core :class:`State` held in a kernel row (inverse of :func:`to_arrays`).

    Raises :class:`~marrakech.InvalidStateError` when the row is not a position
    (wrong shape, players or phase out of range).
    """
    array = np.asarray(row)
    if array.shape != (WIDTH,) or array.dtype.kind not in "iu":
        raise InvalidStateError(
            f"expected a kernel row: {WIDTH} integers, found shape {array.shape} of {array.dtype}"
        )
    values = array.tolist()
    players = values[PLAYERS]
    if players not in PLAYER_COUNTS:
        raise InvalidStateError(f"kernel row: expected 2, 3 or 4 players, found {players}")
    phase = values[PHASE]
    if not 0 <= phase <= 4:
        raise InvalidStateError(f"kernel row: expected a phase 0..4, found {phase}")
    nout = values[NOUT]
    if not 0 <= nout <= players:
        raise InvalidStateError(f"kernel row: expected 0..{players} seats out, found {nout}")
    board = tuple(values[BOARD : BOARD + SQUARES])
    colours = colours_in_play(players)
    tops = (values[TOPS], values[TOPS + 1]) if players == 2 else ()
    return State.from_fields(
        Fields(
            players,
            _rule_set(
                *values[RULE_CARPETS : RULE_CARPETS + 4], values[OWN_COVER], values[RULE_FLAGS]
            ),
            board,
            values[ASSAM],
            tuple(values[MONEY : MONEY + players]),
            tuple(values[HAND : HAND + colours]),
            tops,
            tuple(values[OUT : OUT + nout]),
            phase,
            values[TURN],
            values[PILE],
        )
    )
