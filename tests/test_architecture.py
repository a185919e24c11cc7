"""The layers of docs/architecture.md hold in the code: read from the syntax tree of every
module (imports inside functions included), so a late import cannot hide a dependency."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.layers import RANKS, all_imports, core_modules, layer_of, modules
from tests.page_layers import NAMED, js_imports, js_layer, js_sources, layer_breaks


def test_every_module_has_a_layer() -> None:
    layers = {name: layer_of(name) for name in modules()}
    assert set(layers.values()) <= set(RANKS)
    assert layers["marrakech.state"] == "core" and layers["marrakech.cli"] == "cli"
    assert layers["marrakech.fast.kernels"] == "fast" and layers["marrakech.web.app"] == "web"


def test_every_import_respects_the_layers() -> None:
    wrong = []
    for found in all_imports():
        low, high = layer_of(found.imported), layer_of(found.importer)
        if low != high and RANKS[low] >= RANKS[high]:
            wrong.append(f"{found.importer}:{found.line} ({high}) imports {found.imported} ({low})")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def _cycle(edges: dict[str, set[str]]) -> list[str]:
    """A cycle of ``edges`` as a list of nodes (first == last), or [] when acyclic."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_cycle_finder_finds_cycles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_core_imports_itself_in_one_direction() -> None:
    # Run-time imports only: a module may name a higher core type in annotations
    # (under TYPE_CHECKING) because it is handed one, never import it when it runs.
    core = set(core_modules())
    edges: dict[str, set[str]] = defaultdict(set)
    for found in all_imports():
        if found.importer in core and found.imported in core and not found.type_only:
            if found.importer != found.imported and found.importer != "marrakech":
                edges[found.importer].add(found.imported)
    cycle = _cycle(edges)
    assert not cycle, "import cycle in the core: " + " -> ".join(cycle)


def test_the_core_list_is_read_from_the_package() -> None:
    core = core_modules()
    assert {"marrakech", "marrakech.state", "marrakech.luck", "marrakech.outcome"} <= set(core)
    assert "marrakech.cli" not in core and not any(name.count(".") > 1 for name in core)


def _web_modules() -> dict[str, Path]:
    return {name: path for name, path in modules().items() if name.startswith("marrakech.web")}


def test_the_web_imports_itself_in_one_direction() -> None:
    # Imports named only for annotations count too: a circle of types is still a circle
    # a reader must follow (room -> rooms -> cluster -> room, before issue 22).
    web = set(_web_modules())
    edges: dict[str, set[str]] = defaultdict(set)
    for found in all_imports():
        importer, imported = found.importer, found.imported
        if importer in web and imported in web and importer != imported:
            if not importer.startswith(imported + "."):  # a module and its own package
                edges[importer].add(imported)
    cycle = _cycle(edges)
    assert not cycle, "import cycle in the web: " + " -> ".join(cycle)


#: The most lines a Python file of the web may have (issue 22: "no file over ~600").
MAX_WEB_LINES = 650


def test_no_web_module_is_too_long_to_read() -> None:
    long = {
        name: lines
        for name, path in _web_modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_WEB_LINES
    }
    assert not long, f"split these web modules (over {MAX_WEB_LINES} lines): {long}"


#: Private names of other projects the web uses, each with why.
THIRD_PARTY_PRIVATE = {
    # Alembic's own commands step through revisions this way; it lets the migrations
    # run inside the transaction (and PostgreSQL's advisory lock) the store holds.
    "script._upgrade_revs",
}


def test_the_web_calls_nothing_private_of_another_object() -> None:
    """``other._name`` reaches into another object's insides (``rooms.py`` called
    ``room._accept``); only ``self``, ``cls`` and an object a class method just built
    (``store = cls(...)``) may use their private names, and ``os._exit`` is the
    standard library's."""
    found = []
    for name, path in _web_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own_names = {"self", "cls", "os"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                called = node.value.func
                if isinstance(called, ast.Name) and called.id == "cls":
                    own_names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            private = node.attr.startswith("_") and not node.attr.startswith("__")
            owner = node.value
            own = isinstance(owner, ast.Name) and owner.id in own_names
            if private and not own and ast.unparse(node) not in THIRD_PARTY_PRIVATE:
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not found, "private names used from outside:\n" + "\n".join(found)


def _js_edges(sources: dict[str, str]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for found in js_imports(sources):
        edges[found.importer].add(found.imported)
    return edges


def test_the_page_imports_itself_in_one_direction() -> None:
    # Run-time imports: a JSDoc `import("./x.js").Type` names a type and loads nothing.
    cycle = _cycle(_js_edges(js_sources()))
    assert not cycle, "import circle in the page: " + " -> ".join(cycle)


def test_every_page_import_respects_the_layers() -> None:
    sources = js_sources()
    layers = {name: js_layer(name, text) for name, text in sources.items()}
    assert layers["dom.js"] == "shared" and layers["game/state.js"] == "model"
    assert layers["game/controls.js"] == "view" and layers["game/controller.js"] == "controller"
    assert layers["game.js"] == layers["learn/page.js"] == layers["lobby/form.js"] == "page"
    assert set(NAMED) <= set(sources), "a module named in tests/page_layers.py is gone"
    wrong = layer_breaks(sources)
    assert not wrong, "page imports against the layers:\n" + "\n".join(wrong)


def test_the_page_checks_catch_a_circle_and_a_view_importing_a_view() -> None:
    sources = {
        "dom.js": "export function h() {}\n",
        "game.js": 'import { renderControls } from "./game/controls.js";\n'
        "export function mountGame() {}\n",
        "game/controls.js": 'import {\n  h,\n} from "../dom.js";\n'
        'import { renderStatus } from "./view.js";\n',
        "game/view.js": '/** @typedef {import("./controls.js").X} X */\n'
        'import * as c from "./controls.js";\n',
        "game/controller.js": 'export { renderStatus } from "./view.js";\nimport "../game.js";\n',
    }
    edges = _js_edges(sources)
    assert edges["game/controls.js"] == {"dom.js", "game/view.js"}
    assert edges["game/view.js"] == {"game/controls.js"}  # the JSDoc type is no import
    assert _cycle(edges) == ["game/controls.js", "game/view.js", "game/controls.js"]
    assert layer_breaks(sources) == [
        "game/controls.js:4 (view) imports game/view.js (view)",
        "game/view.js:2 (view) imports game/controls.js (view)",
        "game/controller.js:2 (controller) imports game.js (page)",
    ]
    # Without the views' imports of each other and the controller's of the page: none.
    sources["game/controls.js"] = 'import { h } from "../dom.js";\n'
    sources["game/view.js"] = ""
    sources["game/controller.js"] = 'export { renderStatus } from "./view.js";\n'
    assert _cycle(_js_edges(sources)) == [] and layer_breaks(sources) == []
