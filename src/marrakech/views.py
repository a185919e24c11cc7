"""JSON-ready views of states and events, for interfaces that render and never rule.

The web server sends these to the browser; tools can log them. Squares are named
(``"d4"``), colours are letters (``"R"``), facings are letters (``"N"``)::

    >>> from marrakech import State
    >>> view = state_view(State.new(players=3))
    >>> view["phase"], view["assam"], view["legal"]
    ('orient', {'square': 'd4', 'facing': 'N'}, ['L', 'S', 'R'])
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from marrakech.events import Event
from marrakech.geometry import DELTA, FACING_LETTERS, RIM, SQUARE_NAMES, square_name
from marrakech.outcome import Outcome, rank_seats
from marrakech.position import NO_LINK
from marrakech.preview import preview_orientations
from marrakech.rules import COLOUR_LETTERS, colours_of
from marrakech.state import State


def _colour(colour: int | None) -> str | None:
    return None if colour is None else COLOUR_LETTERS[colour]


def state_view(state: State, board: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything public about a position (R40), with the legal action tokens.

    ``board`` maps each occupied square to ``{"colour": "R", "other": "d5" | None}``
    (``other`` is the square of the other visible half of the same carpet). A caller
    that made :func:`board_view` of this very board (a board changes only when a carpet
    is placed) may pass it: the view then holds that same object.
    """
    players = state.players
    # Scores once: ranks and winners follow from them (R20, R21).
    scores = state.scores()
    outcome = Outcome(rank_seats(scores, state.money, state.eliminated), state.is_terminal)
    ranks = outcome.ranks
    if board is None:
        board = board_view(state)
    seats = []
    for seat in range(players):
        seats.append(
            {
                "seat": seat,
                "colours": [COLOUR_LETTERS[c] for c in colours_of(seat, players)],
                "dirhams": state.money[seat],
                "carpets": state.carpets_in_hand(seat),
                "carpets_by_colour": {
                    COLOUR_LETTERS[c]: state.hand[c] for c in colours_of(seat, players)
                },
                "pile_top": _colour(state.pile_top(seat)),
                "next_carpet": _colour(state.next_carpet(seat)),
                "in_game": state.is_in(seat),
                "score": scores[seat],
                "rank": ranks[seat],
            }
        )
    legal = [str(a) for a in state.legal_actions()] if not state.is_chance else []
    return {
        "players": players,
        "rules": state.rules.token(),
        "phase": state.phase.name.lower(),
        "turn": state.turn,
        "to_move": state.to_move,
        "draw_pile": state.draw_pile,
        "assam": {
            "square": square_name(state.assam_square),
            "facing": FACING_LETTERS[state.assam_facing],
        },
        "board": board,
        "seats": seats,
        "eliminated": list(state.eliminated),
        "winners": list(outcome.winners),
        "legal": legal,
        "notation": state.notation(),
    }


def board_view(state: State) -> dict[str, Any]:
    """The ``board`` of :func:`state_view`: each occupied square's colour and the
    square of the other visible half of its carpet.

    >>> board_view(State.new(players=3))
    {}
    """
    cells = iter(_board_cells(tuple(state.board)))
    board: dict[Any, Any] = {  # names, never None: a cell's first item
        name: {"colour": colour, "other": other}
        for name, colour, other in zip(cells, cells, cells, strict=True)
    }
    return board


@functools.lru_cache(maxsize=256)
def _board_cells(board: tuple[int, ...]) -> tuple[str | None, ...]:
    """Each occupied square of a packed board, three items each, in one flat tuple
    (small: its strings are the shared names and letters): its name, its colour's
    letter and the square of the other visible half of its carpet. Read once per board
    while it is among the last 256 (a board lasts a whole turn, and a server writes the
    view of every version of its games; about 0.2 MB kept); the view's dictionaries are
    made fresh each time from these, so no two views share one."""
    cells: list[str | None] = []
    for square, cell in enumerate(board):
        if cell:  # packed: 1 + colour + 4 * link (link 4: the other half is covered)
            link = (cell - 1) >> 2
            other = None if link == NO_LINK else SQUARE_NAMES[square + DELTA[link]]
            cells += (SQUARE_NAMES[square], COLOUR_LETTERS[(cell - 1) & 3], other)
    return tuple(cells)


