"""The compiled kernels' cache: one folder per version of their source, outside the tree,
so a copy of the same code elsewhere compiles nothing and a changed core compiles afresh."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from marrakech.fast import compile_cache
from marrakech.fast.compile_cache import PACKAGE, SourceDigestLocator

# Imports the kernels (their cache guard calls three small kernels) and tells how the
# smallest one was found: loaded from the cache, or compiled.
PROBE = """
import json, marrakech, marrakech.fast.kernels as k
from marrakech.fast.compile_cache import cache_folder
stats = k._frozen_floats.stats
print(json.dumps([marrakech.__file__, sum(stats.cache_hits.values()),
                  sum(stats.cache_misses.values()), str(cache_folder())]))
"""


def copy_package(where: Path) -> Path:
    shutil.copytree(PACKAGE, where / "marrakech", ignore=shutil.ignore_patterns("__pycache__"))
    return where


def probe(tree: Path, cache: Path) -> tuple[str, int, int, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "MARRAKECH_NUMBA_CACHE": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=tree, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    file, hits, misses, folder = json.loads(out.stdout.splitlines()[-1])
    assert Path(file).is_relative_to(tree)  # the copy ran, not the checkout
    return file, hits, misses, folder


@pytest.mark.e2e
def test_a_copy_elsewhere_reuses_the_cache_and_a_changed_core_does_not(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    one = copy_package(tmp_path / "one")
    two = copy_package(tmp_path / "two")
    _, hits, misses, folder = probe(one, cache)
    assert (hits, misses) == (0, 1)  # compiled, then written
    assert Path(folder).parent == cache and Path(folder).name == compile_cache.source_digest()
    _, hits, misses, again = probe(two, cache)
    assert (hits, misses, again) == (1, 0, folder)  # another folder, the same source
    geometry = two / "marrakech" / "geometry.py"
    geometry.write_text(geometry.read_text() + "\n# a change to the core\n")
    _, hits, misses, changed = probe(two, cache)
    assert (hits, misses) == (0, 1) and changed != folder
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [Path(folder).name, Path(changed).name]
    )


def test_functions_outside_the_package_are_left_to_numba(tmp_path: Path) -> None:
    def elsewhere() -> None:
        return None

    assert SourceDigestLocator.from_function(elsewhere, str(tmp_path / "other.py")) is None


def test_old_versions_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MARRAKECH_NUMBA_CACHE", str(tmp_path))
    for i in range(compile_cache.KEEP + 3):
        (tmp_path / f"old{i}").mkdir()
        os.utime(tmp_path / f"old{i}", (i, i))
    compile_cache.cache_folder.cache_clear()
    try:
        folder = compile_cache.cache_folder()
    finally:
        compile_cache.cache_folder.cache_clear()
    kept = {p.name for p in tmp_path.iterdir()}
    newest = {f"old{i}" for i in range(3 + 1, compile_cache.KEEP + 3)}
    assert kept == {folder.name} | newest


def test_numba_cache_dir_chosen_by_the_user_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    classes = compile_cache.locator_classes()
    saved = list(classes)
    try:
        classes[:] = [c for c in saved if c is not SourceDigestLocator]
        monkeypatch.setenv("NUMBA_CACHE_DIR", "/somewhere")
        compile_cache.install()
        assert SourceDigestLocator not in classes
        monkeypatch.delenv("NUMBA_CACHE_DIR")
        compile_cache.install()
        compile_cache.install()
        assert classes.count(SourceDigestLocator) == 1 and classes[0] is SourceDigestLocator
    finally:
        classes[:] = saved
