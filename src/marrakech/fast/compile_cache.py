"""Where the compiled kernels are cached: one folder per version of their source, outside
the source tree, so a fresh clone or a reinstall of the same code compiles nothing.

Numba caches a function next to its file (``__pycache__``) or, under ``NUMBA_CACHE_DIR``,
in a folder named after the file's absolute path: a clone in another folder starts cold,
and compiling every kernel takes minutes. Numba also checks only the function's own file
for changes, so a kernel that inlines a function of another module keeps a stale build
when that module changes.

:class:`SourceDigestLocator` answers both: every kernel of the package is cached under
``<user cache>/marrakech/numba/<digest>/``, the digest taken over the source of the
compiled layer and of the core it imports (``marrakech/*.py`` and ``marrakech/fast/*.py``).
Any change there starts a new folder; the same code anywhere on the machine shares one.
The newest :data:`KEEP` folders are kept, older ones removed.

``NUMBA_CACHE_DIR`` set by the user wins (Numba's own placement), and
``MARRAKECH_NUMBA_CACHE`` names another folder than the user cache::

    >>> from marrakech.fast.compile_cache import cache_root
    >>> cache_root().name
    'numba'
"""

from __future__ import annotations

import hashlib
import os
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import numba
from numba.core import caching

#: The package whose source the digest covers: the core and the compiled layer.
PACKAGE = Path(__file__).resolve().parent.parent

#: How many versions of the compiled kernels stay cached (worktrees, branches).
KEEP = 6


def cache_root() -> Path:
    """The folder holding one subfolder per version of the kernels' source."""
    chosen = os.environ.get("MARRAKECH_NUMBA_CACHE")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "marrakech" / "numba"


@cache
def source_digest() -> str:
    """A digest of the core's and the compiled layer's source, and of Numba's version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted([*PACKAGE.glob("*.py"), *(PACKAGE / "fast").glob("*.py")]):
        digest.update(path.relative_to(PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


@cache
def cache_folder() -> Path:
    """This version's folder, created, with the older versions beyond :data:`KEEP` gone."""
    folder = cache_root() / source_digest()
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)  # the newest in use sorts first when pruning
    versions = sorted(cache_root().iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in versions[KEEP:]:
        shutil.rmtree(old, ignore_errors=True)
    return folder


class SourceDigestLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba's cache locator for the package's own kernels (see the module's docstring);
    it declines functions of any other file, which Numba then places as usual."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        relative = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = str(cache_folder() / (relative.as_posix().replace("/", "_") or "core"))

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> SourceDigestLocator | None:
        if not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None
        try:
            located: SourceDigestLocator | None = super().from_function(py_func, py_file)  # type: ignore[no-untyped-call]
        except OSError:  # an unwritable cache folder: Numba's own placement
            return None
        return located


def locator_classes() -> list[type]:
    """Numba's list of cache locators, searched in order (shared by every cache)."""
    # Numba 0.68 renamed _CacheImpl to CacheImpl.
    impl: Any = vars(caching).get("CacheImpl") or vars(caching)["_CacheImpl"]
    classes: list[type] = impl._locator_classes
    return classes


def install() -> None:
    """Put :class:`SourceDigestLocator` first in Numba's search, unless the user chose
    Numba's cache folder (``NUMBA_CACHE_DIR``). Idempotent; called by ``marrakech.fast``
    before any kernel module is imported."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    # Numba 0.68 renamed _CacheImpl to CacheImpl; the list is shared by its subclasses.
    classes: list[type] = locator_classes()
    if SourceDigestLocator not in classes:
        classes.insert(0, SourceDigestLocator)
