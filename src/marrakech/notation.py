"""The one-line position string (``docs/notation.md`` specifies it).

Eight fields separated by single spaces::

    BOARD ASSAM MONEY HAND TOPS OUT PHASE RULES

    >>> from marrakech import State
    >>> State.new(players=3).notation()
    '7/7/7/7/7/7/7 d4N 30,30,30 10,10,10 - - orient:0 standard'

``BOARD`` lists ranks 7 down to 1 separated by ``/``; in a rank, a digit counts empty
squares and an occupied square is a colour letter (``R B Y P``) followed by the direction
of the other visible half of the same carpet (``n e s w``) or ``x`` when that half is
covered. ``PHASE`` is ``orient:S``, ``roll:S``, ``place:S``, ``draw:P:S`` (pile P, turn
S next) or ``over``, which a position carries exactly when the game is over (R19).

This module turns text into the packed :class:`~marrakech.position.Fields` of a position
and back; :meth:`State.from_notation <marrakech.state.State.from_notation>` and
:meth:`State.notation <marrakech.state.State.notation>` are the way to use it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from marrakech.errors import InvalidStateError, NotationError
from marrakech.geometry import DELTA, FACING_LETTERS, SIZE, neighbour, parse_square, square_name
from marrakech.position import NO_LINK, Fields, Phase
from marrakech.rules import (
    COLOUR_LETTERS,
    PLAYER_COUNTS,
    carpets_held,
    colours_in_play,
    game_over,
    owner_of,
    parse_rules,
)

LINK_LETTERS = "nesw"
_PHASE_WORDS = {"orient": Phase.ORIENT, "roll": Phase.ROLL, "place": Phase.PLACE}


def format_position(fields: Sequence[Any]) -> str:
    """The position string of a position's :class:`Fields` (a :class:`State` is one)."""
    players, rules, board, assam, money, hand, tops, out, phase, turn, pile = Fields(*fields)
    assam_text = square_name(assam >> 2) + FACING_LETTERS[assam & 3]
    if players == 2:
        tops_text = ",".join("-" if top < 0 else COLOUR_LETTERS[top] for top in tops)
    else:
        tops_text = "-"
    if phase == Phase.OVER:
        phase_text = "over"
    elif phase == Phase.DRAW:
        phase_text = f"draw:{pile}:{turn}"
    else:
        phase_text = f"{Phase(phase).name.lower()}:{turn}"
    return " ".join(
        (
            _board_text(tuple(board)),
            assam_text,
            ",".join(str(m) for m in money),
            ",".join(str(h) for h in hand),
            tops_text,
            ",".join(str(s) for s in out) or "-",
            phase_text,
            rules.token(),
        )
    )


@functools.lru_cache(maxsize=4096)
def _board_text(board: tuple[int, ...]) -> str:
    """The board's field of the position string. A board stays the same over the
    orient, roll and draw of a turn (only a placement changes it), and a server writes
    the position of every version of its games: each board is written once while it
    is among the last 4096 (about 2.5 MB kept, the boards included). A server with a
    thousand live games touches over a thousand boards within one board's turn, so a
    smaller cache missed almost every time (writing a board costs twice the rest of
    the position string)."""
    ranks: list[str] = []
    for rank in range(SIZE - 1, -1, -1):
        text = ""
        empty = 0
        for file in range(SIZE):
            cell = board[rank * SIZE + file]
            if not cell:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            link = (cell - 1) >> 2
            text += COLOUR_LETTERS[(cell - 1) & 3] + (
                "x" if link == NO_LINK else LINK_LETTERS[link]
            )
        if empty:
            text += str(empty)
        ranks.append(text)
    return "/".join(ranks)


def _numbers(text: str, what: str, field: int) -> list[int]:
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise NotationError(
            f"field {field} ({what}): expected comma-separated whole numbers, found {text!r}"
        ) from None
    if any(v < 0 for v in values) or any(not part.isdigit() for part in text.split(",")):
        raise NotationError(f"field {field} ({what}): expected numbers >= 0, found {text!r}")
    return values


