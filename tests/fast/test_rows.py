"""Kernel rows <-> core states, and the error when Numba is missing."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from marrakech import BGA, STANDARD, InvalidStateError, RuleSet, State, random_action
from marrakech.rules import RULE_OPTIONS

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import (  # noqa: E402
    WIDTH,
    from_arrays,
    rows,
    to_arrays,
)


def random_states(players: int, rules: RuleSet, games: int, seed: int) -> Iterator[State]:
    """Every position of a few random games."""
    rng = random.Random(seed)
    for _ in range(games):
        state = State.new(players, rules, first_seat=rng.randrange(players))
        yield state
        while not state.is_terminal:
            state = state.apply(random_action(state, rng))
            yield state


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", [STANDARD, BGA, RuleSet(carpets=(3, 4, 5), money=7)])
def test_round_trip_every_phase(players: int, rules: RuleSet) -> None:
    """Every reachable position, chance nodes and the end included, survives the trip."""
    phases = set()
    for state in random_states(players, rules, games=3, seed=players):
        row = to_arrays(state)
        assert row.dtype == np.int32 and row.shape == (WIDTH,)
        back = from_arrays(row)
        assert back == state and back.notation() == state.notation()
        assert hash(back) == hash(state)
        phases.add(state.phase)
    assert len(phases) == (5 if players == 2 else 4)


def test_rules_are_kept() -> None:
    house = RuleSet(carpets=(20, 30, 40), money=99, own_cover=True)
    assert from_arrays(to_arrays(State.new(3, house))).rules == house


def every_option_set(rules: RuleSet) -> list[RuleSet]:
    """``rules`` with no option, each declared option alone, and all of them (R30-R32)."""
    fields = [option.field for option in RULE_OPTIONS]
    alone = [rules.with_options(**{field: True}) for field in fields]
    return [rules.base, *alone, rules.with_options(**dict.fromkeys(fields, True))]


def test_the_rule_options_are_one_flags_word() -> None:
    """Bit i of ``RULE_FLAGS`` is option i of ``RULE_OPTIONS``: packed by ``rule_flags``,
    read back by ``rule_options``, so an option needs no field of its own."""
    assert list(rows.OPTION_BITS) == [option.field for option in RULE_OPTIONS]
    assert list(rows.OPTION_BITS.values()) == [1 << i for i in range(len(RULE_OPTIONS))]
    for rules in every_option_set(RuleSet(carpets=(3, 4, 5), money=7, own_cover=True)):
        row = to_arrays(State.new(3, rules))
        flags = sum(rows.OPTION_BITS[f] for f, on in rules.options().items() if on)
        assert int(row[rows.RULE_FLAGS]) == rows.rule_flags(rules) == flags
        assert rows.rule_options(flags) == rules.options()
        assert rows.rules_of(row) == from_arrays(row).rules == rules
    row[rows.RULE_FLAGS] = 1 << len(RULE_OPTIONS)
    with pytest.raises(InvalidStateError, match="expected rule flags of orient_last"):
        from_arrays(row)


def test_a_reset_keeps_the_rule_set_and_clears_the_counters() -> None:
    """How every playout and batch game begins (``kernels.reset_row``): the rule set,
    its flags word included, lies among the position's fields, which a reset keeps."""
    from marrakech.fast import kernels

    layout = (rows.PLAYERS, rows.OWN_COVER, rows.RULE_CARPETS + 2, rows.RULE_MONEY)
    assert max(*layout, rows.RULE_FLAGS, rows.START_CARPETS) < rows.POSITION_FIELDS
    for rules in every_option_set(BGA):
        start = to_arrays(State.new(4, rules))
        row = np.full(WIDTH, 7, dtype=np.int32)
        kernels.reset_row(row, start)
        assert row[: rows.POSITION_FIELDS].tolist() == start[: rows.POSITION_FIELDS].tolist()
        assert not row[rows.POSITION_FIELDS :].any()
        assert rows.rules_of(row) == rules


def test_bad_rows_are_refused_with_a_clear_message() -> None:
    with pytest.raises(InvalidStateError, match="expected a kernel row"):
        from_arrays(np.zeros(5, dtype=np.int32))
    row = to_arrays(State.new(4))
    row[rows.PLAYERS] = 7
    with pytest.raises(InvalidStateError, match="2, 3 or 4 players, found 7"):
        from_arrays(row)
    with pytest.raises(TypeError, match="expected a marrakech State"):
        to_arrays("d4N")  # type: ignore[arg-type]


def test_without_numba_the_error_says_how_to_install() -> None:
    """Blocking numba: marrakech.fast raises FastUnavailableError, the core still works."""
    script = textwrap.dedent(
        """
        import sys
        sys.modules["numba"] = None  # makes `import numba` raise ImportError
        import marrakech
        from marrakech import State, random_game
        import random
        random_game(State.new(players=3), random.Random(0))
        try:
            import marrakech.fast
        except ImportError as error:
            print(type(error).__name__, isinstance(error, ImportError))
            print(error)
        else:
            raise SystemExit("marrakech.fast imported without numba")
        from marrakech.cli import main
        print("bench exit", main(["bench", "--engine", "fast", "--games", "5"]))
        print("core bench exit", main(["bench", "--games", "2", "--json"]) )
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "FastUnavailableError True"
    assert "pip install 'marrakech[fast]'" in lines[1]
    assert "bench exit 2" in lines
    assert "pip install 'marrakech[fast]'" in done.stderr  # the bench says how to install
    assert "core bench exit 0" in lines  # and the core bench still works
