"""A deliberately naive, independent reference implementation of Marrakech.

This module exists only so that tests can cross-check the real engine. It
shares no code with the engine on purpose, uses only the standard library and
favours being obviously faithful to the rules, docs/rules.md, over being fast.

Rule numbers (R1..R40) refer to docs/rules.md.

Conventions (shared with the real engine so results can be compared):

* squares 'a1'..'g7' (file a-g left to right, rank 1-7 bottom to top);
* facings 'N', 'E', 'S', 'W'; Assam starts on d4 facing N;
* colours 0..3 = R, B, Y, P; at 3/4 players seat i owns colour i, at
  2 players seat 0 owns R and Y (0, 2) and seat 1 owns B and P (1, 3);
* phases 'orient' -> 'roll' -> 'place' (skipped when eliminated) -> next seat,
  plus 'draw' chance nodes in the 2-player game, and 'over';
* tokens: orient 'L' / 'S' / 'R'; roll 'r1'..'r4'; placement 'c3-c4'
  (lower-left square first); draw '+R' / '+B' / '+Y' / '+P'.
"""

from __future__ import annotations

import copy as _copy
from fractions import Fraction

# ---------------------------------------------------------------------------
# Board geometry (R1)
# ---------------------------------------------------------------------------

FILES: str = "abcdefg"
RANKS: str = "1234567"
ALL_SQUARES: list[str] = [f + r for r in RANKS for f in FILES]

COLOUR_LETTERS: str = "RBYP"

FACINGS: str = "NESW"  # clockwise order
# One step in each facing, as (file delta, rank delta). North = towards rank 7.
STEP: dict[str, tuple[int, int]] = {
    "N": (0, 1),
    "E": (1, 0),
    "S": (0, -1),
    "W": (-1, 0),
}


def coords(square: str) -> tuple[int, int]:
    """'a1' -> (0, 0), 'g7' -> (6, 6): (file index, rank index)."""
    return FILES.index(square[0]), RANKS.index(square[1])


def name(file_index: int, rank_index: int) -> str:
    return FILES[file_index] + RANKS[rank_index]


def on_board(file_index: int, rank_index: int) -> bool:
    return 0 <= file_index < 7 and 0 <= rank_index < 7


def neighbours(square: str) -> list[str]:
    """Squares sharing a side with `square` (orthogonal only), on the board."""
    f, r = coords(square)
    result: list[str] = []
    for df, dr in STEP.values():
        if on_board(f + df, r + dr):
            result.append(name(f + df, r + dr))
    return result


# ---------------------------------------------------------------------------
# Border arcs (R2): written out by hand, one entry per way off the board.
# (square, facing when leaving) -> (square arrived on, new facing)
# ---------------------------------------------------------------------------

BORDER_EXITS: dict[tuple[str, str], tuple[str, str]] = {
    # top edge, leaving North: pairs a7-b7, c7-d7, e7-f7, loop at g7
    ("a7", "N"): ("b7", "S"),
    ("b7", "N"): ("a7", "S"),
    ("c7", "N"): ("d7", "S"),
    ("d7", "N"): ("c7", "S"),
    ("e7", "N"): ("f7", "S"),
    ("f7", "N"): ("e7", "S"),
    ("g7", "N"): ("g7", "W"),
    # right edge, leaving East: pairs g6-g5, g4-g3, g2-g1, loop at g7
    ("g7", "E"): ("g7", "S"),
    ("g6", "E"): ("g5", "W"),
    ("g5", "E"): ("g6", "W"),
    ("g4", "E"): ("g3", "W"),
    ("g3", "E"): ("g4", "W"),
    ("g2", "E"): ("g1", "W"),
    ("g1", "E"): ("g2", "W"),
    # bottom edge, leaving South: pairs b1-c1, d1-e1, f1-g1, loop at a1
    ("a1", "S"): ("a1", "E"),
    ("b1", "S"): ("c1", "N"),
    ("c1", "S"): ("b1", "N"),
    ("d1", "S"): ("e1", "N"),
    ("e1", "S"): ("d1", "N"),
    ("f1", "S"): ("g1", "N"),
    ("g1", "S"): ("f1", "N"),
    # left edge, leaving West: pairs a7-a6, a5-a4, a3-a2, loop at a1
    ("a7", "W"): ("a6", "E"),
    ("a6", "W"): ("a7", "E"),
    ("a5", "W"): ("a4", "E"),
    ("a4", "W"): ("a5", "E"),
    ("a3", "W"): ("a2", "E"),
    ("a2", "W"): ("a3", "E"),
    ("a1", "W"): ("a1", "N"),
}


def step(square: str, facing: str) -> tuple[str, str]:
    """One step of Assam (R2, R10). Crossing an arc is one ordinary step."""
    f, r = coords(square)
    df, dr = STEP[facing]
    if on_board(f + df, r + dr):
        return name(f + df, r + dr), facing
    return BORDER_EXITS[(square, facing)]


def turn(facing: str, token: str) -> str:
    """R9: 'L' = quarter turn counter-clockwise, 'S' = keep, 'R' = clockwise."""
    i = FACINGS.index(facing)
    if token == "L":
        return FACINGS[(i - 1) % 4]
    if token == "R":
        return FACINGS[(i + 1) % 4]
    if token == "S":
        return facing
    raise ValueError(f"not an orientation token: {token!r}")


# R3: faces 1, 2, 2, 3, 3, 4.
DIE: dict[str, Fraction] = {
    "r1": Fraction(1, 6),
    "r2": Fraction(2, 6),
    "r3": Fraction(2, 6),
    "r4": Fraction(1, 6),
}


def colours_of_seat(players: int, seat: int) -> list[int]:
    """R6/R7: at 2 players seat 0 owns R, Y and seat 1 owns B, P."""
    if players == 2:
        return [seat, seat + 2]
    return [seat]


def owner_of_colour(players: int, colour: int) -> int:
    if players == 2:
        return colour % 2
    return colour


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class NaiveGame:
    """Full game state plus a tiny move interface. Mutable; use copy()."""

    def __init__(
        self,
        players: int,
        carpets_per_colour: int,
        money: int,
        own_cover: bool,
        first_seat: int = 0,
        orient_last: bool = False,
    ) -> None:
        if players not in (2, 3, 4):
            raise ValueError("players must be 2, 3 or 4")
        if not 0 <= first_seat < players:
            raise ValueError("first_seat out of range")
        self.players: int = players
        self.own_cover: bool = own_cover
        # R32: Assam is turned by the placer at the end of his turn, not at the start.
        self.orient_last: bool = orient_last

        # R5: money per seat.
        self.money: list[int] = [money] * players
        # Carpets in hand, per colour (unused colours stay 0). At 2 players
        # the revealed top of a pile is still counted here (it is in hand).
        self.carpets_left: list[int] = [0, 0, 0, 0]
        for seat in range(players):
            for colour in colours_of_seat(players, seat):
                self.carpets_left[colour] = carpets_per_colour
        # Seats in the order they were eliminated (R13).
        self.eliminated: list[int] = []

        # Board: square -> (carpet id, colour) of the visible carpet, or None.
        self.board: dict[str, tuple[int, int] | None] = {sq: None for sq in ALL_SQUARES}
        self.next_carpet_id: int = 1

        # Assam (R8).
        self.assam_square: str = "d4"
        self.facing: str = "N"

        # 2 players: revealed top colour of each seat's pile, or None.
        self.tops: list[int | None] = [None] * players

        self.current_seat: int = first_seat
        # R9, or R32: the first player rolls without orienting.
        self.current_phase: str = "roll" if orient_last else "orient"
        # For 'draw' phases: whose pile is being revealed.
        self.draw_seat: int = 0
        # 2 players, start of game: seats whose first top is still to reveal.
        self.initial_draws: list[int] = []
        # True while the opening reveals of R7 are being made.
        self.opening: bool = False

        if self._game_should_end():
            self.current_phase = "over"
        elif players == 2:
            # R7: seat 0's top first, then seat 1's, then the first ORIENT.
            self.initial_draws = [s for s in (0, 1) if self._pile_size(s) > 0]
            self.opening = True
            self._next_initial_draw_or_orient()

    # -- small helpers -----------------------------------------------------

    def copy(self) -> NaiveGame:
        return _copy.deepcopy(self)

    def _in_game(self, seat: int) -> bool:
        return seat not in self.eliminated

    def _pile_size(self, seat: int) -> int:
        return sum(self.carpets_left[c] for c in colours_of_seat(self.players, seat))

    def _seats_in(self) -> list[int]:
        return [s for s in range(self.players) if self._in_game(s)]

    def _game_should_end(self) -> bool:
        """R19."""
        seats_in = self._seats_in()
        if len(seats_in) <= 1:
            return True
        return all(self._pile_size(s) == 0 for s in seats_in)

    def _next_initial_draw_or_orient(self) -> None:
        if self.initial_draws:
            self.draw_seat = self.initial_draws.pop(0)
            self.current_phase = "draw"
        else:
            self.opening = False
            # R32: the first player rolls without orienting.
            self.current_phase = "roll" if self.orient_last else "orient"

    def _pass_turn(self) -> None:
        """End the current turn: game over (R19) or the next seat still in."""
        if self._game_should_end():
            self.current_phase = "over"
            return
        seat = self.current_seat
        while True:
            seat = (seat + 1) % self.players
            if self._in_game(seat):
                break
        self.current_seat = seat
        # R32: the seat before turned Assam for this one, who rolls at once.
        self.current_phase = "roll" if self.orient_last else "orient"

    def _placing_colour(self) -> int:
        """The colour the current seat must place (R14)."""
        seat = self.current_seat
        if self.players == 2:
            top = self.tops[seat]
            assert top is not None, "2-player pile top must be revealed before placing"
            return top
        return seat

    def _region_size(self, start: str) -> int:
        """R11: squares of the start's visible colour joined through sides."""
        start_top = self.board[start]
        assert start_top is not None
        colour = start_top[1]
        seen: set[str] = {start}
        todo: list[str] = [start]
        while todo:
            square = todo.pop()
            for other in neighbours(square):
                other_top = self.board[other]
                if other not in seen and other_top is not None and other_top[1] == colour:
                    seen.add(other)
                    todo.append(other)
        return len(seen)

    # -- public queries ----------------------------------------------------

    def phase(self) -> str:
        return self.current_phase

    def seat(self) -> int | None:
        if self.current_phase == "over":
            return None
        if self.current_phase == "draw":
            return self.draw_seat
        return self.current_seat

    def assam(self) -> tuple[str, str]:
        return self.assam_square, self.facing

    def top_colours(self) -> dict[str, str | None]:
        result: dict[str, str | None] = {}
        for square in ALL_SQUARES:
            top = self.board[square]
            result[square] = None if top is None else COLOUR_LETTERS[top[1]]
        return result

    def pile_top(self, seat: int) -> str | None:
        if self.players != 2:
            return None
        top = self.tops[seat]
        return None if top is None else COLOUR_LETTERS[top]

    def placements(self) -> list[str]:
        """R14, R15, R16 (and the own-cover variant of R31)."""
        assam = self.assam_square
        own_colours = colours_of_seat(self.players, self.current_seat)
        found: set[str] = set()
        for first in neighbours(assam):
            for second in neighbours(first):
                if second == assam:
                    continue  # R15 (first is never Assam's square)
                top1 = self.board[first]
                top2 = self.board[second]
                if top1 is not None and top2 is not None and top1[0] == top2[0]:
                    # Both visible halves of one single carpet: R16 forbids it,
                    # unless own_cover and that carpet is the placer's colour.
                    if not (self.own_cover and top1[1] in own_colours):
                        continue
                low, high = sorted([first, second], key=coords)
                found.add(low + "-" + high)
        return sorted(found)

    def chances(self) -> dict[str, Fraction]:
        if self.current_phase == "roll":
            return dict(DIE)
        if self.current_phase == "draw":
            colours = colours_of_seat(self.players, self.draw_seat)
            total = sum(self.carpets_left[c] for c in colours)
            result: dict[str, Fraction] = {}
            for colour in sorted(colours):
                count = self.carpets_left[colour]
                if count > 0:
                    result["+" + COLOUR_LETTERS[colour]] = Fraction(count, total)
            return result
        return {}

    def legal(self) -> list[str]:
        phase = self.current_phase
        if phase == "orient":
            return ["L", "S", "R"]
        if phase in ("roll", "draw"):
            return list(self.chances())
        if phase == "place":
            return self.placements()
        return []

    # -- moves ---------------------------------------------------------------

    def play(self, token: str) -> None:
        if token not in self.legal():
            raise ValueError(f"illegal token {token!r} in phase {self.current_phase}")
        phase = self.current_phase
        if phase == "orient":
            self.facing = turn(self.facing, token)
            if self.orient_last:
                self._pass_turn()  # R32: the orientation ends the placer's turn
            else:
                self.current_phase = "roll"
        elif phase == "roll":
            self._apply_roll(int(token[1:]))
        elif phase == "place":
            self._apply_place(token)
        elif phase == "draw":
            self._apply_draw(COLOUR_LETTERS.index(token[1]))
        else:  # pragma: no cover - legal() is empty when over
            raise ValueError("game is over")

    def _apply_roll(self, steps: int) -> None:
        # R10: move exactly `steps` steps, following the arcs.
        for _ in range(steps):
            self.assam_square, self.facing = step(self.assam_square, self.facing)

        payer = self.current_seat
        top = self.board[self.assam_square]
        if top is not None:
            colour = top[1]
            owner = owner_of_colour(self.players, colour)
            # R12: no tithe on own colour or on an eliminated player's colour.
            if owner != payer and self._in_game(owner):
                tithe = self._region_size(self.assam_square)
                if self.money[payer] < tithe:
                    # R13: pay everything, eliminated at once.
                    self.money[owner] += self.money[payer]
                    self.money[payer] = 0
                    self._eliminate(payer)
                    self._pass_turn()
                    return
                self.money[payer] -= tithe
                self.money[owner] += tithe

        if self._pile_size(payer) == 0:
            # Cannot happen with equal piles (a seat in the game always has a
            # carpet on its turn); kept so the code never invents a carpet.
            self._pass_turn()
            return
        self.current_phase = "place"

    def _eliminate(self, seat: int) -> None:
        self.eliminated.append(seat)
        # R13: his carpets in hand leave the game.
        for colour in colours_of_seat(self.players, seat):
            self.carpets_left[colour] = 0
        self.tops[seat] = None

    def _apply_place(self, token: str) -> None:
        first, second = token.split("-")
        colour = self._placing_colour()
        carpet = (self.next_carpet_id, colour)
        self.next_carpet_id += 1
        self.board[first] = carpet  # R17: the new carpet is on top
        self.board[second] = carpet
        self.carpets_left[colour] -= 1
        seat = self.current_seat
        if self.players == 2:
            self.tops[seat] = None
            if self._pile_size(seat) > 0:
                # R7: the next top of that pile is revealed at once.
                self.draw_seat = seat
                self.current_phase = "draw"
                return
        self._end_of_placement()

    def _end_of_placement(self) -> None:
        """After a placement and its pile's reveal: the placer orients under R32, unless
        the game is over (R19); otherwise the turn passes."""
        if self.orient_last and not self._game_should_end():
            self.current_phase = "orient"
            return
        self._pass_turn()

    def _apply_draw(self, colour: int) -> None:
        self.tops[self.draw_seat] = colour
        if self.opening:
            # R7: opening reveals (seat 0's pile, then seat 1's), then ORIENT.
            self._next_initial_draw_or_orient()
            return
        # A reveal after a placement: the placing seat's turn is over, or under R32 he
        # now orients, having seen his next carpet (as Board Game Arena plays it).
        self._end_of_placement()

    # -- test setup helper -----------------------------------------------------

    def lay(self, colour: int, first: str, second: str) -> None:
        """Put a carpet of `colour` on two squares, with no rule check and
        without touching carpets in hand. Only for building test positions."""
        carpet = (self.next_carpet_id, colour)
        self.next_carpet_id += 1
        self.board[first] = carpet
        self.board[second] = carpet

    # -- scoring -----------------------------------------------------------------

    def scores(self) -> list[int]:
        """R20: dirhams + visible squares of the seat's colour(s)."""
        result: list[int] = []
        for seat in range(self.players):
            colours = colours_of_seat(self.players, seat)
            visible = sum(1 for top in self.board.values() if top is not None and top[1] in colours)
            result.append(self.money[seat] + visible)
        return result

    def ranks(self) -> list[int]:
        """R21: still-in seats by (score, money), standard competition
        ranking; eliminated seats below, the last eliminated highest."""
        scores = self.scores()
        seats_in = self._seats_in()
        ranks: list[int] = [0] * self.players
        for seat in seats_in:
            key = (scores[seat], self.money[seat])
            better = sum(1 for other in seats_in if (scores[other], self.money[other]) > key)
            ranks[seat] = better + 1
        for position, seat in enumerate(reversed(self.eliminated)):
            ranks[seat] = len(seats_in) + position + 1
        return ranks


def perft(game: NaiveGame, depth: int) -> int:
    """Leaves after exactly `depth` plies. A ply is one legal decision or one
    distinct chance outcome (unweighted). A finished game is a leaf."""
    if depth == 0 or game.phase() == "over":
        return 1
    total = 0
    for token in game.legal():
        child = game.copy()
        child.play(token)
        total += perft(child, depth - 1)
    return total