def _parse_board(text: str) -> list[int]:
    ranks = text.split("/")
    if len(ranks) != SIZE:
        raise NotationError(
            f"field 1 (board): expected 7 ranks separated by '/', found {len(ranks)} in {text!r}"
        )
    board = [0] * (SIZE * SIZE)
    for row, rank_text in enumerate(ranks):
        rank = SIZE - 1 - row
        file = 0
        i = 0
        while i < len(rank_text):
            char = rank_text[i]
            if char in "1234567":
                file += int(char)
                i += 1
            elif char in COLOUR_LETTERS:
                if i + 1 >= len(rank_text) or rank_text[i + 1] not in LINK_LETTERS + "x":
                    raise NotationError(
                        f"field 1 (board), rank {rank + 1}: expected a link letter n, e, s, w "
                        f"or x after colour {char!r}, found {rank_text[i + 1 : i + 2]!r}"
                    )
                if file >= SIZE:
                    raise NotationError(f"field 1 (board), rank {rank + 1}: more than 7 squares")
                link_char = rank_text[i + 1]
                link = NO_LINK if link_char == "x" else LINK_LETTERS.index(link_char)
                board[rank * SIZE + file] = 1 + COLOUR_LETTERS.index(char) + 4 * link
                file += 1
                i += 2
            else:
                raise NotationError(
                    f"field 1 (board), rank {rank + 1}: expected a digit 1-7 or a colour letter "
                    f"R, B, Y, P, found {char!r}"
                )
        if file != SIZE:
            raise NotationError(
                f"field 1 (board), rank {rank + 1}: expected 7 squares, found {file} in "
                f"{rank_text!r}"
            )
    return board


def parse_position(text: str) -> Fields:
    """Parse and validate a position string into the :class:`Fields` of a position.

    Raises :class:`NotationError` for text that does not parse and
    :class:`InvalidStateError` for a position the rules cannot play from.
    """
    if not isinstance(text, str):
        raise NotationError(f"expected a position string, found {type(text).__name__}")
    parts = text.split(" ")
    if len(parts) != 8:
        raise NotationError(
            "expected 8 fields separated by single spaces (board, Assam, money, hand, tops, "
            f"eliminated, phase, rules), found {len(parts)} in {text!r}"
        )
    board_text, assam_text, money_text, hand_text, tops_text, out_text, phase_text, rules_text = (
        parts
    )
    board = _parse_board(board_text)
    if len(assam_text) != 3 or assam_text[2] not in FACING_LETTERS:
        raise NotationError(
            f"field 2 (Assam): expected a square and a facing such as d4N, found {assam_text!r}"
        )
    try:
        assam_square = parse_square(assam_text[:2])
    except NotationError as error:
        raise NotationError(f"field 2 (Assam): {error}") from None
    facing = FACING_LETTERS.index(assam_text[2])
    money = _numbers(money_text, "money", 3)
    players = len(money)
    if players not in PLAYER_COUNTS:
        raise NotationError(
            f"field 3 (money): expected one amount per seat for 2 to 4 seats, found {players}"
        )
    hand = _numbers(hand_text, "carpets in hand", 4)
    if len(hand) != colours_in_play(players):
        raise NotationError(
            f"field 4 (carpets in hand): expected {colours_in_play(players)} counts (one per "
            f"colour in play at {players} players), found {len(hand)}"
        )
    if players == 2:
        parts = tops_text.split(",")
        if len(parts) != 2 or any(p not in ("-", *COLOUR_LETTERS) for p in parts):
            raise NotationError(
                f"field 5 (pile tops): expected two entries such as Y,B or -,B, found {tops_text!r}"
            )
        tops = tuple(-1 if p == "-" else COLOUR_LETTERS.index(p) for p in parts)
    else:
        if tops_text != "-":
            raise NotationError(
                f"field 5 (pile tops): expected '-' (piles exist only at 2 players), "
                f"found {tops_text!r}"
            )
        tops = ()
    out = () if out_text == "-" else tuple(_numbers(out_text, "eliminated seats", 6))
    phase, turn, pile = _parse_phase(phase_text, players)
    rules = parse_rules(rules_text)
    fields = Fields(
        players,
        rules,
        tuple(board),
        assam_square * 4 + facing,
        tuple(money),
        tuple(hand),
        tops,
        out,
        int(phase),
        turn,
        pile,
    )
    _validate(fields)
    return fields


def _parse_phase(text: str, players: int) -> tuple[Phase, int, int]:
    if text == "over":
        return Phase.OVER, 0, 0
    parts = text.split(":")
    expected = (
        "expected orient:S, roll:S, place:S, draw:P:S or over with seat numbers "
        f"0..{players - 1}, found {text!r}"
    )
    if parts[0] in _PHASE_WORDS and len(parts) == 2:
        phase, numbers = _PHASE_WORDS[parts[0]], parts[1:]
    elif parts[0] == "draw" and len(parts) == 3:
        phase, numbers = Phase.DRAW, parts[1:]
    else:
        raise NotationError(f"field 7 (phase): {expected}")
    if not all(n.isdigit() and int(n) < players for n in numbers):
        raise NotationError(f"field 7 (phase): {expected}")
    seats = [int(n) for n in numbers]
    if phase == Phase.DRAW:
        return phase, seats[1], seats[0]
    return phase, seats[0], 0