def preview_view(state: State) -> list[dict[str, Any]]:
    """For the seat about to orient, per legal orientation, where each roll would take
    Assam and what it would cost (:func:`marrakech.preview.preview_orientations`).

    >>> [o["orient"] for o in preview_view(State.new(players=3))]
    ['L', 'S', 'R']
    >>> first = preview_view(State.new(players=3))[1]["rolls"][0]
    >>> first["roll"], first["landing"], first["facing"], first["due"], first["eliminates"]
    ('r1', 'd5', 'N', 0, False)
    """
    return [
        {
            "orient": str(option.orient),
            "facing": FACING_LETTERS[option.facing],
            "expected_tithe": _exact_float((r.probability, r.paid) for r in option.rolls),
            "elimination_chance": _exact_float(
                (r.probability, 1) for r in option.rolls if r.eliminates
            ),
            "rolls": [
                {
                    "roll": str(roll.roll),
                    "probability": float(roll.probability),
                    "landing": square_name(roll.landing),
                    "facing": FACING_LETTERS[roll.facing],
                    "due": roll.due,
                    "paid": roll.paid,
                    "payee": roll.payee,
                    "eliminates": roll.eliminates,
                }
                for roll in option.rolls
            ],
        }
        for option in preview_orientations(state)
    ]


def _exact_float(terms: Iterable[tuple[Fraction, int]]) -> float:
    """``float(sum(p * n for p, n in terms))``, the sum kept exact in integers (over
    the denominators' least common multiple) rather than in :class:`Fraction` objects:
    the same float, a preview's sums costing a tenth as much (the server writes one
    for each orientation of a player's every turn).

    >>> _exact_float([(Fraction(1, 6), 2), (Fraction(1, 3), 2), (Fraction(1, 3), 0)])
    1.0
    >>> _exact_float([(Fraction(1, 6), 1), (Fraction(1, 3), 1)]) == float(Fraction(1, 2))
    True
    """
    pairs = list(terms)
    common = math.lcm(*(p.denominator for p, _ in pairs)) if pairs else 1
    total = sum(p.numerator * (common // p.denominator) * n for p, n in pairs)
    return total / common  # int / int: correctly rounded, as float(Fraction) is


def rim_view() -> list[dict[str, Any]]:
    """The board's rim (R2, :data:`marrakech.geometry.RIM`), for renderers that draw it:
    per arc the two squares it joins (the same square twice for a corner loop) and the
    edges (``"N"``...) it leaves the board by.

    >>> rim_view()[0]
    {'squares': ['a7', 'b7'], 'edges': ['N'], 'loop': False}
    >>> rim_view()[3]
    {'squares': ['g7', 'g7'], 'edges': ['N', 'E'], 'loop': True}
    """
    return [
        {
            "squares": [SQUARE_NAMES[square] for square in arc.squares],
            "edges": [FACING_LETTERS[edge] for edge in arc.edges],
            "loop": arc.loop,
        }
        for arc in RIM
    ]


def event_view(event: Event) -> dict[str, Any]:
    """What one action did: Assam's path, the tithe and its region, covers, the end."""
    tithe = event.tithe
    return {
        "action": str(event.action),
        "phase": event.phase.name.lower(),
        "seat": event.seat,
        "facing_before": None
        if event.facing_before is None
        else FACING_LETTERS[event.facing_before],
        "facing_after": None if event.facing_after is None else FACING_LETTERS[event.facing_after],
        "path": [
            {"square": square_name(s.square), "facing": FACING_LETTERS[s.facing], "arc": s.arc}
            for s in event.path
        ],
        "tithe": None
        if tithe is None
        else {
            "payer": tithe.payer,
            "payee": tithe.payee,
            "colour": COLOUR_LETTERS[tithe.colour],
            "due": tithe.due,
            "paid": tithe.paid,
            "region": [square_name(s) for s in tithe.region],
        },
        "eliminated": event.eliminated,
        "placed": None if event.placed is None else [square_name(s) for s in event.placed],
        "placed_colour": _colour(event.placed_colour),
        "covered": [
            {"square": square_name(c.square), "colour": COLOUR_LETTERS[c.colour]}
            for c in event.covered
        ],
        "drawn_colour": _colour(event.drawn_colour),
        "game_over": event.game_over,
    }
