"""Words for players, in English and French: colours, seats, phases, what happened.

Every interface (terminal, web) takes its game-log sentences from here, so the log says
the same thing everywhere and the rules stay in the core::

    >>> from marrakech import State, parse_action
    >>> state = State.new(players=3).apply(parse_action("L"))
    >>> describe_event(state.describe(parse_action("r3")), "en")
    'Red rolled 3: Assam walks c4, b4, a4 and stops on a4, facing West.'
    >>> describe_event(state.describe(parse_action("r3")), "fr")
    'Rouge a fait 3 : Assam passe par c4, b4, a4 et s’arrête sur a4, face à l’ouest.'
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from marrakech.actions import Draw, Orient, Place, Resign, Roll
from marrakech.geometry import square_name
from marrakech.rules import RULE_OPTIONS, RuleSet, colours_of

if TYPE_CHECKING:
    # Only named in annotations: an Event's __str__ calls describe_event.
    from marrakech.events import Event

LANGUAGES = ("en", "fr")

COLOURS = {
    "en": ("Red", "Blue", "Yellow", "Purple"),
    "fr": ("Rouge", "Bleu", "Jaune", "Violet"),
}
FACINGS = {
    "en": ("North", "East", "South", "West"),
    "fr": ("au nord", "à l’est", "au sud", "à l’ouest"),
}

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "turn.left": "{seat} turned Assam left, to face {facing}.",
        "turn.right": "{seat} turned Assam right, to face {facing}.",
        "turn.straight": "{seat} kept Assam facing {facing}.",
        "roll": "{seat} rolled {steps}: Assam walks {path} and stops on {square}, facing {facing}.",
        "arc": " (along the border arc)",
        "roll.loop": "{seat} rolled {steps}: Assam {moves}, facing {facing}.",
        "walk": "walks {path}",
        "walk.stop": "walks {path} and stops on {square}",
        "loop": "loops back to {square}",
        "then": ", then ",
        "and": " and ",
        "tithe": "{payer} paid {paid} dirhams to {payee} ({due} squares of {colour}).",
        "tithe.one": "{payer} paid 1 dirham to {payee} (1 square of {colour}).",
        "eliminated": "{seat} could not pay {due} and is out of the game.",
        "place": "{seat} placed a {colour} carpet on {a} and {b}.",
        "covered": " It covers {halves}.",
        "draw": "{seat} draws a {colour} carpet to the top of the pile.",
        "resign": "{seat} resigns and leaves the game.",
        "over": "The game is over.",
        "seat": "Seat {n}",
    },
    "fr": {
        "turn.left": "{seat} a tourné Assam à gauche, face {facing}.",
        "turn.right": "{seat} a tourné Assam à droite, face {facing}.",
        "turn.straight": "{seat} a laissé Assam face {facing}.",
        "roll": (
            "{seat} a fait {steps} : Assam passe par {path} et s’arrête sur {square}, "
            "face {facing}."
        ),
        "arc": " (par l’arc de bordure)",
        "roll.loop": "{seat} a fait {steps} : Assam {moves}, face {facing}.",
        "walk": "passe par {path}",
        "walk.stop": "passe par {path} et s’arrête sur {square}",
        "loop": "revient sur {square} par la boucle du coin",
        "then": ", puis ",
        "and": " et ",
        "tithe": "{payer} a payé {paid} dirhams à {payee} ({due} cases en {colour}).",
        "tithe.one": "{payer} a payé 1 dirham à {payee} (1 case en {colour}).",
        "eliminated": "{seat} ne peut pas payer {due} et quitte la partie.",
        "place": "{seat} a posé un tapis {colour} sur {a} et {b}.",
        "covered": " Il recouvre {halves}.",
        "draw": "{seat} retourne un tapis {colour} sur le dessus de sa pile.",
        "resign": "{seat} abandonne et quitte la partie.",
        "over": "La partie est terminée.",
        "seat": "Siège {n}",
    },
}


@dataclass(frozen=True, slots=True)
class RuleWords:
    """What players read of a rule set or a rule option: a ``label`` for a choice, a
    ``help`` line under it, and a ``short`` form for a game's description."""

    label: str
    help: str
    short: str


