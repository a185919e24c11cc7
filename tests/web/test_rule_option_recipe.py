"""The recipe "add a rule option" of docs/architecture.md, tried: an option declared in
the core (``RULE_OPTIONS``) with its words (``i18n.RULE_WORDS``) is offered by
``/api/config``, accepted by game creation and written in the game's rules, with no
web code of its own. R31's ``own_cover`` (a real field of ``RuleSet``) stands in for
the new option."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from marrakech import i18n, rules
from marrakech.i18n import RuleWords
from marrakech.rules import RULE_OPTIONS, RuleOption, parse_rules
from tests.recipe_copy import REPO, SourceCopy
from tests.web.conftest import create_game

NEW = RuleOption("own_cover", "own-cover", "R31")


@pytest.fixture
def new_option(monkeypatch: pytest.MonkeyPatch) -> RuleOption:
    """Declare one more option, as a developer would in ``rules.py`` and ``i18n.py``
    (every module that imported the tuple sees the new one)."""
    declared = (*RULE_OPTIONS, NEW)
    for module in list(sys.modules.values()):
        if getattr(module, "RULE_OPTIONS", None) is RULE_OPTIONS:
            monkeypatch.setattr(module, "RULE_OPTIONS", declared)
    monkeypatch.setitem(rules._OPTION_WORDS, NEW.word, NEW)
    for lang, label in (("en", "Cover your own carpet"), ("fr", "Recouvrir son tapis")):
        words = RuleWords(label, f"{label} (R31).", label)
        monkeypatch.setitem(i18n.RULE_WORDS[lang], NEW.field, words)
    return NEW


def test_r31_a_new_option_is_offered_created_and_named(
    client: TestClient, new_option: RuleOption
) -> None:
    assert parse_rules("standard+own-cover").own_cover
    declared = rules.RULE_OPTIONS  # the shipped options (and any a recipe added), then NEW
    offered = client.get("/api/config").json()["rule_options"]
    assert [option["word"] for option in offered] == [option.word for option in declared]
    assert offered[-1]["word"] == "own-cover"
    assert offered[-1]["label"] == {"en": "Cover your own carpet", "fr": "Recouvrir son tapis"}
    game = create_game(client, options={"own_cover": True, "orient_last": True})
    listed = client.get(f"/api/games?ids={game['game_id']}").json()[0]
    assert listed["rules"] == "standard+orient-last+own-cover"
    on = {"orient_last", "own_cover"}
    assert listed["options"] == {option.field: option.field in on for option in declared}
    record = client.get(f"/api/games/{game['game_id']}/record").json()
    assert record["rules"] == "standard+orient-last+own-cover"


#: The recipe's steps for a dummy option, as (file, anchor, text, before): R99, "no
#: tithe is paid", in the core's steps, its events and its expected tithe, and in the
#: kernels' one home of the tithe (which the step, the expected tithe and the ``greedy``
#: kernels call). The rule's line in docs/rules.md is not part of the package.
TITHE_FREE_STEPS = (
    ("rules.py", "    orient_last: bool = False\n", "    tithe_free: bool = False\n", False),
    (
        "rules.py",
        '    RuleOption("orient_last", "orient-last", "R32"),\n',
        '    RuleOption("tithe_free", "tithe-free", "R99"),\n',
        False,
    ),
    ("state.py", ":  # R11, R12", " and not rules.tithe_free", True),
    ("events.py", ":  # R11, R12", " and not before.rules.tithe_free", True),
    ("threat.py", ":  # R12", " and not state.rules.tithe_free", True),
    (
        "fast/kernels.py",
        'ORIENT_LAST_BIT = OPTION_BITS["orient_last"]  # R32\n',
        'TITHE_FREE_BIT = OPTION_BITS["tithe_free"]  # R99\n',
        False,
    ),
    (
        "fast/kernels.py",
        "    return owner != mover and not _is_out(s, owner)\n",
        "    if rule_option(s, TITHE_FREE_BIT):  # R99\n        return False\n",
        True,
    ),
    *(
        (
            "i18n.py",
            f'            "{short}",\n        ),\n',
            f'        "tithe_free": RuleWords("{label}", "{label} (R99).", "{label}"),\n',
            False,
        )
        for short, label in (
            ("Assam turned at the end of the turn", "No tithe"),
            ("Assam tourné en fin de tour", "Pas de droit de passage"),
        )
    ),
)
#: ...then the core and the kernels, option on and off: the same positions, legal
#: actions, tithes and results after every action (a row, and a batch that resets its
#: games), and the same expected tithe.
TITHE_FREE_PLAYS = """
import random

import numpy as np

from marrakech import STANDARD, State, random_action
from marrakech.fast import kernels, rows, to_arrays
from marrakech.rules import parse_rules
from marrakech.threat import roll_threat
from tests.fast.differential import drive_batch, drive_rows

free = parse_rules("standard+tithe-free+orient-last")
assert free.tithe_free and free.token() == "standard+orient-last+tithe-free"
for rules in (STANDARD, STANDARD.with_options(tithe_free=True), free):
    row = to_arrays(State.new(3, rules))
    assert rows.rules_of(row) == rules and row[rows.RULE_FLAGS] == rows.rule_flags(rules)
    for players in (2, 3, 4):
        tithes = drive_rows(players, rules, games=2, seed=players).tithes
        tithes += drive_batch(players, rules, games=4, seed=players).tithes
        assert (tithes == 0) == rules.tithe_free, (rules, tithes)
    rng = random.Random(1)
    state = State.new(4, rules)
    received = np.zeros(4)
    while not state.is_terminal:
        paid, out, incomes = roll_threat(state, 1)
        assert kernels.roll_threat(to_arrays(state), 1, received) == (paid, out)
        assert received.tolist() == incomes and not (rules.tithe_free and paid)
        state = state.apply(random_action(state, rng))
"""


@pytest.mark.slow  # among the longest: in make test-slow, which CI runs too
def test_r99_a_new_option_followed_in_a_copy_is_mirrored_and_passes_these_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recipe "A yes/no rule option" of docs/architecture.md, followed in a copy of
    the package for a dummy option (R99: no tithe is paid): the core and the compiled
    kernels agree with it on and off, and the tests that read the declared options pass
    as they are (this file's others, R32's, the words' parity)."""
    pytest.importorskip("numba")
    # The copy's kernels compile in about 10 s; cached apart, they take none of the
    # user cache's places (compile_cache.KEEP) from the package's own.
    monkeypatch.setenv("MARRAKECH_NUMBA_CACHE", str(tmp_path / "numba"))
    copy = SourceCopy(tmp_path / "copy", copied=("fast",))
    for name, anchor, text, before in TITHE_FREE_STEPS:
        copy.insert(name, anchor, text, before=before)
    copy.run("-c", TITHE_FREE_PLAYS)
    tests = REPO / "tests"
    copy.run(
        *("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-k", "not copy"),
        __file__,
        f"{tests / 'core' / 'test_rules.py'}::test_r32_options_round_trip_through_the_rule_word",
        str(tests / "core" / "test_i18n.py"),
        str(copy.src / "marrakech" / "rules.py"),
    )
