"""The game state: an immutable, hashable position and the rules that move it on.

A turn goes ORIENT (the seat chooses) → ROLL (chance; moving Assam and paying the tithe
happen here) → PLACE (the seat chooses) → the next seat; under R32's orient-last option
ROLL → PLACE → ORIENT, the placer turning Assam for the next seat. Two-player games add
DRAW chance nodes that reveal the top carpet of a pile (R7), right after each placement
(under R32 before the placer orients, as Board Game Arena shows it). The engine owns no random
generator: whoever drives a game samples :meth:`State.chance_outcomes` and applies the
outcome like any other action::

    >>> from marrakech import State, parse_action
    >>> state = State.new(players=3)
    >>> state.phase, state.to_move
    (<Phase.ORIENT: 0>, 0)
    >>> state = state.apply(parse_action("R")).apply(parse_action("r2"))
    >>> square_name(state.assam_square), state.phase.name
    ('f4', 'PLACE')
    >>> [str(a) for a in state.legal_actions()][:3]
    ['e3-f3', 'f3-g3', 'd4-e4']
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from marrakech.actions import (
    ACTIONS,
    DECISION_IDS,
    DRAW_BASE,
    DRAWS,
    ORIENTS,
    PLACE_BASE,
    PLACES,
    RESIGN_BASE,
    ROLL_BASE,
    ROLLS,
    Action,
    Resign,
)
from marrakech.errors import IllegalActionError
from marrakech.events import Event, describe
from marrakech.geometry import (
    CANDIDATES,
    CENTRE,
    DELTA,
    FACING_LETTERS,
    PATHS,
    SLOTS,
    SQUARES,
    N,
    Step,
    square_name,
)
from marrakech.notation import format_position, parse_position
from marrakech.outcome import Outcome, rank_seats
from marrakech.position import (
    CHANCE,
    FIELD_ASSAM,
    FIELD_BOARD,
    FIELD_HAND,
    FIELD_MONEY,
    FIELD_OUT,
    FIELD_PHASE,
    FIELD_PILE,
    FIELD_PLAYERS,
    FIELD_RULES,
    FIELD_TOPS,
    FIELD_TURN,
    NO_LINK,
    TERMINAL,
    Fields,
    Phase,
    pack_cell,
    region,
    regions,
)
from marrakech.render import render
from marrakech.rules import (
    ROLL_PROBABILITIES,
    STANDARD,
    RuleSet,
    carpets_held,
    check_players,
    colours_in_play,
    colours_of,
    game_over,
)

_ORIENT, _ROLL, _PLACE, _DRAW, _OVER = 0, 1, 2, 3, 4
_PHASES = tuple(Phase)


#: Legal-placement bitmask per Assam square: bit (action id) set for R14/R15 candidates.
_CANDIDATE_MASK = tuple(
    sum(1 << (PLACE_BASE + slot.number) for slot in CANDIDATES[sq]) for sq in range(SQUARES)
)
#: Per candidate: (action, low square, high square, link from low to high).
_CANDIDATE_INFO = tuple(
    tuple((PLACES[s.number], s.low, s.high, 1 if s.horizontal else 0) for s in CANDIDATES[sq])
    for sq in range(SQUARES)
)
_SLOT_LINK = tuple(1 if s.horizontal else 0 for s in SLOTS)  # E for horizontal, N for vertical
_ROLL_OUTCOMES: tuple[tuple[Action, Fraction], ...] = tuple(
    (ROLLS[k - 1], ROLL_PROBABILITIES[k]) for k in range(1, 5)
)
_EMPTY_BOARD = (0,) * SQUARES


class State(tuple[Any, ...]):
    """A position of Marrakech: immutable, hashable, equal when the positions are equal.

    Build one with :meth:`new` or :meth:`from_notation`; move on with :meth:`apply`.
    A state is stored as a flat tuple of its fields for speed (one C call builds it);
    treat it as opaque and use the named properties. Inside, a method reads one field by
    its name's index (``self[FIELD_BOARD]``, :mod:`marrakech.position`) or unpacks them
    all in :class:`~marrakech.position.Fields` order.
    """

    __slots__ = ()

    # -- construction -------------------------------------------------------------

    @classmethod
    def new(cls, players: int = 4, rules: RuleSet = STANDARD, first_seat: int = 0) -> State:
        """The opening position: Assam on d4 facing North (R8), 30 dirhams each (R5).

        Two-player games start with the two DRAW chance nodes that reveal each pile's top
        carpet (R7), seat 0's pile first.
        """
        check_players(players)
        if not 0 <= first_seat < players:
            raise ValueError(f"first_seat must be 0..{players - 1}, found {first_seat}")
        colours = colours_in_play(players)
        hand = (rules.carpets_per_colour(players),) * colours
        two = players == 2
        return _new(
            State,
            (
                players,
                rules,
                _EMPTY_BOARD,
                CENTRE * 4 + N,
                (rules.money,) * players,
                hand,
                (-1, -1) if two else (),
                (),
                _DRAW if two else _begin(rules),
                first_seat,
                0,
            ),
        )

    @classmethod
    def from_notation(cls, text: str) -> State:
        """Parse a position string (see ``docs/notation.md``).

        Raises :class:`~marrakech.NotationError` for text that does not parse and
        :class:`~marrakech.InvalidStateError` for a position the rules cannot reach.
        """
        return _new(State, parse_position(text))

    @classmethod
    def from_fields(cls, fields: Fields) -> State:
        """The state holding exactly ``fields`` (see :class:`~marrakech.position.Fields`),
        unchecked: for code that packs positions itself, such as the compiled kernels'
        rows. Untrusted input goes through :meth:`from_notation`, which validates."""
        return _new(State, fields)

    def fields(self) -> Fields:
        """The packed fields of this position (see :class:`~marrakech.position.Fields`)."""
        return Fields(*self)

    def notation(self) -> str:
        """The one-line position string; ``State.from_notation(s.notation()) == s``."""
        return format_position(self)

    # -- what the position is -----------------------------------------------------

    @property
    def players(self) -> int:
        return self[FIELD_PLAYERS]

    @property
    def rules(self) -> RuleSet:
        return self[FIELD_RULES]

    @property
    def phase(self) -> Phase:
        return _PHASES[self[FIELD_PHASE]]

    @property
    def turn(self) -> int:
        """The seat whose turn it is; during a DRAW, the seat that decides next: after a
        placement the next seat, or under R32 the placer, who orients once his pile has
        shown its next top."""
        return self[FIELD_TURN]

    @property
    def to_move(self) -> int:
        """The seat to decide, or :data:`CHANCE` (ROLL, DRAW) or :data:`TERMINAL`."""
        phase = self[FIELD_PHASE]
        if phase == _ORIENT or phase == _PLACE:
            return self[FIELD_TURN]
        return TERMINAL if phase == _OVER else CHANCE

    @property
    def is_chance(self) -> bool:
        return self[FIELD_PHASE] == _ROLL or self[FIELD_PHASE] == _DRAW

    @property
    def is_terminal(self) -> bool:
        return self[FIELD_PHASE] == _OVER

    @property
    def draw_pile(self) -> int | None:
        """During a DRAW, the seat whose pile reveals its top carpet."""
        return self[FIELD_PILE] if self[FIELD_PHASE] == _DRAW else None

    @property
    def assam_square(self) -> int:
        return self[FIELD_ASSAM] >> 2

    @property
    def assam_facing(self) -> int:
        return self[FIELD_ASSAM] & 3

    @property
    def money(self) -> tuple[int, ...]:
        """Dirhams per seat."""
        return self[FIELD_MONEY]

    @property
    def hand(self) -> tuple[int, ...]:
        """Carpets not yet placed, per colour in play (a 2-player pile counts its top)."""
        return self[FIELD_HAND]

    def carpets_in_hand(self, seat: int) -> int:
        return sum(self[FIELD_HAND][c] for c in colours_of(seat, self[FIELD_PLAYERS]))

    def pile_top(self, seat: int) -> int | None:
        """2 players: the colour on top of ``seat``'s pile, None if not revealed or empty."""
        if self[FIELD_PLAYERS] != 2:
            return None
        top = self[FIELD_TOPS][seat]
        return None if top < 0 else top

    def next_carpet(self, seat: int) -> int | None:
        """The colour ``seat`` places next, if known and if the seat still has one."""
        if seat in self[FIELD_OUT]:
            return None
        if self[FIELD_PLAYERS] == 2:
            return self.pile_top(seat)
        return seat if self[FIELD_HAND][seat] else None

    @property
    def eliminated(self) -> tuple[int, ...]:
        """Eliminated seats, in the order they went out (R13)."""
        return self[FIELD_OUT]

    def is_in(self, seat: int) -> bool:
        return seat not in self[FIELD_OUT]

    @property
    def seats_in(self) -> tuple[int, ...]:
        return tuple(s for s in range(self[FIELD_PLAYERS]) if s not in self[FIELD_OUT])

    def colour_at(self, square: int) -> int | None:
        """The colour visible on ``square``, None if empty."""
        cell = self[FIELD_BOARD][square]
        return (cell - 1) & 3 if cell else None

    def other_half(self, square: int) -> int | None:
        """The square showing the other half of the carpet on ``square``, if visible."""
        cell = self[FIELD_BOARD][square]
        if not cell or (cell - 1) >> 2 == NO_LINK:
            return None
        return square + DELTA[(cell - 1) >> 2]

    @property
    def board(self) -> tuple[int, ...]:
        """The packed cells (0 empty, else ``1 + colour + 4 * link``), for fast code."""
        return self[FIELD_BOARD]

    def visible_squares(self, colour: int) -> int:
        cell_values = {pack_cell(colour, link) for link in range(5)}
        return sum(1 for cell in self[FIELD_BOARD] if cell in cell_values)

    def region_at(self, square: int) -> tuple[int, ...]:
        """The tithe region of ``square`` (R11): empty if the square is empty."""
        if not self[FIELD_BOARD][square]:
            return ()
        return tuple(sorted(region(self[FIELD_BOARD], square)))

    # -- scores (R20, R21) --------------------------------------------------------

    def scores(self) -> tuple[int, ...]:
        """Dirhams plus visible squares of the seat's colours (R20)."""
        players = self[FIELD_PLAYERS]
        counts = [0] * 4
        for cell in self[FIELD_BOARD]:
            if cell:
                counts[(cell - 1) & 3] += 1
        return tuple(
            (0 if seat in self[FIELD_OUT] else self[FIELD_MONEY][seat])
            + sum(counts[c] for c in colours_of(seat, players))
            for seat in range(players)
        )

    def ranks(self) -> tuple[int, ...]:
        """1-based rank per seat (R21, see :mod:`marrakech.outcome`); rank 1 wins.

        >>> State.new(players=3).ranks()
        (1, 1, 1)
        """
        return rank_seats(self.scores(), self[FIELD_MONEY], self[FIELD_OUT])

    def outcome(self) -> Outcome:
        """How the game ended, or stands: ranks, winners, rank values, win shares.

        >>> State.new(players=2).outcome().over
        False
        """
        return Outcome(self.ranks(), over=self[FIELD_PHASE] == _OVER)

    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several on a shared win); empty before the end."""
        return self.outcome().winners

    # -- moves --------------------------------------------------------------------

    def legal_actions(self) -> Sequence[Action]:
        """The legal actions in canonical (id) order; chance outcomes at chance nodes."""
        phase = self[FIELD_PHASE]
        if phase == _ORIENT:
            return ORIENTS
        if phase == _PLACE:
            return self._placements()
        if phase == _ROLL:
            return ROLLS
        if phase == _DRAW:
            return [action for action, _ in self.chance_outcomes()]
        return ()

    def legal_action_ids(self) -> list[int]:
        return [action.id for action in self.legal_actions()]

    def legal_mask(self) -> list[bool]:
        """87 flags, one per decision id; all False at chance nodes and at the end."""
        mask = [False] * DECISION_IDS
        if self[FIELD_PHASE] == _ORIENT or self[FIELD_PHASE] == _PLACE:
            for action in self.legal_actions():
                mask[action.id] = True
        return mask

    def _placements(self) -> list[Action]:
        players, rules, board, assam, _, _, _, _, _, turn, _ = self
        own_cover = rules.own_cover
        legal: list[Action] = []
        for action, low, _high, link in _CANDIDATE_INFO[assam >> 2]:
            cell = board[low]
            # R16: the two squares show the two halves of one carpet.
            if cell and (cell - 1) >> 2 == link:
                if not (own_cover and ((cell - 1) & 3) % players == turn):
                    continue
            legal.append(action)
        return legal

    def chance_outcomes(self) -> Sequence[tuple[Action, Fraction]]:
        """``(action, probability)`` pairs with exact probabilities summing to 1."""
        phase = self[FIELD_PHASE]
        if phase == _ROLL:
            return _ROLL_OUTCOMES
        if phase == _DRAW:
            pile = self[FIELD_PILE]
            return _draw_outcomes(pile, self[FIELD_HAND][pile], self[FIELD_HAND][pile + 2])
        return ()

    def apply(self, action: Action) -> State:
        """The position after ``action``; raises :class:`IllegalActionError` if illegal."""
        try:
            aid = action.id
        except AttributeError:
            raise IllegalActionError(
                f"expected an Action (parse tokens with parse_action), found {action!r}"
            ) from None
        players, rules, board, assam, money, hand, tops, out, phase, turn, pile = self
        if phase == _ORIENT:
            if 0 <= aid <= 2:
                facing = ((assam & 3) + aid - 1) & 3
                assam = (assam & ~3) | facing
                if rules.orient_last:  # R32: the placer turned Assam for the next seat
                    return _pass_turn(
                        players, rules, board, assam, money, hand, tops, out, turn, False
                    )
                return _new(
                    State, (players, rules, board, assam, money, hand, tops, out, _ROLL, turn, 0)
                )
        elif phase == _ROLL:
            if ROLL_BASE <= aid < DRAW_BASE:
                return self._roll(aid - ROLL_BASE + 1)
        elif phase == _PLACE:
            if aid < ROLL_BASE and (_CANDIDATE_MASK[assam >> 2] >> aid) & 1:
                after = self._place(aid - PLACE_BASE)
                if after is not None:
                    return after
        elif phase == _DRAW:
            colour = aid - DRAW_BASE
            if 0 <= colour < 4 and colour % 2 == pile and hand[colour] > 0:
                return self._draw(colour)
        if aid >= RESIGN_BASE:  # not a move of the game's phases (R22)
            resigned = self._resign(aid - RESIGN_BASE)
            if resigned is not None:
                return resigned
        raise self.illegal_action_error(action)

    def describe(self, action: Action) -> Event:
        """Apply ``action`` and tell what happened: path, tithe, elimination, covers, end.

        Interfaces use this rather than re-deriving any rule; see :class:`Event`.
        """
        return describe(self, action)

    def illegal_action_error(self, action: Action | int, who: str = "") -> IllegalActionError:
        """The error for ``action`` where it is not legal: what was found, where, and the
        legal actions instead. Every layer builds its illegal-action errors here.

        ``action`` is an :class:`Action`, or an integer id (learning code): then the ids
        are shown with their tokens. ``who`` names the caller's game or agent and
        prefixes the message.

        >>> state = State.new(players=3)
        >>> print(state.illegal_action_error(ROLLS[0]))
        illegal action r1 in the ORIENT phase of seat 0: expected one of L, S, R
        >>> print(state.illegal_action_error(61, who="game 7"))  # doctest: +NORMALIZE_WHITESPACE
        game 7: illegal action id 61 (c3-c4) in the ORIENT phase of seat 0:
        expected one of 0 (L), 1 (S), 2 (R)
        """
        prefix = f"{who}: " if who else ""
        if isinstance(action, Resign):
            if self[FIELD_PHASE] not in (_ORIENT, _PLACE):
                why = f"a seat resigns while a seat decides, found the {self.phase.name} phase"
            else:
                why = f"expected one of the seats still in: {', '.join(map(str, self.seats_in))}"
            return IllegalActionError(f"{prefix}illegal action {action}: {why}")
        if isinstance(action, Action):
            found = str(action)
            legal = ", ".join(str(a) for a in self.legal_actions())
        else:
            known = 0 <= action < len(ACTIONS)
            found = f"id {action} ({ACTIONS[action]})" if known else f"id {action}"
            legal = ", ".join(f"{a.id} ({a})" for a in self.legal_actions())
        if self[FIELD_PHASE] == _OVER:
            return IllegalActionError(f"{prefix}illegal action {found}: the game is over")
        where = f"the {self.phase.name} phase of seat {self[FIELD_TURN]}"
        if self[FIELD_PHASE] == _DRAW:
            where = f"the DRAW phase of seat {self[FIELD_PILE]}'s pile"
        return IllegalActionError(
            f"{prefix}illegal action {found} in {where}: expected one of {legal}"
        )

    def _roll(self, steps: int) -> State:
        players, rules, board, assam, money, hand, tops, out, _, turn, _ = self
        last: Step = PATHS[assam * 5 + steps][-1]
        square = last.square
        cell = board[square]
        phase = _PLACE
        if cell:
            owner = ((cell - 1) & 3) % players
            if owner != turn and owner not in out:  # R11, R12
                due = len(region(board, square))
                have = money[turn]
                paid = due if have >= due else have
                changed = list(money)
                changed[owner] += paid
                changed[turn] = have - paid
                money = tuple(changed)
                if have < due:  # R13: pays all he has and is out
                    out = (*out, turn)
                    emptied = list(hand)
                    for colour in colours_of(turn, players):
                        emptied[colour] = 0
                    hand = tuple(emptied)
                    if players == 2:
                        tops = (-1, tops[1]) if turn == 0 else (tops[0], -1)
                    if game_over(players, hand, out):
                        phase, turn = _OVER, 0
                    else:
                        phase, turn = _begin(rules), _next_seat(turn, players, out, hand)
        assam = square * 4 + last.facing
        return _new(State, (players, rules, board, assam, money, hand, tops, out, phase, turn, 0))

    def _place(self, slot_index: int) -> State | None:
        players, rules, board, assam, money, hand, tops, out, _, turn, _ = self
        slot = SLOTS[slot_index]
        low, high = slot.low, slot.high
        link = _SLOT_LINK[slot_index]
        low_cell, high_cell = board[low], board[high]
        if low_cell and (low_cell - 1) >> 2 == link:  # R16: exactly one whole carpet
            if not (rules.own_cover and ((low_cell - 1) & 3) % players == turn):
                return None
        colour = tops[turn] if players == 2 else turn
        cells = list(board)
        # Half-cover: the other half of a covered carpet loses its partner (R17).
        if low_cell and low_cell <= 16:  # linked (link 0..3)
            partner = low + DELTA[(low_cell - 1) >> 2]
            if partner != high:
                cells[partner] = 17 + ((cells[partner] - 1) & 3)  # same colour, NO_LINK
        if high_cell and high_cell <= 16:
            partner = high + DELTA[(high_cell - 1) >> 2]
            if partner != low:
                cells[partner] = 17 + ((cells[partner] - 1) & 3)
        cells[low] = 1 + colour + 4 * link
        cells[high] = 9 + colour + 4 * link  # link + 2: the facing back to low
        held = list(hand)
        held[colour] -= 1
        hand = tuple(held)
        if players == 2:
            tops = (-1, tops[1]) if turn == 0 else (tops[0], -1)
        if out or not any(hand):
            if game_over(players, hand, out):
                return _new(
                    State,
                    (players, rules, tuple(cells), assam, money, hand, tops, out, _OVER, 0, 0),
                )
        if rules.orient_last:  # R32: the placer turns Assam before the turn passes
            # ... once his pile has shown his next carpet, as Board Game Arena does (R7).
            phase, pile = _ORIENT, 0
            if players == 2 and hand[turn] + hand[turn + 2]:
                phase, pile = _DRAW, turn
            return _new(
                State,
                (players, rules, tuple(cells), assam, money, hand, tops, out, phase, turn, pile),
            )
        return _pass_turn(players, rules, tuple(cells), assam, money, hand, tops, out, turn, True)

    def _resign(self, seat: int) -> State | None:
        """R22: ``seat`` leaves the game as if it could not pay (R13), its dirhams lost."""
        players, rules, board, assam, money, hand, tops, out, phase, turn, _ = self
        if (phase != _ORIENT and phase != _PLACE) or seat >= players or seat in out:
            return None
        money = tuple(0 if s == seat else m for s, m in enumerate(money))
        emptied = list(hand)
        for colour in colours_of(seat, players):
            emptied[colour] = 0
        hand = tuple(emptied)
        if players == 2:
            tops = (-1, tops[1]) if seat == 0 else (tops[0], -1)
        out = (*out, seat)
        if game_over(players, hand, out):
            phase, turn = _OVER, 0
        elif seat == turn:  # the turn passes, as after an elimination
            phase, turn = _begin(rules), _next_seat(turn, players, out, hand)
        return _new(State, (players, rules, board, assam, money, hand, tops, out, phase, turn, 0))

    def _draw(self, colour: int) -> State:
        players, rules, board, assam, money, hand, tops, out, _, turn, pile = self
        tops = (colour, tops[1]) if pile == 0 else (tops[0], colour)
        # After a placement an orientation follows: the next seat's (R9) or, under R32,
        # the placer's own; the opening's reveals (nothing placed yet) begin the first turn.
        phase, pile = (_begin(rules) if board == _EMPTY_BOARD else _ORIENT), 0
        for seat in (0, 1):  # the opening reveals seat 0's top, then seat 1's (R7)
            if tops[seat] < 0 and seat not in out and hand[seat] + hand[seat + 2]:
                phase, pile = _DRAW, seat
                break
        return _new(
            State, (players, rules, board, assam, money, hand, tops, out, phase, turn, pile)
        )

    # -- value semantics ----------------------------------------------------------

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (State.from_notation, (self.notation(),))

    def __copy__(self) -> State:
        return self

    def __deepcopy__(self, memo: object) -> State:
        return self

    def __repr__(self) -> str:
        return f"State.from_notation({self.notation()!r})"

    def __str__(self) -> str:
        return render(self, color=False)

    def summary(self) -> str:
        """One line: phase, seat, Assam, money; handy in logs."""
        where = square_name(self.assam_square) + FACING_LETTERS[self.assam_facing]
        money = "/".join(str(m) for m in self[FIELD_MONEY])
        return f"{self.phase.name} seat {self[FIELD_TURN]}, Assam {where}, dirhams {money}"


_new = tuple.__new__


def _begin(rules: RuleSet) -> int:
    """The phase a seat's turn begins with: ORIENT (R9), or ROLL when the seat before
    turned Assam at the end of its turn (R32)."""
    return _ROLL if rules.orient_last else _ORIENT


def _pass_turn(
    players: int,
    rules: RuleSet,
    board: tuple[int, ...],
    assam: int,
    money: tuple[int, ...],
    hand: tuple[int, ...],
    tops: tuple[int, ...],
    out: tuple[int, ...],
    turn: int,
    reveal: bool,
) -> State:
    """The turn passes to the next seat still in, preferring one with carpets (R19); at
    2 players the placer's pile reveals its next top first (R7) when ``reveal`` (under
    R32 it was revealed before the placer oriented)."""
    phase, pile = _begin(rules), 0
    if players == 2:
        if reveal and hand[turn] + hand[turn + 2]:
            phase, pile = _DRAW, turn  # reveal this pile's next top first (R7)
        nxt = 1 - turn
        turn = nxt if hand[nxt] + hand[nxt + 2] else _next_seat(turn, players, out, hand)
    else:
        nxt = turn + 1 if turn + 1 < players else 0
        turn = nxt if hand[nxt] and not out else _next_seat(turn, players, out, hand)
    return _new(State, (players, rules, board, assam, money, hand, tops, out, phase, turn, pile))


def _next_seat(seat: int, players: int, out: tuple[int, ...], hand: tuple[int, ...]) -> int:
    """The next seat clockwise still in the game (R19), preferring one with carpets."""
    fallback = -1
    for offset in range(1, players + 1):
        candidate = (seat + offset) % players
        if candidate in out:
            continue
        if carpets_held(candidate, players, hand):
            return candidate
        if fallback < 0:
            fallback = candidate
    return max(fallback, 0)


@lru_cache(maxsize=1024)
def _draw_outcomes(pile: int, first: int, second: int) -> tuple[tuple[Action, Fraction], ...]:
    total = first + second
    return tuple(
        (DRAWS[colour], Fraction(count, total))
        for colour, count in ((pile, first), (pile + 2, second))
        if count
    )


# Phase, CHANCE, TERMINAL, NO_LINK and the region functions live in marrakech.position;
# they are named here too because a state's readers reach for them with it.
__all__ = ["CHANCE", "NO_LINK", "TERMINAL", "Phase", "State", "region", "regions"]
