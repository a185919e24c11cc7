"""marrakech: the board game Marrakech, exact and fast.

>>> from marrakech import State, parse_action
>>> state = State.new(players=2)
>>> [str(a) for a in state.legal_actions()], state.phase.name
(['+R', '+Y'], 'DRAW')
"""

from marrakech.actions import (
    ACTION_IDS,
    DECISION_IDS,
    Action,
    Draw,
    Orient,
    Place,
    Resign,
    Roll,
    action_from_id,
    parse_action,
)
from marrakech.errors import IllegalActionError, InvalidStateError, MarrakechError, NotationError
from marrakech.events import Covered, Event, Tithe
from marrakech.geometry import FACING_LETTERS, parse_square, square_name, walk
from marrakech.playout import random_action, random_game, sample_outcome
from marrakech.rules import BGA, COLOUR_LETTERS, COLOUR_NAMES, STANDARD, RuleSet, parse_rules
from marrakech.state import CHANCE, TERMINAL, Phase, State

__version__ = "0.1.0"  # the one place it is written: pyproject.toml reads it

__all__ = [
    "ACTION_IDS",
    "BGA",
    "CHANCE",
    "COLOUR_LETTERS",
    "COLOUR_NAMES",
    "DECISION_IDS",
    "FACING_LETTERS",
    "STANDARD",
    "TERMINAL",
    "Action",
    "Covered",
    "Draw",
    "Event",
    "IllegalActionError",
    "InvalidStateError",
    "MarrakechError",
    "NotationError",
    "Orient",
    "Phase",
    "Place",
    "Resign",
    "Roll",
    "RuleSet",
    "State",
    "Tithe",
    "__version__",
    "action_from_id",
    "parse_action",
    "parse_rules",
    "parse_square",
    "random_action",
    "random_game",
    "sample_outcome",
    "square_name",
    "walk",
]
