"""Account names: the seat names' Unicode rules (:func:`~marrakech.web.protocol.
display_name`), at least :data:`MIN_NAME` characters, unique whatever their case, and
never one of the :data:`RESERVED` names.

Two names are the same account's when their :func:`name_key` is (compatibility forms
folded, case folded, spaces collapsed)::

    >>> name_key("  Ana   LÍA ") == name_key("ana lía"), name_key("ＡＮＡ") == name_key("ana")
    (True, True)
    >>> account_name(" Admin ")
    Traceback (most recent call last):
    ...
    ValueError: the name 'Admin' is reserved: choose another
"""

from __future__ import annotations

import unicodedata

from marrakech.web.protocol import LEVELS, display_name

#: The fewest characters of an account name.
MIN_NAME = 2
#: What a deleted account's seats are called from then on (its games stay).
DELETED_NAME = "deleted player"
#: Names nobody may take: the site's own words, the bots' levels, placeholders.
RESERVED = frozenset(
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
        "assam",
        "bot",
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
    key = name_key(name)
    if key in RESERVED or key.startswith(("bot ", "admin")):
        raise ValueError(f"the name {name!r} is reserved: choose another")
    return name