def _validate(fields: Fields) -> None:
    """Raise :class:`InvalidStateError` listing every way ``fields`` cannot be a position."""
    players, rules, board, _, money, hand, tops, out, phase, turn, pile = fields
    problems: list[str] = []
    for square, cell in enumerate(board):
        if not cell or (cell - 1) >> 2 == NO_LINK:
            continue
        link = (cell - 1) >> 2
        partner = neighbour(square, link)
        if partner is None:
            problems.append(f"{square_name(square)} links off the board")
            continue
        back = board[partner]
        if not back or (back - 1) >> 2 != (link + 2) % 4 or (back - 1) & 3 != (cell - 1) & 3:
            problems.append(
                f"{square_name(square)} links to {square_name(partner)}, which does not show "
                "the other half of the same carpet"
            )
        assert partner == square + DELTA[link]
    colours = colours_in_play(players)
    per_colour = rules.carpets_per_colour(players)
    for colour in range(4):
        visible = sum(1 for cell in board if cell and (cell - 1) & 3 == colour)
        if colour >= colours:
            if visible:
                problems.append(
                    f"colour {COLOUR_LETTERS[colour]} is not in play at {players} players"
                )
            continue
        if hand[colour] > per_colour:
            problems.append(
                f"{hand[colour]} {COLOUR_LETTERS[colour]} carpets in hand, more than the "
                f"{per_colour} of the rule set"
            )
        if owner_of(colour, players) not in out:
            placed = per_colour - hand[colour]
            if visible > 2 * placed:
                problems.append(
                    f"{visible} {COLOUR_LETTERS[colour]} squares visible but only {placed} "
                    "carpets placed"
                )
    if len(set(out)) != len(out) or any(s >= players for s in out):
        problems.append(f"eliminated seats must be distinct seats 0..{players - 1}, found {out}")
    for seat in out:
        if seat < players and (money[seat] or carpets_held(seat, players, hand)):
            problems.append(f"eliminated seat {seat} still holds dirhams or carpets")
    if players == 2:
        for seat in (0, 1):
            top = tops[seat]
            if top >= 0 and (owner_of(top, 2) != seat or not hand[top]):
                problems.append(
                    f"seat {seat}'s pile top {COLOUR_LETTERS[top]} is not one of its carpets "
                    "in hand"
                )
    over = game_over(players, hand, out)
    if phase == Phase.OVER:
        if not over:
            problems.append(
                "the phase is 'over' but the game goes on (R19: a seat still in holds a "
                "carpet and at least two seats are in)"
            )
    else:
        if turn in out:
            problems.append(f"seat {turn} is to play but was eliminated")
        if over:
            problems.append("the game is over (R19) but the phase is not 'over'")
        if phase == Phase.DRAW:
            if players != 2:
                problems.append("a draw phase exists only at 2 players")
            elif tops[pile] >= 0 or not carpets_held(pile, players, hand):
                problems.append(f"seat {pile}'s pile has nothing to reveal")
            elif rules.orient_last and any(board) and pile != turn:
                problems.append(
                    f"under orient-last (R32) the placer's pile reveals its next top before "
                    f"he orients: expected draw:{pile}:{pile}, found draw:{pile}:{turn} (the "
                    "order of engines before record version 2)"
                )
        elif players == 2:
            for seat in (0, 1):
                held = carpets_held(seat, players, hand)
                if seat not in out and held and tops[seat] < 0:
                    why = f"seat {seat}'s pile top is not revealed outside a draw"
                    if rules.orient_last and phase == Phase.ORIENT and seat == turn:
                        why += (
                            " (under orient-last, R32, the placer's pile reveals its next "
                            "top before he orients; engines before record version 2 did "
                            "it after)"
                        )
                    problems.append(why)
        if phase == Phase.PLACE and not _has_next_carpet(fields, turn):
            problems.append(f"seat {turn} has no carpet to place")
    if problems:
        raise InvalidStateError("impossible position: " + "; ".join(problems))


def _has_next_carpet(fields: Fields, seat: int) -> bool:
    """Whether ``seat`` knows the carpet it places next (R7: its pile top at 2 players)."""
    if seat in fields.out:
        return False
    if fields.players == 2:
        return fields.tops[seat] >= 0
    return fields.hand[seat] > 0


__all__ = ["format_position", "parse_position"]