#: By language: the words of each named rule set (:data:`marrakech.rules.NAMED_RULE_SETS`)
#: and of each rule option (:data:`marrakech.rules.RULE_OPTIONS`, by field name).
RULE_WORDS: dict[str, dict[str, RuleWords]] = {
    "en": {
        "standard": RuleWords(
            "standard (rulebook)",
            "10 carpets each at 3 players, never cover your own carpet fully.",
            "standard (rulebook)",
        ),
        "bga": RuleWords(
            "bga (as on Board Game Arena)",
            "15 carpets each at 3 players, you may cover your own carpet.",
            "bga (as on Board Game Arena)",
        ),
        "orient_last": RuleWords(
            "Rotate Assam at the end of the turn",
            "As on Board Game Arena: you roll at once, and after placing your carpet you"
            " turn Assam for the next player (at two players, once your pile has shown"
            " your next carpet).",
            "Assam turned at the end of the turn",
        ),
    },
    "fr": {
        "standard": RuleWords(
            "standard (livret de règles)",
            "10 tapis chacun à 3 joueurs, jamais recouvrir entièrement son propre tapis.",
            "standard (livret de règles)",
        ),
        "bga": RuleWords(
            "bga (comme sur Board Game Arena)",
            "15 tapis chacun à 3 joueurs, on peut recouvrir son propre tapis.",
            "bga (comme sur Board Game Arena)",
        ),
        "orient_last": RuleWords(
            "Tourner Assam à la fin du tour",
            "Comme sur Board Game Arena : vous lancez le dé tout de suite et, après avoir"
            " posé votre tapis, vous tournez Assam pour le joueur suivant (à deux joueurs,"
            " une fois votre prochain tapis montré par votre pile).",
            "Assam tourné en fin de tour",
        ),
    },
}


def rule_set_words(name: str, lang: str = "en") -> RuleWords:
    """The words of a named rule set (``standard``, ``bga``), in ``lang``."""
    return RULE_WORDS.get(lang, RULE_WORDS["en"]).get(name) or RULE_WORDS["en"][name]


def rule_option_words(field: str, lang: str = "en") -> RuleWords:
    """The words of a rule option (by its field name, ``orient_last``), in ``lang``."""
    return rule_set_words(field, lang)


def rules_label(rules: RuleSet, lang: str = "en") -> str:
    """A rule set as players read it: its name's short words (or its word, for a custom
    set), then each option that is on.

    >>> from marrakech.rules import parse_rules
    >>> rules_label(parse_rules("bga+orient-last"), "en")
    'bga (as on Board Game Arena), Assam turned at the end of the turn'
    """
    name = rules.base.name
    parts = [rules.base.token() if name == "custom" else rule_set_words(name, lang).short]
    parts += [
        rule_option_words(option.field, lang).short
        for option in RULE_OPTIONS
        if getattr(rules, option.field)
    ]
    return ", ".join(parts)


def text(key: str, lang: str = "en", **values: object) -> str:
    """A sentence by key, in ``lang`` (falls back to English)."""
    table = _TEXT.get(lang, _TEXT["en"])
    return table.get(key, _TEXT["en"][key]).format(**values)


def colour_name(colour: int, lang: str = "en") -> str:
    return COLOURS.get(lang, COLOURS["en"])[colour]


# A few dozen seats, player counts and languages, and every log line names one or two.
@functools.lru_cache(maxsize=64)
def seat_name(seat: int, players: int, lang: str = "en") -> str:
    """A seat called by its colour(s): ``Red`` or, at two players, ``Red-Yellow``."""
    return "-".join(colour_name(c, lang) for c in colours_of(seat, players))


