"""Players' display names (seats, accounts), checked the same everywhere, and the
characters chat lines may hold (docs/web.md, "Names").

The characters (:func:`text_problem`, for names and chat lines alike):

- no control character, and nothing that renders blank: Unicode's
  ``Default_Ignorable_Code_Point`` characters (zero-width spaces, the Hangul fillers
  U+115F, U+1160, U+3164, U+FFA0, invisible operators, tags...), and the graphic
  characters drawn as nothing (:data:`BLANK_GRAPHICS`: the braille blank U+2800);
- the zero-width joiner and non-joiner only where a script needs them, as IDNA's
  CONTEXTJ rules (RFC 5892, appendix A.1 and A.2) allow them: after a virama (Indic
  scripts), a non-joiner between letters that join (Arabic, Persian), and a joiner
  between two pictographs (emoji sequences such as 👩‍💻); a variation selector only
  after a visible character (❤️);
- at most :data:`MAX_MARKS` combining marks on a character, and something visible.

Names are also compared by how they look (:func:`name_skeleton`: the skeleton of
Unicode's UTS #39, case folded): a seat may not look like a bot or the site's staff
(:func:`seat_name`), an account may not look like another account or a reserved name
(:mod:`marrakech.web.accounts.names`). The Unicode data is ICU's (PyICU), the one
that the skeleton comes from.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Annotated

import icu
from pydantic import AfterValidator

MAX_NAME = 40
ZWNJ, ZWJ = "\u200c", "\u200d"
#: Zero-width joiner and non-joiner: format characters that names need (emoji
#: sequences such as 👩‍💻, Persian and Indic words), unlike every other control
#: character, and only where those scripts need them (:func:`joiner_problem`).
JOINERS = frozenset((ZWNJ, ZWJ))
#: The most combining marks a name may stack on one character (Vietnamese needs two).
MAX_MARKS = 3
#: Graphic characters that render as nothing but are neither spaces nor
#: ``Default_Ignorable_Code_Point`` in Unicode's data: the braille pattern with no dot.
#: (The Hangul fillers, which render blank too, are default-ignorable already.)
BLANK_GRAPHICS = frozenset("\u2800")
#: Names that look like the site's staff or its bots, which no seat may take (the
#: pages show a bot as "Bot (hard)", "Robot (difficile)", the terminal as "bot hard").
#: Compared by :func:`name_skeleton`; a name *starting* like :data:`STAFF_PREFIXES`
#: is refused too.
STAFF_NAMES = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "system",
        "operator",
        "moderator",
        "support",
        "staff",
        "marrakech",
        "bot",
        "robot",
    }
)
#: Beginnings refused: ``admin`` followed by anything (``admin2``, ``administrateur``),
#: ``bot`` and ``robot`` followed by anything but a letter (``Bot hard``, ``bot (expert)``,
#: ``Bot 7``; ``Bottom`` is a name).
STAFF_PREFIXES = ("admin", "bot", "robot")

_SPOOF = icu.SpoofChecker()
_P = icu.UProperty
#: ICU's Joining_Type values (``UJoiningType``) that CONTEXTJ reads.
_DUAL, _LEFT, _RIGHT, _TRANSPARENT = 2, 3, 4, 5
_VIRAMA = 9


def _has(char: str, prop: int) -> bool:
    return bool(icu.Char.hasBinaryProperty(char, prop))


def _category(char: str) -> str:
    """The general category (``Lu``, ``Mn``, ``Cf``...) by ICU's data, newer than this
    Python's (an emoji of Unicode 16 is ``So``, not unassigned)."""
    value = icu.Char.getIntPropertyValue(char, _P.GENERAL_CATEGORY)
    return str(
        icu.Char.getPropertyValueName(
            _P.GENERAL_CATEGORY, value, icu.UPropertyNameChoice.SHORT_PROPERTY_NAME
        )
    )


def _joining_type(char: str) -> int:
    return int(icu.Char.getIntPropertyValue(char, _P.JOINING_TYPE))


def _code(char: str) -> str:
    """``U+3164 (HANGUL FILLER)``: how an error shows a character that cannot be seen."""
    name = str(icu.Char.charName(char))
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def invisible(char: str) -> bool:
    """Whether ``char`` renders as nothing: a control, format or unassigned character, a
    space, a combining mark, a default-ignorable character, a blank graphic."""
    category = _category(char)
    return (
        category[0] in "CZM"
        or char in BLANK_GRAPHICS
        or _has(char, _P.DEFAULT_IGNORABLE_CODE_POINT)
        or _has(char, _P.WHITE_SPACE)
    )


def joiner_problem(text: str, at: int) -> str | None:
    """Why the joiner ``text[at]`` may not stand there ("only ..., found one ..."), or
    None where a script needs it (RFC 5892's CONTEXTJ rules; and a joiner between
    pictographs, UTS #51's emoji sequences)."""
    char = text[at]
    before = text[at - 1] if at > 0 else ""
    if before and icu.Char.getCombiningClass(before) == _VIRAMA:
        return None  # Indic conjuncts: after a virama, either joiner
    if char == ZWNJ:
        left = at - 1
        while left >= 0 and _joining_type(text[left]) == _TRANSPARENT:
            left -= 1
        right = at + 1
        while right < len(text) and _joining_type(text[right]) == _TRANSPARENT:
            right += 1
        if (
            left >= 0
            and right < len(text)
            and _joining_type(text[left]) in (_DUAL, _LEFT)
            and _joining_type(text[right]) in (_DUAL, _RIGHT)
        ):
            return None  # Arabic script: a letter that joins to the left, then to the right
        return (
            "a zero-width non-joiner only between two letters that join (Arabic, Persian)"
            f" or after a virama, found one {_where(text, at)}"
        )
    left = at - 1
    while left >= 0 and (
        _has(text[left], _P.VARIATION_SELECTOR) or _has(text[left], _P.EMOJI_MODIFIER)
    ):
        left -= 1
    after = text[at + 1] if at + 1 < len(text) else ""
    if (
        left >= 0
        and after
        and _has(text[left], _P.EXTENDED_PICTOGRAPHIC)
        and _has(after, _P.EXTENDED_PICTOGRAPHIC)
    ):
        return None  # an emoji sequence: 👩‍💻, 🏳️‍🌈
    return (
        "a zero-width joiner only between two emoji or after a virama,"
        f" found one {_where(text, at)}"
    )


def _where(text: str, at: int) -> str:
    before = text[at - 1] if at > 0 else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if not before:
        return f"at the start, before {after!r}" if after else "alone"
    return f"between {before!r} and {after!r}" if after else f"at the end, after {before!r}"


def text_problem(value: str, what: str = "names") -> str | None:
    """What in ``value`` (spaces already collapsed) a name or a chat line (``what``:
    ``names``, ``messages``) may not hold, said as a sentence, or None. Nothing visible
    at all is the caller's to say."""
    marks = 0
    base = ""
    for at, char in enumerate(value):
        category = _category(char)
        if category[0] == "M" and not _has(char, _P.DEFAULT_IGNORABLE_CODE_POINT):
            marks += 1
            continue
        if marks > MAX_MARKS:
            break
        marks, base = 0, char
        if char in JOINERS:
            problem = joiner_problem(value, at)
            if problem is not None:
                return f"{what} take {problem}"
        elif _has(char, _P.VARIATION_SELECTOR):
            if at == 0 or invisible(value[at - 1]):
                return (
                    f"{what} take a variation selector only after a visible character,"
                    f" found {_code(char)} {_where(value, at)}"
                )
            base = value[at - 1]  # it belongs to the character before
        elif category[0] == "C":
            if what == "names":
                return f"names cannot hold control characters, found {char!r}"
            return f"{what} cannot hold control or direction characters, found U+{ord(char):04X}"
        elif char in BLANK_GRAPHICS or _has(char, _P.DEFAULT_IGNORABLE_CODE_POINT):
            return f"{what} cannot hold characters that render blank, found {_code(char)}"
    if marks > MAX_MARKS:
        return (
            f"{what} cannot stack more than {MAX_MARKS} combining marks on a character,"
            f" found {marks} on {base!r}"
        )
    return None


def display_name(value: str) -> str:
    """A display name: spaces collapsed, something visible, the characters of
    :func:`text_problem`, at most :data:`MAX_NAME` characters; else
    :class:`ValueError` saying what was expected and found.

    >>> display_name("  Ana   Lía ") + "|" + display_name("👩\u200d💻")
    'Ana Lía|👩\u200d💻'
    >>> display_name("\u200d\u200c")
    Traceback (most recent call last):
    ...
    ValueError: expected a name with a visible character, found only invisible ones
    >>> display_name("Ana\u3164")
    Traceback (most recent call last):
    ...
    ValueError: names cannot hold characters that render blank, found U+3164 (HANGUL FILLER)
    >>> display_name("ali\u200cce")
    Traceback (most recent call last):
    ...
    ValueError: names take a zero-width non-joiner only between two letters that join (Arabic, Persian) or after a virama, found one between 'i' and 'c'
    >>> display_name("a" + "\u0301" * 39)
    Traceback (most recent call last):
    ...
    ValueError: names cannot stack more than 3 combining marks on a character, found 39 on 'a'
    """  # noqa: E501
    value = " ".join(value.split())
    if value and all(invisible(char) for char in value):
        # Joiners, marks, fillers alone: a player nobody could see or tell apart.
        raise ValueError("expected a name with a visible character, found only invisible ones")
    problem = text_problem(value)
    if problem is not None:
        raise ValueError(problem)
    if len(value) > MAX_NAME:
        raise ValueError(f"expected a name of at most {MAX_NAME} characters, found {len(value)}")
    return value


