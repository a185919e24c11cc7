"""Kernel rows <-> core states, and the error when Numba is missing."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from marrakech import BGA, STANDARD, InvalidStateError, RuleSet, State, random_action

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
