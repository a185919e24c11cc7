"""Passwords: the length rules, a check against breached and common patterns that
needs no network, and Argon2id hashing (``argon2-cffi``).

The check refuses what an attacker tries first, whatever its decoration: the most
common passwords of the published breach lists (letters swapped for look-alike digits,
digits and symbols added at the ends, any case), keyboard rows, runs and repeats, and
the account's own name::

    >>> password_problem("correct horse battery staple", "ana") is None
    True
    >>> password_problem("P@ssw0rd2024!", "ana")
    'this password is one of the most common ones (as found in breaches): choose another'
    >>> password_problem("1qaz2wsx3edc", "ana")
    'this password follows a keyboard row or a run of characters: choose another'
    >>> password_problem("short", "ana")
    'expected a password of at least 10 characters, found 5'

Hashes are Argon2id with the library's RFC 9106 low-memory profile (64 MiB, 3 passes),
salted, in their own encoded form: the parameters travel with each hash, so stronger
ones later rehash a password at its next sign-in (:meth:`Passwords.needs_rehash`).
"""

from __future__ import annotations

import re
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from marrakech.web.accounts.names import name_key

#: The fewest and most characters of a password (NIST SP 800-63B: long passphrases
#: welcome; the upper bound keeps a hash from being a denial of service).
MIN_PASSWORD = 10
MAX_PASSWORD = 256

_COMMON_WORDS = """
    password passwort motdepasse pass passw0rd admin administrator root toor login welcome
    letmein iloveyou loveyou love lovely monkey dragon master shadow sunshine princess
    football baseball soccer hockey basketball superman batman spiderman starwars pokemon
    trustno qwerty azerty qwertz abc abcdef abcdefg abcdefgh abcdefghi abcdefghij
    secret secretpassword changeme default guest test tester testing user username
    hello hellothere whatever freedom flower flowers summer winter autumn spring
    michael jennifer jordan charlie thomas daniel andrew joshua matthew robert
    jessica ashley amanda nicole michelle hunter ranger buster ginger pepper
    cookie chocolate cheese banana orange apple computer internet google facebook
    samsung iphone android killer ninja mustang harley ferrari porsche corvette
    marrakech marrakesh morocco maroc soleil bonjour doudou loulou chouchou nicolas
    camille marseille paris france azertyuiop motdepasse marie julien chocolat
    qazwsx zaq zxcvbn zxcvbnm asdfgh asdfghjkl qwertyuiop passpass mypassword
    yourpassword newpassword oldpassword access accessdenied matrix zombie unicorn
    blink myspace linkedin twitter liverpool chelsea arsenal barcelona realmadrid
    """
#: The most common passwords of the published breach corpora, by their stem (lower
#: case, look-alike digits read as letters, digits and symbols at the ends removed).
COMMON = frozenset(_COMMON_WORDS.split())

#: Keyboard rows (QWERTY, AZERTY, QWERTZ, digits): a password inside one, forwards or
#: backwards, is a pattern.
ROWS = (
    "`1234567890-=",
    "01234567890",
    "qwertyuiop[]",
    "asdfghjkl;'",
    "zxcvbnm,./",
    "azertyuiop",
    "qsdfghjklm",
    "wxcvbn",
    "qwertzuiop",
    "yxcvbnm",
    "abcdefghijklmnopqrstuvwxyz",
    "1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p",
)

#: Look-alike characters read as the letters they stand for.
LOOKALIKES = str.maketrans("@4310$5!7+|8", "aaeiossitlib")


def stem(password: str) -> str:
    """A password as its pattern: compatibility forms and case folded, look-alikes read
    as letters, digits and symbols at either end dropped.

    >>> stem("P@$$w0rd123!"), stem("M0nkey!!")
    ('password', 'monkey')
    """
    folded = unicodedata.normalize("NFKC", password).casefold()
    trimmed = re.sub(r"^[\W\d_]+|[\W\d_]+$", "", folded)
    return (trimmed or folded).translate(LOOKALIKES).replace(" ", "")


def _in_a_row(text: str) -> bool:
    """``text`` (of at least 4 characters) lies along a keyboard row, forwards or
    backwards, or is one character repeated, or a run of one or two repeated
    characters (``abab``)."""
    if len(set(text)) <= 2:
        return True
    for row in ROWS:
        for line in (row, row[::-1]):
            if len(text) >= 4 and text in line * 2:
                return True
    return False


def password_problem(password: str, name: str) -> str | None:
    """What is wrong with ``password`` for the account ``name`` (a sentence), or None."""
    if len(password) < MIN_PASSWORD:
        return f"expected a password of at least {MIN_PASSWORD} characters, found {len(password)}"
    if len(password) > MAX_PASSWORD:
        return f"expected a password of at most {MAX_PASSWORD} characters, found {len(password)}"
    if any(unicodedata.category(char) == "Cc" for char in password):
        return "passwords cannot hold control characters"
    folded = unicodedata.normalize("NFKC", password).casefold()
    core = stem(password)
    if core in COMMON or any(core == word * 2 for word in COMMON):
        return "this password is one of the most common ones (as found in breaches): choose another"
    if _in_a_row(folded) or _in_a_row(core):
        return "this password follows a keyboard row or a run of characters: choose another"
    key = re.sub(r"[\W_]", "", name_key(name))
    if len(key) >= 3 and (key in re.sub(r"[\W_]", "", folded) or key in core):
        return "a password cannot contain the account's name: choose another"
    return None


class Passwords:
    """Argon2id hashing, run by the caller out of the event loop (a hash takes a few
    tenths of a second of one core and 64 MiB). ``hasher``: other parameters (tests)."""

    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher or PasswordHasher()
        # Checked against when the name is unknown, so that a wrong name costs what a
        # wrong password does: the answer's time says nothing about the name.
        self.decoy = self.hasher.hash("not a password: a decoy for unknown names")

    def hash(self, password: str) -> str:
        """The encoded Argon2id hash of ``password`` (salted)."""
        return self.hasher.hash(password)

    def verify(self, encoded: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``encoded`` was made from (None: check the
        decoy, and say no)."""
        try:
            ok = self.hasher.verify(encoded or self.decoy, password)
        except (VerificationError, InvalidHashError):
            return False
        return ok and encoded is not None

    def needs_rehash(self, encoded: str) -> bool:
        """Whether ``encoded`` was made with weaker parameters than today's."""
        return self.hasher.check_needs_rehash(encoded)
