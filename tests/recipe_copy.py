"""A recipe of docs/architecture.md ("Adding things") followed for real: the package's
source copied to a throwaway folder, edited there as the recipe says, then run in a
fresh interpreter that imports the copy (nothing of the edit leaks into this one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: The repository (its ``tests`` package stays importable from the copy's runs).
REPO = Path(__file__).resolve().parent.parent
#: The package whose copy is edited.
PACKAGE = REPO / "src" / "marrakech"


class SourceCopy:
    """A copy of ``src/marrakech`` under ``folder``: edit its files, run code on it.

    Only the subpackages named in ``copied`` (those the recipe edits) are copied; the
    others are linked, so the compiled kernels' cache (``fast/__pycache__``) serves the
    copy as it does the package (compiling them afresh takes minutes).
    """

    def __init__(self, folder: Path, copied: tuple[str, ...]) -> None:
        self.src = folder / "src"
        package = self.src / "marrakech"
        package.mkdir(parents=True)
        for entry in PACKAGE.iterdir():
            if entry.name == "__pycache__":
                continue
            if not entry.is_dir():
                shutil.copy2(entry, package / entry.name)
            elif entry.name in copied:
                skip = shutil.ignore_patterns("__pycache__")
                shutil.copytree(entry, package / entry.name, ignore=skip)
            else:
                (package / entry.name).symlink_to(entry, target_is_directory=True)

    def _copied(self, name: str) -> Path:
        """File ``name`` of the copy, in a copied subpackage (never the package's own)."""
        path = self.src / "marrakech" / name
        assert not path.parent.resolve().is_relative_to(PACKAGE), f"{name} is not copied"
        return path

    def add(self, name: str, text: str) -> None:
        """A new file of the package (``bots/toy.py``)."""
        self._copied(name).write_text(text)

    def insert(self, name: str, anchor: str, text: str, before: bool = False) -> None:
        """Put ``text`` after (or ``before``) the one place ``anchor`` is in file
        ``name`` of the package: a recipe's step, where the recipe says it goes."""
        path = self._copied(name)
        source = path.read_text()
        assert source.count(anchor) == 1, f"{name}: expected {anchor!r} once"
        placed = text + anchor if before else anchor + text
        path.write_text(source.replace(anchor, placed))

    def run(self, *args: str) -> str:
        """Run ``python ARGS...`` on the copy from the repository's root; its output,
        or the test fails with it."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(self.src), str(REPO)])}
        done = subprocess.run(
            [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout
