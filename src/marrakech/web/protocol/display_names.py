"""Players' display names (seats, accounts), checked the same everywhere: spaces
collapsed, no control characters but the joiners that emoji and some scripts need, no
stacks of combining marks, something visible, at most :data:`MAX_NAME` characters."""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator

MAX_NAME = 40
#: Zero-width joiner and non-joiner: format characters that names need (emoji
#: sequences such as 👩‍💻, Persian and Indic words), unlike every other control character.
JOINERS = frozenset("\u200c\u200d")
#: The most combining marks a name may stack on one character (Vietnamese needs two).
MAX_MARKS = 3


def display_name(value: str) -> str:
    """A display name: spaces collapsed, no control characters (but the joiners), no
    runs of combining marks, something visible, at most :data:`MAX_NAME` characters.

    >>> display_name("  Ana   Lía ") + "|" + display_name("👩\u200d💻")
    'Ana Lía|👩\u200d💻'
    >>> display_name("\u200d\u200c")
    Traceback (most recent call last):
    ...
    ValueError: expected a name with a visible character, found only invisible ones
    >>> display_name("a" + "\u0301" * 39)
    Traceback (most recent call last):
    ...
    ValueError: names cannot stack more than 3 combining marks on a character, found 39 on 'a'
    """
    value = " ".join(value.split())
    marks = 0
    base = ""
    for char in value:
        category = unicodedata.category(char)
        if category[0] == "M":
            marks += 1
            continue
        if marks > MAX_MARKS:
            break
        marks, base = 0, char
        if category[0] == "C" and char not in JOINERS:
            raise ValueError(f"names cannot hold control characters, found {char!r}")
    if marks > MAX_MARKS:
        raise ValueError(
            f"names cannot stack more than {MAX_MARKS} combining marks on a character,"
            f" found {marks} on {base!r}"
        )
    if len(value) > MAX_NAME:
        raise ValueError(f"expected a name of at most {MAX_NAME} characters, found {len(value)}")
    if value and all(unicodedata.category(char)[0] in "MCZ" for char in value):
        # Joiners and marks alone: a player nobody could see or tell apart.
        raise ValueError("expected a name with a visible character, found only invisible ones")
    return value


def _required_name(value: str) -> str:
    value = display_name(value)
    if not value:
        raise ValueError(f"expected a name of 1 to {MAX_NAME} characters, found none")
    return value


#: A display name (:func:`display_name`), perhaps empty.
Name = Annotated[str, AfterValidator(display_name)]
#: A display name that must not be empty.
RequiredName = Annotated[str, AfterValidator(_required_name)]


#: Every public name of this module, re-exported by :mod:`marrakech.web.protocol`.
__all__ = [
    "JOINERS",
    "MAX_MARKS",
    "MAX_NAME",
    "Name",
    "RequiredName",
    "display_name",
]
