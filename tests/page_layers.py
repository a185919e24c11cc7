"""The page's layers (``web/static/js``), read from its files: which module belongs to which
layer, and what each one imports at run time (its ``import ... from "..."`` lines).

docs/architecture.md ("Inside the page") draws the same picture in words. A module is
placed by where it lives and what it exports; only the split pages' views and
controllers, and the few models other pages read, are named here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from tests.layers import PACKAGE

#: The page's modules, served as they are (no build step).
JS_ROOT = PACKAGE / "web" / "static" / "js"

#: From the bottom. A module imports modules of a lower layer, or of its own layer where
#: ``SAME_LAYER`` allows it.
PAGE_RANKS: dict[str, int] = {
    "shared": 0,  # directly in js/ and mounting nothing: dom, i18n, api, board, panels...
    "model": 1,  # a page's state and sentences, no drawing (other pages may read them)
    "view": 2,  # draws one part of a split page; calls its controller through the context
    "controller": 3,  # owns what a split page sends and redraws; wires its views
    "page": 4,  # a page's entry (it exports mount...) and the rest of its folder
    "app": 5,  # app.js: the route, the top bar
}

#: Which layers may import their own: views never import each other (each gets the page's
#: context and calls ``ctx.ctrl``), a controller only its own page's.
SAME_LAYER = {"shared", "model", "controller", "page"}

#: The pages split into views and a controller (lila's ``ui/round`` is the model), and the
#: models other pages read; every other module of a page's folder is of the ``page`` layer.
NAMED: dict[str, str] = {
    "game/state.js": "model",
    "game/format.js": "model",
    "game/pointer.js": "model",
    "lobby/lines.js": "model",
    "game/layout.js": "view",
    "game/view.js": "view",
    "game/controls.js": "view",
    "game/seats.js": "view",
    "game/meta.js": "view",
    "game/reminders.js": "view",
    "game/dialogs.js": "view",
    "game/chat.js": "view",
    "replay/view.js": "view",
    "game/controller.js": "controller",
    "game/input.js": "controller",
    "game/dispatch.js": "controller",
    "game/connection.js": "controller",
    "replay/player.js": "controller",
}

# A static import or re-export: `import {a, b} from "./x.js"` (over several lines too),
# `import * as x from`, `export {a} from`, `import "./x.js"`. JSDoc's `import("./x.js")`
# names a type and never runs: it does not match.
_IMPORT = re.compile(
    r"""^(?:import|export)\s+(?:[\w$*\s{},]+?\s+from\s+)?["']([^"']+)["']""", re.MULTILINE
)
_MOUNTS = re.compile(r"^export (?:async )?function mount[A-Z]", re.MULTILINE)


@dataclass(frozen=True)
class JsImport:
    importer: str
    imported: str
    line: int


def js_sources() -> dict[str, str]:
    """Every module of the page by its path under ``js/`` (``game/controls.js``)."""
    return {
        path.relative_to(JS_ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(JS_ROOT.rglob("*.js"))
    }


def js_imports(sources: dict[str, str]) -> list[JsImport]:
    """The run-time imports of ``sources``, each resolved to a path under ``js/``."""
    found = []
    for name, text in sources.items():
        for match in _IMPORT.finditer(text):
            target = match.group(1)
            if not target.startswith("."):
                raise AssertionError(f"{name}: {target!r} is not a file of the page")
            joined = PurePosixPath(name).parent / target
            parts: list[str] = []
            for part in joined.parts:
                if part == "..":
                    if not parts:
                        raise AssertionError(f"{name}: {target!r} leaves js/")
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            line = text.count("\n", 0, match.start()) + 1
            found.append(JsImport(name, "/".join(parts), line))
    return found


def page_of(name: str) -> str:
    """The page a module belongs to: its folder, or its own name directly in ``js/``."""
    path = PurePosixPath(name)
    return path.parts[0] if len(path.parts) > 1 else path.stem


def js_layer(name: str, text: str) -> str:
    """The layer of module ``name`` (its path under ``js/``) whose source is ``text``."""
    if name in NAMED:
        return NAMED[name]
    if name == "app.js":
        return "app"
    if "/" in name or _MOUNTS.search(text):
        return "page"
    return "shared"


def layer_breaks(sources: dict[str, str]) -> list[str]:
    """Each import of ``sources`` that goes against the layers, in words."""
    layers = {name: js_layer(name, text) for name, text in sources.items()}
    wrong = []
    for found in js_imports(sources):
        if found.imported not in layers:
            wrong.append(f"{found.importer}:{found.line} imports {found.imported}, not a file")
            continue
        high, low = layers[found.importer], layers[found.imported]
        same_page = page_of(found.importer) == page_of(found.imported)
        if PAGE_RANKS[low] < PAGE_RANKS[high]:
            # A view or controller reaches down to shared modules and models only, or
            # to its own page's views.
            if low in {"view", "controller"} and not same_page:
                wrong.append(f"{found.importer}:{found.line} imports another page's {low}")
            continue
        if low == high and high in SAME_LAYER and (high != "controller" or same_page):
            continue
        wrong.append(f"{found.importer}:{found.line} ({high}) imports {found.imported} ({low})")
    return wrong
