"""Account names: the seat names' Unicode rules (:func:`~marrakech.web.protocol.
display_name`), at least :data:`MIN_NAME` characters, unique whatever their case and
however they look, and never like one of the :data:`RESERVED` names.

Two names are the same account's when their :func:`name_key` is (compatibility forms
folded, case folded, spaces collapsed); they may not both be taken when they look alike,
when their :func:`~marrakech.web.protocol.name_skeleton` is the same (the store keeps
both, each under a unique index)::

    >>> name_key("  Ana   LÍA ") == name_key("ana lía"), name_key("ＡＮＡ") == name_key("ana")
    (True, True)
    >>> account_name(" Admin ")
    Traceback (most recent call last):
    ...
    ValueError: the name 'Admin' is reserved: choose another
    >>> account_name("\u0430dmin")  # a Cyrillic а
    Traceback (most recent call last):
    ...
    ValueError: the name 'аdmin' looks like the reserved name 'admin': choose another
"""

from __future__ import annotations

import unicodedata

from marrakech.web.protocol import (
    LEVELS,
    STAFF_NAMES,
    STAFF_PREFIXES,
    display_name,
    reserved_like,
)

#: The fewest characters of an account name.
MIN_NAME = 2
#: What a deleted account's seats are called from then on (its games stay).
DELETED_NAME = "deleted player"
#: Names nobody may take, nor any that looks like them: the site's own words (its staff
#: and bots, which no seat may take either), the bots' levels, placeholders. A name
#: starting like :data:`~marrakech.web.protocol.STAFF_PREFIXES` is refused too.
RESERVED = frozenset(
    {
        *STAFF_NAMES,
        "assam",
        "guest",
        "anonymous",
        "spectator",
        "host",
        "null",
        "none",
        "undefined",
        "me",
        "you",
        "deleted",
        DELETED_NAME,
        "joueur supprimé",
        "invité",
        "anonyme",
        *LEVELS,
    }
)


def name_key(name: str) -> str:
    """The form names are compared in: NFKC, case-folded, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(folded.split())


def account_name(value: str) -> str:
    """An account name as given (spaces collapsed), or :class:`ValueError` saying what
    was expected."""
    name = display_name(value)
    if len(name) < MIN_NAME:
        raise ValueError(f"expected a name of at least {MIN_NAME} characters, found {len(name)}")
    found = reserved_like(name, RESERVED, STAFF_PREFIXES)
    if found is not None:
        if name_key(name) == name_key(found) or name_key(name).startswith(found):
            raise ValueError(f"the name {name!r} is reserved: choose another")
        raise ValueError(
            f"the name {name!r} looks like the reserved name {found!r}: choose another"
        )
    return name
