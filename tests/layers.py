"""The package's layers, read from the source tree: which module belongs to which layer,
and what each module imports (from its syntax tree, never by importing it).

docs/architecture.md draws the layers; this is the same picture as data, derived from
the files, so that a new module is placed by where it lives, never by a list to keep.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import marrakech

#: The package as it is imported: the source tree, or an installed wheel under test.
PACKAGE = Path(marrakech.__file__).resolve().parent

#: Each layer imports only from layers of a lower rank. Layers of one rank are
#: siblings and never import each other (envs, tui and web are three interfaces).
#: Training learns from the environments' recorded games (``marrakech pretrain``
#: reads ``envs.dataset``), so it sits above envs. The core is every module directly in
#: the package; ``marrakech.cli`` gathers the layers' commands and sits above them all.
RANKS: dict[str, int] = {
    "core": 0,
    "fast": 1,
    "bots": 2,
    "arena": 3,
    "envs": 4,
    "tui": 4,
    "web": 4,
    "training": 5,
    "cli": 6,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    """The layer of a ``marrakech...`` module name."""
    parts = module.split(".")
    if module == "marrakech.cli" or module.startswith("marrakech.cli."):
        return "cli"
    if len(parts) == 1 or not (PACKAGE / parts[1]).is_dir():
        return "core"
    if parts[1] not in RANKS:
        raise AssertionError(f"{module}: package {parts[1]} has no layer in tests/layers.py")
    return parts[1]


def modules() -> dict[str, Path]:
    """Every module of the package, by name."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def core_modules() -> list[str]:
    return sorted(name for name in modules() if layer_of(name) == "core")


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    type_only: bool


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(name: str, path: Path) -> list[Import]:
    """The ``marrakech`` modules ``name`` imports, anywhere in the file (functions too).

    Imports under ``if TYPE_CHECKING:`` are marked type-only: they name a type in
    annotations and never run.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []
    known = modules()

    def resolve(target: str) -> str:
        # ``from marrakech.x import y`` may name a module y or a name in x.
        return target if target in known else target.rsplit(".", 1)[0]

    def visit(node: ast.AST, type_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                visit(statement, True)
            for statement in node.orelse:
                visit(statement, type_only)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("marrakech"):
                    found.append(Import(name, alias.name, node.lineno, type_only))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("marrakech"):
                for alias in node.names:
                    target = resolve(f"{node.module}.{alias.name}")
                    found.append(Import(name, target, node.lineno, type_only))
        for child in ast.iter_child_nodes(node):
            visit(child, type_only)

    visit(tree, False)
    return found


def all_imports() -> list[Import]:
    return [found for name, path in modules().items() for found in imports_of(name, path)]
