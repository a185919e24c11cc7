"""Rule sets (R30, R31), colours and the die (R3).

A rule set is a small immutable value. The two named ones are :data:`STANDARD` (the
rulebook) and :data:`BGA` (Board Game Arena); any other value is a custom (house) rule
set that the engine and every interface accept::

    >>> STANDARD.carpets_per_colour(3), BGA.carpets_per_colour(3)
    (10, 15)
    >>> house = RuleSet(carpets=(8, 8, 8), money=20)
    >>> house.name, house.carpets_per_colour(4)
    ('custom', 8)
    >>> parse_rules("bga+orient-last").orient_last        # R32, an option of any set
    True

The rule sets a player may pick by name (:data:`NAMED_RULE_SETS`), the yes/no options
of every set (:data:`RULE_OPTIONS`) and the player counts (:data:`PLAYER_COUNTS`) are
declared here once; the terminal, the web page (through ``/api/config``) and the web
protocol build their choices and checks from them, and their words for players live in
:mod:`marrakech.i18n` (:func:`~marrakech.i18n.rule_set_words`,
:func:`~marrakech.i18n.rule_option_words`)::

    >>> RULE_OPTIONS[0].field, RULE_OPTIONS[0].rule
    ('orient_last', 'R32')
    >>> STANDARD.with_options(orient_last=True).token()
    'standard+orient-last'
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from marrakech.errors import NotationError

#: Colour letters, used in notation, tokens and every rendering (colour-blind safe).
COLOUR_LETTERS = "RBYP"
COLOUR_NAMES = ("red", "blue", "yellow", "purple")

#: The die's faces (R3): 1, 2, 2, 3, 3, 4 babouches.
DIE_FACES = (1, 2, 2, 3, 3, 4)
ROLL_PROBABILITIES: dict[int, Fraction] = {
    steps: Fraction(DIE_FACES.count(steps), len(DIE_FACES)) for steps in range(1, 5)
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The numbers that vary between editions and house rules.

    ``carpets`` gives the carpets per colour for 2, 3 and 4 players (a 2-player seat owns
    two colours, so it has twice that many carpets). ``own_cover`` lets a player cover
    both visible halves of one of his own carpets (R31); covering anyone else's carpet
    that way is never allowed (R16). ``orient_last`` moves the orientation to the end of
    a turn: the player who placed turns Assam for the next one, who rolls at once (R32).
    """

    carpets: tuple[int, int, int] = (12, 10, 12)
    money: int = 30
    own_cover: bool = False
    orient_last: bool = False

    def __post_init__(self) -> None:
        if len(self.carpets) != 3 or any(not 1 <= c <= 99 for c in self.carpets):
            raise ValueError(
                f"carpets per colour must be three numbers 1..99, found {self.carpets}"
            )
        if not 0 <= self.money <= 9999:
            raise ValueError(f"starting money must be 0..9999, found {self.money}")

    @property
    def name(self) -> str:
        """``'standard'``, ``'bga'`` or ``'custom'``."""
        return _NAMES.get(self, "custom")

    def carpets_per_colour(self, players: int) -> int:
        check_players(players)
        return self.carpets[players - 2]

    def starting_carpets(self, players: int) -> int:
        """The carpets a seat starts with: both its colours' at 2 players (R6, R7).

        >>> STANDARD.starting_carpets(2), STANDARD.starting_carpets(3)
        (24, 10)
        """
        return self.carpets_per_colour(players) * len(colours_of(0, players))

    def options(self) -> dict[str, bool]:
        """Each option of :data:`RULE_OPTIONS` (by field name) and whether it is on.

        >>> BGA.options()["orient_last"], parse_rules("bga+orient-last").options()["orient_last"]
        (False, True)
        """
        return {option.field: bool(getattr(self, option.field)) for option in RULE_OPTIONS}

    def with_options(self, **flags: bool) -> RuleSet:
        """This rule set with options of :data:`RULE_OPTIONS` turned on or off; an
        unknown option is a :class:`ValueError` naming the known ones."""
        unknown = sorted(set(flags) - {option.field for option in RULE_OPTIONS})
        if unknown:
            known = ", ".join(option.field for option in RULE_OPTIONS)
            raise ValueError(f"expected rule options among {known}, found {', '.join(unknown)}")
        changes: dict[str, Any] = {field: bool(value) for field, value in flags.items()}
        return replace(self, **changes)

    @property
    def base(self) -> RuleSet:
        """This rule set with every option off (what its name names)."""
        off: dict[str, Any] = {option.field: False for option in RULE_OPTIONS}
        return replace(self, **off)

    def token(self) -> str:
        """The rule set as one word: its name, or ``custom:12/10/12:30:own|no-own``,
        followed by ``+WORD`` for each option that is on (``+orient-last``, R32), in the
        order of :data:`RULE_OPTIONS`."""
        # Every position's notation and view writes it: made once per rule set.
        return _token(self)

    def _token(self) -> str:
        word = _NAMES.get(self.base)
        if word is None:
            carpets = "/".join(str(c) for c in self.carpets)
            word = f"custom:{carpets}:{self.money}:{'own' if self.own_cover else 'no-own'}"
        return word + "".join(
            f"+{option.word}" for option in RULE_OPTIONS if getattr(self, option.field)
        )

    def __str__(self) -> str:
        return self.token()