def skeleton(text: str) -> str:
    """Unicode's confusable skeleton of ``text`` (UTS #39, section 4: NFD, the
    default-ignorable characters removed, each character mapped by confusables.txt,
    NFD again), by ICU: two strings that look alike have the same skeleton.

    >>> skeleton("аdmin"), skeleton("paypaI")
    ('adrnin', 'paypal')
    """
    return str(_SPOOF.getSkeleton(0, text))


@lru_cache(maxsize=4096)
def _small_capital(char: str) -> str:
    """The letter a small capital stands for (ᴛ: t), by Unicode's names (small
    capitals and their letters are all older than this Python's data)."""
    name = unicodedata.name(char, "")
    if "LETTER SMALL CAPITAL " not in name:
        return char
    try:
        return unicodedata.lookup(name.replace("LETTER SMALL CAPITAL ", "SMALL LETTER "))
    except KeyError:
        return char


def name_skeleton(name: str) -> str:
    """The form names are told apart in: their UTS #39 :func:`skeleton`, case folded
    (small capitals as their letters), then the skeleton of that. Names whose
    skeletons are equal look alike in some case: ``Вот hard`` (Cyrillic) is ``bot hard``.

    >>> name_skeleton("Вот hard") == name_skeleton("BOT HARD") == name_skeleton("bot hard")
    True
    >>> name_skeleton("Ian") == name_skeleton("lan"), name_skeleton("Zoé") == name_skeleton("Zoe")
    (True, False)
    """
    folded = "".join(_small_capital(char) for char in skeleton(name).casefold())
    return skeleton(folded)


@cache
def _skeletons(words: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """Each of ``words`` (in order) and its :func:`name_skeleton`, made once."""
    return tuple((word, name_skeleton(word)) for word in sorted(words))


def reserved_like(name: str, reserved: frozenset[str], prefixes: tuple[str, ...]) -> str | None:
    """The name of ``reserved`` that ``name`` looks like, or the one of ``prefixes`` it
    starts like (``admin`` any way, the others followed by no letter), or None."""
    key = name_skeleton(name)
    for word, skeleton_of_word in _skeletons(reserved):
        if key == skeleton_of_word:
            return word
    for prefix, start in _skeletons(frozenset(prefixes)):
        if key.startswith(start):
            rest = key[len(start) :]
            if prefix == "admin" or not rest or not rest[0].isalpha():
                return prefix
    return None


def same_looking_seat(name: str, seats: Iterable[tuple[int, str]]) -> int | None:
    """The first of ``seats`` (seat, name) whose name looks like ``name``
    (:func:`name_skeleton`), or None: two players at one table are told apart by their
    names, in the seats' panels, the log and the chat.

    >>> same_looking_seat("ANN", [(0, "Bob"), (2, "Ann")]), same_looking_seat("Ann", [(1, "")])
    (2, None)
    """
    key = name_skeleton(name)
    return next((seat for seat, other in seats if other and name_skeleton(other) == key), None)


def seat_name(value: str) -> str:
    """A seat's name: a :func:`display_name` that does not look like a bot or the
    site's staff (:data:`STAFF_NAMES`).

    >>> seat_name("Вот hard")
    Traceback (most recent call last):
    ...
    ValueError: the name 'Вот hard' looks like the reserved name 'bot' (the server's bots and staff): choose another
    """  # noqa: E501
    value = display_name(value)
    if value:
        found = reserved_like(value, STAFF_NAMES, STAFF_PREFIXES)
        if found is not None:
            raise ValueError(
                f"the name {value!r} looks like the reserved name {found!r} (the server's"
                " bots and staff): choose another"
            )
    return value


def _required_name(value: str) -> str:
    value = seat_name(value)
    if not value:
        raise ValueError(f"expected a name of 1 to {MAX_NAME} characters, found none")
    return value


#: A seat's name (:func:`seat_name`), perhaps empty.
Name = Annotated[str, AfterValidator(seat_name)]
#: A seat's name that must not be empty.
RequiredName = Annotated[str, AfterValidator(_required_name)]


#: Every public name of this module, re-exported by :mod:`marrakech.web.protocol`.
__all__ = [
    "BLANK_GRAPHICS",
    "JOINERS",
    "MAX_MARKS",
    "MAX_NAME",
    "STAFF_NAMES",
    "STAFF_PREFIXES",
    "Name",
    "RequiredName",
    "display_name",
    "invisible",
    "joiner_problem",
    "name_skeleton",
    "reserved_like",
    "same_looking_seat",
    "seat_name",
    "skeleton",
    "text_problem",
]
