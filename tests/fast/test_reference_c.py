"""The C reference of the playout benchmark (``benchmarks/reference_c/playouts.c``) plays
the games the compiled kernels play: the same games for the same seed, and, from
independent seeds, the same statistics within sampling error (R3-R21).

``benchmarks/bench_vs_c.py`` times the kernels against it; these tests make sure it is not
a faster wrong game. Skipped when no C compiler is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from marrakech import RuleSet, State

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import random_playouts  # noqa: E402

SOURCE = Path(__file__).resolve().parents[2] / "benchmarks" / "reference_c" / "playouts.c"
COMPILER = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(COMPILER is None, reason="no C compiler (cc) to build it")

#: The kernel's result columns per game: scores, dirhams, ranks, then 7 counters.
COUNTERS = ("plies", "turns", "tithes", "tithe_dirhams", "eliminated", "places", "place_options")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    executable = tmp_path_factory.mktemp("reference_c") / "playouts"
    assert COMPILER is not None
    subprocess.run([COMPILER, "-O2", "-o", str(executable), str(SOURCE)], check=True)
    return executable


def c_games(executable: Path, players: int, games: int, seed: int, carpets: int, money: int) -> Any:
    """The C reference's per-game rows (the kernel's result columns), an int32 array."""
    out = executable.parent / f"games-{players}-{games}-{seed}-{carpets}-{money}.bin"
    args = [str(executable), str(players), str(games), str(seed), str(carpets), str(money)]
    line = subprocess.run([*args, str(out)], check=True, capture_output=True, text=True)
    assert int(line.stdout.split()[0]) == games
    return np.fromfile(out, dtype=np.int32).reshape(games, 3 * players + len(COUNTERS))


def kernel_games(players: int, games: int, seed: int, rules: RuleSet) -> Any:
    result = random_playouts(State.new(players, rules), games, seed)
    counters = [getattr(result, name) for name in COUNTERS]
    return np.column_stack([result.scores, result.money, result.ranks, *counters])


@pytest.mark.parametrize(
    ("players", "rules"),
    [(4, RuleSet()), (3, RuleSet()), (4, RuleSet(carpets=(12, 10, 5), money=8))],
)
def test_same_games_for_the_same_seed(reference: Path, players: int, rules: RuleSet) -> None:
    """Same generator, same order of draws: every game ends the same, counters included."""
    carpets = rules.carpets_per_colour(players)
    ours = kernel_games(players, 3000, 11, rules)
    theirs = c_games(reference, players, 3000, 11, carpets, rules.money)
    assert ours[:, 3 * players + 4].sum() > 0  # some seats went out (R13): covered too
    assert np.array_equal(ours, theirs)


def test_same_statistics_from_independent_seeds(reference: Path) -> None:
    """Game length, tithes, eliminations, final scores and wins per seat agree within
    5 standard errors between 20,000 kernel games and 20,000 C games of another seed."""
    games = 20_000
    ours = kernel_games(4, games, 1, RuleSet()).astype(np.float64)
    theirs = c_games(reference, 4, games, 2, 12, 30).astype(np.float64)
    wins = slice(8, 12)
    ours[:, wins] = ours[:, wins] == 1
    theirs[:, wins] = theirs[:, wins] == 1
    columns = [*range(4), *range(8, 12), *range(12, 12 + len(COUNTERS))]
    for column in columns:
        a, b = ours[:, column], theirs[:, column]
        error = np.sqrt(a.var() / games + b.var() / games)
        if error == 0:
            assert a.mean() == b.mean(), column
            continue
        assert abs(a.mean() - b.mean()) < 5 * error, (column, a.mean(), b.mean(), error)
    # ... and the C games are not the kernel's games merely re-labelled.
    assert not np.array_equal(ours, theirs)