#: :meth:`RuleSet.token` of the rule sets met lately (a few: the named ones and their
#: options, and the custom sets games were created with).
_token = functools.lru_cache(maxsize=256)(RuleSet._token)

STANDARD = RuleSet()
BGA = RuleSet(carpets=(12, 15, 12), own_cover=True)
NAMED_RULE_SETS: dict[str, RuleSet] = {"standard": STANDARD, "bga": BGA}
_NAMES: dict[RuleSet, str] = {rules: name for name, rules in NAMED_RULE_SETS.items()}


@dataclass(frozen=True, slots=True)
class RuleOption:
    """A yes/no option that any rule set may turn on: a boolean field of
    :class:`RuleSet` (``field``), written ``+WORD`` after the rule set's word
    (``word``), and the rule that describes it (``rule``). Adding one is a field of
    :class:`RuleSet`, an entry here, its words in :mod:`marrakech.i18n`, the rules that
    read it (and the kernels' mirror): every interface offers it from this list."""

    field: str
    word: str
    rule: str


#: The options of every rule set, in the order their words follow a rule set's word.
RULE_OPTIONS: tuple[RuleOption, ...] = (
    # Board Game Arena's "rotate Assam at the end of the turn".
    RuleOption("orient_last", "orient-last", "R32"),
)
_OPTION_WORDS = {option.word: option for option in RULE_OPTIONS}


def parse_rules(text: str) -> RuleSet:
    """Parse a rule set word (``standard``, ``bga`` or a ``custom:...`` token, each
    optionally followed by options of :data:`RULE_OPTIONS`: ``+orient-last``, R32).

    >>> parse_rules("standard+nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    marrakech.errors.NotationError: expected rule options among +orient-last...; found +nope in ...
    """
    if not isinstance(text, str):
        raise NotationError(f"expected a rule set word, found {type(text).__name__}")
    word, *option_words = text.split("+")
    unknown = [f"+{w}" for w in option_words if w not in _OPTION_WORDS]
    if unknown or len(set(option_words)) != len(option_words):
        known = ", ".join(f"+{option.word}" for option in RULE_OPTIONS)
        found = ", ".join(unknown) or "an option twice"
        raise NotationError(
            f"expected rule options among {known} after the rule set, each at most once;"
            f" found {found} in {text!r}"
        )
    rules = _parse_base(word, text)
    if not option_words:
        return rules
    return rules.with_options(**{_OPTION_WORDS[w].field: True for w in option_words})


def _parse_base(word: str, text: str) -> RuleSet:
    """The rule set a word names (without options); ``text`` is the whole word, for
    the error message."""
    named = NAMED_RULE_SETS.get(word)
    if named is not None:
        return named
    parts = word.split(":")
    if len(parts) != 4 or parts[0] != "custom":
        names = ", ".join(NAMED_RULE_SETS)
        options = ", ".join(f"+{option.word}" for option in RULE_OPTIONS)
        raise NotationError(
            f"expected a rule set: {names} or custom:C2/C3/C4:MONEY:own|no-own, "
            f"optionally followed by {options}, found {text!r}"
        )
    try:
        carpets = tuple(int(c) for c in parts[1].split("/"))
        money = int(parts[2])
    except ValueError:
        raise NotationError(f"expected numbers in the custom rule set, found {text!r}") from None
    if parts[3] not in ("own", "no-own") or len(carpets) != 3:
        raise NotationError(
            f"expected custom:C2/C3/C4:MONEY:own|no-own (three carpet counts), found {text!r}"
        )
    try:
        return RuleSet(
            carpets=(carpets[0], carpets[1], carpets[2]), money=money, own_cover=parts[3] == "own"
        )
    except ValueError as error:
        raise NotationError(f"{error} in rule set {text!r}") from None


#: How many merchants may play (R4).
PLAYER_COUNTS = (2, 3, 4)


def check_players(players: int) -> None:
    if players not in PLAYER_COUNTS:
        raise ValueError(f"Marrakech is played by 2, 3 or 4 players, found {players}")


def colours_in_play(players: int) -> int:
    """Four colours at 2 players (two each, R7), otherwise one per player."""
    return 4 if players == 2 else players


def colours_of(seat: int, players: int) -> tuple[int, ...]:
    """The colours a seat owns: seat 0 of a 2-player game owns red and yellow."""
    return (seat, seat + 2) if players == 2 else (seat,)


def owner_of(colour: int, players: int) -> int:
    """The seat that owns ``colour``."""
    return colour % players


def carpets_held(seat: int, players: int, hand: Sequence[int]) -> int:
    """Carpets ``seat`` has not placed yet (both its colours at 2 players), from ``hand``
    (carpets per colour in play)."""
    return hand[seat] + hand[seat + 2] if players == 2 else hand[seat]


def game_over(players: int, hand: Sequence[int], out: Sequence[int]) -> bool:
    """R19: the game is over when at most one seat is still in, or when no seat still in
    holds a carpet (``hand`` per colour in play, ``out`` the eliminated seats).

    >>> game_over(3, hand=(0, 0, 1), out=()), game_over(3, hand=(0, 0, 1), out=(2,))
    (False, True)
    """
    if players - len(out) <= 1:
        return True
    return not any(carpets_held(s, players, hand) for s in range(players) if s not in out)