def _roll_sentence(event: Event, seat: str, steps: int, lang: str) -> str:
    """Assam's walk in words; a corner loop (R2), where a step leaves and re-enters the
    same corner square, is said as such: "walks a2, a1 and loops back to a1"."""
    last = event.path[-1]
    facing = FACINGS.get(lang, FACINGS["en"])[last.facing]
    where = event.before.assam_square
    clauses: list[tuple[str, list[str]]] = []  # ("walk" | "loop", squares)
    for step in event.path:
        if step.arc and step.square == where:
            clauses.append(("loop", [square_name(step.square)]))
        elif clauses and clauses[-1][0] == "walk":
            clauses[-1][1].append(square_name(step.square))
        else:
            clauses.append(("walk", [square_name(step.square)]))
        where = step.square
    arcs = text("arc", lang) if any(s.arc for s in event.path) else ""
    if all(kind == "walk" for kind, _ in clauses):
        path = ", ".join(clauses[0][1]) + arcs
        return text(
            "roll", lang, seat=seat, steps=steps, path=path, square=square_name(last.square),
            facing=facing,
        )  # fmt: skip
    words = ""
    for i, (kind, squares) in enumerate(clauses):
        final = i == len(clauses) - 1
        if i:  # walks ... and loops back to ..., then walks ...
            words += text("then" if kind == "walk" else "and", lang)
        if kind == "loop":
            words += text("loop", lang, square=squares[0])
        else:
            key = "walk.stop" if final else "walk"
            words += text(key, lang, path=", ".join(squares), square=squares[-1])
    return text("roll.loop", lang, seat=seat, steps=steps, moves=words, facing=facing)


def seat_label(seat: int, players: int, lang: str = "en", names: Sequence[str] = ()) -> str:
    """A seat as the log and the panels call it: ``Amir (Blue)`` when its player has a
    name (``names[seat]``), else its colours, ``Blue``."""
    colours = seat_name(seat, players, lang)
    name = names[seat] if seat < len(names) else ""
    return f"{name} ({colours})" if name else colours


def describe_event(event: Event, lang: str = "en", names: Sequence[str] = ()) -> str:
    """The game-log sentence(s) for one applied action; ``names``: each seat's player's
    name ("" for none), so the log says "Amir (Blue)" as the web page's panels do."""
    players = event.before.players
    seat = seat_label(event.seat, players, lang, names)
    facings = FACINGS.get(lang, FACINGS["en"])
    action = event.action
    sentences: list[str] = []
    if isinstance(action, Orient):
        assert event.facing_after is not None
        key = ("turn.left", "turn.straight", "turn.right")[action.turn + 1]
        sentences.append(text(key, lang, seat=seat, facing=facings[event.facing_after]))
    elif isinstance(action, Roll):
        sentences.append(_roll_sentence(event, seat, action.steps, lang))
        tithe = event.tithe
        if tithe is not None and tithe.paid > 0:
            key = "tithe.one" if tithe.paid == 1 and tithe.due == 1 else "tithe"
            sentences.append(
                text(
                    key,
                    lang,
                    payer=seat,
                    payee=seat_label(tithe.payee, players, lang, names),
                    paid=tithe.paid,
                    due=tithe.due,
                    colour=colour_name(tithe.colour, lang).lower(),
                )
            )
        if event.eliminated is not None and tithe is not None:
            sentences.append(text("eliminated", lang, seat=seat, due=tithe.due))
    elif isinstance(action, Place):
        assert event.placed_colour is not None
        a, b = action.squares
        sentence = text(
            "place",
            lang,
            seat=seat,
            colour=colour_name(event.placed_colour, lang).lower(),
            a=square_name(a),
            b=square_name(b),
        )
        if event.covered:
            halves = ", ".join(
                f"{square_name(c.square)} ({colour_name(c.colour, lang).lower()})"
                for c in event.covered
            )
            sentence += text("covered", lang, halves=halves)
        sentences.append(sentence)
    elif isinstance(action, Resign):
        sentences.append(text("resign", lang, seat=seat))
    elif isinstance(action, Draw):
        sentences.append(
            text("draw", lang, seat=seat, colour=colour_name(action.colour, lang).lower())
        )
    if event.game_over:
        sentences.append(text("over", lang))
    return " ".join(sentences)
