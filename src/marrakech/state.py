"""The game state: an immutable, hashable position and the rules that move it on.

A turn goes ORIENT (the seat chooses) → ROLL (chance; moving Assam and paying the tithe
happen here) → PLACE (the seat chooses) → the next seat. Two-player games add DRAW
chance nodes that reveal the top carpet of a pile (R7). The engine owns no random
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
from enum import IntEnum
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from marrakech.actions import (
    DECISION_IDS,
    DRAW_BASE,
    DRAWS,
    ORIENTS,
    PLACE_BASE,
    PLACES,
    ROLL_BASE,
    ROLLS,
    Action,
)
from marrakech.errors import IllegalActionError
from marrakech.geometry import (
    CANDIDATES,
    CENTRE,
    DELTA,
    FACING_LETTERS,
    NEIGHBOURS,
    PATHS,
    SLOTS,
    SQUARES,
    N,
    Step,
    square_name,
)
from marrakech.rules import (
    ROLL_PROBABILITIES,
    STANDARD,
    RuleSet,
    check_players,
    colours_in_play,
    colours_of,
)

if TYPE_CHECKING:
    from marrakech.events import Event

#: ``state.to_move`` at a chance node (ROLL, DRAW) and at the end of the game.
CHANCE = -1
TERMINAL = -2


class Phase(IntEnum):
    ORIENT = 0
    ROLL = 1
    PLACE = 2
    DRAW = 3
    OVER = 4


_ORIENT, _ROLL, _PLACE, _DRAW, _OVER = 0, 1, 2, 3, 4
_PHASES = tuple(Phase)

# A square's cell packs the visible carpet: 0 when empty, else 1 + colour + 4 * link,
# where link is the facing towards the other visible half of the same carpet (0..3) or
# 4 when that half is covered. Colour and link are what equality needs (R16), no ids.
NO_LINK = 4


def _cell(colour: int, link: int) -> int:
    return 1 + colour + 4 * link


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


def region(board: Sequence[int], square: int) -> list[int]:
    """The squares joined to ``square`` through shared sides showing its colour (R11)."""
    colour = (board[square] - 1) & 3
    found = [square]
    seen = {square}
    i = 0
    while i < len(found):
        for near in NEIGHBOURS[found[i]]:
            cell = board[near]
            if cell and near not in seen and (cell - 1) & 3 == colour:
                seen.add(near)
                found.append(near)
        i += 1
    return found


def regions(board: Sequence[int]) -> list[list[int]]:
    """Every region of a packed board (R11), each a list of squares of one colour.

    >>> regions(State.from_notation(
    ...     "7/7/7/7/7/7/ReRwBx4 d4N 30,30,30 9,9,10 - - orient:0 standard").board)
    [[0, 1], [2]]
    """
    seen = [False] * SQUARES
    found: list[list[int]] = []
    for start, cell in enumerate(board):
        if cell and not seen[start]:
            members = region(board, start)
            for square in members:
                seen[square] = True
            found.append(members)
    return found


class State(tuple[Any, ...]):
    """A position of Marrakech: immutable, hashable, equal when the positions are equal.

    Build one with :meth:`new` or :meth:`from_notation`; move on with :meth:`apply`.
    A state is stored as a flat tuple of its fields for speed (one C call builds it);
    treat it as opaque and use the named properties.
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
        return _make(
            players,
            rules,
            _EMPTY_BOARD,
            CENTRE * 4 + N,
            (rules.money,) * players,
            hand,
            (-1, -1) if two else (),
            (),
            _DRAW if two else _ORIENT,
            first_seat,
            0,
        )

    @classmethod
    def from_notation(cls, text: str) -> State:
        """Parse a position string (see ``docs/notation.md``)."""
        from marrakech.notation import parse_position

        return parse_position(text)

    def notation(self) -> str:
        """The one-line position string; ``State.from_notation(s.notation()) == s``."""
        from marrakech.notation import format_position

        return format_position(self)

    # -- what the position is -----------------------------------------------------

    @property
    def players(self) -> int:
        return self[0]

    @property
    def rules(self) -> RuleSet:
        return self[1]

    @property
    def phase(self) -> Phase:
        return _PHASES[self[8]]

    @property
    def turn(self) -> int:
        """The seat whose turn it is (or comes next, during a DRAW)."""
        return self[9]

    @property
    def to_move(self) -> int:
        """The seat to decide, or :data:`CHANCE` (ROLL, DRAW) or :data:`TERMINAL`."""
        phase = self[8]
        if phase == _ORIENT or phase == _PLACE:
            return self[9]
        return TERMINAL if phase == _OVER else CHANCE

    @property
    def is_chance(self) -> bool:
        return self[8] == _ROLL or self[8] == _DRAW

    @property
    def is_terminal(self) -> bool:
        return self[8] == _OVER

    @property
    def draw_pile(self) -> int | None:
        """During a DRAW, the seat whose pile reveals its top carpet."""
        return self[10] if self[8] == _DRAW else None

    @property
    def assam_square(self) -> int:
        return self[3] >> 2

    @property
    def assam_facing(self) -> int:
        return self[3] & 3

    @property
    def money(self) -> tuple[int, ...]:
        """Dirhams per seat."""
        return self[4]

    @property
    def hand(self) -> tuple[int, ...]:
        """Carpets not yet placed, per colour in play (a 2-player pile counts its top)."""
        return self[5]

    def carpets_in_hand(self, seat: int) -> int:
        return sum(self[5][c] for c in colours_of(seat, self[0]))

    def pile_top(self, seat: int) -> int | None:
        """2 players: the colour on top of ``seat``'s pile, None if not revealed or empty."""
        if self[0] != 2:
            return None
        top = self[6][seat]
        return None if top < 0 else top

    def next_carpet(self, seat: int) -> int | None:
        """The colour ``seat`` places next, if known and if the seat still has one."""
        if seat in self[7]:
            return None
        if self[0] == 2:
            return self.pile_top(seat)
        return seat if self[5][seat] else None

    @property
    def eliminated(self) -> tuple[int, ...]:
        """Eliminated seats, in the order they went out (R13)."""
        return self[7]

    def is_in(self, seat: int) -> bool:
        return seat not in self[7]

    @property
    def seats_in(self) -> tuple[int, ...]:
        return tuple(s for s in range(self[0]) if s not in self[7])

    def colour_at(self, square: int) -> int | None:
        """The colour visible on ``square``, None if empty."""
        cell = self[2][square]
        return (cell - 1) & 3 if cell else None

    def other_half(self, square: int) -> int | None:
        """The square showing the other half of the carpet on ``square``, if visible."""
        cell = self[2][square]
        if not cell or (cell - 1) >> 2 == NO_LINK:
            return None
        return square + DELTA[(cell - 1) >> 2]

    @property
    def board(self) -> tuple[int, ...]:
        """The packed cells (0 empty, else ``1 + colour + 4 * link``), for fast code."""
        return self[2]

    def visible_squares(self, colour: int) -> int:
        cell_values = {_cell(colour, link) for link in range(5)}
        return sum(1 for cell in self[2] if cell in cell_values)

    def region_at(self, square: int) -> tuple[int, ...]:
        """The tithe region of ``square`` (R11): empty if the square is empty."""
        if not self[2][square]:
            return ()
        return tuple(sorted(region(self[2], square)))

    # -- scores (R20, R21) --------------------------------------------------------

    def scores(self) -> tuple[int, ...]:
        """Dirhams plus visible squares of the seat's colours (R20)."""
        players = self[0]
        counts = [0] * 4
        for cell in self[2]:
            if cell:
                counts[(cell - 1) & 3] += 1
        return tuple(
            (0 if seat in self[7] else self[4][seat])
            + sum(counts[c] for c in colours_of(seat, players))
            for seat in range(players)
        )

    def ranks(self) -> tuple[int, ...]:
        """1-based rank per seat (R21); equal seats share a rank, rank 1 wins.

        Seats still in rank by (score, dirhams); eliminated seats rank below them, the
        last to go out highest.

        >>> State.new(players=3).ranks()
        (1, 1, 1)
        """
        scores = self.scores()
        keys: dict[int, tuple[int, int, int]] = {}
        for seat in range(self[0]):
            if seat in self[7]:
                keys[seat] = (0, self[7].index(seat), 0)
            else:
                keys[seat] = (1, scores[seat], self[4][seat])
        return tuple(
            1 + sum(1 for other in keys.values() if other > keys[seat]) for seat in range(self[0])
        )

    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several on a shared win); empty before the end."""
        if self[8] != _OVER:
            return ()
        ranks = self.ranks()
        return tuple(s for s in range(self[0]) if ranks[s] == 1 and s not in self[7])

    # -- moves --------------------------------------------------------------------

    def legal_actions(self) -> Sequence[Action]:
        """The legal actions in canonical (id) order; chance outcomes at chance nodes."""
        phase = self[8]
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
        if self[8] == _ORIENT or self[8] == _PLACE:
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
        phase = self[8]
        if phase == _ROLL:
            return _ROLL_OUTCOMES
        if phase == _DRAW:
            pile = self[10]
            return _draw_outcomes(pile, self[5][pile], self[5][pile + 2])
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
        raise self._illegal(action)

    def describe(self, action: Action) -> Event:
        """Apply ``action`` and tell what happened: path, tithe, elimination, covers, end.

        Interfaces use this rather than re-deriving any rule; see :class:`Event`.
        """
        from marrakech.events import describe

        return describe(self, action)

    def _illegal(self, action: Action) -> IllegalActionError:
        legal = ", ".join(str(a) for a in self.legal_actions())
        where = f"the {self.phase.name} phase of seat {self[9]}"
        if self[8] == _OVER:
            return IllegalActionError(f"illegal action {action}: the game is over")
        if self[8] == _DRAW:
            where = f"the DRAW phase of seat {self[10]}'s pile"
        return IllegalActionError(f"illegal action {action} in {where}: expected one of {legal}")

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
                    if _game_over(players, hand, out):
                        phase, turn = _OVER, 0
                    else:
                        phase, turn = _ORIENT, _next_seat(turn, players, out, hand)
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
        pile = 0
        if players == 2:
            tops = (-1, tops[1]) if turn == 0 else (tops[0], -1)
        if out or not any(hand):
            if _game_over(players, hand, out):
                return _new(
                    State,
                    (players, rules, tuple(cells), assam, money, hand, tops, out, _OVER, 0, 0),
                )
        phase = _ORIENT
        if players == 2:
            if hand[turn] + hand[turn + 2]:
                phase, pile = _DRAW, turn  # reveal this pile's next top first (R7)
            nxt = 1 - turn
            turn = nxt if hand[nxt] + hand[nxt + 2] else _next_seat(turn, players, out, hand)
        else:
            nxt = turn + 1 if turn + 1 < players else 0
            turn = nxt if hand[nxt] and not out else _next_seat(turn, players, out, hand)
        return _new(
            State, (players, rules, tuple(cells), assam, money, hand, tops, out, phase, turn, pile)
        )

    def _draw(self, colour: int) -> State:
        players, rules, board, assam, money, hand, tops, out, _, turn, pile = self
        tops = (colour, tops[1]) if pile == 0 else (tops[0], colour)
        phase, pile = _ORIENT, 0
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
        from marrakech.render import render

        return render(self, color=False)

    def summary(self) -> str:
        """One line: phase, seat, Assam, money; handy in logs."""
        where = square_name(self.assam_square) + FACING_LETTERS[self.assam_facing]
        money = "/".join(str(m) for m in self[4])
        return f"{self.phase.name} seat {self[9]}, Assam {where}, dirhams {money}"


_new = tuple.__new__


def _make(
    players: int,
    rules: RuleSet,
    board: tuple[int, ...],
    assam: int,
    money: tuple[int, ...],
    hand: tuple[int, ...],
    tops: tuple[int, ...],
    out: tuple[int, ...],
    phase: int,
    turn: int,
    pile: int,
) -> State:
    return _new(State, (players, rules, board, assam, money, hand, tops, out, phase, turn, pile))


def _game_over(players: int, hand: tuple[int, ...], out: tuple[int, ...]) -> bool:
    """R19: at most one seat in, or no seat still in holds a carpet."""
    if players - len(out) <= 1:
        return True
    if players == 2:
        return not any(hand[s] + hand[s + 2] for s in (0, 1) if s not in out)
    return not any(hand[s] for s in range(players) if s not in out)


def _next_seat(seat: int, players: int, out: tuple[int, ...], hand: tuple[int, ...]) -> int:
    """The next seat clockwise still in the game (R19), preferring one with carpets."""
    fallback = -1
    for offset in range(1, players + 1):
        candidate = (seat + offset) % players
        if candidate in out:
            continue
        held = hand[candidate] + hand[candidate + 2] if players == 2 else hand[candidate]
        if held:
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


__all__ = ["CHANCE", "TERMINAL", "Phase", "State", "region", "regions"]
