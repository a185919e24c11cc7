"""One meaning per file name (issue 22): a module name found in two places of the
package names the same idea in both, said here; any other repeat is a new module that
needs a name of its own (``fast/search_kernels.py``, not a second ``search.py``)."""

from __future__ import annotations

from collections import defaultdict

from tests.layers import PACKAGE

#: Names that several layers share because each holds its part of one idea.
SHARED = {
    "__init__": "a package",
    "__main__": "a package run with `python -m` (the web app, its migrations)",
    "cli": "a layer's subcommand, gathered by marrakech.cli",
    "app": "a layer's application: the terminal's (Textual), the web's (FastAPI)",
    "bench": "timing an engine for `marrakech bench`: the core's, the compiled one",
    "palette": "the board's colours: the core's, and the terminal's styles of them",
    "service": "a web package's operations over the store: the accounts', the reminders'",
    "queries": "compiled SQL statements: the store's, and the reminders' own",
}
#: Repeats whose meanings differ, still to be renamed (issue 22), with why.
TO_RENAME: dict[str, str] = {}


def repeated_names() -> dict[str, list[str]]:
    places: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        if "static" not in path.parts:
            places[path.stem].append(str(path.relative_to(PACKAGE)))
    return {name: found for name, found in places.items() if len(found) > 1}


def test_a_repeated_module_name_is_one_idea_or_a_known_rename() -> None:
    unexplained = {
        name: found
        for name, found in repeated_names().items()
        if name not in SHARED and name not in TO_RENAME
    }
    assert not unexplained, f"module names with two meanings: {unexplained}"


def test_the_renamed_modules_of_issue_22_have_names_of_their_own() -> None:
    names = repeated_names()
    for stem in ("search", "layout", "batch", "search_kernels", "rows", "python_batch"):
        assert stem not in names, names.get(stem)


def test_the_lists_name_only_repeats_that_exist() -> None:
    repeated = set(repeated_names())
    assert set(SHARED) <= repeated and set(TO_RENAME) <= repeated
